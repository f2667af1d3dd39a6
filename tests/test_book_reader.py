"""The built book as its readers meet it: on a phone, on paper, in Japanese throughout.

Like tests/test_book.py (whose fixtures these tests share), this reads the already built book
(`make book`) in headless Chrome/Chromium (tools/chromium.py) from disk, with every request outside the book blocked.
Each page is loaded once, in one phone's tab that every test of a worker reuses, and laid out at
1280 px, 390 px (and 800 px, A4) in turn: test_every_page_at_either_width_and_chapters_on_paper.

- axe-core at 1280 and 390 px: nothing serious or critical, on every page.
- A phone (390 px) and a tablet (800 px) open the table of contents and the page's headings.
- On a phone no figure text is smaller than READABLE_PX CSS px. How it is measured: while the
  book is built, book/_ext/qkv_book/figure_text_probe.py notes, for every picture the chapters draw, the
  font size of its smallest text in the picture's own pixels (matplotlib knows it exactly); the
  PNG carries that number (text chunk `qkv-min-text-px`). On the page, that size times the shown
  width over the picture's natural width is the size the reader sees.
- Whatever is wider than the column (figures, display maths) scrolls sideways and says so.
- Printed, code wraps instead of running off the page, and a folded solution says where it is.
- On a phone every visible control, in the page and in the contents' dialog, has a Japanese
  name (and tooltip). (The same at 1280 px, and that no page logs a warning, are checked by
  tests/test_book.py, on the pages it loads anyway.)
- Search: a table of queries and the first hit each must give.
- 用語集: each entry links to the chapters that use the term; figure numbers stand apart.
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import pytest
import test_book
from build_pdf import EVERY_IMAGE_LOADED
from PIL import Image
from test_book import (
    CHAPTERS,
    CONTROL_PAGES,
    HTML,
    JAPANESE,
    OUTSIDE_THE_BOOK,
    assert_named_in_japanese,
    html_path,
    visible_controls,
)
from test_book_print import printed_text

# The built book and the browser are test_book's fixtures, shared rather than written twice.
book = test_book.book
browser = test_book.browser

READABLE_PX = 9  # book/_ext/qkv_book/figures.py: the smallest figure text on a phone, in CSS px
TOUCH_PX = 24  # WCAG 2.2 target size (minimum)
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 800, "height": 1100}
DESKTOP = {"width": 1280, "height": 900}


#: Fonts in, every explorable mounted (explorables_shim.js marks its box ready, or with its
#: error), and a frame drawn. qkv-book.js marks what overflows synchronously in its `load` and
#: `resize` listeners (no debounce), and a resize event is dispatched before the next frame's rAF
#: callbacks: after two frames every mark is made. Then no transition is under way on anything
#: drawn (the theme slides its sidebar away below 992 px, and fades the copy buttons in on load:
#: read mid-way, they sat elsewhere or in another colour on each run; a transition in text that
#: is not drawn, content-visibility: auto, does not advance and is not waited for). Exact
#: conditions, no timer.
SETTLED = """async () => {
  await document.fonts.ready;
  const frames = done => new Promise(r => { const poll = () => done() ? r() : requestAnimationFrame(poll); poll(); });
  await frames(() => [...document.querySelectorAll('.qkv-explorable')]
    .every(b => b.dataset.qkvReady === 'true' || b.dataset.qkvError));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  await frames(() => !document.getAnimations().some(a => a.playState === 'running'
    && a.effect.getComputedTiming().endTime !== Infinity
    && (!a.effect.target || a.effect.target.checkVisibility({contentVisibilityAuto: true}))));
}"""


def load(page, rel: str, viewport: dict, *, media: str = "screen"):
    """`rel` loaded afresh in `page` at `viewport` with `media`, its console emptied (a tab
    keeps all three from its last page, and `tab` empties the pages' storage at each load)."""
    page.console.clear()
    page.set_viewport_size(viewport)
    page.emulate_media(media=media)
    path, _, query = rel.partition("?")
    page.goto((HTML / path).as_uri() + (f"?{quote(query, safe='=&')}" if query else ""),
              wait_until="load")
    page.evaluate(EVERY_IMAGE_LOADED)  # the figures are loading="lazy"
    page.evaluate(SETTLED)
    return page


@pytest.fixture(scope="module")
def tab(book, browser):
    """One phone's tab (390 px and wider: `is_mobile` and touch; the pages set
    width=device-width, and test_layout_ignores_the_pointer holds that nothing in the book is
    laid out by the kind of pointer, so at 1280 px it lays a page out as a desktop does), reused
    by every test of this file on a worker: each test loads its page afresh in it. A tab that
    has loaded the book before loads the next page in about half the CPU (the same renderer
    process: its compiled scripts are warm). Console messages of every type are kept."""
    context = browser.new_context(viewport=DESKTOP, locale="ja-JP", service_workers="block",
                                  is_mobile=True, has_touch=True)
    context.route(OUTSIDE_THE_BOOK, lambda r: r.abort())
    # Each page starts with nothing stored, as in a new tab: Sphinx's search leaves its words in
    # localStorage for the next page to highlight, the theme its sidebar's scroll.
    context.add_init_script("try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}")
    context.set_default_timeout(90_000)  # a shared, busy machine can take long to lay a page out
    opened = []

    def get(rel: str, viewport: dict = PHONE, **kw):
        if not opened or opened[-1].is_closed():  # a page that crashed is not reused
            page = context.new_page()
            page.console = []
            page.on("console", lambda m: page.console.append((m.type, m.text)))
            page.on("pageerror", lambda e: page.console.append(("pageerror", str(e))))
            opened.append(page)
        return load(opened[-1], rel, viewport, **kw)

    yield get
    context.close()


#: A media query on the kind of pointer (touch or mouse): none may lay the book out (see `tab`).
POINTER_QUERY = re.compile(r"\(\s*(?:any-)?(?:hover|pointer)\s*:")


def test_layout_ignores_the_pointer(book):
    """The reader tests lay every page out in a phone's tab (touch, `is_mobile`) at each width,
    1280 px too: that is a desktop's layout only while no style or script of the book asks for
    the kind of pointer and every page sets width=device-width (a phone's viewport then is the
    window's width, as a desktop's)."""
    asking = [str(f.relative_to(HTML)) for f in sorted(HTML.rglob("*"))
              if f.suffix in (".css", ".js", ".html") and POINTER_QUERY.search(f.read_text(errors="replace"))]
    assert not asking, f"マウスか指かで見た目を変える指定があります(読者の試験の前提が崩れます): {asking}"
    fixed = [d for d in AXE_PAGES if 'content="width=device-width' not in html_path(d).read_text(encoding="utf-8")]
    assert not fixed, f"width=device-width のないページ: {fixed}"


def resize(page, viewport: dict, doc: str) -> None:
    """The page laid out again at `viewport` (CSS, qkv-book.js's marks, the explorables' heights)."""
    page.set_viewport_size(viewport)
    page.evaluate(SETTLED)
    width = page.evaluate("() => document.documentElement.clientWidth")
    assert width == viewport["width"], f"{doc}: 幅 {viewport['width']} px にしたのにページの幅が {width} px"


# ------------------------------------------------------------------------------- the menus


#: The chapter whose page test also opens the menus, at 390 and 800 px (a phone, a tablet).
MENUS_CHAPTER = "notebooks/03_three_roles"


def check_menus_open(page, viewport: dict) -> None:
    """☰ opens the book's contents, the list button the page's headings (pydata-sphinx-theme
    issue 2451: with two `.primary-toggle` in the page the visible one opened nothing)."""
    chapters = {Path(d).name for d in CHAPTERS}
    for toggle, dialog in ((".primary-toggle", "#pst-primary-sidebar-modal"),
                           (".secondary-toggle", "#pst-secondary-sidebar-modal")):
        buttons = page.locator(toggle)
        assert buttons.count() == 1, f"{toggle} がページに {buttons.count()} 個(1 個のはず)"
        assert buttons.first.is_visible(), f"{viewport['width']} px で {toggle} が見えません"
        buttons.first.tap()
        modal = page.locator(dialog)
        modal.wait_for(state="visible", timeout=3000)
        assert modal.evaluate("d => d.open"), f"{toggle} を押しても {dialog} が開きません"
        box = modal.bounding_box()
        assert box and box["width"] > 200, f"開いた {dialog} の幅: {box}"
        links = modal.locator("a[href]")
        assert links.count() >= 3, f"{dialog} にリンクがありません"
        if toggle == ".primary-toggle":
            hrefs = modal.evaluate("d => [...d.querySelectorAll('a[href]')].map(a => a.href)")
            found = {Path(unquote(urlsplit(h).path)).stem for h in hrefs}
            assert chapters <= found, f"目次に出ない章: {sorted(chapters - found)}"
        page.keyboard.press("Escape")
        page.wait_for_function(f"() => !document.querySelector('{dialog}').open")
    assert not [m for m in page.console if m[0] in ("error", "pageerror")], page.console


# ------------------------------------------------------------------------- figures on a phone


def png_of(src: str) -> Image.Image:
    if src.startswith("data:"):
        return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    return Image.open(Path(unquote(urlsplit(src).path)))


FIGURES = """() => [...document.querySelectorAll('.bd-article img')].map(img => {
  const box = img.getBoundingClientRect();
  const scroller = img.closest('.qkv-scroll');
  const hint = scroller && scroller.nextElementSibling;
  return {src: img.currentSrc || img.src, shown: box.width, natural: img.naturalWidth,
          overflows: scroller ? scroller.scrollWidth - scroller.clientWidth > 1 : null,
          marked: scroller ? scroller.classList.contains('qkv-overflowing') : null,
          tab: scroller ? scroller.getAttribute('tabindex') : null,
          label: scroller ? scroller.getAttribute('aria-label') : null,
          hint: hint && hint.classList.contains('qkv-scroll-hint') ? hint.textContent : null};
})"""


def check_figure_text_on_a_phone(page, doc: str) -> None:
    figures = page.evaluate(FIGURES)
    assert figures, f"{doc}: 図がありません"
    sizes = []
    for fig in figures:
        with png_of(fig["src"]) as im:
            measured = im.text.get("qkv-min-text-px")
        where = fig["src"][:60]
        assert measured, (f"{doc}: 図 {where} に文字の大きさの記録(qkv-min-text-px)がありません。"
                          "book/_ext/qkv_book/figure_text_probe.py が本の書き出しで動いたか確かめてください。")
        css_px = float(measured) * fig["shown"] / fig["natural"]
        sizes.append(css_px)
        assert css_px >= READABLE_PX - 0.05, (
            f"{doc}: 図 {where} のいちばん小さい文字が {css_px:.1f} px"
            f"(下限 {READABLE_PX} px、表示幅 {fig['shown']:.0f} / 元の幅 {fig['natural']})")
        assert fig["overflows"] is not None, f"{doc}: 図 {where} が .qkv-scroll に入っていません"
        assert not fig["overflows"], (
            f"{doc}: 図 {where} が 390 px の列からはみ出します(文字が指すパネルが画面の外に出ます)。"
            "図を本の列の幅で描いてください")
        if fig["overflows"]:
            assert fig["marked"] and fig["hint"] and "スクロール" in fig["hint"], (
                f"{doc}: 横にはみ出す図 {where} に、スクロールできるという印がありません")
            assert fig["tab"] == "0" and JAPANESE.search(fig["label"] or ""), (
                f"{doc}: 横にはみ出す図 {where} にキーボードで届かないか、名前がありません")
    print(f"{doc}: 図 {len(sizes)} 枚、いちばん小さい文字 {min(sizes):.1f} px(390 px の画面)")
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{doc}: 390 px でページ全体が横にはみ出しています {width}"


DESKTOP_TEXT_PX = 10  # book/_ext/qkv_book/figures.py SHOWN_IN: the 1280 px layout


def check_figure_text_on_a_desktop(page, doc: str) -> None:
    sizes = []
    for fig in page.evaluate(FIGURES):
        with png_of(fig["src"]) as im:
            measured = float(im.text.get("qkv-min-text-px") or 0)
        sizes.append(measured * fig["shown"] / fig["natural"])
        assert sizes[-1] >= DESKTOP_TEXT_PX - 0.05, (
            f"{doc}: 1280 px で図 {fig['src'][:60]} のいちばん小さい文字が {sizes[-1]:.1f} px"
            f"(下限 {DESKTOP_TEXT_PX} px)")
    print(f"{doc}: 図 {len(sizes)} 枚、いちばん小さい文字 {min(sizes):.1f} px(1280 px の画面)")


#: The chapters whose display maths (ch02's soft lookup, ch07's aligned forward pass: wider than a
#: phone) the phone checks as well.
WIDE_MATHS = {"notebooks/02_library_search", "notebooks/07_how_w_learns"}
EXPLORABLE_TEXT_PX = 12  # an explorable's labels on a phone, in CSS px

PANEL_TEXT = """svg => Math.min(...[...svg.querySelectorAll('text')]
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().height > 0)
    .map(t => parseFloat(t.getAttribute('font-size')) * svg.getBoundingClientRect().width
              / svg.viewBox.baseVal.width))"""


#: An explorable's boxes on the phone, read in one round trip (each a Playwright call would be a
#: round trip, and a scroll a wait for two still frames): its choices' heights, its panels' boxes
#: and smallest text (PANEL_TEXT), each panel's own controls above it, and the top bar's box while
#: the last panel is scrolled into view (as Playwright's scroll_into_view_if_needed scrolls: the
#: element centred, if it is not in view already).
EXPLORABLE_BOXES = """ex => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const panels = [...ex.querySelectorAll('.qkv-panel')];
  const bar = ex.querySelector(':scope > .qkv-controls');
  const seen = { choices: [...ex.querySelectorAll('.qkv-choice label, .qkv-control input[type=checkbox]')]
                   .map(l => box(l).height),
                 panels: panels.map(p => ({box: box(p), smallest: (PANEL_TEXT)(p)})),
                 cells: [...ex.querySelectorAll('.qkv-cell')].filter(c => c.querySelector('.qkv-panel-controls'))
                   .map(c => [box(c.querySelector('.qkv-panel-controls')), box(c.querySelector('.qkv-host'))]),
                 bar: null };
  const shown = e => { const r = e.getBoundingClientRect();
                       return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  if (bar && shown(bar) && panels.length) {
    panels[panels.length - 1].scrollIntoViewIfNeeded(true);
    seen.bar = box(bar);
  }
  return seen;
}""".replace("PANEL_TEXT", PANEL_TEXT)

#: A slider scrolled into view (centred if it was not), its box and range, in one round trip.
SLIDER_IN_VIEW = """s => { s.scrollIntoViewIfNeeded(true); const r = s.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height, max: +s.max, step: +s.step}; }"""


def check_explorables_on_a_phone(page, doc: str) -> None:
    """Each explorable on a 390 px phone: its controls are touch targets that a finger moves, its
    panels stack in one column inside the screen with labels of at least 12 px, and the controls
    stay in view while the last panel is looked at."""
    explorables = page.locator(".qkv-ex")
    for i in range(explorables.count()):
        ex = explorables.nth(i)
        where = f"{doc} の図 {i}"
        for slider in ex.locator("input[type=range]").element_handles():
            box = slider.evaluate(SLIDER_IN_VIEW)
            assert box["height"] >= TOUCH_PX and box["width"] >= 200, (
                f"{where}: スライダーが {box['width']:.0f}×{box['height']:.0f} px"
                f"(指で触れる的は高さ {TOUCH_PX} px 以上、幅 200 px 以上)")
            page.touchscreen.tap(box["x"] + box["width"] * 0.99, box["y"] + box["height"] / 2)
            value = float(slider.evaluate("s => s.value"))
            assert value >= box["max"] - 2 * box["step"], (
                f"{where}: スライダーの右端を指で触れても {value}(最大 {box['max']})")
        seen = ex.evaluate(EXPLORABLE_BOXES)
        for height in seen["choices"]:
            assert height >= TOUCH_PX, f"{where}: ボタンが指で押すには小さすぎます"
        lefts = {round(p["box"]["x"]) for p in seen["panels"]}
        assert len(lefts) == 1, f"{where}: 390 px で図が縦に並びません(左端 {sorted(lefts)})"
        for panel in seen["panels"]:
            box = panel["box"]
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, (
                f"{where}: 図が画面からはみ出します {box}")
            assert panel["smallest"] >= EXPLORABLE_TEXT_PX - 0.05, (
                f"{where}: いちばん小さい文字が {panel['smallest']:.1f} px(下限 {EXPLORABLE_TEXT_PX} px)")
        # Controls and the picture they move are seen together: the top bar stays in view while
        # the last panel is looked at, and a panel's own controls sit right above it.
        for own, host in seen["cells"]:
            assert 0 <= host["y"] - (own["y"] + own["height"]) <= 16, (
                f"{where}: 図の上のコントロールが図から離れています {own} {host}")
        controls = seen["bar"]
        if controls is not None:
            assert controls["y"] >= 0 and controls["y"] + controls["height"] <= PHONE["height"], (
                f"{where}: いちばん下の図を見ているとき、コントロールが画面の外にあります {controls}")


def check_wide_display_maths_says_it_scrolls(page, doc: str) -> None:
    maths = page.evaluate("""() => [...document.querySelectorAll('.bd-article div.math > mjx-container')]
      .map(m => ({wide: m.scrollWidth - m.clientWidth > 1, marked: m.classList.contains('qkv-overflowing'),
                  tab: m.getAttribute('tabindex'), label: m.getAttribute('aria-label'),
                  hint: m.parentElement.nextElementSibling?.classList.contains('qkv-scroll-hint')
                        ? m.parentElement.nextElementSibling.textContent : null,
                  hintShown: !!m.parentElement.nextElementSibling?.offsetHeight}))""")
    wide = [m for m in maths if m["wide"]]
    assert wide, f"{doc}: 390 px の画面で幅の足りない数式が見つかりません(試験の前提が崩れました)"
    for m in wide:
        assert m["marked"] and m["hint"] and "スクロール" in m["hint"] and m["hintShown"], (
            f"{doc}: 横にはみ出す数式に、スクロールできるという印がありません: {m}")
        assert m["tab"] == "0" and JAPANESE.search(m["label"] or ""), m
    scroller = page.locator(".bd-article div.math > mjx-container.qkv-overflowing").first
    scroller.scroll_into_view_if_needed()
    assert scroller.get_attribute("data-qkv-more") == "right"
    scroller.evaluate("m => { m.scrollLeft = m.scrollWidth; m.dispatchEvent(new Event('scroll')); }")
    page.wait_for_function("m => m.getAttribute('data-qkv-more') === 'left'",
                           arg=scroller.element_handle())


def check_wide_code_says_it_scrolls(page, doc: str) -> None:
    """A code cell wider than the phone fades at the edge where more is hidden and can be
    reached by keyboard (no line under each: most code cells are wider than a phone)."""
    code = page.evaluate("""() => [...document.querySelectorAll('.bd-article div.highlight > pre')]
      .filter(p => p.offsetParent !== null)
      .map(p => ({wide: p.scrollWidth - p.clientWidth > 1, marked: p.classList.contains('qkv-overflowing'),
                  more: p.getAttribute('data-qkv-more'), tab: p.getAttribute('tabindex'),
                  label: p.getAttribute('aria-label'), fade: getComputedStyle(p).maskImage,
                  hint: !!p.parentElement.parentElement.querySelector('.qkv-scroll-hint'),
                  line: p.textContent.split('\\n')[0].slice(0, 40)}))""")
    assert code, f"{doc}: コードのセルが見つかりません"
    for c in code:
        if not c["wide"]:
            assert not c["marked"], f"{doc}: 収まっているコードに横スクロールの印: {c}"
            continue
        assert c["marked"] and c["more"] == "right" and "gradient" in c["fade"], (
            f"{doc}: 画面より幅の広いコードの右端が、続きがあると分かるようになっていません: {c}")
        assert c["tab"] == "0" and JAPANESE.search(c["label"] or ""), c
        assert not c["hint"], f"{doc}: コードの下に説明の行が入っています: {c}"


# ----------------------------------------------------------------------------------- on paper

A4_SCREEN = {"width": 794, "height": 1123}  # an A4 page at 96 dpi, as Chromium prints it


def check_print(page, doc: str) -> None:
    cut = page.evaluate("""() => [...document.querySelectorAll('.bd-article pre')]
      .filter(p => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)
      .map(p => p.textContent.split('\\n').reduce((a, b) => a.length > b.length ? a : b).slice(0, 60))""")
    assert not cut, f"{doc}: 印刷で右端が切れるコード: {cut}"
    longest = page.evaluate("""() => Math.max(...[...document.querySelectorAll('.bd-article pre')]
      .flatMap(p => p.textContent.split('\\n').map(l => l.length)))""")
    print(f"{doc}: いちばん長いコードの行 {longest} 文字")
    # A printed result of numbers (no Japanese in it: vectors, tables, shapes) keeps every row
    # on one line: a row broken in the middle of a vector reads as two rows.
    wrapped = page.evaluate("""() => [...document.querySelectorAll('.bd-article div.cell_output pre')]
      .filter(p => p.offsetParent !== null && !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(p.textContent))
      .filter(p => { const s = getComputedStyle(p); const lh = parseFloat(s.lineHeight);
        const lines = p.textContent.replace(/\\n$/, '').split('\\n').length;
        const inner = p.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
        return inner > lh * lines + lh / 2; })
      .map(p => p.textContent.slice(0, 60))""")
    assert not wrapped, f"{doc}: 印刷で行の途中で折り返される数の出力: {wrapped[:3]}"
    summaries = page.evaluate("""() => [...document.querySelectorAll('details.hide > summary')].map(s => ({
      note: getComputedStyle(s, '::after').content,
      titles: [...s.querySelectorAll('p')].filter(p => getComputedStyle(p).display !== 'none')
                .map(p => p.textContent.trim())}))""")
    assert summaries, f"{doc}: 折りたたんだ解答がありません"
    notebook = f"{doc}.ipynb"
    for s in summaries:
        assert not s["titles"], f"{doc}: 印刷に押せない「{s['titles']}」が出ます"
        assert "印刷では伏せ" in s["note"] and notebook in s["note"], (
            f"{doc}: 印刷した解答の場所の説明がありません: {s['note']!r}")
    # Printed through the browser's own print (beforeprint/afterprint fire, the whole page is laid
    # out for paper); its first page is written, with the chapter's title. Every page of every
    # chapter printed: tests/test_pdf.py (`make test-pdf`), and a reader's print of a whole chapter
    # with every fold in it: tests/test_book_print.py.
    title = page.evaluate("() => document.querySelector('.bd-article h1').textContent.replace('#', '')")
    pdf = page.pdf(format="A4", print_background=True, page_ranges="1")
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000, f"{doc}: 印刷の PDF が書き出せません({len(pdf)} バイト)"
    assert re.sub(r"\s+", "", title) in printed_text(pdf), f"{doc}: 印刷した 1 ページめに章の題「{title}」がありません"


#: The book's own pages (not chapters): long inline code (a path in the teacher guide) once
#: pushed a whole page sideways on a phone. (The width to fit is the root's clientWidth: with a
#: phone's touch emulation, innerWidth grows with what overflows and would hide it.)
BOOK_PAGES = [d for d in test_book.DOCS if not d.startswith("notebooks/")]


TABLES_ON_A_PHONE = """() => [...document.querySelectorAll('.bd-article table')].map(t => {
  const em = parseFloat(getComputedStyle(t).fontSize);
  const content = c => { const s = getComputedStyle(c);
    return (c.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)) / em; };
  const box = t.closest('.pst-scrollable-table-container');
  const hint = box && box.nextElementSibling;
  return {columns: t.rows[0].cells.length, narrowest: Math.min(...[...t.querySelectorAll('td, th')].map(content)),
          wide: box.scrollWidth - box.clientWidth > 1, marked: box.classList.contains('qkv-overflowing'),
          label: box.getAttribute('aria-label'), tab: box.getAttribute('tabindex'),
          hint: hint && hint.classList.contains('qkv-scroll-hint') ? hint.textContent : null};
})"""


def check_page_fits_a_phone(page, doc: str) -> None:
    """No page is wider than the phone; a table of five or more columns keeps its columns at
    least 3 characters wide (they were squeezed to one: コ/ー/ド) and scrolls in its box, which
    says so like a wide figure."""
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{doc}: 390 px でページ全体が横にはみ出しています {width}"
    for table in page.evaluate(TABLES_ON_A_PHONE):
        if table["columns"] >= 5:
            assert table["narrowest"] >= 3, f"{doc}: 表の列が狭すぎます(文字 {table['narrowest']:.1f} 個分): {table}"
        if table["wide"]:
            assert table["marked"] and table["tab"] == "0" and JAPANESE.search(table["label"] or ""), table
            assert table["hint"] and "スクロール" in table["hint"], f"{doc}: 横にはみ出す表に説明がありません: {table}"


# ------------------------------------------------------------------------ Japanese throughout

def check_controls_named_in_japanese_on_a_phone(page, doc: str) -> None:
    """On a phone, the contents in their dialog count too (the desktop: tests/test_book.py)."""
    controls = visible_controls(page)
    page.locator(".primary-toggle").tap()
    page.locator("#pst-primary-sidebar-modal").wait_for(state="visible")
    controls += visible_controls(page)
    assert_named_in_japanese(page, doc, controls)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.querySelector('#pst-primary-sidebar-modal').open")


# ------------------------------------------------------------------------------------ search

# query -> the first hit (page, and anchor when it is a 用語集 entry), and optionally the second.
# The rule (book/_ext/search_scorer.js): a term the 用語集 defines leads to its entry; then the
# pages that use the query most, a heading match above a mere mention; ties in reading order.
SEARCH_TABLE = [
    ("並列", "notebooks/05_all_matmul", None),
    ("クエリ", "book/glossary#term-query", "notebooks/03_three_roles"),
    ("softmax", "book/glossary#term-softmax", "notebooks/02_library_search"),
    ("ソフトマックス", "book/glossary#term-softmax", None),
    ("温度", "book/glossary#term-temperature", "notebooks/02_library_search"),
    ("名札", "book/glossary", "notebooks/03_three_roles"),
    ("勾配", "book/glossary#term-gradient", "notebooks/07_how_w_learns"),
    ("交流会", "notebooks/03_three_roles", None),
    ("図書館", "notebooks/02_library_search", None),
    ("タイル", "book/glossary#term-tile-block", "notebooks/05_all_matmul"),
    ("数値微分", "book/glossary#term-numerical-differentiation", "notebooks/07_how_w_learns"),
    ("学習率", "book/glossary#term-learning-rate", "notebooks/07_how_w_learns"),
]


def hit(href: str) -> str:
    parts = urlsplit(href)
    doc = str(Path(unquote(parts.path)).relative_to(HTML).with_suffix(""))
    return f"{doc}#{parts.fragment}" if parts.fragment else doc


def search_hits(page, query: str, first_load: bool) -> list[str]:
    """The result links for `query`: from the page's own ?q= on its first load, afterwards as
    if the search form had been sent again (the ranking reads ?q=, book/_ext/search_scorer.js),
    without loading the page again: the URL's query replaced, then Sphinx's own search run."""
    if not first_load:
        page.evaluate("""q => {
          history.replaceState(null, '', '?q=' + encodeURIComponent(q));
          document.getElementById('search-results').replaceChildren();
          Search.performSearch(q);
        }""", query)
    page.wait_for_function(
        "() => (document.querySelector('#search-results .search-summary')?.textContent ?? '')"
        ".length > 0", timeout=15000)
    hrefs = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li a')]"
                          ".map(a => a.href)")
    return [hit(h) for h in hrefs]


