"""Exercises ask for thought: no answer on the page before its question, and no transfer exercise
whose solution is a cell of the book with other names.

- A prediction's accepted answer must not be stated in the text a learner reaches first: the
  chapter up to the exercise (its prose, the code shown and what it printed), which includes the
  opening list, and the glossary entries that text links to (all of them when it links the glossary
  page itself, as every chapter's opening does), and any other reference page of the book it links
  (the notation page states the rule of a product's shape). "Stated" is a sentence that says the
  answer to this question (PREDICTIONS: the answer with the words that make it the answer), not
  the answer's word alone ("平均" is on many pages).
- A code exercise's stub gives no line of its solution in a hint.
- A transfer exercise (TRANSFER: a new shape or setting, not the chapter's cell again) is no
  visible cell of the book renamed: its solution's statements, names aside, are not all found in
  one code cell whose source the book shows.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import chapters
import jupytext
import pytest
from docutils.nodes import make_id
from nbgrader.utils import is_solution

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "book" / "glossary.md"

#: Each prediction (its solution's grade_id): the patterns of a sentence that states its answer.
PREDICTIONS = {
    "ex00_predict": [r"\(1, 3\)", r"1\s*(×|\\times)\s*3\b",
                     # the rule itself, as the notation page states it
                     r"答えの形は[^。]*左の行の数[^。]*右の列の数", r"\(1, d_model\) @ \(d_model, d_k\) → \(1, d_k\)"],
    "ex01_predict": [r"プリン[^。]*ケーキ[^。]*(最大|一番|いちばん)", r"プリン[^。]*(最大|一番|いちばん)[^。]*ケーキ"],
    "ex02_predict": [r"温度[^。]*(小さ|低|0 に近)[^。]*(一冊|一番|いちばん)",
                     r"温度[^。]*(大き|高)[^。]*平均",
                     # the two ends named before the question (a heading or the ends' subsection)
                     r"(一冊|一番|いちばん)[^。]*平均[^。]*(あいだ|間)", r"端[^。]*平均",
                     # the glossary entry's second sentence, after the term's name
                     r"(小さ|低)いほど[^。]*(一冊|一番|いちばん)[^。]*(大き|高)いほど[^。]*平均"],
    "ex03_predict": [r"名札[^。]*相手像[^。]*対称", r"(Q\s*=\s*K|問いと見出しが同じ)[^。]*対称",
                     # K = Q is chapter 01's one vector: its symmetric table, said in this chapter
                     r"一本のベクトル[^。]*対称", r"XX\^\\top[^。]*(対称|同じ)"],
    "ex04_shape": [r"\(5, 3\)", r"5\s*(×|\\times)\s*3\b"],
    "ex05_order": [r"順番[^。]*(同じ|変わらない|変わりません)"],
    "ex06_predict": [r"見出し[^。]*(全部|すべて|どれも)同じ[^。]*(均等|平均|1/n)"],
    "ex07_predict_lr": [r"学習率[^。]*(大きすぎ|大きく|2 倍|1\.0)[^。]*(壊れ|暴れ|爆発|発散)"],
}
#: Code exercises whose question is answered in words (what to hide, what comes out): the patterns
#: of a sentence that states that answer, looked for like a prediction's.
STATED = {
    "ex08_padding": [r"(隠した|隠す)のは[^。]*列だけ[^。]*(全部|すべて)[^。]*隠された行[^。]*(出てきません|起きません|できません)",
                     r"(空席|パディング)[^。]*列[^。]*(残る|残ります)[^。]*(全部|すべて)[^。]*隠された行"],
}
#: The code exercises that transfer what a chapter taught to a new shape or setting.
TRANSFER = {"ex00_scores_back", "ex01_cosine_table", "ex02_soft_lookup", "ex03_received", "ex04_faces", "ex04_undo",
            "ex05_cell", "ex05_in_two", "ex06_batch_attention", "ex07_gradient_step", "ex07_grad_w_shared", "ex08_causal",
            "ex08_multi_head", "ex08_padding"}
GLOSSARY_LINK = re.compile(r"glossary\.md#(term-[\w-]+)")
#: A link to the glossary page itself (every chapter's opening has one): all its entries are reached.
GLOSSARY_PAGE = re.compile(r"glossary\.md\)")
#: A link to another reference page of the book (notation, concept map): its whole text is reached.
BOOK_PAGE = re.compile(r"\.\./book/(?!glossary\b)([\w-]+)\.md")


@functools.cache
def source(slug: str) -> list:
    """The chapter's cells, from its MyST source."""
    return jupytext.read(ROOT / "notebooks" / f"{slug}.md").cells


