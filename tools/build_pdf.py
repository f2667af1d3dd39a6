"""One PDF of the whole book (`make pdf`): book/_build/pdf/qkv-book.pdf, offline, from the built HTML.

    python tools/build_pdf.py            # builds the HTML book first if it is missing
    python tools/build_pdf.py --out x.pdf

The route (CONTRIBUTING.md, "PDF"): the Chromium the browser tests drive (tools/chromium.py)
prints every page of the book, in the order of book/_toc.yml, with the book's print CSS
(book/_static/qkv.css, `@media print`) through Playwright's `page.pdf()` on A4; pypdf then merges
them behind a cover and a table of contents with page numbers, numbers the pages, adds the
outline (bookmarks: every page and its headings) and turns every link between the book's pages
into a link inside the PDF. Jupyter Book's own `pdfhtml` builder downloads its own browser, and
its LaTeX route needs Japanese TeX packages: neither works here offline.

Before a page is printed, `PREPARE` (below) rearranges it for paper:

- each explorable keeps its first picture, as the page draws it, and states its control values
  in one line under it (the controls themselves are not printed);
- the maths get their text laid over them, so a PDF reader finds and copies them;
- every element that a link of the book points at gets a named destination (an invisible link
  to itself: Chromium writes a destination only for targets that its own page links to).

What a page prints of its folded text is the page's own rule, not this file's: the book's
`beforeprint` handler (book/_static/qkv-book.js) moves the folded whys, answer checks, solutions
and review answers, opened, to 「解答と答え合わせ」 at the end of their chapter, numbered 【答え N】
and linked both ways (the printed book's habit of answers after the questions), and puts them
back on `afterprint`. `page.pdf()` fires both events, so the PDF and a reader's own Ctrl+P of a
page print the same folded text in the same places (tests/test_pdf.py, tests/test_book_print.py).
"""

from __future__ import annotations

import argparse
import html
import io
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import chapters  # tools/chapters.py, beside this file: the toc's pages in order
import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "book" / "_build" / "html"
OUT = ROOT / "book" / "_build" / "pdf" / "qkv-book.pdf"
CONFIG = ROOT / "book" / "_config.yml"

#: The page box: A4 with margins wide enough for the page number below the text.
MARGIN = {"top": "16mm", "bottom": "18mm", "left": "16mm", "right": "16mm"}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
#: The contents link to a heading by its place in its page's PDF: #qkv-pdf-<page>-<top>.
PAGE_ANCHOR = "qkv-pdf-"


def book_title() -> str:
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["title"]


# --------------------------------------------------------------------------- the page, for paper

#: Every picture of the page loaded, those far below the first screen too (the figures are
#: `loading="lazy"`: book/_ext/qkv_book/figures.py). The book's tests wait with it as well.
EVERY_IMAGE_LOADED = """async () => {
  const images = [...document.images];
  images.forEach(i => { if (i.loading === 'lazy') i.loading = 'eager'; });
  await Promise.all(images.map(i => i.complete ? 0 : new Promise(r => {
    i.addEventListener('load', r, {once: true});
    i.addEventListener('error', r, {once: true});
  })));
}"""

# The maths are SVG in the page already (book/_ext/qkv_book/maths.py): no engine to wait for.
WAIT_FOR_PAGE = (
    "async () => {\n"
    "  await document.fonts.ready;\n"
    f"  await ({EVERY_IMAGE_LOADED})();\n"
    "  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 200)));\n"
    "}"
)

