"""JupyterLab as a learner meets it (`make lab`) and as a teacher does (`make lab-teacher`).

A real JupyterLab runs on a copy of `notebooks/` (free port, token, timeout, always stopped;
see `lab_server.py`); headless Chrome/Chromium (tests/chromium.py) opens a chapter in it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import chapters
import chromium
import lab_server
import nbformat
import pytest
from explorables import check_numbers, class_for, explorer_for, move_every_control, shown

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = [NOTEBOOKS / f"{slug}.ipynb" for slug in chapters.slugs()]
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


FIRST_PICTURE = 'class="qkv-first-picture"'


def first_pictures(nb) -> list[str]:
    """The saved first pictures of a chapter's explorables (book/scripts/explorable_pictures.py)."""
    return [out.data["text/html"] for cell in nb.cells for out in cell.get("outputs", [])
            if FIRST_PICTURE in out.get("data", {}).get("text/html", "")]


@pytest.mark.parametrize("ipynb", CHAPTERS, ids=lambda p: p.stem)
def test_explorable_outputs_are_their_first_picture(ipynb):
    """Before its cell runs, an explorable cannot be shown: the saved output is its first
    picture, as images with a Japanese text that states its numbers."""
    nb = nbformat.read(ipynb, as_version=4)
    explorer_cells = [c for c in nb.cells if c.cell_type == "code" and "helpers.widgets." in c.source]
    pictures = first_pictures(nb)
    assert len(pictures) == len(explorer_cells), ipynb.name
    for picture in pictures:
        assert picture.count('<img src="data:image/svg+xml;base64,') >= 1, ipynb.name
        assert re.search(r"<p>[^<]*[\u3040-\u30ff\u4e00-\u9fff][^<]*\d\.\d\d", picture), (
            f"{ipynb.name}: 最初の図の説明が数を言っていません")


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
        # An explorable's cell shows its first picture before anything runs, never its text repr.
        page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
        outputs = page.locator(".jp-OutputArea-output").all_inner_texts()
        assert not any(re.search(r"VBox\(|HBox\(|Explorer\(", t) for t in outputs)
        saved = len(first_pictures(nbformat.read(copy / CHAPTER, as_version=4)))
        pictures = page.locator(".jp-OutputArea-output[data-mime-type='text/html'] .qkv-first-picture").count()
        assert saved >= 1 and pictures == saved
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


# ------------------------------------------------------------------ explorables in a real Lab


def _run_new_cell(page, code: str) -> str:
    """Add a cell at the end of the notebook, run it, return what it printed."""
    page.locator(".jp-Notebook .jp-Cell").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.type(code)
    page.keyboard.press("Control+Enter")  # run in place: no new cell below
    cell = page.locator(".jp-Notebook .jp-CodeCell").last
    cell.locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    return cell.locator(".jp-OutputArea-output").first.inner_text()


#: The chapters whose explorables are tried end to end in JupyterLab: the search counter's two
#: sliders (and dragging its question), the scaling experiment's slider over a list and checkbox.
LAB_EXPLORABLES = ["02_library_search.ipynb", "06_attention.ipynb"]


@pytest.fixture(scope="module")
def explorables_lab(tmp_path_factory):
    """One learner's JupyterLab for the explorables' chapters (a server start is several seconds)."""
    with lab_server.running(_copy_notebooks(tmp_path_factory.mktemp("explorables"))) as lab:
        yield lab


