"""The static HTML book, opened from disk in a real browser (Chrome/Chromium via Playwright).

These tests read an already built book (`make book`, which `make test` runs first). Without it
they FAIL, they never skip: a missing book is a broken book.

Every page of book/_toc.yml is loaded from file:// in a page of its own (all in the module's one
browser context) with every request that is not `file:` or `data:` blocked and counted. Checked: no external request, no console
error, every image loaded, math typeset when the book was built (SVG, MathML for screen readers,
no maths engine), internal links resolve, prev/next follow the toc, every
explorable's controls move its picture to numpy's numbers, solutions stay collapsed until clicked, images have real alt text, Japanese is
drawn with the reader's own font or else the shipped one (no tofu), Japanese search finds compounds,
no search index or blocking script before a page's first paint, each page with everything it
loads stays under 3 MB. With QKV_SCREENSHOTS=<folder> a full-page screenshot of each page is
saved there, to look at (off by default: each takes longer than loading the page).
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import chapters
import chromium
import numpy as np
import pytest
from build_pdf import EVERY_IMAGE_LOADED
from explorables import (
    CONTROL_OVERLAPS,
    OPEN_FOLDS,
    SHOWN_SYMBOLS,
    SYMBOL,
    TWO_FRAMES,
    UNSPOKEN,
    check_numbers,
    class_for,
    landed,
    move_every_control,
    presets_of,
    press_every_preset,
)
from PIL import Image
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "book" / "_build" / "html"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PAGE_BUDGET = 3 * 1024 * 1024  # CONTRIBUTING.md: no page over 3 MB with everything it loads
FONT_FILES = "/_static/fonts/noto-sans-jp/files/"
#: The shipped face (book/_ext/qkv_book/fonts.py), after the reader's own Japanese fonts.
SHIPPED_FAMILY = "Noto Sans JP"
SYSTEM_JAPANESE = ("Hiragino Sans", "Noto Sans CJK JP", "Yu Gothic", "Meiryo")
#: Kana or kanji: a name, label or tooltip written in Japanese.
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# The one list of chapters (book/chapters.yml), in reading order.
CHAPTER_ORDER = chapters.slugs()
SEARCH_QUERIES = ["重み行列", "内積", "コサイン類似度"]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


DOCS = chapters.toc_docs()
CHAPTERS = [d for d in DOCS if d.startswith("notebooks/")]


def system_has_japanese_font() -> bool:
    """This machine has a Japanese font of its own (then the shipped one is never downloaded)."""
    if shutil.which("fc-list") is None:
        return False
    found = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True)
    return bool(found.stdout.strip())


def html_path(doc: str) -> Path:
    return HTML / f"{doc}.html"


def url_to_path(url: str) -> Path:
    return Path(unquote(urlsplit(url).path))


def notebook(doc: str) -> dict:
    return json.loads((ROOT / f"{doc}.ipynb").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------- fixtures


def wait_for_this_sessions_build(session: str, timeout: float = 1800) -> None:
    """Block until test_book_build (on any worker) has built the book for `session`."""
    from test_book_build import BUILT_MARK

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mark = BUILT_MARK.read_text(encoding="utf-8").split() if BUILT_MARK.exists() else []
        if mark[:1] == [session]:
            if mark[1:] != ["ok"]:
                pytest.skip("本の書き出しが失敗したので、ブラウザでの検査は行いません"
                            "(test_book_build.py を参照)")
            return
        time.sleep(0.5)
    pytest.fail(f"本の書き出しが {timeout:.0f} 秒たっても終わりません", pytrace=False)


@pytest.fixture(scope="module")
def book(request, testrun_uid) -> Path:
    if any(item.nodeid.split("::")[0].endswith("test_book_build.py")
           for item in request.session.items):
        wait_for_this_sessions_build(testrun_uid)  # the session builds it: not an older one
    if not (HTML / "index.html").exists():
        pytest.fail(
            f"書き出した本がありません: {HTML / 'index.html'}\n"
            "先に `make book` で本を書き出してください(`make test` は書き出してから検査します)。",
            pytrace=False,
        )
    return HTML


@pytest.fixture(scope="module")
def browser():
    try:
        executable = chromium.find().path  # tools/chromium.py: the same one `make test` set up
    except chromium.Missing as missing:
        pytest.fail(str(missing), pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Playwright starts every launch with a fresh temporary profile (user data dir).
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(request) -> Path | None:
    if not os.environ.get("QKV_SCREENSHOTS"):
        yield None
        return
    folder = Path(os.environ["QKV_SCREENSHOTS"]).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    yield folder
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and any(folder.iterdir()):
        reporter.write_line(f"本のスクリーンショット: {folder}")


@dataclass
class Loaded:
    """One page, loaded once per module run and shared by the tests that look at it."""

    rel: str
    page: object
    context: object
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    local: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    def local_files(self) -> set[Path]:
        return {url_to_path(u) for u in self.local}

    def total_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.local_files() if p.is_file())


#: Any request that is not for a file of the book (or inline data). A pattern, not a Python
#: predicate: the browser matches it itself, so the book's own requests (40 font slices on a
#: chapter) do not each wait for a round trip to this process.
OUTSIDE_THE_BOOK = re.compile(r"^(?!file:|data:)")


def new_context(browser):
    return browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP",
                               service_workers="block")


@pytest.fixture(scope="module")
def context(browser):
    """The browser context the module's pages share (a context costs about as much of the
    processor to make as a chapter costs to load into it); what a test sets for its page alone
    (the window's size, reduced motion, the colour scheme, a route) it sets on the page. A shared
    chapter page has a context of its own: Playwright's clock, which the preset test installs on
    it, belongs to a context, and each of its steps runs in every page of that context."""
    context = new_context(browser)
    yield context
    context.close()


def open_page(context, rel: str, shots: Path | None) -> Loaded:
    page = context.new_page()
    loaded = Loaded(rel=rel, page=page, context=context)

    def block(r):
        loaded.external.append(r.request.url)
        r.abort()

    page.route(OUTSIDE_THE_BOOK, block)
    # Warnings count too: MathJax's `unknownFamily` option once logged "Invalid option" on every page.
    page.on("console", lambda m: loaded.errors.append(f"console.{m.type}: {m.text}")
            if m.type in ("error", "assert", "warning") else None)
    page.on("pageerror", lambda e: loaded.errors.append(f"pageerror: {e}"))
    page.on("request", lambda r: loaded.local.append(r.url) if r.url.startswith("file:") else None)
    page.on("requestfailed", lambda r: loaded.failed.append(f"{r.url}: {r.failure}")
            if r.url.startswith("file:") else None)
    path, _, query = rel.partition("?")
    url = (HTML / path).as_uri() + (f"?{quote(query, safe='=&')}" if query else "")
    page.goto(url, wait_until="load")
    page.evaluate(EVERY_IMAGE_LOADED)  # the figures are loading="lazy"
    page.evaluate("document.fonts.ready.then(() => true)")
    if shots is not None:
        loaded.screenshot = shots / (re.sub(r"[/?=&%:]+", "_", rel) + ".png")
        page.screenshot(path=str(loaded.screenshot), full_page=True)
        print(f"screenshot: {loaded.screenshot}")
    return loaded


@pytest.fixture(scope="module")
def pages(book, browser, context, shots):
    cache: dict[str, Loaded] = {}

    def get(rel: str) -> Loaded:
        if rel not in cache:
            chapter = rel.startswith("notebooks/")  # its own context (see `context`)
            cache[rel] = open_page(new_context(browser) if chapter else context, rel, shots)
        return cache[rel]

    yield get
    for loaded in cache.values():
        (loaded.context if loaded.context is not context else loaded.page).close()


@contextlib.contextmanager
def new_page(context, doc: str, width: int = 1280, height: int = 900, *, motion: str | None = None,
             scheme: str | None = None, stored: dict | None = None):
    """Page `doc` loaded afresh in a page of its own, `width` × `height`, with
    prefers-reduced-motion `motion` and prefers-color-scheme `scheme` when given, and the
    `stored` entries in localStorage before its scripts run (as an earlier visit left them:
    removed again after, the context's other pages share the storage); closed after."""
    page = context.new_page()
    try:
        page.set_viewport_size({"width": width, "height": height})
        if motion or scheme:
            page.emulate_media(reduced_motion=motion, color_scheme=scheme)
        if stored:
            page.add_init_script(f"Object.entries({json.dumps(stored)}).forEach(([k, v]) => localStorage.setItem(k, v));")
        page.goto(html_path(doc).as_uri(), wait_until="load")
        yield page
    finally:
        if stored:
            page.evaluate("keys => keys.forEach(k => localStorage.removeItem(k))", list(stored))
        page.close()


def page_of(pages, doc: str) -> Loaded:
    return pages(f"{doc}.html")



def resize(page, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate(TWO_FRAMES)


# ------------------------------------------------------------------------- the table of contents


def test_toc_lists_the_chapters_of_the_one_list():
    stems = [Path(d).name for d in CHAPTERS]
    assert stems == CHAPTER_ORDER, f"目次(book/_toc.yml)の章が book/chapters.yml と違います: {stems}"
    for doc in DOCS:
        sources = [ROOT / f"{doc}{ext}" for ext in (".md", ".ipynb")]
        assert any(p.exists() for p in sources), f"目次のページの元ファイルがありません: {doc}"


def test_every_toc_page_was_built(book):
    missing = [doc for doc in DOCS if not html_path(doc).exists()]
    assert not missing, f"書き出されていないページ: {missing}"


@pytest.mark.parametrize("doc", CHAPTERS)
def test_a_cells_printed_lines_are_one_box(book, doc):
    """However the kernel flushed them (book/_config.yml: nb_merge_streams), so that the page is
    the same from build to build."""
    cells = re.split(r'<div class="cell(?: [^"]*)?"', html_path(doc).read_text(encoding="utf-8"))
    split = [n for n, cell in enumerate(cells[1:], 1) if cell.count('class="output stream') > 1]
    assert not split, f"{doc}: 出力が二つ以上の枠に分かれたセル(ページの {split} 番め)"


@pytest.mark.parametrize("doc", CHAPTERS)
def test_figures_wait_until_the_reader_scrolls_near_them(book, doc):
    """A phone's first visit fetches the figures of its first screen only: every chapter figure is
    `loading="lazy"`, its box held at the picture's own size (no jump when it arrives)."""
    text = html_path(doc).read_text(encoding="utf-8")
    figures = re.findall(r"<img [^>]*data-qkv-text-px[^>]*>", text)
    assert figures, f"{doc}: 図がありません"
    for tag in figures:
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        assert attrs.get("loading") == "lazy", f"{doc}: 図 {attrs['src'][-20:]} が loading=\"lazy\" ではありません"
        with Image.open(html_path(doc).parent / unquote(attrs["src"])) as im:
            size = (str(im.width), str(im.height))
        assert (attrs.get("width"), attrs.get("height")) == size, (
            f"{doc}: 図 {attrs['src'][-20:]} の width・height が {attrs.get('width')}×{attrs.get('height')}"
            f"(画像は {size[0]}×{size[1]})")


def test_no_page_points_at_a_remote_script_or_stylesheet(book):
    """Every built HTML file, including the ones outside the toc (search, genindex)."""
    remote = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)
    offenders = {}
    removed = re.compile(r"THEBE_JS_URL|application/vnd\.jupyter\.widget-state\+json"
                         r"|src=\"[^\"]*fontawesome\.js")
    pages_html = [f for f in book.rglob("*.html") if "_static" not in f.relative_to(book).parts]
    for f in pages_html:
        text = f.read_text(encoding="utf-8", errors="replace")
        # Also dead weight or loaders the book's config removed (see book/_config.yml).
        hits = remote.findall(text) + removed.findall(text)
        if hits:
            offenders[str(f.relative_to(book))] = hits
    assert not offenders, f"外部の URL を読み込むタグ、または外したはずの部品: {offenders}"


@pytest.mark.parametrize("doc", DOCS)
def test_a_page_loads_its_own_explorables_once_after_its_text(book, doc):
    """The shared modules and the shim in one file every page shares, and each explorable the page
    shows in its own file; nothing else of the explorables, and nothing that blocks the text."""
    text = html_path(doc).read_text(encoding="utf-8")
    shown = set(re.findall(r'class="qkv-explorable" data-qkv-module="(\w+)"', text))
    tags = re.findall(r"<script\b[^>]*\bsrc=\"[^\"]*_static/(qkv-explorables?[\w-]*)\.js[^\"]*\"[^>]*>", text)
    loaded = re.findall(r"<script\b([^>]*)\bsrc=\"[^\"]*_static/qkv-explorables?[\w-]*\.js", text)
    want = {f"qkv-explorable-{m}" for m in shown} | ({"qkv-explorables"} if shown else set())
    assert set(tags) == want and len(tags) == len(want), (sorted(tags), sorted(want))
    assert all("defer" in attrs for attrs in loaded), loaded
    if shown:  # the chapter modules before the shim (deferred scripts run in order)
        assert tags[-1] == "qkv-explorables"
        shared = (book / "_static" / "qkv-explorables.js").read_text(encoding="utf-8")
        assert "export default" not in shared and "export function mount(" in shared


def test_no_launch_button_without_the_repository_address(book):
    """The setting (QKV_REPOSITORY_URL, book/_ext/qkv_book/launch_links.py) is empty for this build:
    no page links to a notebook service (tests/test_launch_links.py builds one with an address)."""
    services = re.compile(r'dropdown-launch-buttons|href="[^"]*(?:colab\.research\.google\.com|mybinder\.org'
                          r'|/hub/user-redirect/git-pull\?)')
    linked = [str(f.relative_to(book)) for f in book.rglob("*.html")
              if "_static" not in f.relative_to(book).parts and services.search(f.read_text(encoding="utf-8"))]
    assert not linked, f"起動ボタン(設定なしでは出ないはず)のあるページ: {linked}"


# ------------------------------------------------------------------------------ every page


@pytest.mark.parametrize("rel", [f"{d}.html" for d in DOCS] + ["search.html", "search.html?q=内積"])
def test_page_is_self_contained_and_clean(pages, rel):
    loaded = pages(rel)
    assert not loaded.external, f"{rel}: 本の外への要求 {len(loaded.external)} 件: {loaded.external}"
    assert not loaded.errors, f"{rel}: コンソールへの警告・エラー: {loaded.errors}"
    assert not loaded.failed, f"{rel}: 読み込めなかったファイル: {loaded.failed}"
    missing = [str(p) for p in loaded.local_files() if not p.is_file()]
    assert not missing, f"{rel}: 存在しないファイルを読みに行っています: {missing}"
    broken = loaded.page.evaluate(
        "() => [...document.images].filter(i => !(i.complete && i.naturalWidth > 0))"
        ".map(i => (i.getAttribute('src') || '').slice(0, 80))"
    )
    assert not broken, f"{rel}: 表示されない画像: {broken}"
    total = loaded.total_bytes()
    print(f"{rel}: {total / 2**20:.2f} MB in {len(loaded.local_files())} files")
    assert total < PAGE_BUDGET, f"{rel}: 読み込むもの全部で {total / 2**20:.2f} MB(上限 3 MB)"
    if not system_has_japanese_font():  # else the reader's own font draws it, nothing is fetched
        fonts = [u for u in loaded.local if FONT_FILES in u and u.endswith(".woff2")]
        assert fonts, f"{rel}: 同梱の日本語フォント(woff2)が読み込まれていません"


@pytest.mark.parametrize("doc", DOCS)
def test_math_is_typeset(pages, doc):
    """Typeset when the book was built (book/_ext/qkv_book/maths.py): SVG drawn from the page's
    glyph outlines, MathML beside it for screen readers, and no maths engine in the page."""
    page = page_of(pages, doc).page
    result = page.evaluate("""() => {
      const math = [...document.querySelectorAll('.bd-article .math')];
      const raw = math.filter(m => !m.querySelector('mjx-container > svg')).map(m => m.textContent);
      const errors = [...document.querySelectorAll('mjx-merror, g[data-mml-node="merror"]')]
        .map(e => e.textContent || e.outerHTML.slice(0, 80));
      const unread = math.filter(m => !m.querySelector('mjx-assistive-mml > math')
                                      || !m.querySelector('svg[aria-hidden="true"]')).length;
      const outlines = new Set([...document.querySelectorAll('#MJX-SVG-global-cache path[id]')].map(p => p.id));
      const undrawn = [...document.querySelectorAll('mjx-container use')]
        .map(u => u.getAttribute('xlink:href') || u.getAttribute('href'))
        .filter(h => !outlines.has(h.slice(1)));
      const engine = window.MathJax !== undefined || document.querySelector('script[src*="mathjax" i]') !== null;
      // Prose outside code that still shows $...$ is math the parser did not see.
      const clone = document.querySelector('.bd-article').cloneNode(true);
      clone.querySelectorAll('pre, code, .highlight, .output, .cell_output, mjx-container, '
                             + 'script, style').forEach(n => n.remove());
      const leftovers = clone.textContent.match(/\\$[^$\\s][^$\\n]*\\$|\\\\\\(|\\\\\\[/g) || [];
      const utext = [...document.querySelectorAll('mjx-container text')]
        .map(u => [u.textContent, getComputedStyle(u).fontFamily]);
      return {count: math.length, raw, errors, leftovers, utext, unread, undrawn, engine};
    }""")
    assert not result["raw"], f"{doc}: SVG に組版されていない数式: {result['raw'][:5]}"
    assert not result["errors"], f"{doc}: TeX のエラー: {result['errors'][:5]}"
    assert not result["engine"], f"{doc}: ページが数式エンジン(MathJax)を読み込んでいます"
    assert not result["unread"], f"{doc}: 読み上げ用の MathML がない数式 {result['unread']} 個"
    assert not result["undrawn"], f"{doc}: 字形の定義が見つからない数式の字: {result['undrawn'][:5]}"
    assert not result["leftovers"], f"{doc}: 数式として読まれなかった $…$: {result['leftovers'][:5]}"
    for text, family in result["utext"]:
        if re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text):
            assert SHIPPED_FAMILY in family and family.index(SYSTEM_JAPANESE[0]) < family.index(SHIPPED_FAMILY), (
                f"{doc}: 数式中の日本語 {text!r} のフォント: {family}")
    source = "".join((ROOT / f"{doc}{ext}").read_text(encoding="utf-8")
                     for ext in (".md",) if (ROOT / f"{doc}{ext}").exists())
    if re.search(r"\$[^$\s][^$\n]*\$|\$\$", source):
        assert result["count"] > 0, f"{doc}: 元に数式があるのにページに数式がありません"


@pytest.mark.parametrize("doc", DOCS)
def test_internal_links_resolve(pages, doc):
    page = page_of(pages, doc).page
    hrefs = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    bad = []
    for href in hrefs:
        if not href.startswith("file:"):
            continue
        target = url_to_path(href)
        if not target.is_file():
            bad.append(f"{href}(ファイルがない)")
            continue
        fragment = unquote(urlsplit(href).fragment)
        # A link within the page (an explorable's skip link, whose box gets its id when the page
        # mounts it) lands on what the reader's page holds now; another page's, on its file.
        if fragment and target == url_to_path(page.url):
            if not page.evaluate("id => document.getElementById(id) !== null", fragment):
                bad.append(f"{href}(#{fragment} がない)")
        elif fragment and target.suffix == ".html":
            text = target.read_text(encoding="utf-8", errors="replace")
            if f'id="{fragment}"' not in text and f'name="{fragment}"' not in text:
                bad.append(f"{href}(#{fragment} がない)")
    assert not bad, f"{doc}: たどれないリンク: {bad}"


@pytest.mark.parametrize("doc", DOCS)
def test_previous_and_next_follow_the_toc(pages, doc):
    i = DOCS.index(doc)
    links = page_of(pages, doc).page.evaluate("""() => ({
      prev: document.querySelector('.prev-next-area a.left-prev')?.href ?? null,
      next: document.querySelector('.prev-next-area a.right-next')?.href ?? null})""")
    want_prev = html_path(DOCS[i - 1]) if i > 0 else None
    want_next = html_path(DOCS[i + 1]) if i + 1 < len(DOCS) else None
    got_prev = url_to_path(links["prev"]) if links["prev"] else None
    got_next = url_to_path(links["next"]) if links["next"] else None
    assert got_prev == want_prev, f"{doc}: 「前へ」が {got_prev}(期待 {want_prev})"
    assert got_next == want_next, f"{doc}: 「次へ」が {got_next}(期待 {want_next})"


@pytest.mark.parametrize("doc", DOCS)
def test_images_have_real_alt_text(pages, doc):
    """Sphinx fills a missing alt with the file name; that is not alt text."""
    images = page_of(pages, doc).page.evaluate("""() =>
      [...document.querySelectorAll('.bd-article img')].map(i => ({
        alt: (i.getAttribute('alt') || '').trim(),
        src: (i.getAttribute('src') || '').slice(0, 60),
        caption: i.closest('figure')?.querySelector('figcaption')?.textContent.trim() ?? ''}))""")
    lacking = [im["src"] for im in images
               if not im["alt"] or re.search(r"\.(png|jpe?g|svg|gif)$|_images/", im["alt"])]
    no_caption = sum(1 for im in images if not im["caption"])
    print(f"{doc}: {len(images)} 枚、キャプションなし {no_caption} 枚")
    assert not lacking, (
        f"{doc}: 代替テキスト(alt)のない図が {len(lacking)} 枚: {lacking}\n"
        "図のセルに mystnb: image: alt を付けてください(共通の手引きを参照)。"
    )


# ---------------------------------------------------------------------------- chapter pages


def widget_outputs(nb: dict) -> int:
    """How many explorables a chapter shows (each saved as its first picture)."""
    return sum(1 for cell in nb["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", [])
               if 'class="qkv-first-picture"' in "".join(out.get("data", {}).get("text/html", "")))


def opening_states(doc: str) -> list[dict]:
    """The state each explorable of chapter `doc` opens with, as the page's HTML holds it."""
    return [json.loads(s) for s in re.findall(r'class="qkv-state">(.*?)</script>',
                                              html_path(doc).read_text(encoding="utf-8"))]


def at_the_opening_state(page, doc: str) -> list[dict]:
    """The shared page of chapter `doc` loaded again, at its address without a state, if another
    test moved one of its explorables; returns the states they open with (`opening_states`)."""
    opened = opening_states(doc)
    states = [json.loads(ex.get_attribute("data-qkv-state")) for ex in explorables_on(page)]
    if any(now != {t: first[t] for t in now} for now, first in zip(states, opened, strict=True)):
        page.goto(html_path(doc).as_uri(), wait_until="load")
    return opened


def solution_cells(nb: dict) -> list[str]:
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
            and c["metadata"].get("nbgrader", {}).get("solution")]


