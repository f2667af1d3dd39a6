"""The front page's line about the PDF: a link to it when `make pdf` has made it, else how to make it.

`make book` and `make pdf` stay independent: the PDF is printed from the built HTML
(tools/build_pdf.py), so the book cannot wait for it. book/index.md holds the line with
its text for a book built without a PDF (「make pdf で…できます」); when the PDF exists at build
time, that text becomes a link to it with its size. A link that is only written when its file
exists never dangles (tests/test_book.py resolves every link); the root page is read again on
every build, so a PDF made since the last build gets its link at the next `make book`.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from sphinx.application import Sphinx

PDF = Path(__file__).resolve().parents[2] / "_build" / "pdf" / "qkv-book.pdf"
LINE = re.compile(r'<span class="qkv-pdf-link">.*?</span>')


def pdf_line(root_html: Path) -> str:
    """What the front page says about the PDF, as inline HTML."""
    if not PDF.exists():
        return ('<span class="qkv-pdf-link"><code>make pdf</code> で、本全体を一つの PDF'
                "(<code>book/_build/pdf/qkv-book.pdf</code>)にできます。</span>")
    href = Path(*[".."] * (len(root_html.parts) - 1), PDF.relative_to(PDF.parents[1]))
    size = PDF.stat().st_size / 1e6
    return (f'<span class="qkv-pdf-link"><a href="{html.escape(href.as_posix())}">本全体の PDF'
            f"(A4、{size:.0f} MB)</a>。印刷用で、動かせる図はその最初の絵と操作の値で載せています。</span>")


def fill_in(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname == app.config.root_doc:
        # the root page's place in the HTML output, relative to book/_build/: html/book/index.html
        source[0] = LINE.sub(lambda _: pdf_line(Path("html") / f"{docname}.html"), source[0])


def always_read_root(app: Sphinx, env, added, changed, removed) -> list[str]:
    return [app.config.root_doc]


def setup(app: Sphinx) -> None:
    app.connect("source-read", fill_in)
    app.connect("env-get-outdated", always_read_root)
