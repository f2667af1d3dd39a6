"""Structure of every chapter: CONTRIBUTING.md's "Adding a chapter" checklist, item by item.

The one list of chapters (book/chapters.yml) and what is derived from it; the MyST/ipynb pair,
clean execution, the four cells of every exercise, a code exercise with hidden tests, grade ids,
the chapter's check module, recap and questions. nbval (run by `make test` on the same .ipynb
files) re-executes them and compares text outputs; these tests check what nbval does not.
"""

import copy
import functools
import importlib
import inspect
import json
import re
from pathlib import Path

import chapters
import jupytext
import pytest
from execute_notebooks import EMPTY_WIDGET_STATE  # what `make sync` writes
from nbgrader.utils import is_grade, is_solution

import helpers
from helpers import _release, checks
from qkv_classroom import answer_spans

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = chapters.chapters()
SOURCES = [c.source for c in CHAPTERS]
IDS = [c.slug for c in CHAPTERS]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def tags(cell):
    return set(cell.metadata.get("tags", []))


@functools.cache
def _parsed(path: Path, fmt: str | None):
    return jupytext.read(path, fmt=fmt)


def read(path: Path, fmt: str | None = None):
    """The notebook at `path`, parsed once per session (the MyST parse is most of this file's
    time): each caller gets its own copy, so no test sees what another changed."""
    return copy.deepcopy(_parsed(path, fmt))


@pytest.fixture(params=SOURCES, ids=IDS)
def pair(request):
    md = request.param
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} がありません: make sync で作ってください"
    return read(md), read(ipynb, fmt="ipynb"), md.stem


def test_file_names_are_ascii():
    assert SOURCES, "notebooks/ に章がありません"
    for p in (ROOT / "notebooks").iterdir():
        assert p.name.isascii(), p.name


def test_pair_has_same_cells(pair):
    md, nb, name = pair
    assert [c.cell_type for c in md.cells] == [c.cell_type for c in nb.cells], name
    for a, b in zip(md.cells, nb.cells, strict=True):
        assert a.source.strip() == b.source.strip(), f"{name}: .md と .ipynb がずれています(make sync)"
        for key in ("tags", "nbgrader", "jupyter", "mystnb"):
            assert a.metadata.get(key) == b.metadata.get(key), f"{name}: metadata {key}"


def test_executed_cleanly(pair):
    _, nb, name = pair
    for cell in code_cells(nb):
        if not cell.source.strip():
            continue
        assert cell.execution_count is not None, f"{name}: 実行されていないセル: {cell.source[:40]}"
        for out in cell.outputs:
            assert not (out.output_type == "stream" and out.name == "stderr"), (
                f"{name}: stderr が出ています(警告?): {out.text[:200]}"
            )
            if out.output_type == "error":
                assert "raises-exception" in tags(cell), f"{name}: 予期しないエラー {out.ename}"
            if WIDGET_MIME in out.get("data", {}):
                assert "nbval-ignore-output" in tags(cell), f"{name}: ウィジェットのセルに nbval-ignore-output を"


def test_demonstrated_errors_are_japanese(pair):
    _, nb, name = pair
    for cell in code_cells(nb):
        if "raises-exception" in tags(cell) and "reader-only" not in tags(cell):  # a stub: see below
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"{name}: raises-exception のセルがエラーを出していません"
            assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", errors[0].evalue), errors[0].evalue


#: Every chapter's first code cell, after its standard-library imports (timeit, ...): `import
#: numpy` and `import helpers` guarded so that a reader without either reads one Japanese sentence
#: naming the missing package and saying what to run (IPython shows what `_render_traceback_`
#: returns instead of a traceback), then the setup that names the oldest helpers the chapter runs
#: with (an older one answers in one Japanese line).
HELPERS_GUARD = re.compile(
    r"try:\n"
    r"    import numpy as np\n"
    r"\n"
    r"    import helpers\n"
    r"except ModuleNotFoundError as missing:\n"
    r"    # .+\n"
    r"    missing\._render_traceback_ = lambda name=missing\.name: \[f\"\{name\}(?P<message>[^\"\n]+)\"\]\n"
    r"    raise\n"
    r"\n"
    r"rng = helpers\.setup\(needs=\"(?P<needs>[0-9.]+)\"\)\Z")


def helpers_guard(md):
    first = code_cells(md)[0].source
    return first, HELPERS_GUARD.search(first)


