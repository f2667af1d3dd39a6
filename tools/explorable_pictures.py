"""Run the explorables' ES modules in Node: their numbers for tests, their first picture for
the saved notebooks.

A notebook opened before any kernel has run has no widget to show. `make sync`
(tools/execute_notebooks.py) saves, in place of each explorable, its first picture, drawn
by the same module the browser runs, as images with a Japanese text that states its numbers. JupyterLab's sanitizer keeps an
`<img>` with a data URL but strips inline SVG, and an image cannot read the page's CSS variables,
so the colours are written in (the light theme's).
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import html
import json
import re
import select
import shutil
import subprocess
import tempfile
from pathlib import Path

#: One Node process per Python process, started at the first call and reused by the next ones
#: (the book's tests call it a few hundred times; a Node start each cost more than the call).
#: It reads one request a line (a module file, a function, its cases) and answers one line.
#: Each module source is its own file, named by its text: imported once, whoever asks again.
_RUNNER = """
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
console.log = console.error; // an answer is one line of stdout: a module's log goes to stderr
const fix = (k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
for await (const line of createInterface({ input: process.stdin })) {
  const input = JSON.parse(line);
  let out;
  try {
    const mod = await import(pathToFileURL(input.file).href);
    out = input.cases.map((args) => {
      try { return { ok: mod[input.function](...args) }; } catch (e) { return { error: String(e.message) }; }
    });
  } catch (e) {
    out = { failed: String(e.stack ?? e) };
  }
  process.stdout.write(JSON.stringify(out, fix) + "\\n");
}
"""
_node: dict = {}
ANSWER_TIMEOUT_S = 120


def node() -> str:
    found = shutil.which("node")
    if not found:
        raise RuntimeError("Node.js(node)が見つかりません。README の手順で入れてください。")
    return found


def _runner() -> tuple[subprocess.Popen, Path]:
    """The running Node process and its folder of module files (started again if it died)."""
    if _node.get("process") is None or _node["process"].poll() is not None:
        folder = Path(tempfile.mkdtemp(prefix="qkv-node-"))
        (folder / "run.mjs").write_text(_RUNNER, encoding="utf-8")
        process = subprocess.Popen([node(), "run.mjs"], cwd=folder, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, encoding="utf-8")
        _node.update(process=process, folder=folder)
        atexit.register(_stop, process, folder)
    return _node["process"], _node["folder"]


def _stop(process: subprocess.Popen, folder: Path) -> None:
    if process.poll() is None:
        process.stdin.close()
        process.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)


def run_module(source: str, function: str, cases: list[list], default=None) -> list[dict]:
    """Call `function(*args)` of the module `source` for every `args` in `cases`, in Node.

    Each result is {"ok": value} or {"error": message}; ±Infinity and NaN come back as strings.
    `default` turns values JSON cannot hold (numpy arrays) into ones it can."""
    process, folder = _runner()
    file = folder / f"m{hashlib.sha256(source.encode()).hexdigest()[:20]}.mjs"
    if not file.exists():
        file.write_text(source, encoding="utf-8")
    request = json.dumps({"file": str(file), "function": function, "cases": cases}, default=default)
    process.stdin.write(request + "\n")
    process.stdin.flush()
    # A module that never returns must not hang a test or `make sync` (one start per call had a
    # 120-s timeout): the answer is one line, so nothing is buffered before it and select sees it.
    if not select.select([process.stdout], [], [], ANSWER_TIMEOUT_S)[0]:
        process.kill()
        _node.clear()
        raise RuntimeError(f"Node が {ANSWER_TIMEOUT_S} 秒たっても {function} に答えませんでした")
    answer = process.stdout.readline()
    if not answer:
        _node.clear()
        raise RuntimeError(f"Node が終了しました(終了コード {process.wait()})")
    out = json.loads(answer)
    if isinstance(out, dict):
        raise RuntimeError(out["failed"])
    return out


def light_colours(css: str) -> dict[str, str]:
    """`--qkv-*` variables with the colour they take on a light page: the last colour literal of
    each definition (after the fallbacks of JupyterLab's and the book's own variables)."""
    colours = {}
    for name, value in re.findall(r"(--qkv-[a-z]+):\s*([^;]+);", css):
        literal = re.findall(r"#[0-9A-Fa-f]{3,8}\b", value)
        if literal and name not in colours:
            colours[name] = literal[-1]
    return colours


def standalone(svg: str, colours: dict[str, str]) -> str:
    """One panel as a file of its own: colours written in, a font family named."""
    svg = re.sub(r"var\((--qkv-[a-z]+)\)", lambda m: colours.get(m[1], "#222222"), svg)
    return svg.replace("<svg ", '<svg font-family="sans-serif" ', 1)


def first_pictures(module_source: str, states: list[dict], css: str) -> list[str]:
    """For each state, the HTML of its picture as images (one per panel) with the alt text."""
    colours = light_colours(css)
    results = run_module(module_source, "picture", [[s] for s in states])
    pictures = []
    for result in results:
        if "error" in result:
            raise RuntimeError(result["error"])
        picture = result["ok"]
        alt = html.escape(picture["alt"])
        images = []
        for panel in picture["panels"]:
            data = base64.b64encode(standalone(panel, colours).encode()).decode("ascii")
            width = re.search(r'viewBox="0 0 ([\d.]+)', panel)[1]
            images.append(f'<img src="data:image/svg+xml;base64,{data}" width="{width}" alt="">')
        pictures.append(f'<div class="qkv-first-picture" role="img" aria-label="{alt}">'
                        f'{"".join(images)}<p>{alt}</p></div>')
    return pictures