@pytest.mark.parametrize("doc", CHAPTERS)
def test_each_preset_sets_the_state_the_text_names_and_says_the_result(pages, doc):
    """A button per state the chapter's text names: a click puts the controls there (the numbers
    numpy's for it), marks the button pressed, and the live region then says the result, with
    symbols as words; 「最初に戻す」 puts back the state the page opened with (the steps are
    tests/support/explorables.py's `press_every_preset`, which the Lab's test takes too). The
    shared page is loaded again first, at its address without a state, if another test moved one
    of its explorables (this test comes before the ones that do). Each glide and the live
    region's timer run on Playwright's fake clock (`clock=True`): every frame as in real time,
    none waited for (46 presses waited ~0.5 s each). The clock flows in real time outside the
    presses, for the tests that use the page after this one."""
    page = page_of(pages, doc).page
    opened = at_the_opening_state(page, doc)
    page.clock.install()
    for i, explorable in enumerate(explorables_on(page)):
        where = f"{doc} の図 {i}"
        now = json.loads(explorable.get_attribute("data-qkv-state"))
        first = {t: opened[i][t] for t in now}  # the state the page opened with
        assert now == first, f"{where}: 開いたのに最初の状態ではありません {now}"
        module = page.locator(".qkv-explorable").nth(i).get_attribute("data-qkv-module")
        press_every_preset(page, explorable, module, where, clock=True)


@pytest.mark.parametrize("doc", CHAPTERS)
def test_every_explorable_has_the_controls_of_jupyterlab(pages, doc):
    """Each explorable runs its own ES module on the book's model shim, with no kernel: every
    control moves the picture, and the numbers it shows are numpy's for that state."""
    loaded = page_of(pages, doc)
    page = loaded.page
    expected = widget_outputs(notebook(doc))
    assert page.locator(f'script[type="{WIDGET_VIEW}"]').count() == 0, (
        f"{doc}: カーネルなしでは動かないウィジェットがページに残っています")
    boxes = page.locator(".qkv-explorable")
    assert boxes.count() == expected, f"{doc}: ウィジェット {expected} 個に対して図が {boxes.count()} 個"
    starts = []
    for i in range(boxes.count()):
        box = boxes.nth(i)
        page.wait_for_function("b => b.dataset.qkvReady === 'true' || b.dataset.qkvError", arg=box.element_handle())
        assert box.get_attribute("data-qkv-error") is None, box.get_attribute("data-qkv-error")
        explorable = box.locator(".qkv-ex")
        starts.append((explorable, json.loads(explorable.get_attribute("data-qkv-state"))))
        state = check_numbers(explorable, f"{doc} の図 {i}")
        moved = move_every_control(page, explorable, f"{doc} の図 {i}")
        assert set(moved) >= set(class_for(state).control_traits()), (
            f"{doc} の図 {i}: 動かせなかった値 {set(class_for(state).control_traits()) - set(moved)}")
        label = explorable.locator(".qkv-panels").get_attribute("aria-label")
        assert JAPANESE.search(label) and re.search(r"\d\.\d\d", label), (
            f"{doc} の図 {i}: 図の代替テキストが数を言っていません: {label!r}")
    assert not loaded.errors, f"{doc}: 図を動かしたらエラー: {loaded.errors}"
    assert not loaded.external, f"{doc}: 本の外への通信 {loaded.external}"
    # The theme's dark mode: the labels (the theme's text colour) stay readable on the explorable.
    for mode in ("dark", "light") if boxes.count() else ():
        ratio = page.evaluate(LABEL_CONTRAST, mode)
        assert ratio >= 4.5, f"{doc}: {mode} モードで図の文字と背景のコントラストが {ratio:.1f}(4.5 以上)"
    for explorable, start in starts:  # back where it was (the later tests look at the opening state)
        explorable.locator(".qkv-presets button").last.click()
        landed(page, explorable, start)