def test_first_code_cell_sets_up_helpers_or_says_what_to_install(pair):
    md, nb, name = pair
    first, guard = helpers_guard(md)
    assert guard, f"{name}: 最初のコードセルは、ほかの章と同じ helpers の読み込み(try/except と setup(needs=…))で終えます"
    message = guard["message"]
    assert re.search(r"[\u3040-\u30ff]", message) and "%pip install" in message, message
    assert message.count("。") == 1 and message.endswith("。"), f"{name}: 一文で: {message}"
    assert _release(guard["needs"], "needs") <= _release(helpers.__version__, "version"), (
        f"{name}: needs={guard['needs']} は helpers {helpers.__version__} より新しい版です")
    assert code_cells(nb)[0].outputs == [], f"{name}: すべてがそろっていれば、最初のセルは何も表示しません"


def test_every_chapter_guards_helpers_with_the_same_sentence():
    guards = {md.stem: helpers_guard(read(md))[1] for md in SOURCES}
    assert all(guards.values()), [name for name, g in guards.items() if not g]
    assert len({g["message"] for g in guards.values()}) == 1, "章ごとに違う案内文があります"


#: Run before a chapter's first cell in the same kernel: helpers cannot be imported, as in a fresh
#: notebook service; then an installed helpers older than every chapter.
HIDE = """
import sys
class NoHelpers:
    hidden = {hidden!r}
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.hidden:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name.split(".")[0])
sys.meta_path = [f for f in sys.meta_path if type(f).__name__ != "NoHelpers"]
sys.meta_path.insert(0, NoHelpers())
for loaded in [n for n in sys.modules if n.split(".")[0] in NoHelpers.hidden]:
    del sys.modules[loaded]
"""
HIDE_HELPERS = HIDE.format(hidden={"helpers"})
#: numpy missing too (a Jupyter installed alone): it must not have been imported in the kernel yet.
HIDE_NUMPY = HIDE.format(hidden={"helpers", "numpy"})
OLD_HELPERS = """
sys.meta_path = [f for f in sys.meta_path if type(f).__name__ != "NoHelpers"]
import helpers
helpers.__version__ = "0.0.1"
"""


def test_the_first_cell_says_in_one_japanese_line_what_to_run_in_a_kernel():
    """What a reader sees in Jupyter: one line (no traceback, nothing on stderr), with helpers
    missing and with one older than the chapter, for every chapter's own first cell."""
    import nbformat
    from nbclient import NotebookClient

    firsts = {md.stem: code_cells(read(md))[0].source for md in SOURCES}
    cells = [HIDE_NUMPY, *firsts.values()]  # first, before anything imports numpy in this kernel
    for first in firsts.values():
        cells += [HIDE_HELPERS, first, OLD_HELPERS, first]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=120, allow_errors=True).execute()
    for name, cell in zip(firsts, nb.cells[1:len(firsts) + 1], strict=True):
        [shown] = cell.outputs
        plain = re.sub(r"\x1b\[[0-9;]*m", "", "".join(shown.get("traceback", [])))
        assert shown.output_type == "error" and len(shown.traceback) == 1, f"{name} (no numpy): {shown}"
        assert "numpy パッケージが見つからない" in plain and "%pip install" in plain, f"{name} (no numpy): {plain}"
    offset = len(firsts) + 1
    for i, name in enumerate(firsts):
        for cell, case in ((nb.cells[offset + 4 * i + 1], "missing"), (nb.cells[offset + 4 * i + 3], "old")):
            [shown] = cell.outputs  # one output: the error, nothing on stderr
            assert shown.output_type == "error", f"{name} ({case}): {shown}"
            [line] = shown.traceback
            plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
            assert "Traceback" not in plain and "%pip install" in plain, f"{name} ({case}): {plain}"
            expected = "見つからない" if case == "missing" else "入っているのは 0.0.1"
            assert expected in plain, f"{name} ({case}): {plain}"


def nbgrader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def exercises(md) -> list[tuple]:
    """Every exercise as its four cells: (stub, note, solution, test)."""
    return [tuple(md.cells[i - 2:i + 2]) for i, cell in enumerate(md.cells)
            if cell.cell_type == "code" and is_solution(cell)]


