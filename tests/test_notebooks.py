"""Structure of every chapter: the MyST/ipynb pair, clean execution, exercises, recap, questions.

nbval (run by `make test` on the same .ipynb files) re-executes them and compares text outputs;
these tests check what nbval does not.
"""

import json
import re
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "scripts"))
from execute_notebooks import EMPTY_WIDGET_STATE  # noqa: E402  (what `make sync` writes)

SOURCES = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
IDS = [p.stem for p in SOURCES]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def tags(cell):
    return set(cell.metadata.get("tags", []))


@pytest.fixture(params=SOURCES, ids=IDS)
def pair(request):
    md = request.param
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} がありません: make sync で作ってください"
    return jupytext.read(md), jupytext.read(ipynb, fmt="ipynb"), md.stem


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
        if "raises-exception" in tags(cell):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert errors, f"{name}: raises-exception のセルがエラーを出していません"
            assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", errors[0].evalue), errors[0].evalue


def test_first_code_cell_sets_up_helpers(pair):
    md, _, name = pair
    first = code_cells(md)[0].source
    assert "import helpers" in first and "helpers.setup()" in first, name


def test_exercises_follow_the_pattern(pair):
    md, _, name = pair
    cells = code_cells(md)
    solutions = [c for c in cells if c.metadata.get("nbgrader", {}).get("solution")]
    graded = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(solutions) >= 2 and len(graded) >= 2, f"{name}: 練習問題は 2 つ以上"
    for c in solutions:
        assert "### BEGIN SOLUTION" in c.source and "### END SOLUTION" in c.source, name
        assert c.metadata.get("jupyter", {}).get("source_hidden"), f"{name}: 解答は折りたたむ"
        assert "hide-input" in tags(c), f"{name}: 本では解答をトグルの中に"
    for c in graded:
        g = c.metadata["nbgrader"]
        assert g["locked"] and g["points"] > 0 and not g["solution"], name
        assert "helpers.checks." in c.source or "assert" in c.source, name
    assert any(tags(c) == {"reader-only"} for c in cells), f"{name}: 読者用のひな形セルがありません"


def test_no_answer_check_keeps_its_output(pair):
    """A check's ✓ line is the answer: saved nowhere, skipped by nbval, folded in the book."""
    md, ipynb, name = pair
    for cell in code_cells(ipynb):
        if cell.metadata.get("nbgrader", {}).get("grade"):
            assert not cell.outputs, (
                f"{name}: 答え合わせのセル {cell.metadata['nbgrader']['grade_id']} に出力が残っています")
            # run with the rest of the chapter (one complete run); only its output is withheld
            assert cell.execution_count is not None, name
            assert {"nbval-ignore-output", "hide-output"} <= tags(cell), name
        if cell.metadata.get("nbgrader", {}).get("solution"):
            assert cell.metadata.get("mystnb", {}).get("code_prompt_show") == "答えを見る", name


def test_reader_is_warned_before_each_solution(pair):
    """Running a hidden solution cell replaces the reader's answer: the cell before says so."""
    md, _, name = pair
    for i, cell in enumerate(md.cells):
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            before = md.cells[i - 1]
            assert before.cell_type == "markdown" and "上書き" in before.source, (
                f"{name}: 解答例セルの直前に「上書きされます」の注意を書いてください"
            )
            # Students get nbgrader's stub instead of the solution, so the note is not for them.
            assert tags(before) == {"reader-only"}, f"{name}: 注意のセルに reader-only のタグを"


def test_grade_ids_are_unique_across_chapters():
    seen = {}
    for md in SOURCES:
        for c in jupytext.read(md).cells:
            gid = c.metadata.get("nbgrader", {}).get("grade_id")
            if gid:
                assert gid not in seen, f"grade_id {gid} が {seen.get(gid)} と {md.name} で重複"
                seen[gid] = md.name


def test_recap_and_questions(pair):
    md, _, name = pair
    text = "\n".join(c.source for c in md.cells if c.cell_type == "markdown")
    assert "## まとめ" in text, f"{name}: まとめがありません"
    assert "## 確認問題" in text, f"{name}: 確認問題がありません"
    questions = text.split("## 確認問題", 1)[1].split("\n## ", 1)[0]
    n = len(re.findall(r"^\d+\. ", questions, flags=re.M))
    assert 3 <= n <= 5, f"{name}: 確認問題は 3〜5 問({n} 問)"
    answers = re.search(r"<details[^>]*>\s*<summary>答えを見る[^<]*</summary>(.*?)</details>", questions, re.S)
    assert answers, f"{name}: 確認問題の解答例(<details> の「答えを見る」)がありません"
    assert len(re.findall(r"<li>", answers.group(1))) == n, f"{name}: 解答例の数が問題の数と違います"


def test_glossary_is_linked(pair):
    md, _, name = pair
    assert any("../book/glossary.md" in c.source for c in md.cells if c.cell_type == "markdown"), name


def test_book_toc_lists_every_chapter_in_order():
    toc = yaml.safe_load((ROOT / "book" / "_toc.yml").read_text(encoding="utf-8"))
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    chapters = [f for f in files if f.startswith("notebooks/")]
    assert chapters == [f"notebooks/{s}" for s in IDS]


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
