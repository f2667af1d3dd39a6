"""Maths typeset when the book is built: SVG in the pages, no maths engine in the reader's browser.

The pages are written with Sphinx's MathJax markup (`\\(…\\)` in span.math, `\\[…\\]` in div.math) but
under a renderer of our own (`html_math_renderer: qkv_svg` in book/_config.yml), so Sphinx adds no
MathJax script. Once every page is written, MathJax 3 runs in Node (maths_svg.js, from
node_modules; one process for the whole book) and each formula is replaced by its SVG, keeping the
span/div around it. A page's glyph outlines are stored once, in a hidden SVG at the top of its
body, and each formula refers to them. Screen readers get the formula as MathML beside the
aria-hidden SVG (MathJax's assistive MathML; book/_static/qkv.css hides it from sight). Printing
and the PDF draw the same SVG. A TeX error fails the build.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.ext.mathjax import html_visit_displaymath, html_visit_math

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(__file__).with_name("maths_svg.js")
RENDERER = "qkv_svg"
INLINE = re.compile(r'(<span class="math notranslate nohighlight"[^>]*>)\\\((.*?)\\\)(</span>)', re.S)
DISPLAY = re.compile(r'(<div class="math notranslate nohighlight"[^>]*>)\s*\\\[(.*?)\\\]\s*(</div>)', re.S)
BODY = re.compile(r"<body[^>]*>")


def formulas_of(text: str) -> list[dict]:
    """The page's formulas in the order `typeset` puts them back."""
    found = [(m.start(), {"tex": html.unescape(m.group(2)), "display": False}) for m in INLINE.finditer(text)]
    found += [(m.start(), {"tex": html.unescape(m.group(2)), "display": True}) for m in DISPLAY.finditer(text)]
    return [f for _, f in sorted(found, key=lambda pair: pair[0])]


def render(pages: list[list[dict]]) -> list[dict]:
    """[{"svg": [one per formula], "glyphs": the page's <defs>}] for each page's formulas."""
    node = subprocess.run(["node", str(SCRIPT), str(ROOT / "node_modules")],
                          input=json.dumps(pages).encode(), capture_output=True, check=False)
    if node.returncode != 0:
        raise ExtensionError("数式を SVG にできませんでした(node と node_modules/mathjax が要ります。"
                             f"make setup):\n{node.stderr.decode(errors='replace')[-2000:]}")
    return json.loads(node.stdout)


def typeset(text: str, result: dict) -> str:
    """The page with each formula's TeX replaced by its SVG, and the page's glyphs in its body."""
    svgs = iter(result["svg"])
    matches = sorted([*INLINE.finditer(text), *DISPLAY.finditer(text)], key=lambda m: m.start())
    out, end = [], 0
    for m in matches:
        out += [text[end:m.start()], m.group(1), next(svgs), m.group(3)]
        end = m.end()
    out.append(text[end:])
    page = "".join(out)
    glyphs = ('<svg id="MJX-SVG-global-cache" xmlns="http://www.w3.org/2000/svg" '
              f'style="display: none;" aria-hidden="true">{result["glyphs"]}</svg>')
    return BODY.sub(lambda b: b.group(0) + glyphs, page, count=1)


def typeset_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    paths = [p for p in Path(app.outdir).rglob("*.html") if "_static" not in p.parts]
    texts = {p: p.read_text(encoding="utf-8") for p in paths}
    todo = {p: formulas_of(t) for p, t in texts.items()}
    todo = {p: f for p, f in todo.items() if f}
    results = render(list(todo.values()))
    errors = []
    for (path, formulas), result in zip(todo.items(), results, strict=True):
        for formula, svg in zip(formulas, result["svg"], strict=True):
            if 'data-mml-node="merror"' in svg:
                errors.append(f"{path.relative_to(app.outdir)}: {formula['tex']}")
        path.write_text(typeset(texts[path], result), encoding="utf-8")
    if errors:
        raise ExtensionError("TeX のエラーがある数式:\n" + "\n".join(errors))


def setup(app: Sphinx) -> None:
    # Sphinx's own MathJax markup, but no script: the formulas are SVG when the reader gets them.
    app.add_html_math_renderer(RENDERER, (html_visit_math, None), (html_visit_displaymath, None))
    app.connect("build-finished", typeset_pages, priority=500)