#: Rearranges a loaded page for paper (see the module's docstring). Argument: the ids other pages
#: link to on this page. Returns nothing; the page is printed as it is left.
PREPARE = r"""(targets) => {
  // The theme prints each page's own small contents under its title: the PDF has one contents
  // for the whole book, and the page's 「目次」 heading would stand in it once per page.
  document.querySelectorAll('#jb-print-toc').forEach(toc => toc.remove());
  // Explorables: the first picture, and one line with the controls' values (the controls,
  // which paper cannot move, are not printed).
  for (const root of document.querySelectorAll('.qkv-explorable')) {
    const text = n => (n ? n.textContent : '').replace(/\s+/g, ' ').trim();
    const values = [...root.querySelectorAll('.qkv-control')].map(c => {
      const group = c.querySelector('[role="radiogroup"]');
      if (group) {
        const on = group.querySelector('input:checked');
        return `${group.getAttribute('aria-label')}: ${on ? text(group.querySelector(`label[for="${on.id}"]`)) : '—'}`;
      }
      const box = c.querySelector('input[type="checkbox"]');
      if (box) return `${text(c.querySelector('label'))}: ${box.checked ? 'オン' : 'オフ'}`;
      return `${text(c.querySelector('.qkv-label'))}: ${text(c.querySelector('output'))}`;
    });
    for (const bar of root.querySelectorAll('.qkv-controls')) bar.classList.add('qkv-print-hidden');
    const p = document.createElement('p');
    p.className = 'qkv-print-controls';
    p.textContent = values.length
      ? `図の操作の値(最初の状態):${values.join('、')}。HTML 版の本と JupyterLab では、この図を動かせます。`
      : 'HTML 版の本と JupyterLab では、この図を動かせます。';
    root.append(p);
  }
  // The maths are drawn shapes (SVG typeset when the book was built): on paper they look right
  // but a PDF reader could neither find nor copy them. Each formula gets its text laid over it,
  // linear (x_i, W_Q^⊤, (a)/(b)) from the MathML beside it, nearly transparent: searchable and
  // copyable, never seen (fully transparent text is left out of the PDF altogether).
  const linear = (n) => {
    const kids = [...n.children].map(linear);
    const wrap = (t) => (t.length > 1 ? `(${t})` : t);
    switch (n.localName) {
      case 'mi': case 'mn': case 'mo': case 'mtext': case 'ms': return n.textContent.trim();
      case 'mspace': return ' ';
      case 'msub': return `${kids[0]}_${wrap(kids[1])}`;
      case 'msup': return `${kids[0]}^${wrap(kids[1])}`;
      case 'msubsup': return `${kids[0]}_${wrap(kids[1])}^${wrap(kids[2])}`;
      case 'mfrac': return `${wrap(kids[0])}/${wrap(kids[1])}`;
      case 'msqrt': return `√${wrap(kids.join(''))}`;
      case 'mroot': return `√[${kids[1]}]${wrap(kids[0])}`;
      case 'mtable': return kids.join('; ');
      case 'mtr': case 'mlabeledtr': return kids.join(', ');
      case 'annotation': case 'annotation-xml': return '';
      default: return kids.join('');
    }
  };
  for (const box of document.querySelectorAll('mjx-container')) {
    const math = box.querySelector('mjx-assistive-mml > math');
    const svg = box.querySelector(':scope > svg');
    if (!math || !svg) continue;
    const text = linear(math).replace(/\s+/g, ' ').trim();
    const size = svg.getBoundingClientRect();
    if (!text || !size.width) continue;
    const layer = document.createElement('span');
    layer.className = 'qkv-print-math-text';
    layer.setAttribute('aria-hidden', 'true');
    layer.textContent = text;
    const font = Math.max(1, Math.min(size.height * 0.8, size.width / (text.length * 0.62)));
    // In the line just before the picture, taking no room in it (a negative margin as wide as
    // the text, no line height): the text runs over the picture and a PDF reader meets it where
    // the formula is read (an absolutely placed layer, or an inline-block, came after the
    // paragraph's text).
    Object.assign(layer.style, {
      display: 'inline', lineHeight: '0', whiteSpace: 'pre', fontSize: `${font}px`,
      fontFamily: 'sans-serif', fontStyle: 'normal', fontWeight: 'normal', letterSpacing: '0',
      color: 'rgba(0, 0, 0, 0.004)', pointerEvents: 'none',
    });
    svg.before(layer);
    layer.style.marginRight = `-${layer.getBoundingClientRect().width}px`;
  }
  // Named destinations for what other pages link to (Chromium writes one only for a target
  // its own page links to).
  const holder = document.createElement('div');
  holder.className = 'qkv-print-anchors';
  for (const id of targets) {
    if (!document.getElementById(id)) continue;
    const a = document.createElement('a');
    a.href = '#' + id;
    holder.append(a);
  }
  document.body.append(holder);
}"""