def test_search_ranks_the_expected_page_first(tab, subtests):
    page = tab(f"search.html?q={SEARCH_TABLE[0][0]}", DESKTOP)
    for n, (query, first, second) in enumerate(SEARCH_TABLE):
        with subtests.test(query=query):
            hits = search_hits(page, query, first_load=n == 0)
            print(f"「{query}」: {hits}")
            assert hits, f"「{query}」で何も見つかりません"
            assert hits[0] == first or (first == "book/glossary" and hits[0].startswith(first + "#")), (
                f"「{query}」の一番めが {hits[0]}(期待 {first})。全体: {hits}")
            if second:
                assert len(hits) > 1 and hits[1] == second, (
                    f"「{query}」の二番めが {hits[1:2]}(期待 {second})。全体: {hits}")
            if "#" in hits[0]:
                fragment = hits[0].split("#", 1)[1]
                target = html_path(hits[0].split("#", 1)[0]).read_text(encoding="utf-8")
                assert f'id="{fragment}"' in target, f"「{query}」の行き先 #{fragment} がありません"


# ------------------------------------------------------------------- 用語集 and figure numbers


def test_glossary_entries_link_to_the_chapters_that_use_them(book):
    text = html_path("book/glossary").read_text(encoding="utf-8")
    entries = re.findall(r'<dt id="(term-[^"]+)">(.*?)</dt>\s*<dd>(.*?)</dd>', text, flags=re.S)
    assert len(entries) >= 30, f"用語集の項目が {len(entries)} 個しか読めません"
    missing = [re.sub(r"<[^>]+>", "", t).strip() for _, t, dd in entries if "出てくる章" not in dd]
    assert not missing, f"「出てくる章」のない項目: {missing}"
    linked = 0
    for anchor, _term, dd in entries:
        for href in re.findall(r'<p class="qkv-term-uses">(.*?)</p>', dd, flags=re.S):
            for target in re.findall(r'href="([^"]+)"', href):
                linked += 1
                page, _, fragment = target.partition("#")
                path = (html_path("book/glossary").parent / page).resolve()
                assert path.is_file(), f"{anchor}: {target} がありません"
                assert not fragment or f'id="{fragment}"' in path.read_text(encoding="utf-8"), (
                    f"{anchor}: {target} の見出しがありません")
    assert linked >= 60, f"章へのリンクが {linked} 本しかありません"
    temperature = next(dd for a, _, dd in entries if a == "term-temperature")
    assert "02_library_search.html#" in temperature and "06_attention.html#" in temperature


