"""Shared by the explorables' tests: run their ES modules in Node, and compare numbers with numpy.

`run_module(source, function, cases)` imports one module (as JupyterLab gets it, shared modules
inlined) in Node and calls an exported function on each case; `same_numbers` compares what the
browser computed with what numpy computes, key by key, within floating-point noise.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import helpers.widgets  # noqa: F401  (registers every explorable)
from helpers.widgets._base import Choice, Explorable, Flag, Number

_RUNNER = """
import * as mod from "./module.mjs";
const input = JSON.parse(await new Promise((ok) => {
  let text = ""; process.stdin.on("data", (c) => (text += c)); process.stdin.on("end", () => ok(text));
}));
const fix = (v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
const out = input.cases.map((args) => {
  try { return { ok: mod[input.function](...args) }; } catch (e) { return { error: String(e.message) }; }
});
process.stdout.write(JSON.stringify(out, (k, v) => fix(v)));
"""


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js(node)が見つかりません。README の手順で入れてください。"
    return found


def run_module(source: str, function: str, cases: list[list]) -> list[dict]:
    """Call `function(*args)` of the module `source` for every `args` in `cases`, in Node.

    Each result is {"ok": value} or {"error": message}; ±Infinity and NaN come back as strings."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "module.mjs").write_text(source, encoding="utf-8")
        Path(tmp, "run.mjs").write_text(_RUNNER, encoding="utf-8")
        payload = json.dumps({"function": function, "cases": cases}, default=_jsonable)
        done = subprocess.run([node(), "run.mjs"], cwd=tmp, input=payload, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)


def _floats(value):
    if isinstance(value, str) and value in ("Infinity", "-Infinity", "NaN"):
        return float(value.replace("Infinity", "inf").replace("NaN", "nan"))
    return value


def same_numbers(page, numpy, path: str = "", rtol: float = 1e-9, atol: float = 1e-12) -> list[str]:
    """Where `page` (JSON from the browser) and `numpy` (Python/numpy values) differ: [] if nowhere."""
    numpy = numpy.tolist() if isinstance(numpy, np.ndarray) else numpy
    numpy = numpy.item() if isinstance(numpy, np.generic) else numpy
    page = _floats(page)
    if isinstance(numpy, dict):
        if not isinstance(page, dict) or set(page) != set(numpy):
            return [f"{path}: keys {sorted(page) if isinstance(page, dict) else page} ≠ {sorted(numpy)}"]
        return [d for k in numpy for d in same_numbers(page[k], numpy[k], f"{path}.{k}", rtol, atol)]
    if isinstance(numpy, (list, tuple)):
        if not isinstance(page, list) or len(page) != len(numpy):
            return [f"{path}: {page!r} ≠ {numpy!r}"]
        return [d for i, (a, b) in enumerate(zip(page, numpy, strict=True))
                for d in same_numbers(a, b, f"{path}[{i}]", rtol, atol)]
    if isinstance(numpy, bool) or isinstance(numpy, str) or numpy is None:
        return [] if page == numpy else [f"{path}: {page!r} ≠ {numpy!r}"]
    if isinstance(numpy, (int, float)):
        if not isinstance(page, (int, float)) or isinstance(page, bool):
            return [f"{path}: {page!r} ≠ {numpy!r}"]
        if math.isnan(numpy) or math.isnan(page):
            return [] if math.isnan(numpy) and math.isnan(page) else [f"{path}: {page} ≠ {numpy}"]
        ok = math.isclose(page, numpy, rel_tol=rtol, abs_tol=atol) or page == numpy
        return [] if ok else [f"{path}: {page} ≠ {numpy}"]
    return [f"{path}: cannot compare {type(numpy).__name__}"]


def random_controls(cls: type[Explorable], explorer: Explorable, rng: np.random.Generator) -> dict:
    """A random setting of every control of `explorer` (numbers anywhere in their range)."""
    values = {}
    for name, trait in cls.control_traits().items():
        if isinstance(trait, Number):
            values[name] = float(rng.uniform(trait.lo, trait.hi))
        elif isinstance(trait, Flag):
            values[name] = bool(rng.integers(2))
        elif isinstance(trait, Choice):
            options = getattr(explorer, trait.options)
            values[name] = options[int(rng.integers(len(options)))]
    return values


def explorable_classes() -> dict[str, type[Explorable]]:
    return dict(sorted(Explorable.registry.items()))
