"""JupyterLab as a learner meets it (`make lab`) and as a teacher does (`make lab-teacher`).

A real JupyterLab runs on a copy of `notebooks/` (free port, token, timeout, always stopped;
see `lab_server.py`); headless Chrome/Chromium (tests/chromium.py) opens a chapter in it.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import chromium
import lab_server
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
#: A chapter with widgets and a deliberate error.
CHAPTER = "04_three_matrices.ipynb"


def _copy_notebooks(tmp_path: Path) -> Path:
    copy = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, copy, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return copy


def _same_files(copy: Path) -> list[str]:
    return [p.name for p in sorted(copy.iterdir())
            if p.is_file() and p.read_bytes() != (NOTEBOOKS / p.name).read_bytes()]


# ------------------------------------------------------------------------- without a browser


def test_saving_through_jupytext_rewrites_nothing(tmp_path):
    """JupyterLab saves through jupytext's contents manager; a save writes both files of the
    pair exactly as committed (no format_version added, YAML wrapped as committed)."""
    from jupytext.sync_contentsmanager import TextFileContentsManager

    copy = _copy_notebooks(tmp_path)
    for ipynb in copy.glob("*.ipynb"):  # as a checkout may leave them: the .ipynb newer
        os.utime(ipynb, (time.time() + 10, time.time() + 10))
    manager = TextFileContentsManager(root_dir=str(copy))
    for ipynb in CHAPTERS:
        before = (copy / ipynb.with_suffix(".md").name).stat().st_mtime_ns
        manager.save(manager.get(ipynb.name, content=True), ipynb.name)
        assert (copy / ipynb.with_suffix(".md").name).stat().st_mtime_ns >= before
    assert _same_files(copy) == [], "保存で書き換わったファイルがあります(make sync で .md を整えてください)"


@pytest.mark.parametrize("ipynb", CHAPTERS, ids=lambda p: p.stem)
def test_widget_outputs_carry_a_picture(ipynb):
    """Before its cell runs, a widget cannot be shown: the saved output has a PNG beside it."""
    nb = nbformat.read(ipynb, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if WIDGET_MIME in out.get("data", {}):
                assert out.data["image/png"], f"{ipynb.name}: ウィジェットの出力に画像がありません"
                assert not out.data["text/plain"].startswith("VBox("), out.data["text/plain"]
                assert out.metadata["image/png"]["width"] > 0


def test_deliberate_errors_show_only_the_message():
    """The chapters' demonstrated errors come from helpers: one line, no traceback."""
    seen = 0
    for ipynb in CHAPTERS:
        for cell in nbformat.read(ipynb, as_version=4).cells:
            for out in cell.get("outputs", []):
                if out.output_type == "error":
                    seen += 1
                    assert len(out.traceback) == 1, f"{ipynb.name}: {len(out.traceback)} 行の traceback"
                    assert out.evalue in out.traceback[0]
    assert seen >= 1


# ------------------------------------------------------------------------------ in a browser


def _open(browser, lab, name: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(lab.url(f"lab/tree/{name}"), timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(".lm-MenuBar-itemLabel >> text=Kernel", timeout=60_000)
    return page


def _nbgrader_ui(page) -> dict[str, bool]:
    menus = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
    tabs = page.locator(".lm-TabBar-tab").evaluate_all("els => els.map(e => e.title || '')")
    toolbar = " ".join(page.locator(".jp-NotebookPanel-toolbar").all_inner_texts())
    return {"menu": "Nbgrader" in menus, "validate": "Validate" in toolbar,
            "create_assignment": any("Create Assignment" in t for t in tabs)}


@pytest.fixture(scope="module")
def browser():
    try:
        with lab_server.browser() as b:
            yield b
    except chromium.Missing as missing:  # the same one line as `make test`'s browser step
        pytest.fail(str(missing), pytrace=False)


def test_learner_lab(browser, tmp_path):
    copy = _copy_notebooks(tmp_path)
    with lab_server.running(copy) as lab:
        page = _open(browser, lab, CHAPTER)
        # A widget cell shows its picture before anything runs, never the widget's text repr.
        page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        assert not any(re.search(r"VBox\(|HBox\(|FloatSlider\(", t) for t in outputs)
        widget_cells = sum(WIDGET_MIME in o.get("data", {})
                           for c in nbformat.read(copy / CHAPTER, as_version=4).cells
                           for o in c.get("outputs", []))
        pictures = page.locator(".jp-OutputArea-output[data-mime-type='image/png'] img").count()
        assert widget_cells >= 1 and pictures >= widget_cells
        # nbgrader's authoring UI is off for learners.
        assert _nbgrader_ui(page) == {"menu": False, "validate": False, "create_assignment": False}
        # Open, save: nothing changes on disk.
        saved_at = (copy / CHAPTER).stat().st_mtime_ns
        page.locator(".jp-Notebook").first.click()
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 60
        while (copy / CHAPTER).stat().st_mtime_ns == saved_at and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (copy / CHAPTER).stat().st_mtime_ns != saved_at, "保存されませんでした"
        time.sleep(1)  # the paired .md is written right after the .ipynb
        assert _same_files(copy) == []


def test_teacher_lab_has_nbgrader(browser, tmp_path):
    copy = _copy_notebooks(tmp_path)
    with lab_server.running(copy, teacher=True) as lab:
        page = _open(browser, lab, CHAPTER)
        page.wait_for_selector(".lm-MenuBar-itemLabel >> text=Nbgrader", timeout=60_000)
        assert _nbgrader_ui(page) == {"menu": True, "validate": True, "create_assignment": True}
