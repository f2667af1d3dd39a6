"""The concept map (book/concepts.md): what the anchor courses teach, and where this book does.

Every link to a chapter must land on one of its headings. The book's links such as
`../notebooks/06_attention.ipynb#語の順番は見えていない` are resolved by MyST from the heading
slugs it computes (`myst_heading_anchors` in book/_config.yml); this test computes them the same
way, with myst-parser's own parser and slug function, from the chapters' sources. The built book's
test (tests/test_book.py, test_internal_links_resolve) then checks the same links in a browser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from markdown_it.renderer import RendererHTML
from markdown_it.tree import SyntaxTreeNode
from myst_parser.config.main import MdParserConfig
from myst_parser.mdit_to_docutils.base import compute_unique_slug
from myst_parser.parsers.mdit import create_md_parser

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "concepts.md"
CONFIG = yaml.safe_load((ROOT / "book" / "_config.yml").read_text(encoding="utf-8"))
PARSE = CONFIG["parse"]
#: Heading slugs down to this level (Jupyter Book hands it to MyST from sphinx.config only).
DEPTH = CONFIG["sphinx"]["config"]["myst_heading_anchors"]
#: A Markdown link: its text and its target.
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
#: The concepts the issue names, as the page words them.
REQUIRED = ["バイアス", "バッチ", "語の順番", "位置の情報", "パディング", "問いと見出しの数が違う",
            "違う数から始める", "頭が一つなら $W_O$ は要るか", "残差接続", "ドロップアウト"]
#: The books it compares with; an out-of-scope concept says which one to read next.
BOOKS = ("Dive into Deep Learning", "Build a Large Language Model (From Scratch)",
         "Understanding Deep Learning")


def heading_slugs(source: Path) -> set[str]:
    """The slugs MyST gives the headings of a MyST source, as the book's build does."""
    depth = DEPTH
    config = MdParserConfig(enable_extensions=set(PARSE["myst_enable_extensions"]),
                            heading_anchors=depth)
    tokens = create_md_parser(config, RendererHTML).parse(source.read_text(encoding="utf-8"))
    slugs: dict[str, None] = {}
    for node in SyntaxTreeNode(tokens).walk():
        if node.type == "heading" and int(node.tag[1]) <= depth:
            slugs[compute_unique_slug(node, slugs)] = None
    return set(slugs)


def bullets() -> list[str]:
    return [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("- **")]


def test_the_page_is_in_the_book_and_the_teacher_guide_links_it():
    toc = (ROOT / "book" / "_toc.yml").read_text(encoding="utf-8")
    assert "- file: book/concepts\n" in toc
    guide = (ROOT / "book" / "teacher_guide.md").read_text(encoding="utf-8")
    assert "](concepts.md)" in guide, "先生向けガイドから概念の地図へのリンクがありません"


def test_heading_slugs_follow_myst():
    """The slug function the links rely on: Japanese kept, punctuation dropped, spaces → '-',
    inline maths left out, a repeated heading numbered."""
    slugs = heading_slugs(ROOT / "notebooks" / "06_attention.md")
    assert "語の順番は見えていない" in slugs
    assert "ステップ-1得点表--は内積の一覧表" in slugs  # "$QK^\top$" is maths: left out, its spaces kept
    assert "練習問題" in slugs and "まとめ" in slugs


@pytest.mark.parametrize("line", bullets(), ids=lambda line: line[4:24])
def test_every_concept_has_a_section_or_a_reason_and_a_reading(line):
    links = [target for _, target in LINK.findall(line) if target.startswith("../notebooks/")]
    if links:
        return
    assert "扱いません" in line or "扱わない" in line, f"リンクも、扱わない理由もありません: {line}"
    assert any(book in line for book in BOOKS) and "読めます" in line, f"次に読む先がありません: {line}"


def test_every_link_lands_on_a_heading():
    text = PAGE.read_text(encoding="utf-8")
    targets = [target for _, target in LINK.findall(text) if target.startswith("../notebooks/")]
    assert len(targets) >= 30
    bad = []
    for target in targets:
        path, _, fragment = target.partition("#")
        source = (PAGE.parent / path).with_suffix(".md").resolve()
        if not source.is_file():
            bad.append(f"{target}(章がない)")
        elif not fragment or fragment not in heading_slugs(source):
            bad.append(f"{target}(見出しがない)")
    assert not bad, f"見出しに届かないリンク: {bad}"


@pytest.mark.parametrize("concept", REQUIRED)
def test_the_issue_s_concepts_are_on_the_map(concept):
    assert any(concept in line for line in bullets()), f"概念の地図に「{concept}」がありません"