@functools.cache
def cells_of(slug: str) -> list:
    """The chapter's cells (MyST source) with the outputs of its executed notebook."""
    md = jupytext.read(ROOT / "notebooks" / f"{slug}.md")
    nb = json.loads((ROOT / "notebooks" / f"{slug}.ipynb").read_text(encoding="utf-8"))
    for cell, executed in zip(md.cells, nb["cells"], strict=True):
        cell.outputs_text = "".join("".join(o.get("text", "")) for o in executed.get("outputs", []))
    return md.cells


def shown(cell) -> bool:
    """A cell whose source the page shows (not a folded solution or answer)."""
    tags = set(cell.metadata.get("tags", []))
    return not (cell.metadata.get("jupyter", {}).get("source_hidden") or tags & {"hide-input", "hide-cell"})


@functools.cache
def glossary_entries() -> dict[str, str]:
    """Each glossary term's anchor (as the book makes it) and the entry's text."""
    entries, term = {}, None
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith((" ", "#", "`", ":")):
            term = make_id(f"term-{line.strip()}")  # as Sphinx's glossary makes a term's anchor
            entries[term] = line
        elif line.startswith("  ") and term:
            entries[term] += line
    return entries


def prediction_exercises() -> list[tuple[str, str, int]]:
    """Every prediction, and every code exercise whose answer can be stated in words (STATED):
    (chapter slug, grade_id, index of its stub cell)."""
    found = []
    for slug in chapters.slugs():
        for i, cell in enumerate(source(slug)):
            if cell.cell_type == "code" and is_solution(cell):
                gid = cell.metadata["nbgrader"]["grade_id"]
                if gid in PREDICTIONS or gid in STATED:
                    found.append((slug, gid, i - 2))
    return found


def text_before(slug: str, stub: int) -> str:
    """What a learner reads before an exercise: the chapter's text, visible code and printed
    output up to the exercise's heading (its own question lists the choices), then every
    glossary entry that text links to (every entry when it links the glossary page itself)."""
    cells = cells_of(slug)[:stub]
    heading = max(i for i, c in enumerate(cells) if c.cell_type == "markdown" and "### 練習" in c.source)
    parts = [cells[heading].source.split("### 練習")[0]]
    for cell in cells[:heading]:
        if cell.cell_type == "markdown":
            parts.append(cell.source)
        elif shown(cell):
            parts += [cell.source, cell.outputs_text]
    text = "\n".join(parts)
    entries = glossary_entries()
    pages = [(ROOT / "book" / f"{name}.md").read_text(encoding="utf-8") for name in dict.fromkeys(BOOK_PAGE.findall(text))]
    if GLOSSARY_PAGE.search(text):
        return "\n".join([text, *pages, *entries.values()])
    linked = [entries[t] for t in dict.fromkeys(a.lower() for a in GLOSSARY_LINK.findall(text)) if t in entries]
    return "\n".join([text, *pages, *linked])


def test_every_prediction_is_covered():
    """Each prediction of the book has its answer patterns here, and the list names no other."""
    found = {gid for _, gid, _ in prediction_exercises()} - set(STATED)
    every = set()
    for slug in chapters.slugs():
        for cell in source(slug):
            if cell.cell_type == "code" and is_solution(cell) and "def " not in cell.source:
                every.add(cell.metadata["nbgrader"]["grade_id"])
    assert found == set(PREDICTIONS), set(PREDICTIONS) ^ found
    assert every - {"ex04_design"} == found  # 練習 3 of chapter 04 builds a matrix: a code answer


def test_glossary_entries_are_read_by_their_anchor():
    entries = glossary_entries()
    assert "学習率" in entries["term-learning-rate"] and "温度" in entries["term-temperature"]
    assert "勾配降下法" in entries["term-learning-rate"]  # the entry's text, not only its name


