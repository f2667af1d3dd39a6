"""Sphinx glue that keeps the static book self-contained (loaded from book/_config.yml).

One feature per module; `setup` below is their table of contents, in the order Sphinx's build
reaches them (handlers of one event run in the order they are connected).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from . import (
    explorables,
    figure_probe,
    figures,
    fonts,
    glossary,
    helpers_dependency,
    icons,
    launch_links,
    licenses,
    maths,
    page_script,
    pdf_link,
    search_ranking,
    solutions,
    streams,
    styles,
    version,
    widget_state,
)


def setup(app: Sphinx) -> dict:
    explorables.setup(app)         # the explorables' modules and model shim, beside the pages
    page_script.setup(app)         # qkv-book.js on every page; the search box in Japanese
    figure_probe.setup(app)        # the chapters' kernels note the smallest text of each figure
    widget_state.setup(app)        # no dead ipywidgets state in the pages
    helpers_dependency.setup(app)  # a changed src/helpers re-executes the chapters
    solutions.setup(app)           # folded solutions: no nbgrader marks, a Japanese summary
    streams.setup(app)             # printed text as the kernel wrote it, however it split it
    figures.setup(app)             # 256-colour PNGs, sized so that their text stays readable
    glossary.setup(app)            # 用語集: the chapters that use each term, linked
    search_ranking.setup(app)      # the data search_scorer.js ranks results with
    licenses.setup(app)            # the {shipped-assets} table and the licence texts
    icons.setup(app)               # the icon font cut down to the icons the pages use
    maths.setup(app)               # maths typeset to SVG at build time: no maths engine in the pages
    fonts.setup(app)               # the reader's Japanese font first; the shipped one cut to the book's characters
    pdf_link.setup(app)            # the front page links the PDF (make pdf), or says how to make it
    version.setup(app)             # the book's release is helpers.__version__ (front page)
    launch_links.setup(app)        # Colab/Binder/JupyterHub buttons, off unless QKV_REPOSITORY_URL
    styles.setup(app)              # one stylesheet per page, cut to the rules the book can match
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
