"""Sphinx glue that keeps the static book self-contained (loaded from book/_config.yml).

- `qkv-book.js` (book/_static): opened from disk (file://) the browser refuses `fetch()`, and
  Sphinx's search page fetches every hit's page for a summary; there the hits are listed without
  summaries instead of raising console errors (served over http(s), summaries come back). It also
  fills in the search's closing line, which Sphinx's Japanese catalogue leaves empty.
- The executed notebooks may carry ipywidgets' saved state. The book loads no widget manager:
  its explorables run on their own model shim (book/_ext/qkv_explorables.py, set up from here),
  so that state is dead weight in every page and is dropped.
- The solution cells keep nbgrader's `### BEGIN/END SOLUTION` lines (the classroom needs them);
  the book shows the model answer without them, and without hidden tests.
- ```{shipped-assets}``` (used by book/licenses.md): a table of every third-party file the pages
  load, with version and licence, made from book/_vendor/VENDORED.json (written by
  book/scripts/vendor_assets.py) and the installed Python packages; their licence texts are
  copied next to the pages, under _static/licenses/.
- Page weight (CONTRIBUTING.md, budgets: no page over 3 MB with everything it loads, measured by
  tests/test_book.py): the figures in _images/ are re-encoded as 256-colour PNGs (about a third of the size, no visible change on matplotlib
  plots), and the Font Awesome icon font is cut down
  to the icons the pages use (_static/qkv-icons.css, a WOFF of a few KB instead of the 150 KB
  woff2 on every page; any other icon still falls back to the theme's full font).
- Figures readable on a phone: while the book is built, book/scripts/figure_text_probe.py runs in
  the chapters' kernels and notes the smallest text of every picture they draw. Each figure then
  carries that size (a PNG text chunk `qkv-min-text-px`, and on the page
  `data-qkv-text-px`, `data-qkv-width` and `--qkv-readable-width`, the width at which that text
  is READABLE_PX tall). On a phone or tablet (book/_static/qkv.css) no figure is drawn narrower
  than that; one wider than the column scrolls sideways inside `.qkv-scroll` (qkv-book.js shows
  the cue).
- Japanese throughout: the folded solutions' summary has no English aria-label (its visible
  「コードを表示」 names it) and says on paper where the solution is; the search box's placeholder.
- 用語集: every entry lists the chapters that use the term, each linked to the section where the
  chapter first uses it.
- Search ranking (book/_ext/search_scorer.js): the data it needs (how often each indexed word
  occurs on each page, the glossary's terms, the reading order) is written next to the search page.
"""

from __future__ import annotations

import io
import json
import math
import os
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


READABLE_PX = 9  # the smallest figure text a reader meets, in CSS px (tests/test_book_reader.py)
TEXT_CHUNK = "qkv-min-text-px"  # PNG text chunk: the picture's smallest font size, in its pixels
FIGURE_TEXT_LOG = "figure-text.jsonl"  # under book/_build/: what the probe measured


def pixel_key(rgba) -> str:
    """The key book/scripts/figure_text_probe.py logs: size plus a hash of the RGBA pixels."""
    import hashlib

    import numpy as np

    rgba = np.ascontiguousarray(np.asarray(rgba), dtype=np.uint8)
    h, w = rgba.shape[:2]
    return f"{w}x{h}:" + hashlib.sha1(rgba.tobytes()).hexdigest()


def figure_text_sizes(app: Sphinx) -> dict[str, float]:
    """Pixel key -> smallest text (px) of every picture the chapters' kernels drew so far."""
    sizes: dict[str, float] = {}
    log = Path(app.config.qkv_figure_text_log)
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            key, px = entry["key"], float(entry["min_text_px"])
            sizes[key] = min(px, sizes.get(key, px))
    return sizes