@pytest.mark.parametrize("doc", CHAPTERS)
def test_figure_numbers_stand_apart_and_captions_render_maths(book, doc):
    text = html_path(doc).read_text(encoding="utf-8")
    numbers = re.findall(r'<span class="caption-number">([^<]*)</span>', text)
    assert numbers, f"{doc}: 図の番号がありません"
    bad = [n for n in numbers if not re.fullmatch(r"図 \d+:\s*", n)]
    assert not bad, f"{doc}: 図の番号がキャプションと続いて読めます: {bad}"
    captions = [re.sub(r"<[^>]+>", "", re.sub(r'<span class="math[^"]*">.*?</span>', "", c))
                for c in re.findall(r"<figcaption>(.*?)</figcaption>", text, flags=re.S)]
    raw = [c.strip()[:80] for c in captions if re.search(r"\b[A-Za-z]_[A-Za-z{]", c)]
    assert not raw, f"{doc}: 数式にならずに W_Q や d_model が出るキャプション: {raw}"


# ------------------------------------------------------------------ accessibility (axe-core)

#: axe-core, vendored from npm (package.json pins it; node_modules, never a CDN).
AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
AXE_PAGES = [*test_book.DOCS, "search"]
#: What axe still reports, by design or by the theme (CONTRIBUTING.md, "Accessibility"): moderate.
#: No preload: axe's fetch of the stylesheets fails on a page opened from disk (file://, CORS) and
#: would log errors into the page's console, which the menus' check reads.
#: `everything`: every rule of axe's default set; otherwise only the rules whose impact is serious
#: or critical. A violation takes its rule's impact (axe-core 4's finalizeRuleResult sets each
#: check's impact to the rule's; test_axe_finds_only_its_rules_impact holds it), so a moderate or
#: minor rule can never fail the test: it is run once, at 1280 px, for the printed count, and
#: left out at 390 px (about a tenth of an axe run there).
AXE_RUN = """async (everything) => {
  const rules = everything ? {} : Object.fromEntries(axe._audit.rules
    .filter(r => r.impact !== 'serious' && r.impact !== 'critical').map(r => [r.id, {enabled: false}]));
  const r = await axe.run(document, {resultTypes: ['violations'], preload: false, rules});
  return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                 first: v.nodes[0] && v.nodes[0].target.join(' ')}));
}"""