@pytest.mark.parametrize("slug, gid, stub", prediction_exercises(), ids=lambda v: str(v))
def test_no_prediction_is_answered_before_it_is_asked(slug, gid, stub):
    text = text_before(slug, stub)
    sentences = re.split(r"[。\n]", text)
    stated = [s.strip() for s in sentences for p in {**PREDICTIONS, **STATED}[gid] if re.search(p, s)]
    assert not stated, f"{slug} {gid}: 練習の前に答えが書いてあります: {stated}"


def test_the_answer_patterns_find_a_stated_answer():
    """The patterns do find the sentences that gave answers away before this test existed."""
    said = [("ex05_order", "だから、どの順番で計算しても、同時に計算しても、答えは同じです"),
            ("ex02_predict", "温度が小さいほど、得点が一番の見出しに重みが集まる"),
            ("ex02_predict", "## 4. 温度:一冊と平均のあいだを動かす"),  # chapter 02's heading before
            # chapter 00 linked the notation page before exercise 2, which states the rule
            ("ex00_predict", "答えの形は「左の行の数 × 右の列の数」になります"),
            ("ex02_predict", "一方の端は 2 節の「いちばん合う見出しの検索」、もう一方の端は全部の中身の平均です"),
            # the glossary entry 温度 before this test followed the page link of chapter 02's opening
            ("ex02_predict", "小さいほど、得点が一番の見出しに重みが集まる「いちばん合う見出しの検索」に近づき、"
                             "大きいほど全員の平均に近づきます"),
            ("ex03_predict", "一本のベクトルでは、得点の表が対称になり、全員が自分自身を一番に探します"),
            ("ex03_predict", "第 1 章の表 $XX^\\top$ では、この二つは必ず同じでした"),
            ("ex07_predict_lr", "学習率が大きすぎると損失が暴れ"),
            ("ex08_padding", "そのときも、隠したのは見出しの列だけで、どの行にも本物の料理の列が残るので、"
                             "全部隠された行は出てきません")]
    for gid, sentence in said:
        assert any(re.search(p, sentence) for p in {**PREDICTIONS, **STATED}[gid]), gid


def test_every_stated_answer_is_an_exercise_of_the_book():
    assert set(STATED) <= {gid for _, gid, _ in prediction_exercises()}


# ------------------------------------------------------------------------- code exercises


class _Anonymous(ast.NodeTransformer):
    """Names aside: every variable and argument becomes `_`; attributes and numbers stay."""

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node):
        node.arg = "_"
        return node


def statements(source: str) -> list[str]:
    """Every statement of a piece of code, at any depth, names aside; a `return x` counts as the
    statement `_ = x` and a function's docstring is left out."""
    tree = _Anonymous().visit(ast.parse(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            node = ast.Assign(targets=[ast.Name(id="_", ctx=ast.Store())], value=node.value, lineno=0)
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.Module)):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            found.append(ast.dump(node))
    return found


def solution_body(source: str) -> list[str]:
    [fn] = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    return statements("\n".join(ast.unparse(s) for s in fn.body))


def is_copy(solution: str, cell: str) -> bool:
    """Every statement of the solution's body is in the cell, names aside."""
    body = solution_body(solution)
    there = set(statements(cell))
    return bool(body) and all(s in there for s in body)


def code_exercises():
    for slug in chapters.slugs():
        cells = source(slug)
        for i, cell in enumerate(cells):
            if cell.cell_type == "code" and is_solution(cell) and "def " in cell.source:
                yield slug, cell.metadata["nbgrader"]["grade_id"], cells[i - 2].source, cell.source


def visible_code() -> list[tuple[str, str]]:
    return [(slug, cell.source) for slug in chapters.slugs()
            for cell in source(slug)
            if cell.cell_type == "code" and shown(cell) and "reader-only" not in cell.metadata.get("tags", [])
            and not cell.source.lstrip().startswith("%")]


def test_the_copy_detector_sees_a_renamed_copy():
    solution = "def f(Q, K):\n    s = Q @ K.T\n    return s / s.sum(axis=1, keepdims=True)\n"
    assert is_copy(solution, "scores = A @ B.T\nweights = scores / scores.sum(axis=1, keepdims=True)\n")
    assert not is_copy(solution, "scores = A @ B.T\nweights = scores / scores.sum(axis=0, keepdims=True)\n")


