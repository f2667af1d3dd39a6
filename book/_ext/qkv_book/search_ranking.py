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
    splitter is pure Python, about 5 s a build): the second time it gets the first result."""
    if getattr(lang, "qkv_remembers_splits", False):
        return
    split = functools.cache(lang.split)

    def remembered(text: str) -> list[str]:
        return list(split(text))  # a copy: the index may change the list it gets

    lang.split, lang.qkv_remembers_splits = remembered, True


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