@dataclass
class Printed:
    doc: str
    pdf: bytes
    title: str
    pages: int = 0
    # (level, title, page index in this doc's PDF, top in points) from Chromium's outline
    headings: list[tuple[int, str, int, float]] = field(default_factory=list)
    # named destination -> (page index, top)
    dests: dict[str, tuple[int, float]] = field(default_factory=dict)


def link_targets(docs: list[str]) -> dict[str, set[str]]:
    """doc -> the ids that some page of the book links to (read from the built HTML)."""
    import re

    href = re.compile(r'href="([^"#]*)#([^"]+)"')
    targets: dict[str, set[str]] = {d: set() for d in docs}
    for doc in docs:
        page = HTML / f"{doc}.html"
        text = page.read_text(encoding="utf-8")
        for path, frag in href.findall(text):
            if "://" in path:
                continue
            target = (page.parent / unquote(path)).resolve() if path else page.resolve()
            try:
                rel = target.relative_to(HTML.resolve()).with_suffix("").as_posix()
            except ValueError:
                continue
            if rel in targets:
                targets[rel].add(html.unescape(unquote(frag)))
    return targets


def print_page(browser, doc: str, targets: set[str]) -> Printed:
    context = browser.new_context(viewport={"width": 794, "height": 1123}, locale="ja-JP",
                                  service_workers="block")
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:"))
                  else r.abort())
    try:
        page = context.new_page()
        page.emulate_media(media="print")
        page.goto((HTML / f"{doc}.html").as_uri(), wait_until="load")
        page.evaluate(WAIT_FOR_PAGE)
        page.evaluate(PREPARE, sorted(targets))
        page.evaluate(WAIT_FOR_PAGE)
        title = page.evaluate("() => (document.querySelector('.bd-article h1') || {}).textContent || document.title")
        pdf = page.pdf(format="A4", margin=MARGIN, print_background=True, outline=True,
                       tagged=True, prefer_css_page_size=False)
    finally:
        context.close()
    return Printed(doc, pdf, title.replace("#", "").strip())


def once(title: str) -> str:
    """A heading's title as Chromium's outline should give it: for a heading that a page break
    puts at the top of a page it gives the text twice (「1. ぴったり検索…1. ぴったり検索…」)."""
    half = len(title) // 2
    return title[:half] if len(title) % 2 == 0 and title[:half] == title[half:] else title


