"""Write each notebooks/NN_slug.md (MyST) to its paired .ipynb and execute it on a fresh kernel.

    python book/scripts/execute_notebooks.py [notebooks/01_one_vector.md ...]

With no arguments, every chapter is done. The MyST file is the source; the .ipynb is rebuilt from
it, so outputs always belong to today's code. The explorables' state is stored in the notebook's
metadata, as JupyterLab stores it: a chapter reopened with a new kernel restores each explorable
from there (it runs in the browser) instead of saying "model not found". Model ids are derived
from the cell ids and no timing metadata is recorded, so two runs give the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

ROOT = Path(__file__).resolve().parents[2]


def chapter_sources() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))


def stable_cell_ids(nb) -> None:
    """Cell ids from each cell's own text, so re-running an unchanged chapter rewrites nothing
    (jupytext would draw new random ids on every read)."""
    seen: dict[str, int] = {}
    for cell in nb.cells:
        digest = hashlib.sha1(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def stable_widget_ids(nb) -> None:
    """Widget models get random ids; rename each after the cell that shows it (and its child
    models, such as the layout, after their parent), everywhere they are named, so the file is
    identical between runs. Models no output shows are dropped from the saved state."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    names: dict[str, str] = {}

    def rename(old: str, new: str) -> None:
        if old in names:
            return
        names[old] = new
        for k, child in enumerate(re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state.get(old, {})))):
            rename(child, hashlib.sha1(f"{new}/{k}".encode()).hexdigest()[:32])

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view:
                rename(view["model_id"], hashlib.sha1(cell.id.encode()).hexdigest()[:32])
                view["model_id"] = names[view["model_id"]]
    if not state:
        nb.metadata.pop("widgets", None)
        return
    kept = {names[old]: model for old, model in state.items() if old in names}
    text = json.dumps(kept, sort_keys=True)
    text = re.sub(r"IPY_MODEL_([0-9a-f]+)", lambda m: f"IPY_MODEL_{names.get(m[1], m[1])}", text)
    nb.metadata["widgets"] = {WIDGET_STATE: {"state": json.loads(text), "version_major": 2,
                                             "version_minor": 0}}


def add_first_pictures(nb) -> None:
    """Beside each explorable's widget output, its first picture (book/scripts/explorable_pictures.py):
    what JupyterLab shows before any kernel has run, drawn by the module the browser runs."""
    from explorable_pictures import first_pictures

    from helpers.widgets._base import module_source, stylesheet

    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            model = state.get(view["model_id"], {}).get("state", {}) if view else {}
            owner = model.get("_anywidget_id", "")
            if not owner.startswith("helpers.widgets."):
                continue
            module = owner.split(".")[-2]  # helpers.widgets.<module>.<Class>
            (picture,) = first_pictures(module_source(module), [model], stylesheet())
            out.data["text/html"] = picture


def is_check_cell(cell) -> bool:
    """An nbgrader test cell: the answer check that follows an exercise."""
    return cell.cell_type == "code" and bool(cell.metadata.get("nbgrader", {}).get("grade"))


def clear_check_outputs(nb) -> None:
    """Keep no output of an answer check: its ✓ line is the answer, and a learner must see it only
    after trying. The cell ran with the others and keeps its execution count (the saved notebook
    is one complete run); only what it printed is dropped. nbval skips these cells' output (tag
    `nbval-ignore-output`), and the book folds it (tag `hide-output`)."""
    for cell in nb.cells:
        if is_check_cell(cell):
            cell.outputs = []


def execute(md: Path) -> Path:
    nb = jupytext.read(md)
    stable_cell_ids(nb)
    nb.metadata.setdefault("jupytext", {})["formats"] = "ipynb,md:myst"
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(md.parent)}},
        store_widget_state=True,
        record_timing=False,
    )
    client.execute()
    # One stream output per cell and stream, however the kernel happened to flush it: the saved
    # file is the same from run to run.
    nb, _ = CoalesceStreamsPreprocessor().preprocess(nb, {})
    clear_check_outputs(nb)
    stable_widget_ids(nb)
    add_first_pictures(nb)
    out = md.with_suffix(".ipynb")
    jupytext.write(nb, out, fmt="ipynb")
    save_as_jupyterlab_does(out)
    return out


def save_as_jupyterlab_does(ipynb: Path) -> None:
    """Save the pair through jupytext's contents manager, the one JupyterLab saves with, so the
    .md is in the exact form a save in `make lab` writes (YAML wrapped as jupytext wraps it) and
    opening and saving a chapter there leaves `git status` clean."""
    from jupytext.sync_contentsmanager import TextFileContentsManager

    os.utime(ipynb.with_suffix(".md"))  # the .md is the source: newer than the fresh .ipynb
    manager = TextFileContentsManager(root_dir=str(ipynb.parent))
    manager.save(manager.get(ipynb.name, content=True), ipynb.name)


def main(argv: list[str]) -> int:
    sources = [Path(a).resolve() for a in argv] or chapter_sources()
    for i, md in enumerate(sources, 1):
        if md.suffix != ".md" or not md.exists():
            print(f"{md}: MyST の .md ファイルを指定してください", file=sys.stderr)
            return 2
        start = time.perf_counter()
        print(f"[{i}/{len(sources)}] {md.name} を実行中…", flush=True)
        out = execute(md)
        print(f"      → {out.relative_to(ROOT)} ({time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