def test_every_transfer_exercise_is_in_the_book():
    assert TRANSFER <= {gid for _, gid, _, _ in code_exercises()}


@pytest.mark.parametrize("slug, gid, stub, solution",
                         [e for e in code_exercises() if e[1] in TRANSFER], ids=lambda v: str(v)[:24])
def test_a_transfer_exercise_is_no_cell_of_the_book(slug, gid, stub, solution):
    copies = [(where, cell[:60]) for where, cell in visible_code() if is_copy(solution, cell)]
    assert not copies, f"{slug} {gid}: 解答が本のセルの名前を変えただけです: {copies}"


def expressions(source: str) -> set[str]:
    """Each assigned or returned value of a piece of code, names aside."""
    tree = _Anonymous().visit(ast.parse(source))
    return {ast.dump(n.value) for n in ast.walk(tree)
            if isinstance(n, (ast.Assign, ast.Return, ast.AugAssign)) and n.value is not None}


def substantial(expr: ast.expr) -> bool:
    """More than a name for a tool: at least two calls or operations (`np.triu(np.full(…))`),
    where `Q.shape[1]` or `Q @ K.T` only say what to use."""
    return sum(isinstance(n, (ast.Call, ast.BinOp)) for n in ast.walk(expr)) >= 2


def code_in(hint: str) -> list[str]:
    """The runs of code in a Japanese hint line (ASCII between the Japanese words)."""
    return [run.strip(" `,") for run in re.findall(r"[\x20-\x7e]+", hint) if re.search(r"[\w)\]]", run)]


@pytest.mark.parametrize("slug, gid, stub, solution", list(code_exercises()), ids=lambda v: str(v)[:24])
def test_no_stub_hint_is_a_line_of_its_solution(slug, gid, stub, solution):
    """A hint may name a tool (`np.exp`, `Q.shape[1]`, `Q @ K.T`), not hand over a line of the
    answer or a value built of several steps."""
    [fn] = [n for n in ast.parse(solution).body if isinstance(n, ast.FunctionDef)]
    body = "\n".join(ast.unparse(s) for s in fn.body)
    lines, values = set(statements(body)), expressions(body)
    given = []
    for line in stub.splitlines():
        if not line.strip().startswith("#") or "check_" in line:
            continue
        for run in code_in(line.lstrip("# ")):
            try:
                tree = ast.parse(run)
            except SyntaxError:
                continue
            said = statements(run)
            if any(s in lines for s in said):
                given.append(run)
            elif (isinstance(tree.body[0], ast.Expr) and substantial(tree.body[0].value)
                  and ast.dump(_Anonymous().visit(tree.body[0].value)) in values):
                given.append(run)
    assert not given, f"{slug} {gid}: ひな形のヒントが解答の一行です: {given}"


def test_a_hint_that_hands_over_a_line_is_seen():
    stub = "def f(Q):\n    # ヒント:マスクは np.triu(np.full((n, n), -np.inf), k=1)\n    raise NotImplementedError\n"
    solution = "def f(Q):\n    n = len(Q)\n    mask = np.triu(np.full((n, n), -np.inf), k=1)\n    return mask\n"
    with pytest.raises(AssertionError, match="np.triu"):
        test_no_stub_hint_is_a_line_of_its_solution("08", "ex", stub, solution)


def test_a_link_to_the_glossary_page_reaches_every_entry():
    """Chapter 02's opening links the glossary page, not the entry 温度: its text still counts."""
    [(slug, gid, stub)] = [e for e in prediction_exercises() if e[1] == "ex02_predict"]
    assert GLOSSARY_PAGE.search(text_before(slug, stub))
    assert glossary_entries()["term-temperature"] in text_before(slug, stub)


def test_a_link_to_another_reference_page_reaches_its_text():
    assert BOOK_PAGE.findall("[記号と形の約束](../book/notation.md)、[用語集](../book/glossary.md)") == ["notation"]
    # chapter 06's exercise 1 links the concept map, before the prediction of exercise 2
    [(slug, _, stub)] = [e for e in prediction_exercises() if e[1] == "ex06_predict"]
    assert (ROOT / "book" / "concepts.md").read_text(encoding="utf-8") in text_before(slug, stub)
