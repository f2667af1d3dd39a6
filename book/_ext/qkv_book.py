"""Sphinx glue that keeps the static book self-contained (loaded from book/_config.yml).

- `qkv-book.js` (book/_static): opened from disk (file://) the browser refuses `fetch()`, and
  Sphinx's search page fetches every hit's page for a summary; there the hits are listed without
  summaries instead of raising console errors (served over http(s), summaries come back). It also
  fills in the search's closing line, which Sphinx's Japanese catalogue leaves empty.
- The executed notebooks carry ipywidgets' saved state (a PNG per Explorable). The book loads no
  widget manager, since every Explorable is a kernel-free frame slider here, so that state is
  dead weight in every page and is dropped.
- The solution cells keep nbgrader's `### BEGIN/END SOLUTION` lines (the classroom needs them);
  the book shows the model answer without them, and without hidden tests.
- ```{shipped-assets}``` (used by book/licenses.md): a table of every third-party file the pages
  load, with version and licence, made from book/_vendor/VENDORED.json (written by
  book/scripts/vendor_assets.py) and the installed Python packages; their licence texts are
  copied next to the pages, under _static/licenses/.
- Page weight (CONTRIBUTING.md, budgets: no page over 3 MB with everything it loads, measured by
  tests/test_book.py): the figures in _images/ and the PNG frames inlined in the sliders are
  re-encoded as 256-colour PNGs (about a third of the size, no visible change on matplotlib
  plots), and the Font Awesome icon font is cut down
  to the icons the pages use (_static/qkv-icons.css, a WOFF of a few KB instead of the 150 KB
  woff2 on every page; any other icon still falls back to the theme's full font).
"""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from importlib import metadata
from pathlib import Path

from docutils import nodes
from PIL import Image
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

BOOK = Path(__file__).resolve().parents[1]
VENDORED_JSON = BOOK / "_vendor" / "VENDORED.json"
LICENSES_DIR = "licenses"  # under _static/ in the built book

# Python packages whose CSS/JS/fonts the pages load. Licences as their LICENSE files state them
# (package metadata is too inconsistent to read them from). `bundles` lists third-party files a
# package ships inside its own static folder, with the file (under _static/) carrying the notice.
PYTHON_ASSETS = [
    {"dist": "sphinx", "license": "BSD-2-Clause",
     "role": "ページの骨組み、検索(searchtools.js)、基本の CSS"},
    {"dist": "pydata-sphinx-theme", "license": "BSD-3-Clause",
     "role": "テーマの CSS と JavaScript",
     "bundles": [("Bootstrap", "scripts/bootstrap.js.LICENSE.txt", "MIT"),
                 ("Font Awesome Free", "scripts/fontawesome.js.LICENSE.txt",
                  "アイコン CC-BY-4.0、フォント OFL-1.1、コード MIT")]},
    {"dist": "sphinx-book-theme", "license": "BSD-3-Clause", "role": "本のレイアウト"},
    {"dist": "myst-nb", "license": "BSD-3-Clause", "role": "ノートブックの出力の CSS"},
    {"dist": "sphinx-togglebutton", "license": "MIT", "role": "「コードを表示」の開け閉め"},
    {"dist": "sphinx-copybutton", "license": "MIT",
     "role": "コードのコピー ボタン(clipboard.js、MIT を同梱)"},
    {"dist": "sphinx-tsegsearch", "license": "MIT",
     "role": "日本語の検索語の分かち書き",
     "bundles": [("TinySegmenter", "tiny_segmenter.js", "修正 BSD(Taku Kudo)")]},
]


def read_vendored() -> list[dict]:
    if not VENDORED_JSON.exists():
        raise FileNotFoundError(
            f"{VENDORED_JSON} がありません。先に `python book/scripts/vendor_assets.py` を"
            "実行してください(MathJax と日本語フォントを node_modules から本へコピーします)。"
        )
    return json.loads(VENDORED_JSON.read_text(encoding="utf-8"))


def license_file(dist: metadata.Distribution) -> Path | None:
    for f in dist.files or []:
        if re.match(r"(LICEN[CS]E|COPYING)", f.name, flags=re.I) and ".dist-info" in str(f):
            return Path(dist.locate_file(f))
    return None