def hidden_tests(source: str) -> str:
    """The code between a test cell's BEGIN/END HIDDEN TESTS lines ("" if it has none)."""
    found = re.search(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", source, re.S)
    return found.group(1) if found else ""


def visible_checks(test) -> list[str]:
    """The `helpers.checks.check_*(...)` lines of a test cell, before its hidden tests."""
    visible = test.source.split("### BEGIN HIDDEN TESTS")[0]
    return re.findall(r"^helpers\.checks\.check_\w+\(.*\)$", visible, re.M)


def test_exercises_follow_the_pattern(pair):
    """Each exercise is four cells: stub, note, solution, locked test calling helpers.checks."""
    md, _, name = pair
    found = exercises(md)
    assert len(found) >= 2, f"{name}: 練習問題は 2 つ以上"
    for stub, note, solution, test in found:
        gid = nbgrader(solution).get("grade_id")
        # raises-exception: JupyterLab runs the cell with stop_on_error off, so when the learner's
        # own check in it fails, 「すべてのセルを実行」 goes on to the model answer and its check,
        # as chapter 00 says (the tag does not ask the cell to fail: a stub runs cleanly here)
        assert stub.cell_type == "code" and tags(stub) == {"reader-only", "raises-exception"}, (
            f"{name} {gid}: 解答例の 2 つ前は読者用のひな形のセル(reader-only, raises-exception)")
        assert note.cell_type == "markdown" and tags(note) == {"reader-only"}, (
            f"{name} {gid}: 解答例の直前は reader-only の注意のセル")
        assert "### BEGIN SOLUTION" in solution.source and "### END SOLUTION" in solution.source, gid
        assert solution.metadata.get("jupyter", {}).get("source_hidden"), f"{name} {gid}: 解答は折りたたむ"
        assert "hide-input" in tags(solution), f"{name} {gid}: 本では解答をトグルの中に"
        g = nbgrader(test)
        assert test.cell_type == "code" and is_grade(test), f"{name} {gid}: 解答例のすぐ下は答え合わせのセル"
        assert g["locked"] and g["points"] > 0 and not g["solution"], f"{name} {gid}"
        calls = visible_checks(test)
        assert calls, f"{name} {gid}: 答え合わせのセルは helpers.checks.check_* を呼びます"
        assert stub.source.strip().splitlines()[-1] == f"# {calls[0]}", (
            f"{name} {gid}: ひな形の最後の行は、答え合わせの呼び出しをコメントにした # {calls[0]}")


def test_grade_ids_name_the_chapter(pair):
    """`exNN_<name>` for the solution, `exNN_<name>_test` for its test cell."""
    md, _, name = pair
    for _, _, solution, test in exercises(md):
        gid = nbgrader(solution).get("grade_id", "")
        assert re.fullmatch(rf"ex{name[:2]}_[a-z0-9_]+", gid) and not gid.endswith("_test"), (
            f"{name}: 解答の grade_id は ex{name[:2]}_… にします({gid!r})")
        assert nbgrader(test).get("grade_id") == f"{gid}_test", f"{name}: テストの grade_id は {gid}_test"


def test_a_code_exercise_with_hidden_tests(pair):
    """At least one exercise asks for code (a function); each such test has hidden tests that
    call its check with `hidden=True`, inputs the notebook never shows."""
    md, _, name = pair
    code = [(solution, test) for _, _, solution, test in exercises(md) if "def " in solution.source]
    assert code, f"{name}: 関数を書く練習問題(コードの練習問題)が 1 つ以上必要です"
    for solution, test in code:
        check = visible_checks(test)[0].split("(")[0]
        hidden = hidden_tests(test.source)
        assert f"{check}(" in hidden and "hidden=True" in hidden, (
            f"{name} {nbgrader(solution)['grade_id']}: 隠しテスト(### BEGIN/END HIDDEN TESTS)で "
            f"{check}(..., hidden=True) を呼びます")


def test_the_chapters_checks_live_in_its_check_module(pair):
    """checks/chNN_<slug>.py holds the chapter's checks, re-exported by helpers.checks; a check
    with hidden tests draws their inputs through `_base.hidden_cases`, as every chapter does."""
    md, _, name = pair
    module = importlib.import_module(f"helpers.checks.ch{name}")
    called = {re.match(r"helpers\.checks\.(\w+)", call).group(1)
              for *_, test in exercises(md) for call in visible_checks(test)}
    for check in sorted(called):
        assert check in checks.__all__, f"{name}: helpers.checks が {check} を出していません"
        assert getattr(checks, check).__module__ == module.__name__, (
            f"{name}: {check} は {module.__name__} に置きます")
        if "hidden" in inspect.signature(getattr(checks, check)).parameters:
            assert "_base.hidden_cases(" in inspect.getsource(module), (
                f"{module.__name__}: 隠しテストの入力は _base.hidden_cases で作ります")


def test_no_answer_check_keeps_its_output(pair):
    """A check's ✓ line is the answer: saved nowhere, skipped by nbval, folded in the book."""
    md, ipynb, name = pair
    for cell in code_cells(ipynb):
        if is_grade(cell):
            assert not cell.outputs, (
                f"{name}: 答え合わせのセル {cell.metadata['nbgrader']['grade_id']} に出力が残っています")
            # run with the rest of the chapter (one complete run); only its output is withheld
            assert cell.execution_count is not None, name
            assert {"nbval-ignore-output", "hide-output"} <= tags(cell), name
        if is_solution(cell):
            assert cell.metadata.get("mystnb", {}).get("code_prompt_show") == "答えを見る", name


def output_text(cell) -> str:
    """What a cell's saved outputs show (text, HTML, an image's presence)."""
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", "") if out.output_type == "stream" else "")
        parts += [str(v) if not k.startswith("image/") else f"<{k}>" for k, v in out.get("data", {}).items()]
        parts += out.get("traceback", [])
    return "\n".join(parts)


def test_no_answer_on_the_screen_before_the_learner_acts(pair):
    """From an exercise's question to the learner's own answer, and the cells right after its check
    that reveal the answer (「答え合わせ:実際に計算してみます」), no cell keeps a saved output: a
    learner opening the chapter would read the answer next to the question (chapter 06's
    「重みはどれも 1/7? True」, chapter 00's 「x @ W の形: (1, 3)」, chapter 02's figure).
    They are tagged `hide-output`, which `make sync` saves without output and the book folds."""
    md, ipynb, name = pair
    spans = answer_spans(ipynb.cells)
    assert len(spans) == len(exercises(md)), name
    for gid, span in spans:
        for i in span:
            cell = ipynb.cells[i]
            if cell.cell_type != "code":
                continue
            assert not cell.outputs, (f"{name} {gid}: 問いと答え合わせのあいだのセルに出力が残っています: "
                                      f"{output_text(cell)[:120]!r}")
            if not is_solution(cell) and "reader-only" not in tags(cell):
                assert {"hide-output", "nbval-ignore-output"} <= tags(md.cells[i]), (
                    f"{name} {gid}: 答えを見せるセルには hide-output と nbval-ignore-output のタグを")
            if not (is_solution(cell) or is_grade(cell) or "reader-only" in tags(cell)):
                # its code says the answer too (chapter 02's suptitle, chapter 06's 「重みはどれも 1/7?」):
                # JupyterLab shows its first line only, until the learner opens or runs it
                assert md.cells[i].metadata.get("jupyter", {}).get("source_hidden"), (
                    f"{name} {gid}: 答えを見せるセルのコードは折りたたみます(jupyter.source_hidden)")


def test_run_all_is_explained_before_the_first_exercise(pair):
    """Run All runs the folded model answers too, so the checks show ✓ for work the learner did
    not do: one reader-only line before the chapter's first exercise says so, with the menu
    names the learner sees."""
    md, _, name = pair
    first_stub = md.cells.index(exercises(md)[0][0])
    notes = [c for c in md.cells[:first_stub] if c.cell_type == "markdown" and "reader-only" in tags(c)
             and "「実行」→「すべてのセルを実行」" in c.source]
    assert len(notes) == 1, f"{name}: 最初の練習問題の前に、すべてのセルを実行したときのことを一行で"
    assert "解答例" in notes[0].source and "上書き" in notes[0].source and len(notes[0].source.splitlines()) == 1


def test_reader_is_warned_before_each_solution(pair):
    """Running a hidden solution cell replaces the reader's answer: the cell before says so."""
    md, _, name = pair
    for i, cell in enumerate(md.cells):
        if cell.cell_type == "code" and is_solution(cell):
            before = md.cells[i - 1]
            assert before.cell_type == "markdown" and "上書き" in before.source, (
                f"{name}: 解答例セルの直前に「上書きされます」の注意を書いてください"
            )
            # Students get nbgrader's stub instead of the solution, so the note is not for them.
            assert tags(before) == {"reader-only"}, f"{name}: 注意のセルに reader-only のタグを"


def test_grade_ids_are_unique_across_chapters():
    seen = {}
    for md in SOURCES:
        for c in read(md).cells:
            gid = c.metadata.get("nbgrader", {}).get("grade_id")
            if gid:
                assert gid not in seen, f"grade_id {gid} が {seen.get(gid)} と {md.name} で重複"
                seen[gid] = md.name


def test_recap_and_questions(pair):
    md, _, name = pair
    text = "\n".join(c.source for c in md.cells if c.cell_type == "markdown")
    assert "## まとめ" in text, f"{name}: まとめがありません"
    assert "## 確認問題" in text, f"{name}: 確認問題がありません"
    assert text.index("## まとめ") < text.index("## 確認問題"), f"{name}: まとめのあとに確認問題"
    questions = text.split("## 確認問題", 1)[1].split("\n## ", 1)[0]
    n = len(re.findall(r"^\d+\. ", questions, flags=re.M))
    assert 3 <= n <= 5, f"{name}: 確認問題は 3〜5 問({n} 問)"
    answers = re.search(r"<details[^>]*>\s*<summary>答えを見る[^<]*</summary>(.*?)</details>", questions, re.S)
    assert answers, f"{name}: 確認問題の解答例(<details> の「答えを見る」)がありません"
    assert len(re.findall(r"<li>", answers.group(1))) == n, f"{name}: 解答例の数が問題の数と違います"


def test_glossary_is_linked(pair):
    md, _, name = pair
    assert any("../book/glossary.md" in c.source for c in md.cells if c.cell_type == "markdown"), name


def test_every_written_chapter_is_in_the_one_list_in_order():
    written = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
    assert sorted(IDS) == written, "book/chapters.yml と notebooks/ の章が違います"
    assert IDS == sorted(IDS), "book/chapters.yml は章の番号の順に並べます"


def test_the_toc_and_the_readme_follow_the_one_list():
    assert not chapters.stale(), (
        f"{[str(p.relative_to(ROOT)) for p in chapters.stale()]} が book/chapters.yml と合っていません:"
        " python tools/chapters.py で書き直してください")


def test_notebooks_keep_no_widget_but_the_first_pictures():
    """A saved chapter shows each explorable's first picture (a widget without its running model
    would show JupyterLab's "model not found"); its widget state is the empty block JupyterLab
    itself writes, so opening and saving a chapter changes nothing."""
    for md in SOURCES:
        nb = json.loads(md.with_suffix(".ipynb").read_text(encoding="utf-8"))
        assert nb["metadata"].get("widgets", EMPTY_WIDGET_STATE) == EMPTY_WIDGET_STATE, md.stem
        for cell in nb["cells"]:
            for out in cell.get("outputs", []):
                assert "application/vnd.jupyter.widget-view+json" not in out.get("data", {}), md.stem


def test_a_kernel_frees_a_cells_figures_once_shown_and_only_then_collects():
    """After a cell that drew, the closed figure's memory comes back at once (not at Python's next
    full collection, cells later); a figure the next cell replaces (`fig = …` again) is gone
    before the new one is drawn; setup() run twice hooks in once and freezes what was loaded;
    the inline backend draws without a second, "tight" pass;
    a cell that drew nothing pays no collection (tests/support/bench.py measures what this saves)."""
    import nbformat
    from nbclient import NotebookClient

    cells = [
        "import gc, weakref\nimport helpers\nhelpers.setup()\nhelpers.setup()",
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1])\n"
        "shown = weakref.ref(fig)\ndel fig, ax",
        "print(shown() is None)",
        "events = get_ipython().events.callbacks\n"
        "print(events['post_execute'].count(helpers._collect_before_drawing),"
        " events['post_run_cell'].count(helpers._collect_if_cell_drew), gc.get_freeze_count() > 0,\n"
        "      get_ipython().display_formatter.formatters['image/png']"
        ".lookup_by_type(plt.Figure).keywords['bbox_inches'])",
        "before = gc.get_stats()[2]['collections']",
        "print(gc.get_stats()[2]['collections'] - before)",
        "fig, ax = plt.subplots()\nax.plot([0, 1]);",
        "replaced, gone_at_draw = weakref.ref(fig), []\nfig, ax = plt.subplots()\n"
        "fig.canvas.mpl_connect('draw_event', lambda event: gone_at_draw.append(replaced() is None))",
        "print(gone_at_draw[:1])",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    printed = [nb.cells[i].outputs[0]["text"].strip() for i in (2, 3, 5, 8)]
    assert printed == ["True", "1 1 True None", "0", "[True]"], printed