def explorables_on(page) -> list:
    boxes = page.locator(".qkv-explorable")
    for i in range(boxes.count()):
        page.wait_for_function("b => b.dataset.qkvReady === 'true' || b.dataset.qkvError",
                               arg=boxes.nth(i).element_handle())
    return [boxes.nth(i).locator(".qkv-ex") for i in range(boxes.count())]


def test_chapter_03_has_a_preset_for_each_guest_its_text_asks_to_pick():
    """Chapter 03's 「試してほしいこと」 picks ミオ, then アオイ and ケン in turn: one button each, in
    that order (the preset test above clicks them and checks where they land)."""
    from helpers.data import party

    text = (ROOT / "notebooks" / "03_three_roles.md").read_text(encoding="utf-8")
    tries = text.split("試してほしいこと")[1].split("\n## ")[0]
    picked = "".join(re.findall(r"^- (.+?)を(?:交互に)?選ぶ", tries, re.M))  # "ミオ", "アオイとケン"
    named = sorted((n for n in party().names if n in picked), key=picked.index)
    offered = [p["state"] for p in presets_of("ch03_three_roles")]
    assert named and offered == [{"person": n} for n in named], (named, offered)


def test_chapter_00_has_a_folded_preset_for_each_t_its_answer_names():
    """Chapter 00 asks where, as t grows, a word's heaviest weight moves to another word; its
    answer names those t. Each is a preset, folded (the reader finds them first), and together
    they are the t the answer names and every t numpy finds a move at, in 0.01 steps; the states
    the text names before it (t = 0, 0.5 and the start, 1) stay buttons of their own."""
    from helpers.widgets import attention_preview_explorer

    text = (ROOT / "notebooks" / "00_introduction.md").read_text(encoding="utf-8")
    answer = text.split("入れ替わる t</summary>")[1].split("</details>")[0]
    # each t it names as a place: 「0.36 で」「0.47 から 0.54 まで」「0.58 にかけて」 (not the step 0.01)
    named = {float(t) for t in re.findall(r"\b(0\.\d\d) ?(?:で|から|まで|にかけて)", answer)}
    explorer = attention_preview_explorer()
    moves = set()
    for t in np.round(np.arange(0.01, 1.001, 0.01), 2):
        before = attention_preview_explorer(mix=float(t - 0.01)).numbers()["picks"]
        explorer.mix = float(t)
        if explorer.numbers()["picks"] != before:
            moves.add(float(t))
    presets = presets_of("ch00_introduction")
    folded = {p["state"]["mix"] for p in presets if p.get("fold")}
    assert moves and named and folded == named | moves, (sorted(named), sorted(moves), sorted(folded))
    assert all(f"「{p['fold']}」" in answer for p in presets if p.get("fold")), "答えが図のたたみを名指ししていません"
    tries = text.split("### ウィジェットで動かす")[1].split("<details")[0]
    plain = [p["state"]["mix"] for p in presets if not p.get("fold")]
    assert plain and all(f"$t = {t:g}$" in tries for t in plain), plain


@pytest.mark.parametrize("doc", CHAPTERS)
def test_dragging_across_a_picture_selects_no_text(pages, doc):
    """A press on a panel's title dragged across the picture (a learner aiming at an arrow)
    selects nothing: no blue highlight over titles and labels."""
    page = page_of(pages, doc).page
    for i, explorable in enumerate(explorables_on(page)):
        panels = explorable.locator(".qkv-panels svg")
        for k in range(min(panels.count(), 3)):
            title = panels.nth(k).locator("text").first
            title.scroll_into_view_if_needed()
            box = title.bounding_box()
            page.evaluate("getSelection().removeAllRanges()")
            page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + 260, box["y"] + 140, steps=6)
            page.mouse.up()
            selected = page.evaluate("getSelection().toString()")
            assert selected == "", f"{doc} の図 {i} のパネル {k}: ドラッグで文字が選ばれました {selected!r}"


def test_hovering_a_book_lights_it_in_every_panel_with_its_exact_values(pages):
    """Chapter 02: the pointer on ケーキ's weight bar lights ケーキ's key arrow, score bar and
    weight bar (the other books dimmed), and says its exact score and weight under the picture."""
    page = page_of(pages, "notebooks/02_library_search").page
    explorable = explorables_on(page)[0]
    numbers = json.loads(explorable.get_attribute("data-qkv-numbers"))
    names = json.loads(explorable.get_attribute("data-qkv-data"))["names"]
    i = names.index("ケーキ")
    panels = explorable.locator(".qkv-panels svg")
    bar = panels.nth(2).locator('[data-item="ケーキ"] rect').first
    bar.scroll_into_view_if_needed()
    bar.hover()
    lit = explorable.locator(".qkv-panels .qkv-lit")
    in_panels = lit.evaluate_all("ns => ns.map(n => [...n.closest('.qkv-panels').querySelectorAll('svg')]"
                                 ".indexOf(n.ownerSVGElement))")
    assert sorted(set(in_panels)) == [0, 1, 2], in_panels
    assert all(n.get_attribute("data-item") == "ケーキ" for n in lit.all())
    hint = explorable.locator(".qkv-hint").inner_text()
    said = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", hint.replace("q·k", ""))]
    assert hint.startswith("ケーキ") and len(said) == 2, hint
    assert said[0] == pytest.approx(numbers["scores"][i], rel=1e-5)
    assert said[1] == pytest.approx(numbers["weights"][i], rel=1e-5, abs=1e-12)
    page.mouse.move(0, 0)
    assert explorable.locator(".qkv-panels .qkv-lit").count() == 0 and not explorable.locator(".qkv-hint").inner_text()


#: The hint under an explorable's picture as the modules write it: each symbol it shows as a letter
#: and a <sub> (「W<sub>Q</sub>」) written back with its underscore (「W_Q」), so it compares with the
#: items' data-value; a subscript the page failed to draw stays an underscore-less text and differs.
HINT = """ex => [...ex.querySelector('.qkv-hint').childNodes]
  .map(n => n.nodeName === 'SUB' ? '_' + n.textContent : n.textContent).join('')"""

#: What the explorable lights now: [item name, panel index] of each lit node, and the hint (HINT).
LIT = f"""ex => [[...ex.querySelectorAll('.qkv-panels .qkv-lit')].map(n => [n.dataset.item,
  [...ex.querySelectorAll('.qkv-panels svg')].indexOf(n.ownerSVGElement)]).sort(),
  ({HINT})(ex)]"""

#: Every node of item `name`, as [name, panel index], and the hint hovering it would show.
ITEM = """([ex, name]) => { const nodes = [...ex.querySelectorAll('.qkv-panels [data-item]')]
  .filter(n => n.dataset.item === name);
  return [nodes.map(n => [name, [...ex.querySelectorAll('.qkv-panels svg')].indexOf(n.ownerSVGElement)]).sort(),
          [name, ...nodes.map(n => n.dataset.value).filter(Boolean)].join('、')]; }"""


def focused_item(page):
    return page.evaluate("() => document.activeElement.closest?.('[data-item]')?.dataset.item ?? null")


@pytest.mark.parametrize("doc", CHAPTERS)
def test_keyboard_focus_lights_an_item_in_every_panel_as_hover_does(pages, doc):
    """Tab from an explorable's last control reaches its picture's items in one press; the arrow
    keys walk every item, and each focused item is lit wherever it is drawn (every panel), the
    others dimmed, its exact values said under the picture; the hint equals what hovering the same
    item shows; leaving the picture lights nothing. Chapter 01's word labels are items too."""
    page = page_of(pages, doc).page
    tried = 0
    try:
        for i, explorable in enumerate(explorables_on(page)):
            where = f"{doc} の図 {i}"
            names = explorable.evaluate("ex => [...new Set([...ex.querySelectorAll('.qkv-panels [data-item]')]"
                                        ".map(n => n.dataset.item))]")
            if not names:
                continue
            tried += 1
            # the hint shows symbols with <sub> (read as letters): a screen reader hears the focused
            # item's name instead, which says the same in words (test_a_screen_reader_hears_...)
            assert explorable.locator(".qkv-hint").get_attribute("aria-hidden") == "true", where
            in_tab_order = explorable.locator(".qkv-panels [data-item][tabindex='0']")
            assert in_tab_order.count() == 1, f"{where}: Tab で入れる項目が {in_tab_order.count()} 個"
            explorable.locator(".qkv-presets button").last.focus()
            for _ in range(explorable.locator(".qkv-controls input:not([type=radio]), .qkv-choice").count() + 1):
                page.keyboard.press("Tab")
                if focused_item(page):
                    break
            assert focused_item(page) == names[0], f"{where}: Tab で図の項目に入れません"
            page.keyboard.press("Home")
            seen = []
            for k in range(len(names)):
                name = focused_item(page)
                seen.append(name)
                lit, hint = page.evaluate(LIT, explorable.element_handle())
                nodes, said = page.evaluate(ITEM, [explorable.element_handle(), name])
                assert lit == nodes and hint == said, f"{where}「{name}」: 光ったのは {lit}、{hint!r}"
                assert re.search(r"\d", hint), f"{where}「{name}」: 値が出ません {hint!r}"
                if k == 0:  # the same item under the pointer: the same light and the same values
                    page.evaluate("document.activeElement.blur()")
                    page.mouse.move(0, 0)  # the real pointer hovers nothing, even once scrolled
                    node = explorable.locator(f'.qkv-panels [data-item="{name}"]').last
                    node.scroll_into_view_if_needed()
                    node.dispatch_event("pointerover")
                    assert page.evaluate(LIT, explorable.element_handle()) == [lit, hint], f"{where}: ホバーと違います"
                    explorable.locator(".qkv-panels").dispatch_event("pointerleave")
                    explorable.locator(f'.qkv-panels [data-item="{name}"][tabindex="0"]').focus()
                page.keyboard.press("ArrowRight")
            assert seen == names, f"{where}: 矢印キーで回った項目 {seen}(全部で {names})"
            page.keyboard.press("End")
            assert focused_item(page) == names[-1], where
            page.evaluate("document.activeElement.blur()")
            lit, hint = page.evaluate(LIT, explorable.element_handle())
            assert lit == [] and hint == "", f"{where}: フォーカスが離れても {lit} {hint!r}"
    finally:  # leave every picture even when an assertion fails: nothing stays dimmed for the next test
        page.evaluate("document.activeElement?.blur()")
        page.mouse.move(0, 0)
        page.evaluate("() => document.querySelectorAll('.qkv-panels').forEach("
                      "p => p.dispatchEvent(new PointerEvent('pointerleave')))")
    if not tried:
        pytest.skip(f"{doc} の図には項目がありません")


def test_chapter_01s_word_labels_are_items_lit_with_their_vector_and_bars(pages):
    """Hovering a word's label in chapter 01's plane lights the label, its arrow and its two bars
    (dot product, cosine) and says its vector and both numbers exactly."""
    page = page_of(pages, "notebooks/01_one_vector").page
    explorable = explorables_on(page)[0]
    numbers = json.loads(explorable.get_attribute("data-qkv-numbers"))
    data = json.loads(explorable.get_attribute("data-qkv-data"))
    word = numbers["others"][0]
    label = explorable.locator(".qkv-panels svg").first.locator(f'[data-item="{word}"] text')
    label.scroll_into_view_if_needed()
    label.hover()
    lit, hint = page.evaluate(LIT, explorable.element_handle())
    assert sorted({p for _, p in lit}) == [0, 1, 2] and {n for n, _ in lit} == {word}, lit
    kinds = explorable.locator(f'.qkv-panels svg >> nth=0 >> [data-item="{word}"]').evaluate_all(
        "ns => ns.map(n => n.querySelector('text') ? 'label' : 'arrow')")
    assert sorted(kinds) == ["arrow", "label"], kinds
    said = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", hint)]
    vector = data["other_vectors"][0]
    assert hint.startswith(word) and len(said) == 4, hint
    assert said[:2] == pytest.approx(vector, rel=1e-5)
    assert said[2] == pytest.approx(numbers["dot"][0], rel=1e-5, abs=1e-9)
    assert said[3] == pytest.approx(numbers["cosine"][0], rel=1e-5, abs=1e-9)
    page.mouse.move(0, 0)


#: Each state an explorable's state passes through, recorded from now on (window.__states).
RECORD_STATES = """ex => { window.__states = [];
  new MutationObserver(() => window.__states.push(JSON.parse(ex.dataset.qkvState)))
    .observe(ex, {attributes: true, attributeFilter: ['data-qkv-state']}); }"""


@contextlib.contextmanager
def first_explorable(context, doc: str, motion: str):
    """Chapter `doc`'s first explorable at 1280 px, with prefers-reduced-motion `motion`."""
    with new_page(context, doc, motion=motion) as page:
        yield page, explorables_on(page)[0]


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_preset_glides_to_its_state_unless_less_motion_is_asked(book, context, motion):
    """Chapter 02's 「温度 20」 from the opening state: the picture moves there in steps the eye can
    follow (states strictly between, each a value the slider can take, the angle untouched) and
    lands exactly; with prefers-reduced-motion it lands at once, in the click itself."""
    with first_explorable(context, "notebooks/02_library_search", motion) as (page, explorable):
        start = json.loads(explorable.get_attribute("data-qkv-state"))
        assert start["temperature"] < 20, start
        explorable.evaluate(RECORD_STATES)
        explorable.locator(".qkv-presets button", has_text="温度 20").click()
        if motion == "reduce":
            assert json.loads(explorable.get_attribute("data-qkv-state"))["temperature"] == 20
        landed(page, explorable, {"temperature": 20})
        page.wait_for_timeout(100)
        temps = [s["temperature"] for s in page.evaluate("() => window.__states")]
        assert temps[-1] == 20 and all(s["angle"] == start["angle"]
                                       for s in page.evaluate("() => window.__states"))
        between = [t for t in temps if start["temperature"] < t < 20]
        if motion == "reduce":
            assert between == [], temps
        else:
            assert len(between) >= 4 and between == sorted(between), temps
            # each one a stop of the log slider (3 significant digits, as a key press gives)
            assert all(float(f"{t:.3g}") == t for t in between), between