def read_structure(printed: Printed) -> None:
    """The page count, headings (from Chromium's outline) and named destinations of one page."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(printed.pdf))
    printed.pages = len(reader.pages)

    def walk(items, level):
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
                continue
            page = reader.get_destination_page_number(item)
            top = float(item.top) if item.top is not None else 0.0
            printed.headings.append((level, once(str(item.title).strip()), page, top))

    walk(reader.outline, 0)
    for name, dest in reader.named_destinations.items():
        try:
            page = reader.get_destination_page_number(dest)
        except Exception:
            continue
        top = float(dest.top) if getattr(dest, "top", None) is not None else 0.0
        printed.dests[str(name)] = (page, top)


# ------------------------------------------------------------------------- cover and contents

FRONT_CSS = """
@page { size: A4; margin: 22mm 20mm 20mm 20mm; }
body { font-family: "Noto Sans JP", sans-serif; color: #111; margin: 0; }
.cover { height: 240mm; display: flex; flex-direction: column; justify-content: center; break-after: page; }
.cover h1 { font-size: 30pt; margin: 0 0 8mm; line-height: 1.3; }
.cover .sub { font-size: 13pt; line-height: 1.7; color: #333; }
.cover .meta { margin-top: 30mm; font-size: 10.5pt; color: #444; line-height: 1.8; }
.cover .q { color: #0072B2; } .cover .k { color: #D55E00; } .cover .v { color: #009E73; }
h2 { font-size: 18pt; margin: 0 0 6mm; }
ol.toc, ol.toc ol { list-style: none; margin: 0; padding: 0; }
ol.toc > li { margin-top: 3mm; font-size: 11.5pt; font-weight: 700; break-inside: avoid; }
ol.toc ol li { margin-top: 1mm; font-size: 10pt; font-weight: 400; padding-left: 6mm; }
ol.toc a { display: flex; color: inherit; text-decoration: none; align-items: baseline; }
ol.toc .t { flex: 0 1 auto; }
ol.toc .dots { flex: 1 1 auto; border-bottom: 1px dotted #888; margin: 0 2mm; min-width: 6mm; }
ol.toc .p { flex: 0 0 auto; font-variant-numeric: tabular-nums; }
"""


def front_html(title: str, docs: list[Printed], first_page: dict[str, int]) -> str:
    """The cover and the contents (chapters and their sections, with page numbers)."""
    font = (HTML / "_static" / "fonts" / "noto-sans-jp" / "400.css").as_uri()
    rows = []
    for p in docs:
        start = first_page[p.doc]
        href = (HTML / f"{p.doc}.html").as_uri()
        subs = []
        for level, text, page, top in p.headings:
            if level == 1:
                subs.append(f'<li><a href="{href}#{PAGE_ANCHOR}{page}-{top:.0f}"><span class="t">{html.escape(text)}</span>'
                            f'<span class="dots"></span><span class="p">{start + page}</span></a></li>')
        sub = f"<ol>{''.join(subs)}</ol>" if subs else ""
        rows.append(f'<li><a href="{href}"><span class="t">{html.escape(p.title)}</span>'
                    f'<span class="dots"></span><span class="p">{start}</span></a>{sub}</li>')
    today = time.strftime("%Y-%m-%d")
    return f"""<!doctype html><html lang="ja"><head><meta charset="utf-8">
<link rel="stylesheet" href="{font}"><style>{FRONT_CSS}</style><title>{html.escape(title)}</title></head>
<body><section class="cover"><h1>{html.escape(title)}</h1>
<p class="sub">一本の埋め込みベクトル x から、<span class="q">問い q = xW<sub>Q</sub></span>・<span class="k">見出し k = xW<sub>K</sub></span>・<span class="v">中身 v = xW<sub>V</sub></span> を通って、アテンションそのものまで。</p>
<p class="meta">PDF 版(HTML の本と同じ原稿から {today} に作成)<br>図を動かすには HTML 版かノートブックを開いてください。<br>ライセンスは巻末の「{html.escape(docs[-1].title)}」にあります。</p></section>
<section class="contents"><h2>目次</h2><ol class="toc">{''.join(rows)}</ol></section></body></html>"""


NUMBERS_CSS = """@page { size: A4; margin: 0; } body { margin: 0; font-family: "Noto Sans JP", sans-serif; }
div { height: 297mm; position: relative; break-after: page; }
span { position: absolute; bottom: 8mm; left: 0; right: 0; text-align: center; font-size: 9pt; color: #444; }"""


def numbers_html(count: int, skip: set[int]) -> str:
    font = (HTML / "_static" / "fonts" / "noto-sans-jp" / "400.css").as_uri()
    pages = "".join(f"<div><span>{'' if i in skip else i + 1}</span></div>" for i in range(count))
    return (f'<!doctype html><html lang="ja"><head><meta charset="utf-8"><link rel="stylesheet" href="{font}">'
            f"<style>{NUMBERS_CSS}</style></head><body>{pages}</body></html>")


def print_html(browser, source: str, where: Path, margin: dict | None = None) -> bytes:
    where.write_text(source, encoding="utf-8")
    context = browser.new_context(locale="ja-JP")
    try:
        page = context.new_page()
        page.goto(where.as_uri(), wait_until="load")
        page.evaluate("() => document.fonts.ready")
        return page.pdf(format="A4", print_background=True, prefer_css_page_size=True,
                        margin=margin, tagged=True)
    finally:
        context.close()


# ------------------------------------------------------------------------------------ merging


def merge(front: bytes, printed: list[Printed], numbers: bytes, first_page: dict[str, int],
          title: str) -> bytes:
    """One PDF: the front matter and every page, numbered, with links inside and an outline."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        Fit,
        FloatObject,
        NameObject,
        NullObject,
        NumberObject,
        TextStringObject,
    )

    writer = PdfWriter()
    front_reader = PdfReader(io.BytesIO(front))
    readers = [PdfReader(io.BytesIO(p.pdf)) for p in printed]
    for page in front_reader.pages:
        writer.add_page(page)
    for reader in readers:
        for page in reader.pages:
            writer.add_page(page)
    number_pages = PdfReader(io.BytesIO(numbers)).pages
    for i, page in enumerate(writer.pages):
        page.merge_page(number_pages[i])

    by_uri = {(HTML / f"{p.doc}.html").resolve(): p for p in printed}

    def destination(page_index: int, top: float | None):
        ref = writer.pages[page_index].indirect_reference
        return ArrayObject([ref, NameObject("/XYZ"), NullObject(),
                            FloatObject(top) if top is not None else NullObject(), NumberObject(0)])

    def resolve(p: Printed, fragment: str | None):
        if fragment and fragment.startswith(PAGE_ANCHOR):
            page, top = fragment[len(PAGE_ANCHOR):].split("-")
            return destination(first_page[p.doc] - 1 + int(page), float(top))
        if fragment and fragment in p.dests:
            page, top = p.dests[fragment]
            return destination(first_page[p.doc] - 1 + page, top)
        return destination(first_page[p.doc] - 1, None)

    def target_of(uri: str, here: Printed | None):
        parts = urlsplit(uri)
        if parts.scheme != "file":
            return None
        path = Path(unquote(parts.path)).resolve()
        p = by_uri.get(path)
        if p is None and path.suffix != ".html":
            return None
        if p is None:
            return None
        return resolve(p, unquote(parts.fragment) or None)

    unresolved = []
    offset = len(front_reader.pages)
    owners: list[Printed | None] = [None] * offset
    for p in printed:
        owners += [p] * p.pages
    for index, page in enumerate(writer.pages):
        here = owners[index]
        dropped = []
        for annot_ref in page.get("/Annots", []) or []:
            annot = annot_ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            dest = None
            if action is not None and action.get("/S") == "/URI":
                uri = str(action["/URI"])
                dest = target_of(uri, here)
                if dest is None and uri.startswith("file:"):
                    # a file of the HTML book that is not a page (a licence text): no place in
                    # the PDF to go to, and no use to a reader of the PDF elsewhere
                    unresolved.append(uri)
                    dropped.append(annot_ref)
            elif here is not None and ("/Dest" in annot or (action is not None and action.get("/S") == "/GoTo")):
                name = annot.get("/Dest") if "/Dest" in annot else action.get("/D")
                name = str(name) if not isinstance(name, list) else None
                if name is not None:
                    dest = resolve(here, name.lstrip("/"))
            if dest is not None:
                if "/A" in annot:
                    del annot["/A"]
                annot[NameObject("/Dest")] = dest
        if dropped:
            page[NameObject("/Annots")] = ArrayObject([a for a in page["/Annots"] if a not in dropped])

    # Outline: the cover's contents, then each page with its headings.
    writer.add_outline_item(title="目次", page_number=1 if len(front_reader.pages) > 1 else 0)
    for p in printed:
        start = first_page[p.doc] - 1
        parent = writer.add_outline_item(title=p.title, page_number=start)
        stack = [(0, parent)]
        for level, text, page, top in p.headings:
            if level == 0:
                continue  # the page's own title: the entry above
            while stack and stack[-1][0] >= level:
                stack.pop()
            item = writer.add_outline_item(title=text, page_number=start + page, fit=Fit.xyz(top=top),
                                           parent=stack[-1][1] if stack else parent)
            stack.append((level, item))
    writer.page_mode = "/UseOutlines"
    writer.add_metadata({"/Title": title, "/Author": "「Q・K・V はどこから来るのか」の著者たち",
                         "/Subject": "アテンションの Q・K・V はどこから来るのか(PDF 版)"})
    writer._root_object[NameObject("/Lang")] = TextStringObject("ja")
    writer._root_object.setdefault(NameObject("/ViewerPreferences"), DictionaryObject())
    # Stamping page numbers decodes every page's content; without compressing it again the
    # drawn maths (SVG paths) made the content streams 25 of the PDF's 31 MB.
    for page in writer.pages:
        page.compress_content_streams()
    writer.compress_identical_objects(remove_duplicates=True, remove_unreferenced=True)
    out = io.BytesIO()
    writer.write(out)
    if unresolved:
        print(f"HTML 版だけにあるファイルへのリンク {len(unresolved)} 件は、PDF では文字だけにしました"
              f"(例: {Path(urlsplit(unresolved[0]).path).name})")
    return out.getvalue()


# --------------------------------------------------------------------------------------- main


def ensure_html() -> None:
    if (HTML / "index.html").exists():
        return
    print("== HTML の本がまだないので、先に書き出します(make book-build)…", flush=True)
    subprocess.run(["make", "--no-print-directory", "book-build"], cwd=ROOT, check=True)


def build(out: Path, reuse: bool = False) -> Path:
    import chromium
    from playwright.sync_api import sync_playwright

    ensure_html()
    started = time.monotonic()
    docs = chapters.toc_docs()
    targets = link_targets(docs)
    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium.find().path, args=CHROMIUM_ARGS)
        try:
            printed = []
            for doc in docs:
                cached = out.parent / "pages" / f"{doc.replace('/', '--')}.pdf"
                if reuse and cached.exists():
                    p = Printed(doc, cached.read_bytes(), "")
                else:
                    p = print_page(browser, doc, targets[doc])
                    cached.parent.mkdir(exist_ok=True)
                    cached.write_bytes(p.pdf)
                    cached.with_suffix(".title").write_text(p.title, encoding="utf-8")
                p.title = cached.with_suffix(".title").read_text(encoding="utf-8")
                read_structure(p)
                printed.append(p)
                print(f"  {doc}: {p.pages} ページ", flush=True)
            title = book_title()
            # The contents' length sets where every page starts: laid out until it settles.
            front_pages, first_page = 2, {}
            for _ in range(4):
                first_page, n = {}, front_pages + 1
                for p in printed:
                    first_page[p.doc] = n
                    n += p.pages
                front = print_html(browser, front_html(title, printed, first_page),
                                   out.parent / "front.html")
                from pypdf import PdfReader

                count = len(PdfReader(io.BytesIO(front)).pages)
                if count == front_pages:
                    break
                front_pages = count
            total = front_pages + sum(p.pages for p in printed)
            numbers = print_html(browser, numbers_html(total, skip={0}), out.parent / "numbers.html",
                                 margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})
        finally:
            browser.close()
    pdf = merge(front, printed, numbers, first_page, title)
    out.write_bytes(pdf)
    print(f"PDF: {out}({total} ページ、{len(pdf) / 1e6:.1f} MB、{time.monotonic() - started:.0f} 秒)")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--reuse-pages", action="store_true",
                        help="reuse the pages printed by the last run (book/_build/pdf/pages/): for work on the merging only")
    args = parser.parse_args(argv)
    build(args.out, args.reuse_pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
