"""A chapter page printed by the browser itself (a reader's Ctrl+P), not through `make pdf`.

The page's print follows the book's one rule for paper (book/_static/qkv-book.js, `beforeprint`):
every folded text at the top of a chapter (whys, answer checks' readings, solutions, review
answers) prints, opened, at the end of the page under 「解答と答え合わせ」; the PDF
(tools/build_pdf.py) prints through the same events. Playwright's `page.pdf()` fires
`beforeprint` and `afterprint` as a browser's print does (`emulate_media(media="print")` fires
neither), so it prints here what a reader's printer gets, and the page is looked at afterwards.

Like tests/test_book.py, whose fixtures these share, this reads the already built book.
"""

from __future__ import annotations

import io
import re

import test_book
from build_pdf import EVERY_IMAGE_LOADED
from explorables import TWO_FRAMES
from test_book import HTML, html_path

book = test_book.book
browser = test_book.browser

#: Chapter 00 has every kind of fold: asides, folded solutions and answer checks, the review
#: answers, and an explorable whose answer presets are folded (its controls, not text).
DOC = "notebooks/00_introduction"
JAPANESE_RUN = re.compile(r"[\u3041-\u309f\u30a0-\u30ff\u4e00-\u9fff]{8,}")

#: What the reader sees of each fold of the article, and the article itself.
STATE = """() => ({
  open: [...document.querySelectorAll('.bd-article details')].map(d => d.open),
  html: document.querySelector('.bd-article').innerHTML,
})"""

#: Each top-level fold of the article outside the explorables: its summary and the text it folds
#: (whose longest run of Japanese paper must show).
FOLDS = """() => [...document.querySelectorAll('.bd-article details')]
  .filter(d => !d.parentElement.closest('details') && !d.closest('.qkv-explorable'))
  .map(d => ({
    aside: d.classList.contains('qkv-aside'),
    summary: d.querySelector(':scope > summary').textContent.trim(),
    body: [...d.children].filter(c => c.tagName !== 'SUMMARY').map(c => {
      const copy = c.cloneNode(true);
      copy.querySelectorAll('button').forEach(b => b.remove());  // the copy buttons' names
      return copy.textContent;
    }).join(' '),
  }))"""


def printed_text(pdf: bytes) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(io.BytesIO(pdf))
    try:
        return re.sub(r"\s+", "", "".join(p.get_textpage().get_text_range() for p in document))
    finally:
        document.close()


def test_a_printed_chapter_has_every_folded_text_and_the_page_is_as_it_was_after(book, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ja-JP",
                                  service_workers="block")
    context.route(test_book.OUTSIDE_THE_BOOK, lambda r: r.abort())
    try:
        page = context.new_page()
        page.goto(html_path(DOC).as_uri(), wait_until="load")
        page.evaluate(EVERY_IMAGE_LOADED)
        page.wait_for_selector(".qkv-explorable .qkv-preset-fold")
        # The reader has opened one aside and one of the explorable's folds before printing.
        page.evaluate("""() => {
          document.querySelector('.bd-article details.qkv-aside').open = true;
          document.querySelector('.qkv-explorable details.qkv-preset-fold').open = true;
        }""")
        page.evaluate(TWO_FRAMES)  # the explorables' ResizeObservers write their new heights first
        before = page.evaluate(STATE)
        folds = page.evaluate(FOLDS)
        pdf = page.pdf(format="A4", print_background=True)
        page.evaluate(TWO_FRAMES)  # and again once afterprint has closed the folds
        after = page.evaluate(STATE)
        page.emulate_media(media="print")
        presets_on_paper = page.evaluate("""() => [...document.querySelectorAll('.qkv-explorable .qkv-presets')]
          .filter(bar => bar.getClientRects().length).map(bar => bar.textContent.trim().slice(0, 40))""")
        # What paper gets the moment the folds open (a fade-in from opacity 0 once printed faint).
        faint = page.evaluate("""() => {
          window.dispatchEvent(new Event('beforeprint'));
          const found = [...document.querySelectorAll('.qkv-print-answers *')]
            .filter(n => n.getClientRects().length && getComputedStyle(n).opacity !== '1')
            .map(n => `${n.className}: ${n.textContent.trim().slice(0, 30)}`);
          window.dispatchEvent(new Event('afterprint'));
          return found;
        }""")
    finally:
        context.close()

    assert sum(f["aside"] for f in folds) >= 3 and len(folds) > 10, f"{DOC}: 折りたたみが少なすぎます: {len(folds)}"
    text = printed_text(pdf)
    assert "解答と答え合わせ" in text, f"{DOC}: 印刷に「解答と答え合わせ」がありません"
    missing = []
    for fold in folds:
        runs = JAPANESE_RUN.findall(re.sub(r"\s+", "", fold["body"]))
        if fold["aside"]:
            assert runs, f"{DOC}: 寄り道「{fold['summary']}」に日本語の文がありません"
        if runs and max(runs, key=len) not in text:
            missing.append(fold["summary"])
    assert not missing, f"{DOC}: 印刷に中身が出ない折りたたみ: {missing}"
    # The solutions' note for a printout without the page's script (「…印刷では伏せてあります」)
    # is not printed where the solution itself is.
    assert "印刷では伏せてあります" not in text, f"{DOC}: 印刷した解答の上に「伏せてあります」が出ます"
    # An explorable's folds hold its preset buttons: on paper there is nothing to press.
    assert not presets_on_paper, f"{DOC}: 動かせる図のボタンが印刷に出ます: {presets_on_paper}"

    assert not faint, f"{DOC}: 印刷で薄く出る解答: {faint[:3]}"

    assert after["open"] == before["open"], f"{DOC}: 印刷のあと、開いていた/閉じていた折りたたみが元に戻りません"
    assert after["html"] == before["html"], f"{DOC}: 印刷のあと、ページが印刷前と違います"


def test_the_print_rules_survive_the_stylesheets_bundle(book):
    """book/_ext/qkv_book/styles.py drops a rule whose class no page or script names: the print
    rules' classes are added at print time by qkv-book.js and tools/build_pdf.py, and were once
    all dropped (the PDF then showed each solution under 「解答例は印刷では伏せてあります」)."""
    source = (HTML.parents[2] / "book" / "_static" / "qkv.css").read_text(encoding="utf-8")
    bundle = (HTML / "_static" / "qkv-styles.css").read_text(encoding="utf-8")
    wanted = set(re.findall(r"\.(qkv-print-[a-z-]+)", source))
    assert len(wanted) >= 5, f"qkv.css の印刷用のクラスが {sorted(wanted)} だけです"
    lost = sorted(c for c in wanted if f".{c}" not in bundle)
    assert not lost, f"まとめた CSS から消えた印刷用のクラス: {lost}"