def check_axe(page, doc: str, moderate: dict | None) -> None:
    """No serious or critical finding at the page's present width; with `moderate`, every rule
    runs and the rest are counted in it, without, only the rules that can find something serious."""
    width = page.viewport_size["width"]
    serious = []
    for v in page.evaluate(AXE_RUN, moderate is not None):
        if v["impact"] in ("serious", "critical"):
            serious.append(v)
        elif moderate is not None:
            moderate[v["id"]] = moderate.get(v["id"], 0) + v["nodes"]
    assert not serious, f"axe-core の重大な指摘({doc}、幅 {width} px): {serious[:8]}"


#: A page with one finding of each impact that matters here: a picture without a name
#: (image-alt, critical), pale text (color-contrast, serious), text outside any landmark
#: (region, moderate).
AXE_SAMPLE = """<!doctype html><html lang="ja"><head><title>試験</title></head><body>
<p style="color:#bbb;background:#fff">うすい文字</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
</body></html>"""


def test_axe_finds_only_its_rules_impact(browser):
    """What lets the 390 px run leave out the moderate and minor rules: every rule of the vendored
    axe-core has an impact, and a finding carries its rule's impact; with those rules left out,
    the serious and critical findings are the same and nothing else is found."""
    page = browser.new_page()
    try:
        page.set_content(AXE_SAMPLE)
        page.add_script_tag(path=str(AXE))
        impacts = page.evaluate("() => Object.fromEntries(axe._audit.rules.map(r => [r.id, r.impact]))")
        assert set(impacts.values()) <= {"minor", "moderate", "serious", "critical"}, impacts
        everything = page.evaluate(AXE_RUN, True)
        serious_only = page.evaluate(AXE_RUN, False)
    finally:
        page.close()
    assert {v["id"] for v in everything} >= {"image-alt", "color-contrast", "region"}, everything
    assert all(v["impact"] == impacts[v["id"]] for v in everything), everything
    assert serious_only == [v for v in everything if v["impact"] in ("serious", "critical")], (
        everything, serious_only)


