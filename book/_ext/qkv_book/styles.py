"""One stylesheet per page instead of eleven or twelve, cut to the rules the book can match.

Every page loaded the theme's stylesheets (pydata-sphinx-theme's 397 KB, most of it Bootstrap
components the book never shows), Sphinx's, the extensions' and the book's own: 11–12 render-
blocking requests, 92 KB compressed, before a phone could paint a first line. Once the pages are
written (after the maths and the fonts: `build-finished`), the stylesheets the pages link are
joined in the pages' order into `_static/qkv-styles.css` (an `@import` inlined, every `url()`
rebased), and a rule is dropped when a class or id its selector needs appears in no page and no
script of the book (the rule can never match: this is what PurgeCSS does). Classes the scripts
add at run time are in the scripts' text, so their rules stay; selectors inside :not()/:is()
are never used to drop a rule. Each page then links the one file, with a hash of it for caches.
The files themselves stay where they were (the PDF's cover links the font's CSS).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path

import tinycss2
from sphinx.application import Sphinx

BUNDLE = "qkv-styles.css"
LINK = re.compile(r'[ \t]*<link(?=[^>]*\brel="stylesheet")[^>]*\bhref="([^"?#]+\.css)(?:[?#][^"]*)?"[^>]*>\n?')
IMPORT = re.compile(r'@import\s+(?:url\()?\s*["\']?([^"\')\s;]+)["\']?\s*\)?\s*;')
URL = re.compile(r'url\(\s*(["\']?)([^"\')]+)\1\s*\)')
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
#: The PDF's printing (`make pdf`) adds its own classes to the pages it prints (the explorables'
#: line of values, the hidden controls), all named `qkv-print-…`: only those words are read from it
#: (its other words, e.g. "never" in a comment, would keep rules no page uses).
PDF_SCRIPT = Path(__file__).resolve().parents[3] / "tools" / "build_pdf.py"
PDF_CLASS = re.compile(r"qkv-print-[a-z-]+")
#: Classes a script builds from pieces, so its text never names them whole: Bootstrap's tooltip
#: (`bs-${NAME}-auto`; the headings' ¶ links and the header's buttons show tooltips).
BUILT_BY_SCRIPTS = {"bs-tooltip-auto", "bs-popover-auto"}


def linked_sheets(page: str, page_dir: str, outdir: Path) -> list[str]:
    """The stylesheets `page` links, as paths under outdir (posix), in order; remote ones never
    occur (a test forbids them)."""
    found = []
    for href in LINK.findall(page):
        path = posixpath.normpath(posixpath.join(page_dir, href))
        if (outdir / path).is_file() and path != f"_static/{BUNDLE}":
            found.append(path)
    return found


def rebased(css: str, sheet: str, outdir: Path, seen: set[str]) -> str:
    """`sheet`'s text with its @imports inlined and its url()s relative to _static/."""
    here = posixpath.dirname(sheet)

    def inline(m: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(here, m.group(1)))
        if target in seen or not (outdir / target).is_file():
            return ""
        seen.add(target)
        return rebased((outdir / target).read_text(encoding="utf-8"), target, outdir, seen)

    def url(m: re.Match) -> str:
        quote, ref = m.groups()
        if re.match(r"(data:|[a-z]+://|/|#)", ref):
            return m.group(0)
        return f"url({quote}{posixpath.relpath(posixpath.normpath(posixpath.join(here, ref)), '_static')}{quote})"

    return URL.sub(url, IMPORT.sub(inline, css))


def _top_level_names(tokens) -> set[str]:
    """Classes and ids a selector needs (outside any :not()/:is()/:where()/:has() function)."""
    names, dot = set(), False
    for t in tokens:
        if t.type == "literal" and t.value == ".":
            dot = True
            continue
        if dot and t.type == "ident":
            names.add(t.value)
        elif t.type == "hash":
            names.add(t.value)
        dot = False
    return names


def _split_selectors(prelude) -> list[list]:
    parts, current = [], []
    for t in prelude:
        if t.type == "literal" and t.value == ",":
            parts.append(current)
            current = []
        else:
            current.append(t)
    parts.append(current)
    return parts


def purged(css: str, known: set[str]) -> str:
    """`css` without the rules (and the selectors of a list) that need a class or id not in `known`."""

    def rules(nodes) -> list[str]:
        out = []
        for node in nodes:
            if node.type == "qualified-rule":
                kept = [s for s in _split_selectors(node.prelude) if _top_level_names(s) <= known]
                if kept:
                    selector = ",".join(tinycss2.serialize(s).strip() for s in kept)
                    out.append(f"{selector}{{{tinycss2.serialize(node.content)}}}")
            elif node.type == "at-rule" and node.lower_at_keyword in ("media", "supports", "layer", "container") \
                    and node.content is not None:
                inner = rules(tinycss2.parse_rule_list(node.content, skip_comments=True, skip_whitespace=True))
                if inner:
                    out.append(f"@{node.at_keyword} {tinycss2.serialize(node.prelude).strip()}{{{''.join(inner)}}}")
            elif node.type == "at-rule":
                out.append(tinycss2.serialize([node]))
        return out

    return "\n".join(rules(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)))


def known_names(outdir: Path) -> set[str]:
    """Every word of every page and script of the book: the classes and ids anything can use."""
    words: set[str] = set()
    for path in [*outdir.rglob("*.html"), *outdir.rglob("*.js")]:
        words.update(WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    words.update(PDF_CLASS.findall(PDF_SCRIPT.read_text(encoding="utf-8")))
    return words | BUILT_BY_SCRIPTS


def bundle_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    pages = sorted(outdir.rglob("*.html"))
    texts = {p: p.read_text(encoding="utf-8") for p in pages}
    order: list[str] = []
    for p, text in texts.items():
        for sheet in linked_sheets(text, p.parent.relative_to(outdir).as_posix(), outdir):
            if sheet not in order:
                order.append(sheet)
    if not order:
        return
    seen: set[str] = set(order)
    joined = "\n".join(rebased((outdir / s).read_text(encoding="utf-8"), s, outdir, seen) for s in order)
    css = purged(joined, known_names(outdir))
    (outdir / "_static" / BUNDLE).write_text(css, encoding="utf-8")
    digest = hashlib.sha256(css.encode()).hexdigest()[:8]
    for p, text in texts.items():
        page_dir = p.parent.relative_to(outdir).as_posix()
        if LINK.search(text):  # (a page an incremental build left alone links the last bundle)
            p.write_text(relinked(text, page_dir, outdir, digest), encoding="utf-8")


def relinked(page: str, page_dir: str, outdir: Path, digest: str) -> str:
    """`page` with its first local stylesheet link turned into the bundle's and the others gone."""
    href = posixpath.relpath(f"_static/{BUNDLE}", page_dir)
    done = False

    def one(m: re.Match) -> str:
        nonlocal done
        if not (outdir / posixpath.normpath(posixpath.join(page_dir, m.group(1)))).is_file():
            return m.group(0)
        if done:
            return ""
        done = True
        return f'    <link rel="stylesheet" type="text/css" href="{href}?v={digest}" />\n'

    return LINK.sub(one, page)


def setup(app: Sphinx) -> None:
    # After the maths (500) and the font (900): the pages are final and the font's CSS written.
    app.connect("build-finished", bundle_pages, priority=950)