def reencoded_png(data: bytes, sizes: dict[str, float]) -> tuple[bytes, float | None, int]:
    """The picture re-encoded, with its smallest text size: (png, px or None, width in px).

    The PNG carries the size in a text chunk when the probe measured it, and becomes a
    256-colour PNG when that is smaller: matplotlib figures use few colours (antialiased edges,
    one-hue colour maps), so 256 is visually lossless for them; images with transparency or
    already paletted keep their colours, and their bytes (the chunk is added, not re-encoded:
    compressing a full-colour picture again cost most of the build's own time).
    """
    from PIL.PngImagePlugin import PngInfo

    with Image.open(io.BytesIO(data)) as im:
        im.load()
        original = im.copy()
    rgba = original.convert("RGBA")
    px = sizes.get(pixel_key(rgba))
    info = PngInfo()
    if px is not None:
        info.add_text(TEXT_CHUNK, f"{px:g}")
    options = [data if px is None else with_text_chunk(data, TEXT_CHUNK, f"{px:g}")]
    if original.mode != "P" and rgba.getextrema()[3][0] == 255:
        buf = io.BytesIO()
        rgba.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE).save(
            buf, format="png", optimize=True, pnginfo=info)
        options.append(buf.getvalue())
    return min(options, key=len), px, rgba.width


def with_text_chunk(png: bytes, key: str, value: str) -> bytes:
    """`png` with a tEXt chunk `key`=`value` right after its header chunk (IHDR: 33 bytes in)."""
    import struct
    import zlib

    body = b"tEXt" + key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    return png[:33] + chunk + png[33:]


def readable_attrs(px: float | None, width: int) -> str:
    """The attributes an <img> needs so that its smallest text is at least READABLE_PX tall."""
    if px is None:
        return ""
    need = max(1, math.ceil(width * READABLE_PX / px))
    return (f' data-qkv-text-px="{px:g}" data-qkv-width="{width}"'
            f' style="--qkv-readable-width: {need}px"')


def measured_text_px(data: bytes) -> tuple[float | None, int]:
    """The smallest text size a PNG carries (written by reencoded_png), and its width."""
    with Image.open(io.BytesIO(data)) as im:
        px = im.text.get(TEXT_CHUNK) if hasattr(im, "text") else None
        return (float(px) if px else None), im.width


def reencode_output_images(app: Sphinx, doctree: nodes.document) -> None:
    """The figures a chapter's kernel just drew (files under book/_build/jupyter_execute/):
    re-encoded in place with their smallest text size, before Sphinx copies them to _images/.
    Done here, right after the chapter ran, because only then does the probe's log hold them;
    a chapter that is not re-read keeps the files re-encoded by an earlier build."""
    sizes = None
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        path = Path(app.srcdir) / uri
        if not uri.endswith(".png") or "jupyter_execute" not in uri or not path.is_file():
            continue
        data = path.read_bytes()
        if measured_text_px(data)[0] is not None:
            continue
        if sizes is None:
            sizes = figure_text_sizes(app)
        png, px, _ = reencoded_png(data, sizes)
        if px is not None:
            path.write_bytes(png)