#: Which of the explorable's radio buttons is checked and which has the focus (-1: none), and
#: the clicks the page has seen since COUNT_CLICKS.
CHOICE_NOW = """ex => { const radios = [...ex.querySelectorAll('.qkv-choice input[type=radio]')];
  return [radios.findIndex(r => r.checked), radios.indexOf(document.activeElement), window.__clicks]; }"""
COUNT_CLICKS = "() => { window.__clicks = 0; window.addEventListener('click', () => window.__clicks++, true); }"


@pytest.mark.parametrize(("doc", "trait", "values"), [("notebooks/03_three_roles", "person", "names"),
                                                      ("notebooks/08_going_further", "head", "heads")])
def test_an_arrow_key_moves_a_choice_and_its_focus_with_no_click(book, context, doc, trait, values):
    """A choice (chapter 03's guest, chapter 08's head) answers its own arrow keys as a radio group
    does: → and ↓ choose and focus the next one, ← and ↑ the one before, round at both ends, and the
    picture follows. No click reaches the page (the browser's own answer fires a synthetic one
    first, which the theme meets with queries over the whole document on every press)."""
    with first_explorable(context, doc, "reduce") as (page, explorable):
        options = json.loads(explorable.get_attribute("data-qkv-data"))[values]
        n = len(options)
        at = page.evaluate(CHOICE_NOW, explorable.element_handle())[0]
        explorable.locator(".qkv-choice input[type=radio]").nth(at).focus()
        page.evaluate(COUNT_CLICKS)
        keys = [("ArrowRight", 1), ("ArrowDown", 1), ("ArrowLeft", -1), ("ArrowUp", -1)]
        for key, step in keys + [("ArrowLeft", -1)] * (at + 1) + [("ArrowRight", 1)] * (n + 1):
            page.keyboard.press(key)
            at = (at + step) % n
            assert page.evaluate(CHOICE_NOW, explorable.element_handle()) == [at, at, 0], key
            state = json.loads(explorable.get_attribute("data-qkv-state"))
            assert state[trait] == options[at], (key, state)
        page.keyboard.press("End")  # not a radio group's key: the choice stays
        assert page.evaluate(CHOICE_NOW, explorable.element_handle()) == [at, at, 0]


#: Ticks the explorable's checkbox, then the fill of the first row's last cell of its first
#: heatmap at every frame for 600 ms: [fill before, fill right after the click, …].
FILLS_AFTER_TICK = """ex => new Promise((done) => {
  const cell = () => ex.querySelector('.qkv-panels svg [data-item] [data-cell]:last-of-type rect');
  const seen = [cell().getAttribute('fill')];
  ex.querySelector('.qkv-controls input[type=checkbox]').click();
  const start = performance.now();
  const tick = () => { seen.push(cell().getAttribute('fill'));
    if (performance.now() - start < 600) requestAnimationFrame(tick); else done(seen); };
  tick(); })"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_checkbox_glides_the_picture_to_its_state_unless_less_motion_is_asked(book, context, motion):
    """Chapter 08's 「因果マスク」: the state turns at once (a checkbox has nothing between), and the
    picture glides there: the first row's last cell (the word furthest ahead, masked to 0) goes
    from its blue to the palest through colours between, and lands exactly on the new picture's
    colour; with prefers-reduced-motion it is the new colour in the click itself."""
    with first_explorable(context, "notebooks/08_going_further", motion) as (_, explorable):
        assert json.loads(explorable.get_attribute("data-qkv-state"))["masked"] is False
        explorable.scroll_into_view_if_needed()
        fills = explorable.evaluate(FILLS_AFTER_TICK)
        assert json.loads(explorable.get_attribute("data-qkv-state"))["masked"] is True
        rgb = [tuple(float(v) for v in re.findall(r"[\d.]+", f)) for f in fills]
        before, after = rgb[0], rgb[-1]
        assert json.loads(explorable.get_attribute("data-qkv-numbers"))["weights"][0][-1] == 0
        assert sum(after) > sum(before), fills  # masked: weight 0, the palest blue
        between = [c for c in rgb if c not in (before, after)]
        if motion == "reduce":
            assert rgb[1:] == [after] * (len(rgb) - 1), fills
        else:
            assert rgb[1] == before, fills  # the click drew the old picture's colour first
            assert len(set(between)) >= 2, fills  # frames between (a loaded machine paints few)
            assert all(min(b, a) <= c <= max(b, a) for c_ in between for c, b, a in zip(c_, before, after, strict=True)), fills
            reds = [c[0] for c in rgb]
            assert reds == sorted(reds), fills  # one way, towards the new colour


#: Ticks the explorable's checkbox and takes the picture's DOM changes of the click itself (before
#: any frame): each attribute written ([node's tag, attribute, times written to that node]), the
#: nodes removed, and whether every heatmap cell drawn before is still on the page.
WRITES_OF_A_TICK = """ex => {
  const panels = ex.querySelector('.qkv-panels');
  const cells = [...panels.querySelectorAll('[data-cell]')];
  const seen = new MutationObserver(() => {});
  seen.observe(panels, {attributes: true, childList: true, subtree: true});
  ex.querySelector('.qkv-controls input[type=checkbox]').click();
  const records = seen.takeRecords();
  seen.disconnect();
  const times = new Map();
  for (const r of records.filter((r) => r.type === 'attributes')) {
    const byName = times.get(r.target) ?? new Map();
    byName.set(r.attributeName, (byName.get(r.attributeName) ?? 0) + 1);
    times.set(r.target, byName);
  }
  const writes = [...times].flatMap(([node, byName]) => [...byName].map(([name, n]) => [node.nodeName, name, n]));
  return {writes, removed: records.reduce((n, r) => n + r.removedNodes.length, 0),
          kept: cells.every((c) => c.isConnected)};
}"""


def test_a_glides_key_press_writes_each_attribute_once_and_keeps_the_pictures_nodes(book, context):
    """Chapter 08's 「因果マスク」, as the key press that turns it sees it: the click writes no
    attribute twice (never the final value and then the start one), leaves every cell's colour to
    the animation frames (no fill written in it), and adds the hatching without replacing any node
    of the picture drawn before (each cell is paired by its row and column, not by its place)."""
    with first_explorable(context, "notebooks/08_going_further", "no-preference") as (_, explorable):
        explorable.scroll_into_view_if_needed()
        seen = explorable.evaluate(WRITES_OF_A_TICK)
        assert json.loads(explorable.get_attribute("data-qkv-state"))["masked"] is True
        assert seen["writes"], seen  # the numbers in the cells did change at once
        assert [w for w in seen["writes"] if w[2] > 1] == [], seen["writes"]
        assert [w for w in seen["writes"] if w[1] == "fill"] == [], seen["writes"]
        assert seen["removed"] == 0 and seen["kept"], seen


#: The keyboard back at the top of the page, as on a page just opened (no reload): the body,
#: focused for a moment, is where the next Tab starts, so it goes to the page's first link.
FROM_THE_TOP = """() => { window.scrollTo(0, 0); const body = document.body;
  body.tabIndex = -1; body.focus({ preventScroll: true }); body.removeAttribute('tabindex'); }"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_a_skip_link_reaches_each_explorables_controls_in_a_few_presses(pages, doc):
    """From the top of the page: Tab reaches 「図 N の操作へスキップ」 after the theme's own skip link
    (shown while focused), and Enter puts the keyboard on explorable N's first control: N + 2
    presses instead of the 80 or so links of the text before it."""
    page = page_of(pages, doc).page
    explorables = explorables_on(page)
    if not explorables:
        pytest.skip(f"{doc} には図がありません")
    for n in range(1, len(explorables) + 1):
        page.evaluate(FROM_THE_TOP)
        presses = 0
        while presses < 10 and page.evaluate("() => document.activeElement.textContent") != f"図 {n} の操作へスキップ":
            page.keyboard.press("Tab")
            presses += 1
        assert presses == n + 1, f"{doc}: 図 {n} へのスキップリンクまで Tab {presses} 回"
        link = page.locator("a.qkv-skip").nth(n - 1)
        # The theme's skip bar slides in (0.15 s, longer under load): wait until the link is on screen.
        page.wait_for_function("a => { const b = a.getBoundingClientRect(); return b.top >= 0 && b.height > 0; }",
                               arg=link.element_handle())
        box = link.bounding_box()
        assert box and box["y"] >= 0 and box["height"] > 0, f"{doc}: フォーカスしたリンクが見えません {box}"
        page.keyboard.press("Enter")
        presses += 1
        inside = explorables[n - 1].evaluate("ex => ex.contains(document.activeElement)"
                                             " && document.activeElement.matches('button, input')")
        assert inside and presses <= 5, f"{doc}: 図 {n} の操作に入れません"
        assert explorables[n - 1].locator(":focus").is_visible(), doc
    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")


@pytest.mark.parametrize("doc", CHAPTERS)
def test_every_controls_name_is_its_visible_label(pages, doc):
    """WCAG 2.5.3 (label in name): a speech user says what they see. Each slider, checkbox and
    choice is named by its visible label; how a symbol is read (温度 T → 温度 ティー) is its
    description, never its name."""
    page = page_of(pages, doc).page
    explorables = explorables_on(page)
    if not explorables:
        pytest.skip(f"{doc} には図がありません")
    for i, explorable in enumerate(explorables):
        controls = explorable.locator(".qkv-control")
        for k in range(controls.count()):
            control = controls.nth(k)
            group = control.locator("[role=radiogroup]")
            named = group if group.count() else control.locator("input")
            label = control.locator(".qkv-label, label").first.inner_text()
            expect(named).to_have_accessible_name(label)
            reading = named.get_attribute("aria-description")
            assert named.get_attribute("aria-label") is None, f"{doc} の図 {i}: {label}"
            assert reading is None or not UNSPOKEN.search(reading), reading