@pytest.mark.parametrize("doc", AXE_PAGES)
def test_every_page_at_either_width_and_chapters_on_paper(tab, doc, subtests):
    """Every page of the book, loaded once (a load is the costly part) and laid out at each width
    in turn, as a reader who turns a tablet or narrows the window sees it:
    - at 1280 px: axe-core finds nothing serious or critical (every rule runs; the moderate and
      minor findings are printed); in a chapter no figure text is under 10 px;
    - at 390 px (a phone): axe-core again, its rules that can find something serious or
      critical (AXE_RUN); a book page (BOOK_PAGES) fits the phone; in a chapter
      no figure text is too small to read nor a figure wider than the column, explorables fit
      and answer a finger, wide maths and code say they scroll; on CONTROL_PAGES every control
      has a Japanese name; on MENUS_CHAPTER the menus open, here and at 800 px (a tablet);
    - a chapter printed on A4: code wraps, rows of numbers stay whole, a folded solution says
      where it is.
    axe runs on the page as loaded, before anything is touched. The moderate findings left are
    printed (`-s` shows them)."""
    assert AXE.exists(), f"axe-core がありません({AXE}): make setup(npm ci)を実行してください"
    chapter = doc in CHAPTERS
    page = tab(f"{doc}.html", DESKTOP)
    page.add_script_tag(path=str(AXE))
    moderate = {}
    with subtests.test("axe at 1280 px"):
        check_axe(page, doc, moderate)
    if chapter:
        with subtests.test("figures at 1280 px"):
            check_figure_text_on_a_desktop(page, doc)
    print(f"axe-core: {doc} の中程度以下の指摘 {moderate}(1280 px)")
    resize(page, PHONE, doc)
    with subtests.test("axe at 390 px"):
        check_axe(page, doc, None)
    if doc in BOOK_PAGES:
        with subtests.test("fits a phone"):
            check_page_fits_a_phone(page, doc)
    if chapter:
        with subtests.test("figures on a phone"):
            check_figure_text_on_a_phone(page, doc)
        with subtests.test("explorables on a phone"):
            check_explorables_on_a_phone(page, doc)
        if doc in WIDE_MATHS:
            with subtests.test("wide maths on a phone"):
                check_wide_display_maths_says_it_scrolls(page, doc)
        with subtests.test("wide code on a phone"):
            check_wide_code_says_it_scrolls(page, doc)
    if doc in CONTROL_PAGES:
        with subtests.test("Japanese names on a phone"):
            check_controls_named_in_japanese_on_a_phone(page, doc)
    if doc == MENUS_CHAPTER:
        with subtests.test("menus on a phone"):
            check_menus_open(page, PHONE)
        resize(page, TABLET, doc)
        with subtests.test("menus on a tablet"):
            check_menus_open(page, TABLET)
    if chapter:
        resize(page, A4_SCREEN, doc)
        page.emulate_media(media="print")
        page.evaluate(SETTLED)
        with subtests.test("printed"):
            check_print(page, doc)


# --------------------------------------------------------------------------------- dark mode

DARK_FIGURES = """() => [...document.querySelectorAll('.bd-article img')].map(img => {
  const s = getComputedStyle(img);
  return {src: img.src.slice(-40), bg: s.backgroundColor};
})"""


@pytest.mark.parametrize("doc", ["notebooks/06_attention"])
def test_figures_keep_a_light_ground_in_dark_mode(tab, doc):
    """matplotlib draws black text on a transparent ground: in the theme's dark mode each figure
    sits on a light ground of its own (book/_static/qkv.css), or its text would vanish."""
    page = tab(f"{doc}.html", DESKTOP)
    page.evaluate("() => document.documentElement.setAttribute('data-theme', 'dark')")
    figures = page.evaluate(DARK_FIGURES)
    assert figures
    for fig in figures:
        channels = [int(c) for c in re.findall(r"\d+", fig["bg"])[:3]]
        assert len(channels) == 3 and min(channels) >= 230 and not fig["bg"].endswith(", 0)"), (
            f"{doc}: ダークモードで図 {fig['src']} の背景が明るくありません: {fig['bg']}")