def quantize_images(app: Sphinx, exception: Exception | None) -> None:
    """Re-encode the other pictures in _images/ and size every figure's <img> (after each
    build; Sphinx re-copies the files it manages)."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    attrs = {}
    for path in (outdir / "_images").glob("*.png"):
        data = path.read_bytes()
        px, width = measured_text_px(data)
        if px is None:
            png, px, width = reencoded_png(data, {})
            path.write_bytes(png)
        attrs[path.name] = readable_attrs(px, width)
    img = re.compile(r'<img ([^>]*?)src="((?:\.\./)*_images/([^"/]+\.png))"([^>]*?)\s*/?>')

    def sized(match: re.Match) -> str:
        extra = attrs.get(match.group(3), "")
        if not extra or "data-qkv-text-px" in match.group(0):
            return match.group(0)
        tag = f'<img {match.group(1)}src="{match.group(2)}"{match.group(4)}{extra} />'
        return f'<span class="qkv-scroll">{tag}</span>'

    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = img.sub(sized, text)
        if new != text:
            page.write_text(new, encoding="utf-8")


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


def install_figure_probe(app: Sphinx) -> None:
    """Run book/scripts/figure_text_probe.py in the kernels that execute the chapters.

    The kernels inherit this process's environment: IPYTHONDIR points them at a profile under
    book/_build/ whose only startup file is the probe, and the probe logs to qkv_figure_text_log.
    JupyterLab, nbval and the classroom tools use their own profile and never see it.
    """
    if app.builder.format != "html":
        return
    log = Path(app.config.qkv_figure_text_log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    ipython_dir = log.parent / "ipython"
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(BOOK / "scripts" / "figure_text_probe.py", startup / "00-figure-text-probe.py")
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    os.environ["QKV_FIGURE_TEXT_LOG"] = str(log)


def japanese_search_placeholder(app: Sphinx, config) -> None:
    # Jupyter Book sets "Search this book..."; the theme puts it in the box and its aria-label.
    config.html_theme_options["search_bar_text"] = "この本を検索…"


# ------------------------------------------------------------------- folded solutions


def visit_hidden_cell(self, node) -> None:
    """myst-nb's <details> for a folded cell, with the summary named by its visible text.

    myst-nb gives the summary aria-label="Toggle hidden content", which replaces the visible
    「コードを表示」 for screen readers and voice control; without it the summary is named by what it
    shows. `data-print-note` is what the printed page says instead (book/_static/qkv.css).
    """
    from html import escape

    classes = " ".join(node["classes"])
    metadata = node.parent.get("cell_metadata", {}) if node.parent is not None else {}
    solution = metadata.get("nbgrader", {}).get("solution", False)
    source = self.builder.env.doc2path(self.builder.current_docname, False)
    where = f"{Path(source).with_suffix('.ipynb').as_posix()}"
    what = "解答例" if solution else "このコード"
    note = (f"{what}は印刷では伏せてあります。ノートブック {where} の折りたたんだセル、"
            f"または HTML 版のこのページの「{node['prompt_show']}」で見られます。")
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append(f'<summary data-print-note="{escape(note)}">\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_cell(self, node) -> None:
    self.body.append("</details>\n")


# ----------------------------------------------------------- glossary: where each term is used

GLOSSARY_DOC = "book/glossary"
CHAPTER_DOC = re.compile(r"^notebooks/(\d\d)_")
SKIP_IN_PROSE = (nodes.literal_block, nodes.literal, nodes.raw, nodes.comment, nodes.image)


def term_names(term_text: str) -> list[str]:
    """「問い(クエリ, query)」 -> ["問い", "クエリ", "query"]; 「名札 / 手土産」 -> both."""
    head, _, rest = term_text.partition("(")
    names = [n.strip() for n in head.split("/")]
    names += [n.strip() for n in rest.rstrip(")").split(",")] if rest else []
    return [n for n in names if n]


def math_plain(text: str) -> str:
    """`d_{model}` -> `d_model`, so a term such as d_model is found inside formulas too."""
    return re.sub(r"[{}\s]", "", text)


def in_code_cell(node: nodes.Node) -> bool:
    while node is not None:
        if isinstance(node, nodes.container) and str(node.get("nb_element", "")).startswith(
                "cell_code"):
            return True
        node = node.parent
    return False


def collect_prose(app: Sphinx, doctree: nodes.document) -> None:
    """For a chapter: its prose, section by section, for the glossary's 「出てくる章」."""
    docname = app.env.docname
    if not CHAPTER_DOC.match(docname):
        return
    sections: list[tuple[str, str, str]] = []  # (section id, section title, text)
    for section in doctree.findall(nodes.section):
        title = section[0].astext() if section.children else ""
        parts = []
        for node in section.findall(nodes.Text):
            if node.parent is None or isinstance(node.parent, SKIP_IN_PROSE) or in_code_cell(node):
                continue
            # only the text directly in this section, not in its subsections
            owner = node.parent
            while owner is not None and not isinstance(owner, nodes.section):
                owner = owner.parent
            if owner is not section:
                continue
            text = node.astext()
            parts.append(math_plain(text) if isinstance(node.parent, nodes.math) else text)
        for node in section.findall(nodes.math_block):
            owner = node.parent
            while owner is not None and not isinstance(owner, nodes.section):
                owner = owner.parent
            if owner is section:
                parts.append(math_plain(node.astext()))
        sections.append((section["ids"][0] if section["ids"] else "", title, " ".join(parts)))
    if not hasattr(app.env, "qkv_prose"):
        app.env.qkv_prose = {}
    app.env.qkv_prose[docname] = sections


def purge_prose(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "qkv_prose", {}).pop(docname, None)


def merge_prose(app: Sphinx, env: BuildEnvironment, docnames, other: BuildEnvironment) -> None:
    if not hasattr(env, "qkv_prose"):
        env.qkv_prose = {}
    env.qkv_prose.update(getattr(other, "qkv_prose", {}))


def depend_on_helpers(app: Sphinx, doctree: nodes.document) -> None:
    """A chapter's outputs come from src/helpers too: when a helper changes, the next build
    executes the chapters again instead of keeping pictures drawn by the old code."""
    if CHAPTER_DOC.match(app.env.docname):
        for path in sorted((BOOK.parent / "src" / "helpers").rglob("*.py")):
            app.env.note_dependency(str(path))


