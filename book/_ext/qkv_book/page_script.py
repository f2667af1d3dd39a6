"""The book's own page script and Japanese interface: qkv-book.js on every page, the search box's placeholder.

`qkv-book.js` (book/_static): opened from disk (file://) the browser refuses `fetch()`, and Sphinx's
search page fetches every hit's page for a summary; there the hits are listed without summaries
instead of raising console errors (served over http(s), summaries come back). It also fills in the
search's closing line, which Sphinx's Japanese catalogue leaves empty, names the copy buttons and
symbol links in Japanese, and shows the cue under anything that scrolls sideways.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def japanese_search_placeholder(app: Sphinx, config) -> None:
    # Jupyter Book sets "Search this book..."; the theme puts it in the box and its aria-label.
    config.html_theme_options["search_bar_text"] = "この本を検索…"



def setup(app: Sphinx) -> None:
    # After Sphinx's translations.js and documentation_options.js (priority 500).
    app.add_js_file("qkv-book.js", priority=900)
    app.connect("config-inited", japanese_search_placeholder)
