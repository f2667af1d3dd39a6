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
#: What each anchor's attention chapter teaches, section by section, as the page words it (a part
#: of a bullet's text). Every one must be a bullet of the map: a link to where this book teaches it,
#: or out of scope with why and what to read next (test_every_concept_has_a_section_or_a_reason…).
ANCHORS = {
    "元の記事 1 一本のベクトル": ["埋め込み"],
    "元の記事 2 検索カウンター": ["問い・見出し・中身の三つの役"],
    "元の記事 3 一人三役": ["一人三役"],
    "元の記事 4 三つの顔はどこから": ["$q = xW_Q$", "$W_Q$ と $W_K$ の列の数はそろえ", "$W$ は学習で決まる"],
    "元の記事 5 行列のかけ算": ["行列の積は並列に計算できる", "固定の見出し表と、学習で選び直す $W_K$"],
    "元の記事 6 使われ方と学ばれ方": ["スケール付き内積アテンション", "勾配と連鎖律"],
    "d2l 11.1 Queries, Keys, and Values": ["問い・見出し・中身の三つの役", "出力は中身の重み付き平均"],
    "d2l 11.2 Attention Pooling by Similarity": ["カーネル回帰"],
    "d2l 11.3 Attention Scoring Functions": ["スケール付き内積アテンション", "$\\sqrt{d_k}$ で割る理由", "足し算型のアテンション",
                                             "パディングのマスク", "バッチ"],
    "d2l 11.4 The Bahdanau Attention Mechanism": ["クロスアテンション"],
    "d2l 11.5 Multi-Head Attention": ["マルチヘッドアテンション", "出力の行列 $W_O$"],
    "d2l 11.6 Self-Attention and Positional Encoding": ["一人三役", "位置の情報", "計算の量と、長い文"],
    "Raschka 3.3 self-attention without trainable weights": ["学習する行列のない自己アテンション"],
    "Raschka 3.4 self-attention with trainable weights": ["$q = xW_Q$", "$\\sqrt{d_k}$ で割る理由", "バイアス"],
    "Raschka 3.5 causal attention": ["因果マスク", "ドロップアウト", "バッチ"],
    "Raschka 3.6 multi-head attention": ["マルチヘッドアテンション", "一枚の行列と reshape・transpose で頭を分ける",
                                         "出力の行列 $W_O$"],
    "UDL 12.2 dot-product self-attention": ["一人三役", "スケール付き内積アテンション", "バイアス"],
    "UDL 12.3 extensions": ["位置の情報", "$\\sqrt{d_k}$ で割る理由", "マルチヘッドアテンション", "語の順番を見ない"],
    "UDL 12.4 transformer layers": ["残差接続"],
    "UDL 12.5 transformers for NLP": ["トークン化", "埋め込みも学習で決まる"],
    "UDL 12.6-12.7 encoder (BERT) and decoder (GPT) models": ["エンコーダーだけのモデルとデコーダーだけのモデル", "因果マスク",
                                                              "KV キャッシュ"],
    "UDL 12.8 encoder-decoder model": ["クロスアテンション"],
    "UDL 12.9 transformers for long sequences": ["計算の量と、長い文"],
    "UDL 12.10 transformers for images": ["画像のアテンション"],
}
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


def test_the_anchor_list_covers_every_section_the_issue_names():
    """d2l 11.1–11.6 one by one, Raschka's chapter 3 from its first self-attention on, UDL's
    chapter 12 through its images section, the source article's six sections."""
    sections = {anchor.split()[0] + " " + anchor.split()[1] for anchor in ANCHORS}
    assert {f"d2l 11.{n}" for n in range(1, 7)} <= sections
    assert {f"Raschka 3.{n}" for n in range(3, 7)} <= sections
    assert {"UDL 12.2", "UDL 12.3", "UDL 12.4", "UDL 12.5", "UDL 12.6-12.7", "UDL 12.8", "UDL 12.9", "UDL 12.10"} <= sections
    assert {f"元の記事 {n}" for n in range(1, 7)} <= sections


@pytest.mark.parametrize("anchor, concept", [(a, c) for a, cs in ANCHORS.items() for c in cs], ids=lambda v: str(v)[:30])
def test_every_concept_the_anchors_teach_is_on_the_map(anchor, concept):
    assert any(concept in line for line in bullets()), f"{anchor} の「{concept}」が概念の地図にありません"
