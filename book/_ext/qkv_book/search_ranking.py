"""Search ranking data: each word's count per page, the glossary's terms and the reading order, for search_scorer.js.

book/_ext/search_scorer.js ranks a search's results: a defined term's 用語集 entry first, then pages
by how often they use the query, ties in reading order. The data it needs is written next to the
search page.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .glossary import GLOSSARY_DOC, term_names

SEARCH_DATA = "qkv-search-data.js"


def index_words(text_tokens, lang) -> list[str]:
    """The words of Sphinx's index, as the ranking counts them: stemmed, lower case, and cut
    into runs of letters and digits (the Japanese splitter leaves tokens such as `.softmax`
    or `{softmax` in code and formulas; they count as `softmax`)."""
    words = []
    for token in text_tokens:
        stemmed = lang.stem(token).lower()
        if not lang.word_filter(stemmed) and lang.word_filter(token):
            stemmed = token.lower()
        words += WORD_RUN.findall(stemmed)
    return words


WORD_RUN = re.compile(r"[^\W_]+")  # letters and digits; the scorer uses /[\p{L}\p{N}]+/gu


def count_words(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """How often each word occurs on each page (Sphinx's index only says where)."""
    if app.builder.format != "html" or getattr(app.builder, "indexer", None) is None:
        return
    from sphinx.search import WordCollector

    lang = app.builder.indexer.lang
    remember_splits(lang)
    collector = WordCollector(doctree, lang)
    doctree.walk(collector)
    if not hasattr(app, "qkv_word_counts"):
        app.qkv_word_counts = {}
    app.qkv_word_counts[docname] = Counter(index_words(collector.found_words, lang))


def remember_splits(lang) -> None:
    """Sphinx's index splits every text of a page right after count_words did (its Japanese
    splitter is pure Python, about 5 s a build): the second time it gets the first result. The
    first time, Sphinx's own splitter runs as `same_split_faster` writes it."""
    if getattr(lang, "qkv_remembers_splits", False):
        return
    split = functools.cache(same_split_faster(lang))

    def remembered(text: str) -> list[str]:
        return list(split(text))  # a copy: the index may change the list it gets

    lang.split, lang.qkv_remembers_splits = remembered, True


def same_split_faster(lang):
    """`lang.split`, or for Sphinx's Japanese splitter (TinySegmenter,
    `sphinx.search.ja.DefaultSplitter`) the very same sums in a quicker loop: its tables read
    through local `dict.get` instead of a method call per entry (41 a character), each character's
    type found once, and the terms that depend only on the character types around (and on the
    last three decisions) summed once per pattern."""
    from sphinx.search.ja import DefaultSplitter

    s = getattr(lang, "splitter", None)
    if type(s) is not DefaultSplitter:
        return lang.split
    uw1, uw2, uw3, uw4, uw5, uw6, bw1, bw2, bw3, tw1, tw2, tw3, tw4 = (
        getattr(s, f"{name}__").get for name in "UW1 UW2 UW3 UW4 UW5 UW6 BW1 BW2 BW3 TW1 TW2 TW3 TW4".split())
    t = {name: getattr(s, f"{name}__").get for name in (
        "UC1 UC2 UC3 UC4 UC5 UC6 BC1 BC2 BC3 TC1 TC2 TC3 TC4 UP1 UP2 UP3 BP1 BP2 UQ1 UQ2 BQ1 BQ2 BQ3 BQ4 "
        "TQ1 TQ2 TQ3 TQ4").split()}
    types: dict[str, str] = {}
    by_types: dict[str, int] = {}
    by_decisions: dict[str, int] = {}

    def char_type(char: str) -> str:
        if char not in types:
            types[char] = s.ctype_(char)
        return types[char]

    def types_score(c: str) -> int:  # c: the six types c1..c6, one letter each
        return (t["UC1"](c[0], 0) + t["UC2"](c[1], 0) + t["UC3"](c[2], 0) + t["UC4"](c[3], 0)
                + t["UC5"](c[4], 0) + t["UC6"](c[5], 0) + t["BC1"](c[1:3], 0) + t["BC2"](c[2:4], 0)
                + t["BC3"](c[3:5], 0) + t["TC1"](c[0:3], 0) + t["TC2"](c[1:4], 0)
                + t["TC3"](c[2:5], 0) + t["TC4"](c[3:6], 0))

    def decisions_score(k: str) -> int:  # k: p1 p2 p3 then c1..c4
        p1, p2, p3, c1, c2, c3, c4 = k
        return (t["UP1"](p1, 0) + t["UP2"](p2, 0) + t["UP3"](p3, 0) + t["BP1"](p1 + p2, 0)
                + t["BP2"](p2 + p3, 0) + t["UQ1"](p1 + c1, 0) + t["UQ2"](p2 + c2, 0)
                + t["UQ1"](p3 + c3, 0)  # UQ1 twice (not UQ3), as Sphinx has it
                + t["BQ1"](p2 + c2 + c3, 0) + t["BQ2"](p2 + c3 + c4, 0) + t["BQ3"](p3 + c2 + c3, 0)
                + t["BQ4"](p3 + c3 + c4, 0) + t["TQ1"](p2 + c1 + c2 + c3, 0)
                + t["TQ2"](p2 + c2 + c3 + c4, 0) + t["TQ3"](p3 + c1 + c2 + c3, 0)
                + t["TQ4"](p3 + c2 + c3 + c4, 0))

    def split(text: str) -> list[str]:
        if not text:
            return []
        result = []
        seg = ["B3", "B2", "B1", *text, "E1", "E2", "E3"]
        ctype = "OOO" + "".join(map(char_type, text)) + "OOO"
        word, ps = seg[3], "UUU"
        for i in range(4, len(seg) - 3):
            w1, w2, w3, w4, w5, w6 = seg[i - 3:i + 3]
            c = ctype[i - 3:i + 3]
            k = ps + c[:4]
            cs = by_types[c] if c in by_types else by_types.setdefault(c, types_score(c))
            ds = by_decisions[k] if k in by_decisions else by_decisions.setdefault(k, decisions_score(k))
            score = (s.BIAS__ + cs + ds + uw1(w1, 0) + uw2(w2, 0) + uw3(w3, 0) + uw4(w4, 0) + uw5(w5, 0)
                     + uw6(w6, 0) + bw1(w2 + w3, 0) + bw2(w3 + w4, 0) + bw3(w4 + w5, 0)
                     + tw1(w1 + w2 + w3, 0) + tw2(w2 + w3 + w4, 0) + tw3(w3 + w4 + w5, 0)
                     + tw4(w4 + w5 + w6, 0))
            if score > 0:
                result.append(word.strip())
                word, ps = "", ps[1:] + "B"
            else:
                ps = ps[1:] + "O"
            word += seg[i]
        result.append(word.strip())
        return result

    return split


def reading_order(env: BuildEnvironment, root: str) -> list[str]:
    order: list[str] = []

    def walk(doc: str) -> None:
        if doc in order:
            return
        order.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(root)
    return order + sorted(d for d in env.found_docs if d not in order)


def glossary_terms(app: Sphinx) -> dict:
    """Every name of every glossary term (lower case) -> its anchor; anchor -> the term."""
    doctree = app.env.get_doctree(GLOSSARY_DOC) if GLOSSARY_DOC in app.env.found_docs else None
    anchors: dict[str, str] = {}
    titles: dict[str, str] = {}
    for term in doctree.findall(nodes.term) if doctree is not None else []:
        if term["ids"]:
            titles[term["ids"][0]] = term.astext()
            for name in term_names(term.astext()):
                anchors.setdefault(name.lower(), term["ids"][0])
    return {"doc": GLOSSARY_DOC, "anchors": anchors, "titles": titles}


def write_search_data(app: Sphinx, pagename: str, templatename: str, context: dict,
                      doctree) -> None:
    """Next to the search page: the data book/_ext/search_scorer.js ranks results with."""
    if pagename != "search" or app.builder.format != "html":
        return
    order = reading_order(app.env, app.config.root_doc)
    place = {doc: i for i, doc in enumerate(order)}
    counts: dict[str, dict[int, int]] = {}
    for docname, words in getattr(app, "qkv_word_counts", {}).items():
        for word, n in words.items():
            counts.setdefault(word, {})[place[docname]] = n
    # Pages by their place in `docs` (the reading order), which keeps the file small.
    data = {"docs": order, "counts": counts, "glossary": glossary_terms(app)}
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / SEARCH_DATA).write_text(
        "// Written by book/_ext/qkv_book/search_ranking.py for book/_ext/search_scorer.js.\n"
        f"const QKV_SEARCH = {json.dumps(data, ensure_ascii=False, separators=(',', ':'))};\n",
        encoding="utf-8")
    app.add_js_file(SEARCH_DATA, priority=200)  # only this page: before searchtools.js



def setup(app: Sphinx) -> None:
    app.connect("doctree-resolved", count_words)
    app.connect("html-page-context", write_search_data)
