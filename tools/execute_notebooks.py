"""Write each notebooks/NN_slug.md (MyST) to its paired .ipynb and execute it on a fresh kernel.

    python tools/execute_notebooks.py [notebooks/01_one_vector.md ...]

With no arguments, every chapter is done. The MyST file is the source; the .ipynb is rebuilt from
it, so outputs always belong to today's code. An explorable's saved output is its first picture
(drawn by its own module in Node, tools/explorable_pictures.py), not the widget: a widget
whose model is gone shows JupyterLab's "Error displaying widget: model not found", and a notebook
opened without running it has no model. Run in JupyterLab, the cell shows the live explorable,
and the learner's configuration saves its state with the notebook, so it comes back when the
chapter is reopened. No timing metadata is recorded, so two runs give the same file.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

ROOT = Path(__file__).resolve().parents[1]


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
#: What JupyterLab writes when it saves a notebook whose widgets are not running: the same block,
#: so that opening a chapter and saving it leaves the file as it was.
EMPTY_WIDGET_STATE = {WIDGET_STATE: {"state": {}, "version_major": 2, "version_minor": 0}}


def first_pictures_for_widgets(nb) -> None:
    """Each explorable's output becomes its first picture, drawn from the state the run left
    (tools/explorable_pictures.py); the widget itself and its state are not kept."""
    from explorable_pictures import first_pictures

    from helpers.widgets.sources import module_source, stylesheet

    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).pop(WIDGET_VIEW, None)
            if view is None:
                continue
            model = state[view["model_id"]]["state"]
            owner = model.get("_anywidget_id", "")
            if not owner.startswith("helpers.widgets."):
                raise RuntimeError(f"{owner or view['model_id']}: 本の図(helpers.widgets)ではないウィジェットです")
            module = owner.split(".")[-2]  # helpers.widgets.<module>.<Class>
            (picture,) = first_pictures(module_source(module), [model], stylesheet())
            out.data["text/html"] = picture
    nb.metadata["widgets"] = EMPTY_WIDGET_STATE


def is_withheld(cell) -> bool:
    """A cell whose output would answer an exercise before the learner has tried: an answer
    check (its ✓ line is the answer) and the cells that reveal the answer right after it
    (「答え合わせ:実際に…」). The chapters tag them `hide-output`, so the book folds them too."""
    return cell.cell_type == "code" and "hide-output" in cell.metadata.get("tags", [])


def clear_withheld_outputs(nb) -> None:
    """Keep no output of a withheld cell: a learner opening the chapter in JupyterLab sees the
    question, not its answer, until they run the cell. The cell ran with the others and keeps its
    execution count (the saved notebook is one complete run); only what it printed is dropped.
    nbval skips these cells' output (tag `nbval-ignore-output`), and the book folds it (tag
    `hide-output`)."""
    for cell in nb.cells:
        if is_withheld(cell):
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
    clear_withheld_outputs(nb)
    first_pictures_for_widgets(nb)
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