def glossary_outdated(app: Sphinx, env: BuildEnvironment, added, changed, removed) -> list[str]:
    """A changed chapter changes where terms are used, so the glossary is rewritten too."""
    touched = set(added) | set(changed) | set(removed)
    if any(CHAPTER_DOC.match(d) for d in touched) and GLOSSARY_DOC in env.found_docs:
        return [GLOSSARY_DOC]
    return []


def link_glossary_to_chapters(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Add 「出てくる章:第 2 章、第 6 章」 under every entry, each linked to the first section
    of that chapter whose prose uses one of the term's names."""
    if docname != GLOSSARY_DOC:
        return
    prose = getattr(app.env, "qkv_prose", {})
    chapters = sorted(prose, key=lambda d: CHAPTER_DOC.match(d).group(1))
    for item in doctree.findall(nodes.definition_list_item):
        terms = [t for t in item.children if isinstance(t, nodes.term)]
        definitions = [d for d in item.children if isinstance(d, nodes.definition)]
        if not terms or not definitions:
            continue
        names = [n for t in terms for n in term_names(t.astext())]
        para = nodes.paragraph(classes=["qkv-term-uses"])
        for chapter in chapters:
            hit = next(((sid, title) for sid, title, text in prose[chapter]
                        if any(n in text for n in names)), None)
            if hit is None:
                continue
            number = int(CHAPTER_DOC.match(chapter).group(1))
            uri = app.builder.get_relative_uri(docname, chapter) + (f"#{hit[0]}" if hit[0] else "")
            if len(para):
                para += nodes.Text("、")
            ref = nodes.reference("", f"第 {number} 章", internal=True, refuri=uri,
                                  reftitle=f"第 {number} 章「{hit[1]}」")
            para += ref
        if len(para):
            para.insert(0, nodes.Text("出てくる章:"))
        else:
            para += nodes.Text("出てくる章:(本編の章には出てきません)")
        definitions[-1] += para


# -------------------------------------------------------------------------- search ranking

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
    from collections import Counter

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
    split, seen = lang.split, {}

    def remembered(text: str) -> list[str]:
        if text not in seen:
            seen[text] = split(text)
        return list(seen[text])

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
        "// Written by book/_ext/qkv_book.py for book/_ext/search_scorer.js.\n"
        f"const QKV_SEARCH = {json.dumps(data, ensure_ascii=False, separators=(',', ':'))};\n",
        encoding="utf-8")
    app.add_js_file(SEARCH_DATA, priority=200)  # only this page: before searchtools.js


def drop_widget_state(app: Sphinx, env: BuildEnvironment) -> list[str]:
    for data in getattr(env, "nb_metadata", {}).values():
        data.get("js_files", {}).pop("ipywidgets_state", None)
    return []


#: What the extension does at each Sphinx event, in the order Sphinx's build reaches them.
HANDLERS = {
    "config-inited": [japanese_search_placeholder],
    "builder-inited": [install_figure_probe],
    "env-updated": [drop_widget_state],
    "doctree-read": [depend_on_helpers, strip_nbgrader_markers, reencode_output_images,
                     collect_prose],
    "env-purge-doc": [purge_prose],
    "env-merge-info": [merge_prose],
    "env-get-outdated": [glossary_outdated],
    "doctree-resolved": [link_glossary_to_chapters, count_words],
    "html-page-context": [write_search_data],
    "build-finished": [copy_python_licenses, quantize_images, subset_icon_font],
}


def setup(app: Sphinx) -> dict:
    from myst_nb.sphinx_ import HideCodeCellNode

    app.add_config_value("qkv_figure_text_log",
                         str(BOOK / "_build" / FIGURE_TEXT_LOG), "env", types=[str])
    # After Sphinx's translations.js and documentation_options.js (priority 500).
    app.add_js_file("qkv-book.js", priority=900)
    app.add_directive("shipped-assets", ShippedAssets)
    app.setup_extension("qkv_explorables")  # book/_ext/qkv_explorables.py
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_hidden_cell))
    app.add_css_file(ICON_CSS, priority=900)
    for event, handlers in HANDLERS.items():
        for handler in handlers:  # in this order
            app.connect(event, handler)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