#: Every text an explorable gives a screen reader, as [where, text]: each aria-label,
#: aria-description, aria-valuetext and title attribute, each SVG <title> (a mark's name), the text
#: of the panels it reads (not hidden, not inside an item whose aria-label it reads instead), and
#: the visible text of a control named by it (a button, a label) unless a description reads it.
HEARD = r"""ex => {
  const heard = [];
  const where = n => n.tagName + (n.className?.baseVal ?? n.className ? '.' + (n.className.baseVal ?? n.className) : '');
  for (const n of [ex, ...ex.querySelectorAll('*')]) {
    for (const a of ['aria-label', 'aria-description', 'aria-valuetext', 'title'])
      if (n.hasAttribute(a)) heard.push([`${where(n)}[${a}]`, n.getAttribute(a)]);
    if (n.tagName === 'title') heard.push(['title', n.textContent]);
    if (n.tagName === 'text' && !n.closest('[aria-hidden=true], [role=img]')) heard.push(['text', n.textContent]);
    if (n.matches('button, label, .qkv-label') && !n.hasAttribute('aria-description')
        && !n.closest('.qkv-control')?.querySelector('[aria-description]')) heard.push([where(n), n.textContent]);
  }
  return heard;
}"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_a_screen_reader_hears_symbols_as_words_in_every_explorable(pages, doc):
    """W_Q, W_O and d_k are never given to a screen reader with their underscore: not in a
    control, the live region or the picture's description, nor in an item's name (a heatmap's
    row, a word's marker), a mark's title or the text of a panel it reads."""
    page = page_of(pages, doc).page
    explorables = explorables_on(page)
    if not explorables:
        pytest.skip(f"{doc} には図がありません")
    for i, explorable in enumerate(explorables):
        heard = explorable.evaluate(HEARD)
        assert any(at.endswith("[aria-label]") for at, _ in heard), f"{doc} の図 {i}: 名前がひとつもありません"
        unspoken = [(at, said[:80]) for at, said in heard if UNSPOKEN.search(said)]
        assert not unspoken, f"{doc} の図 {i}: 下線のまま読まれる記号 {unspoken}"


@pytest.mark.parametrize("doc", CHAPTERS)
def test_symbols_are_drawn_with_subscripts_not_underscores(pages, doc):
    """A panel draws W_O or d_k as chapters 04 and 07 draw W_Q: a letter with a subscript (a
    lowered, smaller tspan), never 「W_O」 with an underscore; outside the panels (the buttons,
    slider labels, values and the readout) a symbol is a letter with a <sub>, as in the panels."""
    page = page_of(pages, doc).page
    explorables = explorables_on(page)
    if not explorables:
        pytest.skip(f"{doc} には図がありません")
    for i, explorable in enumerate(explorables):
        drawn = explorable.locator(".qkv-panels svg text").evaluate_all("ts => ts.map(t => t.textContent)")
        assert drawn, f"{doc} の図 {i}: 文字がありません"
        underscored = [t for t in drawn if "_" in t]
        assert not underscored, f"{doc} の図 {i}: 下線で描いた添字 {underscored}"
        underscored, subs = explorable.evaluate(SHOWN_SYMBOLS)
        assert not underscored, f"{doc} の図 {i}: 図の外の文字に下線の添字 {underscored}"
        module = page.locator(".qkv-explorable").nth(i).get_attribute("data-qkv-module")
        in_presets = sum(len(SYMBOL.findall(p["label"])) for p in presets_of(module))
        assert subs >= in_presets, f"{doc} の図 {i}: <sub> {subs} 個(ボタンだけで {in_presets} 個)"


#: The chapters whose explorables draw heatmaps (qkv_draw's one `heatmap`), each a map of weights.
HEATMAP_PAGES = ["notebooks/00_introduction", "notebooks/07_how_w_learns", "notebooks/08_going_further"]


@pytest.mark.parametrize("doc", HEATMAP_PAGES)
def test_hovering_a_heatmap_cell_lights_its_row_in_every_panel_with_its_exact_values(pages, doc):
    """The pointer on a cell of the weights' heatmap frames that cell and lights its row in every
    panel that has the row (chapter 08: the output's row too), the other rows dimmed; under the
    picture it says 「row → column」 with the cell's exact weight, then each lit row's exact values."""
    page = page_of(pages, doc).page
    explorable = explorables_on(page)[0]
    numbers = json.loads(explorable.get_attribute("data-qkv-numbers"))
    panels = explorable.locator(".qkv-panels svg")
    first = next(k for k in range(panels.count()) if panels.nth(k).locator("[data-cell]").count())
    rows = panels.nth(first).locator("[data-item]")
    i = rows.count() - 1  # the last row, its second column: neither the first of anything
    row = rows.nth(i).get_attribute("data-item")
    cell = rows.nth(i).locator("[data-cell]").nth(1)
    column = cell.get_attribute("data-cell")
    try:  # leave the picture even when an assertion fails: nothing stays dimmed for the next test
        cell.scroll_into_view_if_needed()
        cell.hover()
        lit = explorable.locator(".qkv-panels .qkv-lit")
        assert lit.count() >= 1 and all(n.get_attribute("data-item") == row for n in lit.all()), doc
        where = "ns => ns.map(n => [...n.closest('.qkv-panels').querySelectorAll('svg')].indexOf(n.ownerSVGElement))"
        having = explorable.locator(f'.qkv-panels [data-item="{row}"]').evaluate_all(where)
        assert sorted(lit.evaluate_all(where)) == sorted(having), doc
        if doc.endswith("08_going_further"):
            assert len(set(having)) == 2, having  # the weights and the heads' output
        assert "qkv-lit-cell" in cell.get_attribute("class")
        assert explorable.locator(".qkv-panels .qkv-lit-cell").count() == 1
        hint = explorable.evaluate(HINT)  # 「W<sub>Q</sub>」 as 「W_Q」, as the row's data-value writes it
        said = re.match(rf"{re.escape(row)} → {re.escape(column)} (-?[\d.]+(?:e-?\d+)?)、", hint)
        assert said, hint
        assert float(said.group(1)) == pytest.approx(numbers["weights"][i][1], rel=1e-5, abs=1e-12)
        for value in explorable.locator(f'.qkv-panels [data-item="{row}"]').evaluate_all("ns => ns.map(n => n.dataset.value)"):
            assert value in hint, (value, hint)
        weights = panels.nth(first).locator(f'[data-item="{row}"]').get_attribute("data-value")
        shown = [float(v.rsplit(" ", 1)[1]) for v in weights.rsplit(": ", 1)[1].split(", ")]
        assert shown == pytest.approx(numbers["weights"][i], rel=1e-5, abs=1e-12), (weights, numbers["weights"][i])
    finally:
        page.mouse.move(0, 0)
    assert explorable.locator(".qkv-panels .qkv-lit, .qkv-panels .qkv-lit-cell").count() == 0
    assert not explorable.locator(".qkv-hint").inner_text()


def test_chapter_07s_three_w_are_the_one_heatmap_lit_by_row_with_exact_values(pages):
    """Chapter 07's W panel is the shared heatmap (no second one): W_Q, W_K and W_V side by side,
    each input component a row running through all three; the pointer on W_K's cell (辛さ, 2)
    frames it, lights its row in the three W and says 「辛さ → W_K 2」 (K a subscript) with the exact value of
    the step shown, then the row's every exact value."""
    page = page_of(pages, "notebooks/07_how_w_learns").page
    explorable = explorables_on(page)[0]
    numbers = json.loads(explorable.get_attribute("data-qkv-numbers"))
    params = numbers["params"]
    d_model, d_k = len(params["W_Q"]), len(params["W_Q"][0])
    panel = explorable.locator(".qkv-panels svg").nth(2)
    rows = panel.locator("[data-item]")
    assert rows.count() == d_model
    assert [rows.nth(i).locator("[data-cell]").count() for i in range(d_model)] == [3 * d_k] * d_model
    assert panel.locator("rect:not(.qkv-guide)").count() == 3 * d_model * d_k + 1  # cells, the scale's frame
    row = rows.nth(1)
    name = row.get_attribute("data-item")
    cell = row.locator("[data-cell]").nth(d_k + 1)
    assert cell.get_attribute("data-cell") == "W_K 2"
    cell.scroll_into_view_if_needed()
    cell.hover()
    hint = explorable.locator(".qkv-hint").inner_text()
    said = re.match(rf"{re.escape(name)} → WK 2 (-?[\d.]+(?:e-?\d+)?)、", hint)  # W<sub>K</sub>
    assert said and explorable.locator(".qkv-hint sub").first.inner_text() == "K", hint
    assert float(said.group(1)) == pytest.approx(params["W_K"][1][1], rel=1e-5, abs=1e-12)
    assert "qkv-lit-cell" in cell.get_attribute("class")
    lit = explorable.locator(".qkv-panels .qkv-lit")
    assert [n.get_attribute("data-item") for n in lit.all()] == [name]
    values = [float(v) for v in re.findall(r"W_[QKV] \d+ (-?[\d.]+(?:e-?\d+)?)", row.get_attribute("data-value"))]
    assert values == pytest.approx([v for w in ("W_Q", "W_K", "W_V") for v in params[w][1]], rel=1e-5, abs=1e-12)
    page.mouse.move(0, 0)


def test_chapter_04s_key_is_on_the_same_phone_screen_as_the_w_q_sliders(pages):
    """On a phone (390 × 844) chapter 04's panels stack; its key (「一番合う見出し」, each word's
    best match, which the text asks the reader to watch while turning W_Q) comes right under W_Q's
    panel: with the first W_Q slider just under the sticky header, W_Q's panel and every row of
    the key are on the screen (it was 1,300 px below). A row of the key, hovered, lights that
    word's marker in the three faces' panels."""
    page = page_of(pages, "notebooks/04_three_matrices").page
    explorable = explorables_on(page)[0]
    try:
        resize(page, 390, 844)
        slider = explorable.locator(".qkv-control").filter(has_text="WQ の角度").locator("input")  # W<sub>Q</sub>
        cells = explorable.locator(".qkv-panels > .qkv-cell")
        face_q, key = cells.nth(0).locator("svg"), cells.last.locator("svg")
        assert cells.nth(0).locator(".qkv-control").first.locator("input").get_attribute("id") == slider.get_attribute("id")
        slider.evaluate("s => { const t = s.closest('.qkv-control').getBoundingClientRect().top;"
                        " window.scrollBy(0, t - document.querySelector('.bd-header-article').getBoundingClientRect().bottom); }")
        header = page.evaluate("document.querySelector('.bd-header-article').getBoundingClientRect().bottom")
        rows = key.locator("[data-item]")
        assert rows.count() == len(json.loads(explorable.get_attribute("data-qkv-data"))["words"])
        boxes = [slider.bounding_box(), face_q.bounding_box()] + [rows.nth(i).bounding_box() for i in range(rows.count())]
        shown = [(round(b["y"]), round(b["y"] + b["height"])) for b in boxes]
        assert all(top >= header - 0.5 and bottom <= 844 for top, bottom in shown), (header, shown)
        word = rows.nth(1).get_attribute("data-item")
        rows.nth(1).hover()
        lit = explorable.locator(".qkv-panels .qkv-lit").evaluate_all(
            "ns => ns.map(n => [...n.closest('.qkv-panels').querySelectorAll('svg')].indexOf(n.ownerSVGElement))")
        assert sorted(lit) == [0, 1, 2, 3], lit  # its marker in Q, K and V, and its row of the key
        assert explorable.locator(".qkv-hint").inner_text().startswith(word)
    finally:
        page.mouse.move(0, 0)
        page.set_viewport_size({"width": 1280, "height": 900})


#: Chapter 04's face panels (Q, K, V): each one's frame and its markers, in CSS px.
FACE_MARKERS = r"""ex => [...ex.querySelectorAll(".qkv-panels svg")].slice(0, 3).map((svg) => {
  const box = (n) => { const b = n.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  return { frame: box(svg.querySelector(":scope > rect[fill=none]")),
           markers: [...svg.querySelectorAll("[data-item]")].map((g) => [g.dataset.item, box(g)]) };
})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_chapter_04s_markers_are_legible_apart_and_fill_the_plane(pages, width):
    """At the start, in each of the three faces' panels: every word's marker is at least 15 CSS px
    across, no two overlap (カレー's and キムチ's did, 7-unit markers on a ±4.2 plane), the farthest
    reaches over three quarters of the way from the origin to the frame (it was under half), and
    hovering a marker says the word's exact face."""
    page = page_of(pages, "notebooks/04_three_matrices").page
    explorable = explorables_on(page)[0]
    try:
        resize(page, width, 844)
        explorable.scroll_into_view_if_needed()
        panels = explorable.evaluate(FACE_MARKERS)
        assert len(panels) == 3 and all(len(p["markers"]) == 5 for p in panels), panels
        for panel in panels:
            x0, y0, x1, y1 = panel["frame"]
            middle, half = ((x0 + x1) / 2, (y0 + y1) / 2), (x1 - x0) / 2
            boxes = [b for _, b in panel["markers"]]
            assert min(min(b[2] - b[0], b[3] - b[1]) for b in boxes) >= 15, panel["markers"]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (width, a, b)
            reach = max(max(abs((b[0] + b[2]) / 2 - middle[0]), abs((b[1] + b[3]) / 2 - middle[1]))
                        for b in boxes) / half
            assert reach >= 0.75, (width, reach)
        explorable.locator(".qkv-panels svg").first.locator('[data-item="ケーキ"]').hover()
        expect(explorable.locator(".qkv-hint")).to_contain_text("Q (2, 0.2)")
    finally:
        page.mouse.move(0, 0)
        page.set_viewport_size({"width": 1280, "height": 900})


#: Chapter 04's first panel on the screen: the origin (where its axes cross) and the ring, in CSS px.
RING_AND_ORIGIN = r"""svg => {
  const m = svg.getScreenCTM();
  const on = (x, y) => { const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; };
  const [xAxis, yAxis] = svg.querySelectorAll(":scope > line");
  const ring = svg.querySelector(".qkv04-handle");
  return { origin: on(+yAxis.getAttribute("x1"), +xAxis.getAttribute("y1")),
           ring: on(+ring.getAttribute("cx"), +ring.getAttribute("cy")) };
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_dragging_chapter_04s_ring_to_0_minus_1_turns_w_q_by_minus_90(pages, width):
    """The ring of the question panel sits at (1, 0); dragged to (0, −1) on the fitted plane (the
    same distance from the origin, a quarter turn clockwise) it sets W_Q to −90° at scale 1, as the
    chapter says, and the key then shows the tie."""
    page = page_of(pages, "notebooks/04_three_matrices").page
    first = at_the_opening_state(page, "notebooks/04_three_matrices")[0]
    explorable = explorables_on(page)[0]
    try:
        resize(page, width, 844)
        svg = explorable.locator(".qkv-panels svg").first
        svg.scroll_into_view_if_needed()
        at = svg.evaluate(RING_AND_ORIGIN)
        (ox, oy), (rx, ry) = at["origin"], at["ring"]
        assert abs(ry - oy) < 1 and rx - ox > 20, at
        page.mouse.move(rx, ry)
        page.mouse.down()
        page.mouse.move(ox, oy + (rx - ox), steps=8)
        page.mouse.up()
        landed(page, explorable, {"q_angle": -90, "q_scale": 1})
        expect(explorable.locator(".qkv-readout")).to_contain_text("ケーキ→(同点)")
    finally:  # back at 1280 px and the opening state, for the next test
        page.set_viewport_size({"width": 1280, "height": 900})
        explorable.locator(".qkv-presets button").last.click()
        landed(page, explorable, {t: first[t] for t in json.loads(explorable.get_attribute("data-qkv-state"))})


#: Every text of every explorable's SVG on this page whose contrast (WCAG) against what lies under
#: it (the shape under its middle, else the explorable's background) is below 4.5, in `mode`.
TEXT_CONTRAST = r"""mode => {
  document.documentElement.dataset.theme = mode;
  const canvas = document.createElement("canvas").getContext("2d");
  const rgb = (css) => {  // any CSS colour (rgb(), color(srgb …), a name) as 0…255 channels
    canvas.fillStyle = "#000"; canvas.fillStyle = css;
    canvas.clearRect(0, 0, 1, 1); canvas.fillRect(0, 0, 1, 1);
    return [...canvas.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  };
  const lum = (c) => c.map((v) => (v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const low = [];
  for (const ex of document.querySelectorAll(".qkv-ex")) {
    ex.scrollIntoView({ block: "center" });
    const page = rgb(getComputedStyle(ex).backgroundColor);
    for (const t of ex.querySelectorAll(".qkv-panels svg text")) {
      const box = t.getBoundingClientRect();
      if (!box.width || box.bottom < 0 || box.top > innerHeight) continue;
      const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2)
        .find((e) => e !== t && e.closest("svg") === t.closest("svg") && ["rect", "path", "polygon", "circle"].includes(e.tagName)
          && getComputedStyle(e).fill !== "none" && !e.getAttribute("fill")?.startsWith("url")
          && parseFloat(getComputedStyle(e).fillOpacity) === 1 && getComputedStyle(e).fill !== "transparent");
      const back = under ? rgb(getComputedStyle(under).fill) : page;
      const r = ratio(rgb(getComputedStyle(t).fill), back);
      if (r < 4.5) low.push(`${t.textContent} ${r.toFixed(2)}`);
    }
  }
  document.documentElement.dataset.theme = "light";
  return low;
}"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_every_text_of_every_explorable_reads_at_4_5_to_1_in_light_and_dark(pages, doc):
    """Titles in the palette's colours, labels, numbers on heatmap cells: each against what lies
    under it, in the theme's light and dark modes (the orange label was 2.25:1, white numbers on
    mid-blue cells 2.7:1, Q-blue text on a dark page 3.6:1)."""
    page = page_of(pages, doc).page
    if not explorables_on(page):
        pytest.skip(f"{doc} には図がありません")
    for mode in ("light", "dark"):
        low = page.evaluate(TEXT_CONTRAST, mode)
        assert not low, f"{doc} ({mode}): コントラスト 4.5 未満の文字 {low[:8]}"


#: Every mark (a shape: a bar, a cell, a line, an arrow, a point) of every explorable's SVG on this
#: page that stands out from the page (the explorable's background) by less than 3:1 (WCAG 1.4.11)
#: in `mode`: neither its fill nor its stroke (1 unit or wider) reaches it, each blended over the
#: page with its opacities. Guides (class qkv-guide: grid lines, a colour scale's steps inside
#: their frame) and shapes in <defs> are not marks; a transparent shape (a hit area) draws nothing.
MARK_CONTRAST = r"""mode => {
  document.documentElement.dataset.theme = mode;
  const canvas = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const rgba = (css) => {
    canvas.fillStyle = "#000"; canvas.fillStyle = css;
    canvas.clearRect(0, 0, 1, 1); canvas.fillRect(0, 0, 1, 1);
    return [...canvas.getImageData(0, 0, 1, 1).data];
  };
  const lum = (c) => c.slice(0, 3).map((v) => (v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (c, alpha, back) => c.slice(0, 3).map((v, i) => v * alpha + back[i] * (1 - alpha));
  const low = [];
  let marks = 0;
  for (const ex of document.querySelectorAll(".qkv-ex")) {
    const page = rgba(getComputedStyle(ex).backgroundColor);
    for (const m of ex.querySelectorAll(".qkv-panels svg :is(rect, line, polyline, polygon, circle, path, ellipse)")) {
      if (m.closest("defs, pattern, clipPath, mask, .qkv-guide")) continue;
      const s = getComputedStyle(m);
      let alpha = 1;
      for (let n = m; n && n.tagName !== "svg"; n = n.parentElement) alpha *= parseFloat(getComputedStyle(n).opacity);
      const parts = [];
      const paint = (kind, css, opacity) => {
        const c = rgba(css);
        if (c[3] > 0) parts.push([kind, ratio(over(c, alpha * opacity * c[3] / 255, page), page)]);
      };
      if (s.fill !== "none" && !s.fill.startsWith("url") && !["line", "polyline"].includes(m.tagName))
        paint("fill", s.fill, parseFloat(s.fillOpacity));
      if (s.stroke !== "none" && parseFloat(s.strokeWidth) >= 1) paint("stroke", s.stroke, parseFloat(s.strokeOpacity));
      if (!parts.length) continue;
      marks++;
      const best = Math.max(...parts.map(([, r]) => r));
      if (best < 3) low.push(`${m.tagName} ${parts.map(([k, r]) => `${k} ${r.toFixed(2)}`).join(" ")}: ${m.outerHTML.slice(0, 90)}`);
    }
  }
  document.documentElement.dataset.theme = "light";
  return [marks, low];
}"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_every_mark_of_every_explorable_stands_out_at_3_to_1_in_light_and_dark(pages, doc):
    """Bars, heatmap cells, arrows, points and axes against the page, in the theme's light and
    dark modes (the darkest cells were 1.4:1 on a dark page, the palest 1.03:1 on a light one,
    chapter 01's orange arrow 2.25:1 on white, the axes 2.85:1)."""
    page = page_of(pages, doc).page
    if not explorables_on(page):
        pytest.skip(f"{doc} には図がありません")
    for mode in ("light", "dark"):
        marks, low = page.evaluate(MARK_CONTRAST, mode)
        assert marks >= 10, f"{doc} ({mode}): 図の印が見つかりません({marks} 個)"
        assert not low, f"{doc} ({mode}): コントラスト 3 未満の印 {len(low)} 個: {low[:6]}"


@pytest.mark.parametrize("doc", CHAPTERS)
def test_no_control_overlaps_another_or_its_value_from_320_to_1920_px(pages, doc):
    """At every width, with the folds of preset buttons closed (as the page opens) and opened
    (chapter 00's 「答え:入れ替わる t」: its buttons flow in the row, pushing the sliders down), no
    label, slider, value or button overlaps another or sticks out of its explorable."""
    page = page_of(pages, doc).page
    if not explorables_on(page):
        pytest.skip(f"{doc} には図がありません")
    folds = page.evaluate(OPEN_FOLDS, False)
    try:  # each width laid out once, its folds closed then opened (a page without folds: closed);
        # 1280 px, where the shared page stays, last: no width laid out again to go back there
        for width in (320, 390, 600, 768, 1024, 1920, 1280):
            resize(page, width, 900)
            for opened in (False, True) if folds else (False,):
                if opened:
                    page.evaluate(OPEN_FOLDS, True)
                    page.evaluate(TWO_FRAMES)
                bad = page.evaluate(CONTROL_OVERLAPS)
                how = f"(たたんだボタン {folds} 組を{'開いて' if opened else '閉じて'})"
                assert not bad, f"{doc} を幅 {width}px で{how}: 重なり・はみ出し {bad[:6]}"
                if opened and folds:  # an opened fold's buttons are measured, not skipped as hidden
                    shown = page.evaluate("() => [...document.querySelectorAll('.qkv-preset-fold > button')]"
                                          ".every(b => b.checkVisibility())")
                    assert shown, f"{doc} を幅 {width}px で: 開いたのに見えないボタン"
                    page.evaluate(OPEN_FOLDS, False)
    finally:
        page.evaluate(OPEN_FOLDS, False)
        if page.viewport_size != {"width": 1280, "height": 900}:  # it failed at another width
            page.set_viewport_size({"width": 1280, "height": 900})


#: For each explorable whose controls stick (one bar, not `qkv-many`), scrolled past its top: the
#: bar's top and the bottom of the page's sticky header, in CSS px.
STUCK_BARS = r"""() => {
  const out = [];
  for (const bar of document.querySelectorAll(".qkv-ex > .qkv-controls:not(.qkv-many):not([hidden])")) {
    const ex = bar.closest(".qkv-ex");
    window.scrollTo(0, ex.getBoundingClientRect().top + scrollY + 200);
    const b = bar.getBoundingClientRect();
    // the sticky element at the top of the page above the bar (the theme's article header)
    const header = document.elementsFromPoint(b.left + b.width / 2, 1)
      .flatMap((n) => { const up = []; for (; n; n = n.parentElement) up.push(n); return up; })
      .find((n) => getComputedStyle(n).position === "sticky" && !n.closest(".qkv-ex"));
    out.push([b.top, header ? header.getBoundingClientRect().bottom : null]);
  }
  return out;
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_an_explorables_controls_stick_right_under_the_pages_header(pages, width):
    """Scrolled past an explorable's top, its bar of controls sits right under the page's sticky
    header, with no strip of the page showing between them (on a phone the header is 56 px and
    the bar stopped at 64 px: an 8-px gap). The shared pages are 1280 px wide already (the bar's
    place does not depend on the window's height): only the phone width resizes, and only the
    pages with an explorable, once there and once back."""
    bars, resized = [], []
    try:
        for doc in CHAPTERS:
            page = page_of(pages, doc).page
            if not explorables_on(page):
                continue
            if page.viewport_size["width"] != width:
                resized.append(page)
                page.set_viewport_size({"width": width, "height": 844})
            bars += [(doc, *b) for b in page.evaluate(STUCK_BARS)]
    finally:
        for page in resized:
            page.set_viewport_size({"width": 1280, "height": 900})
    assert len(bars) >= 4, bars
    for doc, top, header in bars:
        assert header is not None and header > 0, f"{doc}: 固定された見出しがありません"
        assert abs(top - header) <= 0.5, f"{doc} を幅 {width}px で: つまみの上端 {top}px、見出しの下端 {header}px"


#: Where every element of the article is (page coordinates, in tenths of a pixel): a `[box, …]`.
ARTICLE_BOXES = """() => Array.from(document.querySelectorAll(".bd-article *"), (e) => {
  const r = e.getBoundingClientRect();
  return [r.left, r.top + scrollY, r.width, r.height].map((v) => Math.round(v * 10)).join(",");
})"""
#: How many elements of the article are not drawn now (content-visibility: auto, away from the screen).
SKIPPED = """() => Array.from(document.querySelectorAll(".bd-article *"))
  .filter((e) => !e.checkVisibility({ contentVisibilityAuto: true })).length"""
NEAR_SCREEN_ONLY = "document.documentElement.classList.contains('qkv-near-screen-only')"


def test_a_page_with_explorables_draws_only_the_text_near_the_screen_and_nothing_moves(book, context):
    """A key press's frame lays out and paints the explorable and the text near the screen, not
    the whole chapter (book/_static/qkv.css, .qkv-near-screen-only): far blocks are skipped, each
    keeping the size it was drawn at, so every element of the article is where it is with
    everything drawn, at the first width and after the window changed width; on paper all is drawn."""
    with new_page(context, "notebooks/08_going_further") as page:
        page.evaluate(EVERY_IMAGE_LOADED)  # as the shared pages are loaded (open_page)
        page.evaluate("document.fonts.ready.then(() => true)")
        page.evaluate("addEventListener('resize', () => { window.qkvResized = true; })")
        for width in (1280, 390):
            if width != 1280:
                page.set_viewport_size({"width": width, "height": 844})
                page.wait_for_function("window.qkvResized === true")
            page.wait_for_function(NEAR_SCREEN_ONLY, timeout=10_000)
            skipped, near = page.evaluate(SKIPPED), page.evaluate(ARTICLE_BOXES)
            page.evaluate("document.documentElement.classList.remove('qkv-near-screen-only')")
            # a closed fold's content counts as not drawn either way
            folded, drawn = page.evaluate(SKIPPED), page.evaluate(ARTICLE_BOXES)
            page.evaluate("document.documentElement.classList.add('qkv-near-screen-only')")
            assert skipped - folded > 1000, f"幅 {width}px: 画面から遠い要素が描かれたままです({skipped - folded} 個だけ省かれています)"
            moved = [i for i, (a, b) in enumerate(zip(near, drawn, strict=True)) if a != b]
            assert not moved, f"幅 {width}px: 全部を描いたときと位置や大きさが違う要素が {len(moved)} 個あります"
        page.emulate_media(media="print")
        printed = page.evaluate(SKIPPED)
        page.evaluate("document.documentElement.classList.remove('qkv-near-screen-only')")
        assert printed == page.evaluate(SKIPPED), "印刷では全部を描くはずが、省かれた要素があります"


@pytest.mark.parametrize("system, chosen, shown", [
    ("dark", None, "dark"), ("light", None, "light"), ("dark", "light", "light"), ("light", "dark", "dark"),
])
def test_the_book_follows_the_systems_colour_scheme_unless_the_reader_chose(book, context, system, chosen, shown):
    """The reader's choice is what the theme's switch writes in localStorage, there when the page loads."""
    chosen_before = {"mode": chosen, "theme": chosen} if chosen else None
    with new_page(context, "notebooks/02_library_search", scheme=system, stored=chosen_before) as page:
        page.wait_for_function("t => document.documentElement.dataset.theme === t", arg=shown, timeout=5000)
        explorables_on(page)
        bg = page.evaluate("getComputedStyle(document.querySelector('.qkv-ex')).backgroundColor")
        level = sum(int(v) for v in re.findall(r"\d+", bg)[:3]) / 3
        assert (level < 80) == (shown == "dark"), (system, chosen, bg)


#: The colours behind an explorable, from its output box up to the article: each element's
#: background, as `[class, background-color]`, in `mode`.
BEHIND_AN_EXPLORABLE = r"""mode => {
  document.documentElement.dataset.theme = mode;
  const out = [];
  for (const box of document.querySelectorAll(".qkv-explorable")) {
    for (let n = box.parentElement; n && !n.matches(".bd-article"); n = n.parentElement)
      out.push([n.className, getComputedStyle(n).backgroundColor]);
  }
  document.documentElement.dataset.theme = "light";
  return out;
}"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_an_explorables_output_box_draws_no_frame_around_it_in_light_or_dark(pages, doc):
    """The explorable draws its own background in the theme's colours: the output box around it
    paints nothing (in dark mode the theme gave HTML outputs a light grey background with 8 px of
    padding, a light frame around a dark explorable)."""
    page = page_of(pages, doc).page
    if not explorables_on(page):
        pytest.skip(f"{doc} には図がありません")
    for mode in ("light", "dark"):
        behind = page.evaluate(BEHIND_AN_EXPLORABLE, mode)
        assert any("cell_output" in c for c, _ in behind), behind
        painted = [(c, bg) for c, bg in behind if bg != "rgba(0, 0, 0, 0)"]
        assert not painted, f"{doc} ({mode}): 図のまわりに色のついた枠 {painted}"


def test_at_1280_px_nothing_sits_above_the_sidebar_and_search_is_offered_once_there(pages):
    """At 1280 px the page starts with the sidebar and the article header: no 64-px bar above them
    holding a second 「検索 Ctrl+K」 (pydata-sphinx-theme 0.17 put its search field back into the
    navbar that sphinx-book-theme leaves empty). The sidebar's search field remains and opens the
    search dialog (on a phone the article header's button does)."""
    page = page_of(pages, "notebooks/04_three_matrices").page
    page.evaluate("window.scrollTo(0, 0)")
    shown = page.evaluate("""() => [...document.querySelectorAll('.search-button__button')]
      .filter((b) => b.getClientRects().length && b.getBoundingClientRect().width > 0)
      .map((b) => [b.closest('.bd-sidebar-primary') ? 'sidebar' : b.closest('.bd-header-article') ? 'article'
                   : 'elsewhere', Math.round(b.getBoundingClientRect().top)])""")
    assert [where for where, _ in shown] == ["sidebar"], shown
    tops = page.evaluate("['.bd-sidebar-primary', '.bd-header-article']"
                         ".map((s) => document.querySelector(s).getBoundingClientRect().top)")
    assert tops == [0, 0], tops
    page.locator(".bd-sidebar-primary .search-button__button").click()
    expect(page.locator("#pst-search-dialog input[type=search]")).to_be_focused()
    page.keyboard.press("Escape")


#: The theme's skip link bar: its box, and whether a point of it is drawn on top on the screen.
SKIP_BAR = r"""() => {
  const bar = document.querySelector(".skip-link");
  const b = bar.getBoundingClientRect();
  const inView = b.bottom > 0.5 && b.top < innerHeight;
  const x = b.left + b.width / 2, y = Math.min(Math.max(b.top + b.height / 2, 0), innerHeight - 1);
  return { top: b.top, bottom: b.bottom, inView, onTop: inView && bar.contains(document.elementFromPoint(x, y)) };
}"""


#: The skip link bar has finished sliding (the theme's transition, 0.15 s, longer under load).
SKIP_BAR_STILL = "() => document.querySelector('.skip-link').getAnimations({ subtree: true }).length === 0"


def orange_rows(png: Path, css: str) -> int:
    """How many rows of the image are mostly (over 60 %) the colour `css` (rgb(r, g, b))."""
    want = np.array([int(v) for v in re.findall(r"\d+", css)[:3]])
    with Image.open(png) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=np.int16)  # rows × columns × RGB
    width = pixels.shape[1]
    near = (np.abs(pixels[:, ::2] - want) <= 4).all(axis=2)  # every other column, as a glance does
    return int((near.sum(axis=1) > 0.6 * width / 2).sum())


@pytest.mark.parametrize("width", [390, 1280])
def test_the_skip_link_shows_only_while_the_keyboard_is_on_it(book, context, width, tmp_path):
    """The theme's 「本文へスキップ」 bar (with a link per explorable) is out of the screen wherever
    the reader scrolls, and paints nothing there: the strip above the screen's top shows on iOS
    when the page bounces at its top, and in a screenshot of an explorable taller than the screen,
    where the orange bar sat in the middle of chapter 04's. The first Tab brings it down over the
    sticky header, and it leaves once the keyboard moves on."""
    with new_page(context, "notebooks/04_three_matrices", width, 844) as page:
        explorables_on(page)
        height = page.evaluate("document.documentElement.scrollHeight")
        for y in (0, 300, *range(0, height, height // 6), height):
            page.evaluate("y => window.scrollTo(0, y)", y)
            bar = page.evaluate(SKIP_BAR)
            assert not bar["inView"], (y, bar)
        shot = tmp_path / f"skip-{width}.png"
        page.locator(".qkv-explorable").first.screenshot(path=str(shot))  # taller than the screen
        colour = page.evaluate("getComputedStyle(document.querySelector('.skip-link')).backgroundColor")
        assert orange_rows(shot, colour) == 0, f"{shot}: スキップのリンクの帯が描かれています"
        page.evaluate("window.scrollTo(0, 0)")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.closest('.skip-link') !== null")
        page.wait_for_function(SKIP_BAR_STILL)  # the theme slides it down in 0.15 s
        bar = page.evaluate(SKIP_BAR)
        assert bar["top"] >= -0.5 and bar["onTop"], bar
        page.keyboard.press("Escape")
        page.evaluate("document.activeElement.blur()")
        page.wait_for_function(SKIP_BAR_STILL)
        assert not page.evaluate(SKIP_BAR)["inView"]


def test_a_log_slider_shows_a_new_value_at_every_key_and_takes_coarse_keys(pages):
    """Chapter 02's temperature: each → shows another number (it showed 0.05 four times), PageUp
    moves many steps at once, Home and End go to the ends (said once in the chapters)."""
    page = page_of(pages, "notebooks/02_library_search").page
    explorable = explorables_on(page)[0]
    control = explorable.locator(".qkv-control", has_text="温度")
    slider, out = control.locator("input[type=range]"), control.locator("output")
    slider.focus()
    page.keyboard.press("Home")
    shown = [out.inner_text()]
    for _ in range(6):
        page.keyboard.press("ArrowRight")
        shown.append(out.inner_text())
    assert shown[0] == "0.05" and len(set(shown)) == len(shown), shown
    before = json.loads(explorable.get_attribute("data-qkv-state"))["temperature"]
    page.keyboard.press("PageUp")
    after = json.loads(explorable.get_attribute("data-qkv-state"))["temperature"]
    assert after / before > 1.023 ** 10, (before, after)  # at least ten arrow steps
    page.keyboard.press("End")
    assert out.inner_text() == "20"
    # Its name is its visible label (WCAG 2.5.3), the symbol's reading its description.
    expect(slider).to_have_accessible_name("温度 T")
    expect(slider).to_have_accessible_description("温度 ティー")
    page.keyboard.press("Home")


def test_the_address_keeps_an_explorables_state(book, context):
    """Opened with #qkv=0&angle=45&temperature=0.05 the first explorable starts there, a value the
    controls cannot take is left alone, and a settled control writes the new state back."""
    opened = []
    try:
        page = context.new_page()
        opened.append(page)
        url = html_path("notebooks/02_library_search").as_uri()
        page.goto(url + "#qkv=0&angle=45&temperature=0.05&names=1", wait_until="load")
        explorable = explorables_on(page)[0]
        state = json.loads(explorable.get_attribute("data-qkv-state"))
        assert state == {"angle": 45, "temperature": 0.05}, state
        # A new page: the first one's settle timer may still write its state into its own address.
        page = context.new_page()
        opened.append(page)
        page.goto(url + "#qkv=0&angle=900", wait_until="load")
        explorable = explorables_on(page)[0]
        assert json.loads(explorable.get_attribute("data-qkv-state"))["angle"] != 900
        explorable.locator(".qkv-control", has_text="問いの向き").locator("input").focus()
        page.keyboard.press("ArrowRight")
        shared = json.loads(explorable.get_attribute("data-qkv-state"))
        page.wait_for_function(
            "a => /(^#|&)qkv=0(&|$)/.test(location.hash) && new RegExp(`&angle=${a}(&|$)`).test(location.hash)",
            arg=shared["angle"])
        assert "900" not in unquote(page.evaluate("location.hash")), shared
    finally:
        for page in opened:
            page.close()


#: The contrast ratio (WCAG) between an explorable's first label drawn in the theme's text colour
#: and the explorable's background, in `mode`.
LABEL_CONTRAST = r"""mode => {
  document.documentElement.dataset.theme = mode;
  const ex = document.querySelector('.qkv-ex');
  const label = [...ex.querySelectorAll('.qkv-panel text')]
    .find(t => (t.getAttribute('style') || '').includes('fill:var(--qkv-fg)'));  // not a palette ink
  const rgb = c => c.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  let box = ex, bg;  // the first box around the label that paints a background
  for (; box; box = box.parentElement) {
    bg = getComputedStyle(box).backgroundColor;
    if (bg !== 'transparent' && !/, 0\)$/.test(bg)) break;
  }
  const a = lum(rgb(getComputedStyle(label).fill)), b = lum(rgb(bg || 'rgb(255, 255, 255)'));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("doc", CHAPTERS)
def test_solutions_are_hidden_until_clicked(pages, doc):
    page = page_of(pages, doc).page
    solutions = solution_cells(notebook(doc))
    hidden = page.locator(".cell.tag_hide-input")
    assert hidden.count() >= len(solutions), (
        f"{doc}: 解答のセル {len(solutions)} 個に対して、隠してあるセルが {hidden.count()} 個")
    assert not page.locator(".bd-article pre", has_text="### BEGIN").count(), f"{doc}: nbgrader の印"
    marked = page.locator(".cell.tag_hide-input pre")
    assert marked.count() >= len(solutions), f"{doc}: 解答のコードがページにありません"
    shown = [marked.nth(i).inner_text()[:60] for i in range(marked.count())
             if marked.nth(i).is_visible()]
    assert not shown, f"{doc}: 開く前から見えている解答: {shown}"
    for i in range(hidden.count()):
        cell = hidden.nth(i)
        code = cell.locator(".cell_input")
        summary = cell.locator("details > summary").first
        label = summary.inner_text()
        assert "コードを表示" in label or "答えを見る" in label, f"{doc}: 開くボタンの文言: {label}"
        assert not code.is_visible(), f"{doc}: 隠したはずのコード {i} が見えています"
        summary.scroll_into_view_if_needed()
        summary.click()
        assert code.is_visible(), f"{doc}: 「コードを表示」を押してもコード {i} が見えません"
        assert "を隠す" in summary.inner_text()
    for source in solutions:
        first_line = next(line for line in source.splitlines()
                          if line.strip() and not line.strip().startswith("### "))
        assert page.locator(".cell.tag_hide-input pre", has_text=first_line.strip()).count(), (
            f"{doc}: 解答 {first_line!r} が隠したセルの中にありません")


@pytest.mark.parametrize("doc", CHAPTERS)
def test_answer_checks_show_nothing_until_clicked(pages, doc):
    """An answer check and the cells after it that reveal the answer (「答え合わせ:実際に…」) are
    folded: their output shows once the reader asks for it (a check's is its ✓ line)."""
    page = page_of(pages, doc).page
    checks = page.locator(".cell.tag_hide-output")
    assert checks.count() >= 2, f"{doc}: 答え合わせのセルがたたまれていません"
    ticks = 0
    for i in range(checks.count()):
        cell = checks.nth(i)
        output = cell.locator(".cell_output")
        assert not output.is_visible(), f"{doc}: 答え合わせ {i} の結果が最初から見えています"
        summary = cell.locator("details > summary").first
        assert "答え合わせの結果を見る" in summary.inner_text()
        summary.scroll_into_view_if_needed()
        summary.click()
        shown = output.inner_text()
        assert shown.strip(), f"{doc}: 開いても答え合わせ {i} の結果がありません"
        if "helpers.checks.check_" in cell.locator(".cell_input").inner_text():
            assert "✓" in shown, f"{doc}: 開いても答え合わせ {i} の ✓ がありません"
            ticks += 1
    assert ticks >= 2, doc


# ------------------------------------------------------------------------ Japanese in the page

GLYPH_PIXELS = """
async ([text, font]) => {
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  ctx.font = font;
  await document.fonts.load(ctx.font, text);
  const out = [];
  for (const ch of text) {
    ctx.clearRect(0, 0, 64, 64);
    ctx.fillText(ch, 4, 52);
    const px = ctx.getImageData(0, 0, 64, 64).data;
    let sig = 0, ink = 0;
    for (let i = 3; i < px.length; i += 4) { sig = (sig * 31 + px[i]) >>> 0; ink += px[i] > 0; }
    out.push({ch, sig, ink, width: ctx.measureText(ch).width});
  }
  return out;
}
"""


def test_japanese_is_drawn_with_the_readers_font_or_else_the_shipped_one(pages):
    """The reader's own Japanese fonts are named first (nothing to download where the device has
    them); the shipped face comes after them, tries them by local() name, and is the one that draws
    Japanese on a machine without any (this one, when fc-list finds none)."""
    loaded = page_of(pages, DOCS[0])
    page = loaded.page
    body = page.evaluate("() => getComputedStyle(document.querySelector('.bd-article p')).fontFamily")
    families = [f.strip().strip('"') for f in body.split(",")]
    assert SHIPPED_FAMILY in families, body
    late = [f for f in SYSTEM_JAPANESE if f not in families or families.index(f) > families.index(SHIPPED_FAMILY)]
    assert not late, f"端末の日本語フォント {late} が同梱フォントより前にありません: {body}"
    face = (HTML / "_static" / "fonts" / "noto-sans-jp" / "400.css").read_text(encoding="utf-8")
    assert "font-display: swap" in face and face.index("local(") < face.index("url("), face[:400]
    if system_has_japanese_font():
        return  # the reader's font draws it here; the shipped one is tested where there is none
    text = "重み行列内積"
    state = page.evaluate("""([text, family]) => ({
      check: document.fonts.check(`16px "${family}"`, text),
      faces: [...document.fonts].filter(f => f.family.replace(/"/g, '') === family
                                        && f.status === 'loaded').length})""", [text, SHIPPED_FAMILY])
    assert state["faces"] > 0, "Noto Sans JP の書体が一つも読み込まれていません"
    assert state["check"], "document.fonts.check が Noto Sans JP で日本語を描けないと言っています"
    shipped = [u for u in loaded.local if FONT_FILES in u and u.endswith(".woff2")]
    assert shipped, "_static/fonts の woff2 が読み込まれていません"

    noto = page.evaluate(GLYPH_PIXELS, [text, f'48px "{SHIPPED_FAMILY}"'])
    missing = page.evaluate(GLYPH_PIXELS, [text, '48px "QKV No Such Font"'])
    assert all(g["ink"] > 50 for g in noto), f"描かれていない字があります: {noto}"
    # Tofu (a fallback box) draws every character the same; real glyphs all differ.
    assert len({g["sig"] for g in noto}) == len(text), f"字の形が区別できません(豆腐?): {noto}"
    assert [g["sig"] for g in noto] != [g["sig"] for g in missing], (
        "存在しないフォントで描いた場合と同じ絵です: 同梱フォントが使われていません")
    print("fallback glyphs distinct:", len({g["sig"] for g in missing}), "of", len(text))


#: Every Japanese character of the page drawn in the page's own font stack, next to a character no
#: font has (U+10FFFD): the ones drawn as that same box, or with no ink, are tofu.
TOFU = """
async () => {
  const text = document.body.innerText + document.title;
  const chars = [...new Set(text.match(/[\u3001-\u30ff\u4e00-\u9fff\uff00-\uffef]/g) || [])];
  const family = getComputedStyle(document.querySelector('.bd-article p')).fontFamily;
  const font = `48px ${family}`;
  // A blocked font file rejects the load: its characters are then drawn without it.
  await document.fonts.load(font, chars.join('')).catch(() => null);
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  ctx.font = font;
  const draw = (ch) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.fillText(ch, 4, 52);
    const px = ctx.getImageData(0, 0, 64, 64).data;
    let sig = 0, ink = 0;
    for (let i = 3; i < px.length; i += 4) { sig = (sig * 31 + px[i]) >>> 0; ink += px[i] > 0; }
    return {sig, ink};
  };
  const box = draw(String.fromCodePoint(0x10FFFD));
  const tofu = chars.filter(ch => { const g = draw(ch); return g.ink === 0 || g.sig === box.sig; });
  return {count: chars.length, tofu};
}
"""


@pytest.mark.parametrize("doc", [*CHAPTERS, "book/glossary"])
def test_no_japanese_character_is_tofu(pages, doc):
    result = page_of(pages, doc).page.evaluate(TOFU)
    assert result["count"] > 50, f"{doc}: 日本語の字が見つかりません: {result}"
    assert not result["tofu"], f"{doc}: 豆腐(□)で描かれる字: {''.join(result['tofu'][:40])}"


def test_without_the_shipped_font_the_tofu_check_sees_tofu(book, context):
    """The check above is not vacuous: with the font files blocked, a machine without Japanese
    fonts of its own draws boxes, and the check finds them (with fonts of its own, none)."""
    page = context.new_page()
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        page.route(re.compile(r"\.woff2?$"), lambda r: r.abort())
        page.goto(html_path(CHAPTERS[0]).as_uri(), wait_until="load")
        result = page.evaluate(TOFU)
    finally:
        page.close()
    if system_has_japanese_font():
        assert not result["tofu"], result["tofu"][:20]
    else:
        assert len(result["tofu"]) >= 0.9 * result["count"], (
            f"フォントを止めても豆腐が見つかりません(検査が働いていない?): {result['count']} 字中 {len(result['tofu'])}")


def test_the_shipped_font_has_every_character_the_pages_show(book):
    """The font cut at build time (book/_ext/qkv_book/fonts.py) holds every character of every
    page's text, and little else: about the book's own characters, not the 17,000 of the font."""
    from fontTools.ttLib import TTFont

    files = list((book / "_static" / "fonts" / "noto-sans-jp" / "files").glob("*.woff2"))
    assert len(files) == 1, f"同梱フォントのファイルが一つではありません: {files}"
    cmap = set(TTFont(files[0]).getBestCmap())
    shown = set()
    for doc in DOCS:
        text = re.sub(r"<[^>]+>", " ", html_path(doc).read_text(encoding="utf-8"))
        shown |= {ord(c) for c in html.unescape(text) if JAPANESE.match(c)}
    missing = "".join(sorted(chr(c) for c in shown - cmap))
    assert not missing, f"同梱フォントにない字: {missing[:60]}"
    assert len(cmap) < 3 * len(shown) + 500, f"同梱フォントの字が多すぎます: {len(cmap)} 字(ページの字 {len(shown)})"


def test_theme_icons_are_drawn_from_the_shipped_icon_font(pages):
    """fontawesome.js is not loaded (book/_templates): the icons come from the theme's CSS."""
    page = page_of(pages, DOCS[0]).page
    icons = page.evaluate("""() => [...document.querySelectorAll('i.fa-solid, i.fa-regular')]
      .filter(i => i.offsetParent !== null).map(i => {
        const before = getComputedStyle(i, '::before');
        return {cls: i.className, content: before.content, family: before.fontFamily,
                width: i.getBoundingClientRect().width};
      })""")
    assert icons, "見えているアイコンがありません"
    for icon in icons:
        assert icon["content"] not in ("none", "normal", '""'), icon
        assert "Font Awesome" in icon["family"] and icon["width"] > 0, icon
    glyphs = "\uf002\uf0c9\uf019"  # magnifying glass, bars, download
    drawn = page.evaluate(GLYPH_PIXELS, [glyphs, '900 48px "Font Awesome 6 Free"'])
    missing = page.evaluate(GLYPH_PIXELS, [glyphs, '900 48px "QKV No Such Font"'])
    assert all(g["ink"] > 50 for g in drawn), drawn
    assert len({g["sig"] for g in drawn}) == len(glyphs), f"アイコンが区別できません: {drawn}"
    assert [g["sig"] for g in drawn] != [g["sig"] for g in missing]


def test_opening_the_root_index_lands_on_the_first_page(book, context):
    page = context.new_page()
    try:
        page.goto((book / "index.html").as_uri())
        page.wait_for_url("**/book/index.html", timeout=5000)
        assert page.locator("h1").first.inner_text().strip()
    finally:
        page.close()


def test_search_splits_japanese_queries(pages):
    page = pages("search.html").page
    terms = page.evaluate("() => splitQuery('重み行列')")
    assert len(terms) >= 2 and "".join(terms) == "重み行列", f"検索語が分かち書きされません: {terms}"
    page.wait_for_function("() => typeof Search !== 'undefined' && Search.hasIndex()")
    indexed = page.evaluate("(terms) => terms.filter(t => t in Search._index.terms)", terms)
    assert indexed == terms, f"索引に分かち書きした語がありません: {terms} のうち {indexed}"


def article_text(doc: str) -> str:
    text = html_path(doc).read_text(encoding="utf-8")
    match = re.search(r'<article class="bd-article">(.*?)</article>', text, flags=re.S)
    body = re.sub(r"<[^>]+>", "", match.group(1) if match else text)
    return re.sub(r"\s+", "", body)


@pytest.mark.parametrize("query", SEARCH_QUERIES)
def test_japanese_search_finds_the_pages(pages, query):
    expected = {doc for doc in DOCS if query in article_text(doc)}
    assert expected, f"「{query}」はどのページにもありません: 検索の試験語を見直してください"
    loaded = pages(f"search.html?q={query}")
    page = loaded.page
    page.wait_for_function(
        "() => (document.querySelector('#search-results .search-summary')?.textContent ?? '')"
        ".length > 0", timeout=15000)
    hrefs = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li a')]"
                          ".map(a => a.href)")
    found = {str(url_to_path(h).relative_to(HTML).with_suffix("")) for h in hrefs}
    print(f"「{query}」: {sorted(found)}")
    assert found, f"「{query}」で何も見つかりません"
    assert expected <= found, f"「{query}」を含むのに見つからないページ: {sorted(expected - found)}"
    assert not loaded.errors, f"検索ページのエラー: {loaded.errors}"
    assert not loaded.external, f"検索ページが外へ要求: {loaded.external}"
    box = page.locator(".bd-search-container form.bd-search")
    icon = box.locator("i.fa-magnifying-glass").bounding_box()
    field = box.locator("input[type=search]")
    assert field.input_value() == query
    text_left = field.bounding_box()["x"] + float(
        field.evaluate("e => parseFloat(getComputedStyle(e).paddingLeft)"))
    assert icon["x"] + icon["width"] <= text_left, "検索欄の虫めがねが入力した語に重なっています"


# ------------------------------------------------------------------------------ the licences


def test_grading_table_keeps_its_short_columns_on_one_line(pages):
    """Beside the desktop's sidebars the teacher guide's 7-column grading table once broke
    「コード」 into a character per line: its chapter, grade_id, points and kind stay whole."""
    lines = pages("book/teacher_guide.html").page.evaluate("""() =>
      [...document.querySelectorAll('.qkv-grading-table tbody tr')].flatMap(row =>
        [...row.cells].slice(0, 4).map(cell => {
          // The lines its text is laid out on: one rectangle per line of each text node.
          const tops = new Set();
          const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
          for (let node = walk.nextNode(); node; node = walk.nextNode()) {
            if (!node.textContent.trim()) continue;
            const range = document.createRange(); range.selectNodeContents(node);
            for (const r of range.getClientRects()) tops.add(Math.round(r.top));
          }
          return [cell.textContent.trim(), tops.size];
        }))""")
    assert len(lines) >= 4 * 20, f"採点表が見つかりません: {lines[:4]}"
    broken = [text for text, count in lines if count > 1]
    assert not broken, f"採点表の短い列が折り返されています: {broken[:5]}"


CONTROL_ROLES = {"button", "textbox", "searchbox", "slider", "combobox", "checkbox", "radio",
                 "switch", "menuitem", "tab", "spinbutton", "DisclosureTriangle"}


def visible_controls(page) -> list[dict]:
    """Every control the accessibility tree exposes (hidden ones are `ignored`), with its
    computed name, plus links that are not words of the text (icons, ¶, menu items)."""
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    found = []
    for node in nodes:
        if node.get("ignored"):
            continue
        role = node.get("role", {}).get("value", "")
        name = node.get("name", {}).get("value", "")
        if role in CONTROL_ROLES or (role == "link" and not JAPANESE.search(name)
                                     and not re.search(r"[A-Za-z]{2}", name)):
            found.append({"role": role, "name": name, "id": node.get("backendDOMNodeId")})
    return found


TOOLTIPS = """() => [...document.querySelectorAll(
    'button, a.btn, a.headerlink, .dropdown-item, input, summary, [data-bs-toggle=tooltip], [data-tooltip]')]
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map(e => [e.getAttribute('data-bs-original-title') || e.getAttribute('title')
             || e.getAttribute('data-tooltip') || e.getAttribute('placeholder') || '',
             e.outerHTML.slice(0, 80)])
  .filter(([t]) => t && /[A-Za-z]{3}/.test(t) && !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(t))"""


#: Pages whose controls are checked for Japanese names: a chapter, the glossary, the search.
CONTROL_PAGES = ["notebooks/02_library_search", "book/glossary", "search"]


def assert_named_in_japanese(page, doc: str, controls: list[dict]) -> None:
    assert len(controls) >= 5, f"{doc}: 操作できる部品が見つかりません: {controls}"
    english = [c for c in controls if not JAPANESE.search(c["name"])]
    width = page.viewport_size["width"]
    assert not english, f"{doc}({width} px): 日本語の名前のない部品: {english}"
    tooltips = page.evaluate(TOOLTIPS)
    assert not tooltips, f"{doc}: 英語のツールチップ・説明: {tooltips}"


@pytest.mark.parametrize("doc", CONTROL_PAGES)
def test_every_control_is_named_in_japanese_on_a_desktop(pages, doc):
    """Every visible control has a Japanese name and tooltip, on the pages loaded here anyway
    (the phone, with the contents in their dialog: tests/test_book_reader.py)."""
    page = pages(f"{doc}.html").page
    assert_named_in_japanese(page, doc, visible_controls(page))


def test_licenses_page_lists_every_vendored_package(book):
    vendored = json.loads((book / "_static" / "VENDORED.json").read_text(encoding="utf-8"))
    page = html.unescape(html_path("book/licenses").read_text(encoding="utf-8"))
    for pkg in vendored:
        assert pkg["name"] in page and pkg["version"] in page, pkg
        assert (book / "_static" / pkg["license_file"]).is_file(), pkg["license_file"]