@pytest.mark.parametrize("name", LAB_EXPLORABLES)
def test_explorables_in_a_real_lab(browser, explorables_lab, name):
    """Run All; every control of every explorable moves its picture to numpy's numbers (picture →
    Python: the kernel's traits follow); a trait set in a new cell moves the picture (Python →
    picture); saved and reopened with a new kernel, the explorables come back, and again after a
    save before any Run All (their state is not live then); no console error."""
    lab = explorables_lab
    page = _open(browser, lab, f"{name}?reset")  # ?reset: no other chapter restored beside it
    errors, outside = [], []
    # Lab looks up every link in a rendered Markdown cell; the chapters' glossary links point
    # outside the folder it serves (../book/), a known limit of their own, not an explorable's
    # error: those lookups, and the one console line and rejection each causes, are set apart.
    page.on("response", lambda r: (outside if "/api/contents/book/" in r.url else errors).append(
        f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    lab_server.run_all(lab, page, name)
    page.wait_for_selector(".jp-OutputArea-output .qkv-ex", timeout=120_000)
    page.wait_for_selector(".jp-Notebook.jp-mod-commandMode", timeout=60_000)
    explorables = page.locator(".jp-OutputArea-output .qkv-ex")
    count = explorables.count()
    assert count >= 1
    for i in range(count):
        ex = explorables.nth(i)
        check_numbers(ex, f"{name} の図 {i}")
        move_every_control(page, ex, f"{name} の図 {i}")
    # picture → Python: the kernel's explorers hold what the page shows
    last = explorables.nth(count - 1)
    state, _, _ = shown(last)
    controls = class_for(state).control_traits()
    printed = _run_new_cell(page, "import json\nexplorers = [v for v in Out.values() "
                                  "if isinstance(v, helpers.widgets.Explorable)]\n"
                                  f"print(json.dumps({{t: getattr(explorers[-1], t) for t in {list(controls)}}}))")
    assert json.loads(printed) == {t: state[t] for t in controls}, (printed, state)
    trait = next(iter(controls))
    # Python → picture
    other = explorer_for(state)
    new_value = _another_value(controls[trait], other, trait, state[trait])
    _run_new_cell(page, f"explorers[-1].{trait} = {new_value!r}\nprint('ok')")
    page.wait_for_function("([el, t, v]) => JSON.parse(el.dataset.qkvState)[t] === v",
                           arg=[last.element_handle(), trait, new_value], timeout=10_000)
    check_numbers(last, f"{name}: Python から {trait} = {new_value!r} にしたあと")
    # saved, reopened with a new kernel: restored from the notebook, never "model not found"
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)
    page.goto("about:blank")  # leave Lab first: its polls of a shut-down kernel would 404
    lab_server.end_sessions(lab)
    # Saved again before Run All, the explorables are not live (the pre-save hook keeps their state):
    # tried on the first chapter only, the hook is the same for every chapter.
    rounds = ["保存して開き直したあと", "開き直して、実行せずにもう一度保存したあと"]
    rounds = rounds if name == LAB_EXPLORABLES[0] else rounds[:1]
    for when, save_again in zip(rounds, [True] * (len(rounds) - 1) + [False], strict=True):
        page.goto(lab.url(f"lab/tree/{name}?reset"), timeout=120_000)
        try:
            page.wait_for_selector(".jp-OutputArea-output .qkv-ex", timeout=60_000)
        except Exception:
            pytest.fail(f"{name}: {when}、図が出ません: {page.locator('.jp-OutputArea-output').all_inner_texts()[:3]}")
        assert page.locator(".jp-OutputArea-output .qkv-ex").count() == count, when
        assert "model not found" not in page.locator(".jp-Notebook").inner_text(), when
        if save_again:
            page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first.click()  # focus, no link
            with page.expect_response(lambda r: "/api/contents/" in r.url and r.request.method == "PUT"):
                page.keyboard.press("Control+s")
            page.goto("about:blank")
            lab_server.end_sessions(lab)
    lookups = len(outside)
    errors = [e for e in errors if not (lookups and ("404 (Not Found)" in e or e == "Invalid response: 404 Not Found"))]
    page.close()
    assert not errors, errors


def _another_value(trait, explorer, name: str, current):
    from helpers.widgets._base import Choice, Flag

    if isinstance(trait, Flag):
        return not current
    if isinstance(trait, Choice):
        return next(v for v in getattr(explorer, trait.options) if v != current)
    return trait.lo if current != trait.lo else trait.hi
