"""One letter, one meaning, for the letters a learner mixes up.

book/notation.md's table 「取り違えやすい文字」 lists each of them once, with the chapters it
appears in. The chapters keep to it: T is chapter 02's temperature only (never the targets, which
would sit beside the transposes `.T` of chapter 07's backward pass), t is chapter 00's 入れ替え度
only, in the prose's maths and as a name in the code a learner reads.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTATION = ROOT / "book" / "notation.md"
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
#: Where each letter may appear: the chapters of its row, and chapter 02's one sentence that tells
#: T from chapter 00's t.
EXTRA = {"t": {"02"}}


def table() -> dict[str, set[str]]:
    """The letters of the table (a row may name a letter and its stacked capital; o* is not o) → its chapters."""
    section = NOTATION.read_text(encoding="utf-8").split("## 取り違えやすい文字", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| $")]
    letters: dict[str, set[str]] = {}
    for cells in rows:
        for symbol in re.split(r",\\?\s*", "".join(re.findall(r"\$([^$]+)\$", cells[0]))):
            letter = re.sub(r"_\w", "", symbol).replace("^{\\ast}", "*")
            assert letter not in letters, f"notation.md の「取り違えやすい文字」に {letter} が二度あります"
            letters[letter] = {f"{int(n):02d}" for n in re.findall(r"第 (\d+) 章", cells[2])}
    return letters


def maths(md: Path) -> list[str]:
    """The prose's maths ($…$ and $$…$$), outside code cells."""
    text = re.sub(r"```\{code-cell\}.*?```", "", md.read_text(encoding="utf-8"), flags=re.S)
    return re.findall(r"\$\$?(.+?)\$\$?", text, flags=re.S)


def code_nodes(md: Path) -> list[ast.AST]:
    """Every node of the chapter's code cells (magics and shell lines left out)."""
    nodes = []
    for cell in jupytext.read(md).cells:
        if cell.cell_type == "code":
            source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            nodes += ast.walk(ast.parse(source))
    return nodes


def names(md: Path) -> set[str]:
    """The names the chapter's code cells bind or read."""
    return {n.id for n in code_nodes(md) if isinstance(n, ast.Name)}


def test_the_table_names_the_letters_a_learner_mixes_up():
    letters = table()
    assert {"t", "T", "o", "O"} <= set(letters), sorted(letters)
    assert letters["t"] == {"00"} and letters["T"] == {"02"}


@pytest.mark.parametrize("letter", ["t", "T"])
def test_a_letter_is_used_only_where_the_table_says(letter):
    allowed = table()[letter] | EXTRA.get(letter, set())
    standalone = re.compile(rf"(?<![A-Za-z\\]){letter}(?![A-Za-z])")
    used = {md.name[:2] for md in CHAPTERS
            if any(standalone.search(re.sub(r"\\[A-Za-z]+|\\text\{[^}]*\}", "", m)) for m in maths(md))}
    assert used - allowed == set(), f"{letter} が表にない章の数式に出てきます: {sorted(used - allowed)}"
    in_code = {md.name[:2] for md in CHAPTERS if letter in names(md)}
    assert in_code <= table()[letter], f"{letter} がコードの名前に使われている章: {sorted(in_code - table()[letter])}"
    assert used and in_code, f"{letter} が表の章で見つかりません(探し方が壊れています)"


def test_chapter_07_calls_its_targets_o_star():
    md = ROOT / "notebooks" / "07_how_w_learns.md"
    assert "O_star" in names(md) and "T" not in names(md)
    assert any("o_i^{\\ast}" in m for m in maths(md))


def _score_tables(md: Path) -> list[tuple[str, str]]:
    """(name, value) of each score table the chapter's code binds to S or S_<something>."""
    return [(target.id, ast.unparse(node.value)) for node in code_nodes(md) if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and re.fullmatch(r"S(_\w+)?", target.id)]


def test_s_is_the_table_the_softmax_reads_scaled_from_chapter_06_on():
    """S is one thing: the score table that goes into the softmax. Chapters 01–05 do not divide
    yet (S = QKᵀ); from chapter 06, where √d_k comes in, every S is QKᵀ / √d_k, never the raw product
    (chapter 06's raw table is QK). The notation page and the glossary say so."""
    later = [md for md in CHAPTERS if md.name[:2] >= "06"]
    tables = {md.name[:2]: _score_tables(md) for md in later}
    assert tables["07"] and tables["08"], "S が第 7・8 章で見つかりません(探し方が壊れています)"
    raw = [(ch, name, value) for ch, found in tables.items() for name, value in found if "sqrt" not in value]
    assert raw == [], f"第 6 章から後で、√d_k で割らない表が S と呼ばれています: {raw}"
    early = [(md.name[:2], name, value) for md in CHAPTERS if md.name[:2] < "06"
             for name, value in _score_tables(md) if "sqrt" in value]
    assert early == [], f"第 5 章までの S は割らない QKᵀ のはずです: {early}"
    notation = NOTATION.read_text(encoding="utf-8")
    assert re.search(r"\| ソフトマックスに入れる得点表 \| \$S\$[^|]*QK\^\{\\top\} / \\sqrt\{d_k\}", notation)
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    assert "ソフトマックスに入れる表を $S$ と書き" in glossary
