"""The book's own page script and Japanese interface: qkv-book.js on every page, the search box's placeholder.

`qkv-book.js` (book/_static): opened from disk (file://) the browser refuses `fetch()`, and Sphinx's
search page fetches every hit's page for a summary; there the hits are listed without summaries
instead of raising console errors (served over http(s), summaries come back). It also fills in the
search's closing line, which Sphinx's Japanese catalogue leaves empty, names the copy buttons and
symbol links in Japanese, shows the cue under anything that scrolls sideways, and, while the page
prints, gathers its folded text opened at its end (the same rule the PDF prints with).

Nothing in a page's head holds back its first paint that the first screen does not need: every
script file is deferred (it runs once the page is parsed, in the same order; the theme's own two
already were), except documentation_options.js, a few hundred bytes that the inline lines after it
fill in. The search's scripts (its index, Sphinx's search code, the Japanese word splitter, the
ranking data) load on the search page only, where the reader's query is run: the theme put the
index on every page for a search-as-you-type box that this book does not turn on.
"""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript

#: Scripts only the search page (search.html) uses.
SEARCH_ONLY = {"searchtools.js", "language_data.js", "tiny_segmenter.js", "qkv-search-data.js"}
#: Run where they stand: inline lines right after this one set its fields.
BLOCKING = {"documentation_options.js"}


def japanese_search_placeholder(app: Sphinx, config) -> None:
    # Jupyter Book sets "Search this book..."; the theme puts it in the box and its aria-label.
    config.html_theme_options["search_bar_text"] = "この本を検索…"
    # No top navbar: sphinx-book-theme 1.3 empties it (its theme.conf: navbar_persistent =), but
    # pydata-sphinx-theme 0.17 puts its search field there again whenever the user's own options
    # do not name navbar_persistent, so at 960 px and wider a 64-px bar with a second 「検索
    # Ctrl+K」 sat above the sidebar (which has its own). The article header's search button stays.
    config.html_theme_options.setdefault("navbar_persistent", [])


def defer_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html" or pagename == "search":
        return
    scripts = []
    for js in context.get("script_files", []):
        name = Path(os.fspath(js.filename)).name if js.filename else ""
        if name in SEARCH_ONLY:
            continue
        if name and name not in BLOCKING and not {"async", "defer"} & js.attributes.keys():
            js = _JavaScript(js.filename, priority=js.priority, **js.attributes, defer="defer")
        scripts.append(js)
    context["script_files"] = scripts


def setup(app: Sphinx) -> None:
    # After Sphinx's translations.js and documentation_options.js (priority 500).
    app.add_js_file("qkv-book.js", priority=900)
    app.connect("config-inited", japanese_search_placeholder)
    # Last, once every extension has added its scripts to the page.
    app.connect("html-page-context", defer_scripts, priority=990)