def bundled_version(dist: metadata.Distribution, notice: str, name: str) -> str:
    """Read "Bootstrap v5.3.3" or "Font Awesome Free 6.5.2" from the notice the package ships."""
    paths = [Path(dist.locate_file(f)) for f in dist.files or []
             if str(f).replace("\\", "/").endswith("static/" + notice)]
    if not paths:
        return ""
    head = paths[0].read_text(encoding="utf-8", errors="replace")[:2000]
    found = re.search(re.escape(name) + r" v?(\d+(?:\.\d+)+)", head)
    return found.group(1) if found else ""


def _row(cells: list[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.Text(cell) if isinstance(cell, str) else cell
        entry += para
        row += entry
    return row


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["qkv-assets"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    head += _row(header)
    group += head
    body = nodes.tbody()
    for r in rows:
        body += _row(r)
    group += body
    return table


class ShippedAssets(SphinxDirective):
    """The table of third-party files the book ships, with versions and licences."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        try:
            vendored = read_vendored()
        except FileNotFoundError as err:
            raise self.error(str(err)) from err
        self.env.note_dependency(str(VENDORED_JSON))
        static = "../" * self.env.docname.count("/") + "_static/"

        def link(text: str, target: str) -> nodes.reference:
            return nodes.reference(text, text, refuri=static + target, internal=True)

        npm_rows = [
            [p["name"], p["version"], p["license"], p["role"], link("ライセンス文", p["license_file"])]
            for p in vendored
        ]
        py_rows = []
        for item in PYTHON_ASSETS:
            dist = metadata.distribution(item["dist"])
            notice = link("ライセンス文", f"{LICENSES_DIR}/{item['dist']}.txt")
            py_rows.append([item["dist"], dist.version, item["license"], item["role"], notice])
            for name, notice_file, lic in item.get("bundles", []):
                version = bundled_version(dist, notice_file, name)
                py_rows.append([f"└ {name}", version, lic, f"{item['dist']} に同梱",
                                link("表記", notice_file)])
        header = ["パッケージ", "版", "ライセンス", "本の中での役割", "全文"]
        widths = [22, 10, 16, 40, 12]
        return [
            nodes.rubric(text="npm から取り込んだもの(book/scripts/vendor_assets.py)"),
            _table(header, npm_rows, widths),
            nodes.rubric(text="Python のパッケージが書き出すもの(Sphinx と Jupyter Book の部品)"),
            _table(header, py_rows, widths),
        ]


def copy_python_licenses(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / "_static" / LICENSES_DIR
    out.mkdir(parents=True, exist_ok=True)
    for item in PYTHON_ASSETS:
        dist = metadata.distribution(item["dist"])
        src = license_file(dist)
        if src is not None:
            shutil.copyfile(src, out / f"{item['dist']}.txt")
            continue
        # Some wheels (sphinx-tsegsearch 1.2) ship no LICENSE file: state what the metadata says.
        meta = dist.metadata
        (out / f"{item['dist']}.txt").write_text(
            f"{meta['Name']} {meta['Version']}\nLicense: {item['license']}\n"
            f"Author: {meta.get('Author', '')}\nHome-page: {meta.get('Home-page', '')}\n"
            "(The wheel ships no LICENSE file; this is what its metadata states.)\n",
            encoding="utf-8",
        )


def quantized_png(data: bytes) -> bytes | None:
    """The same picture as a 256-colour PNG, or None when that would not be smaller.

    Matplotlib figures use few colours (antialiased edges, one-hue colour maps), so 256 is
    visually lossless for them; images with transparency or already paletted are left alone.
    """
    with Image.open(io.BytesIO(data)) as im:
        if im.mode == "P":
            return None
        rgba = im.convert("RGBA")
    if rgba.getextrema()[3][0] < 255:
        return None
    buf = io.BytesIO()
    rgba.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE).save(
        buf, format="png", optimize=True)
    return buf.getvalue() if buf.tell() < len(data) else None


def quantize_images(app: Sphinx, exception: Exception | None) -> None:
    """Re-encode the figures in _images/ (runs after each build; Sphinx re-copies originals)."""
    if exception is not None or app.builder.format != "html":
        return
    for path in (Path(app.outdir) / "_images").glob("*.png"):
        smaller = quantized_png(path.read_bytes())
        if smaller is not None:
            path.write_bytes(smaller)


PNG_BASE64 = re.compile(r"iVBORw0KGgo[A-Za-z0-9+/]+=*")  # a PNG's signature, base64-encoded


def quantize_inline_pngs(app: Sphinx, doctree: nodes.document) -> None:
    """Re-encode the PNGs inside raw HTML outputs: the frames of every kernel-free slider."""
    for node in list(doctree.findall(nodes.raw)):
        text = node.astext()
        if "iVBORw0KGgo" not in text:
            continue

        def shrink(match: re.Match) -> str:
            smaller = quantized_png(base64.b64decode(match.group(0)))
            return match.group(0) if smaller is None else base64.b64encode(smaller).decode("ascii")

        new = PNG_BASE64.sub(shrink, text)
        if new != text:
            node.replace_self(nodes.raw(node.rawsource, new, **node.attributes))


ICON_CSS = "qkv-icons.css"
ICON_FONT = "qkv-icons-solid.woff"
ICON_RULE = re.compile(r"([^{}]+)\{content:\"\\([ef][0-9a-f]{3,4})\"\}")


def subset_icon_font(app: Sphinx, exception: Exception | None) -> None:
    """Cut the solid Font Awesome font down to the icons the built pages name."""
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    theme_css = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    codepoints = {}
    for selectors, code in ICON_RULE.findall(theme_css):
        for name in re.findall(r"\.(fa-[a-z0-9-]+):(?::)?before", selectors):
            codepoints[name] = int(code, 16)
    used = set()
    for path in [*Path(app.outdir).rglob("*.html"), *(static / "scripts").glob("*.js")]:
        text = path.read_text(encoding="utf-8", errors="replace")
        used |= set(re.findall(r"\bfa-[a-z0-9-]+", text))
    wanted = sorted({codepoints[n] for n in used if n in codepoints})
    if not wanted:
        (static / ICON_CSS).write_text("/* no icons */\n", encoding="utf-8")
        return
    from fontTools import subset

    font = subset.load_font(str(static / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.ttf"),
                            subset.Options())
    options = subset.Options()
    options.flavor = "woff"  # zlib: needs no brotli module, unlike woff2
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    subset.save_font(font, str(static / ICON_FONT), options)
    ranges = ",".join(f"U+{c:04X}" for c in wanted)
    (static / ICON_CSS).write_text(
        "/* Generated by book/_ext/qkv_book.py: the solid icons this book uses. Declared after\n"
        "   the theme's face, so it wins for these code points; others use the theme's font. */\n"
        '@font-face { font-family: "Font Awesome 6 Free"; font-style: normal; font-weight: 900;\n'
        f'  font-display: block; src: url({ICON_FONT}) format("woff"); unicode-range: {ranges}; }}\n',
        encoding="utf-8",
    )


NBGRADER_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) (SOLUTION|HIDDEN TESTS)[ \t]*\n?", re.M)
HIDDEN_TESTS = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*\n?", re.M | re.S)


def without_nbgrader_markers(code: str) -> str:
    """A cell's code as a reader should see it: no nbgrader marker lines, no hidden tests."""
    return NBGRADER_MARKER.sub("", HIDDEN_TESTS.sub("", code)).rstrip("\n")


def strip_nbgrader_markers(app: Sphinx, doctree: nodes.document) -> None:
    """The book's opened solutions show the model answer, not nbgrader's `### BEGIN SOLUTION`."""
    for node in list(doctree.findall(nodes.literal_block)):
        text = node.astext()
        if "### BEGIN " not in text and "### END " not in text:
            continue
        clean = without_nbgrader_markers(text)
        new = nodes.literal_block(clean, clean, **node.attributes)
        node.replace_self(new)


def drop_widget_state(app: Sphinx, env: BuildEnvironment) -> list[str]:
    for data in getattr(env, "nb_metadata", {}).values():
        data.get("js_files", {}).pop("ipywidgets_state", None)
    return []


def setup(app: Sphinx) -> dict:
    # After Sphinx's translations.js and documentation_options.js (priority 500).
    app.add_js_file("qkv-book.js", priority=900)
    app.add_directive("shipped-assets", ShippedAssets)
    app.connect("env-updated", drop_widget_state)
    app.connect("doctree-read", quantize_inline_pngs)
    app.connect("doctree-read", strip_nbgrader_markers)
    app.add_css_file(ICON_CSS, priority=900)
    app.connect("build-finished", copy_python_licenses)
    app.connect("build-finished", quantize_images)
    app.connect("build-finished", subset_icon_font)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
