// Small fixes for the static book, loaded on every page after Sphinx's own scripts.

// Opened from disk (file://), browsers refuse fetch(), and Sphinx's search page fetches every
// hit's page to show a summary. List the hits without summaries instead of filling the console
// with errors; served over http(s), the summaries come back.
if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
  DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
}

// Sphinx 7.4's Japanese catalogue leaves the search's closing line empty, so the reader never
// learns how many pages matched. Fill in the untranslated messages.
if (typeof Documentation !== "undefined") {
  const messages = {
    "Search finished, found ${resultCount} page(s) matching the search query.":
      "検索が終わりました。${resultCount} ページが見つかりました。",
  };
  for (const [key, text] of Object.entries(messages)) {
    if (!Documentation.TRANSLATIONS[key]) Documentation.TRANSLATIONS[key] = text;
  }
}

// sphinx-copybutton 0.5 has no Japanese messages: its buttons said "Copy" / "Copied!". Its
// copybutton.js (loaded just before this file) keeps them in the globals `messages` and `locale`.
// Both scripts are deferred (book/_ext/qkv_book/page_script.py), so the buttons may already be
// drawn in English: their tooltip and name are set again below; a click reads `locale`.
if (typeof messages !== "undefined" && typeof locale !== "undefined" && !messages.ja) {
  messages.ja = {
    copy: "コピー",
    copy_to_clipboard: "クリップボードにコピー",
    copy_success: "コピーしました",
    copy_failure: "コピーできませんでした",
  };
  if (document.documentElement.lang === "ja") locale = "ja";
  // The icons' <title> (the buttons' names) were written when copybutton.js loaded, in English;
  // a Japanese aria-label wins over them, also after a click swaps the icon.
  document.addEventListener("DOMContentLoaded", () => {
    for (const button of document.querySelectorAll("button.copybtn")) {
      button.setAttribute("data-tooltip", messages.ja.copy);
      button.setAttribute("aria-label", messages.ja.copy_to_clipboard);
      button
        .querySelectorAll("svg title")
        .forEach((t) => (t.textContent = messages.ja.copy_to_clipboard));
    }
  });
}

// Anything wider than the column scrolls sideways (figures in .qkv-scroll, sized by
// book/_ext/qkv_book/figures.py so that their text stays readable; display maths; wide tables; code).
// Say so: the edge where more is hidden fades (data-qkv-more, book/_static/qkv.css), the keyboard
// can reach it, and below a figure, a formula or a table a line says it scrolls (not below code:
// on a phone most code cells are wider than the screen, and a line under each would bury the text).
(function () {
  const CODE = ".bd-article div.highlight > pre";
  const TABLE = ".bd-article .pst-scrollable-table-container";
  const SCROLLERS = `.bd-article .qkv-scroll, .bd-article div.math > mjx-container, ${TABLE}, ${CODE}`;

  function hintFor(el) {
    const next = el.nextElementSibling;
    if (next && next.classList.contains("qkv-scroll-hint")) return next;
    // Inside div.math (a row-reverse flexbox) the line goes after the whole formula.
    const anchor = el.matches("mjx-container") ? el.parentElement : el;
    const after = anchor.nextElementSibling;
    return after && after.classList.contains("qkv-scroll-hint") ? after : null;
  }

  // Measuring and marking are two passes: a measure after a mark made the browser lay out the
  // whole page again, once per formula (chapter 07: ~250 layouts, 2.8 s on the phone bench's
  // processor before the first paint of a page from the cache). Marks never change the marked
  // box's own widths, so every measure can come first.
  function measure(el) {
    const overflow = el.scrollWidth - el.clientWidth > 1;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    return {
      el,
      overflow,
      more: left && right ? "both" : left ? "left" : right ? "right" : "none",
    };
  }

  function mark({ el, overflow, more }) {
    el.classList.toggle("qkv-overflowing", overflow);
    let hint = hintFor(el);
    if (!overflow) {
      el.removeAttribute("data-qkv-more");
      if (el.getAttribute("tabindex") === "0" && el.dataset.qkvTab) el.removeAttribute("tabindex");
      if (hint) hint.remove();
      return;
    }
    el.setAttribute("data-qkv-more", more);
    const what = el.matches("mjx-container")
      ? "数式"
      : el.matches(CODE)
        ? "コード"
        : el.matches(TABLE)
          ? "表"
          : "図";
    // The theme gives a code block that did not scroll at the wide start tabindex -1 (and fixes it
    // only after its own debounce on resize): a box that scrolls now is a tab stop now.
    if (el.getAttribute("tabindex") !== "0") {
      el.setAttribute("tabindex", "0");
      el.dataset.qkvTab = "1";
    }
    el.setAttribute("role", "region");
    el.setAttribute("aria-label", `横にスクロールできる${what}`);
    if (!hint && !el.matches(CODE)) {
      hint = document.createElement("p");
      hint.className = "qkv-scroll-hint";
      hint.textContent = `この${what}は画面より幅が広いので、横にスクロールすると全体が見られます。`;
      const anchor = el.matches("mjx-container") ? el.parentElement : el;
      anchor.insertAdjacentElement("afterend", hint);
    }
  }

  function update(el) {
    mark(measure(el));
  }

  function updateAll() {
    Array.from(document.querySelectorAll(SCROLLERS), measure).forEach(mark);
  }

  document.addEventListener(
    "scroll",
    (event) => {
      if (event.target instanceof Element && event.target.matches(SCROLLERS)) update(event.target);
    },
    true,
  );
  window.addEventListener("resize", updateAll);
  window.addEventListener("load", updateAll);
  document.addEventListener("DOMContentLoaded", () => {
    updateAll(); // the maths are already SVG in the page (book/_ext/qkv_book/maths.py)
    // Images load after DOMContentLoaded; their width decides whether they overflow.
    document.querySelectorAll(".bd-article .qkv-scroll img").forEach((img) => {
      if (!img.complete)
        img.addEventListener("load", () => update(img.parentElement), { once: true });
    });
  });
})();

// Accessible names for the controls whose visible text is a symbol or a file type: the ¶ links
// next to headings ("#") and the download menu's ".ipynb" / ".pdf". Their Japanese tooltip
// becomes their name, so a screen reader or voice control does not meet a bare "#" or ".pdf".
document.addEventListener("DOMContentLoaded", () => {
  const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;
  const tip = (el) => el.getAttribute("data-bs-original-title") || el.getAttribute("title") || "";
  for (const link of document.querySelectorAll("a.headerlink")) {
    if (japanese.test(tip(link))) link.setAttribute("aria-label", tip(link));
  }
  for (const item of document.querySelectorAll(".dropdown-menu .dropdown-item")) {
    const text = item.textContent.trim();
    if (!japanese.test(text) && japanese.test(tip(item))) {
      item.setAttribute("aria-label", `${tip(item)}(${text})`);
    }
  }
});

// On paper, every folded text prints: the whys, the answer checks' readings, the solutions and the
// review answers. This is the book's one rule for paper, used by the browser's own print (Ctrl+P)
// and by the PDF (tools/build_pdf.py prints with Playwright's page.pdf(), which fires the same
// events): the folds at the top level of a chapter page (an explorable's folded presets are its
// controls, not text) move, opened, to 「解答と答え合わせ」 at the end of the page, numbered
// 【答え N】 and linked both ways, where printed textbooks put answers; where each was, a line says
// where it went. A fold with nothing in it (an answer check that printed nothing) does not print.
// After printing, `afterprint` puts every node back where it was, open or closed as the reader had it.
(function () {
  const TITLE = "解答と答え合わせ";

  // Rearranges the page for paper; returns the function that undoes it, last step first.
  function laidOutForPaper() {
    const undo = [];
    const article = document.querySelector(".bd-article") || document.body;
    const folded = [...article.querySelectorAll("details")].filter(
      (d) => !d.parentElement.closest("details") && !d.closest(".qkv-explorable"),
    );
    if (!folded.length || !document.querySelector(".cell")) return () => {};
    const make = (tag, className, ...children) => {
      const node = document.createElement(tag);
      node.className = className;
      node.append(...children);
      return node;
    };
    const section = make("section", "qkv-print-answers", make("h2", "", TITLE));
    section.id = "qkv-answers";
    section.append(
      make(
        "p",
        "",
        `この章の解答例、答え合わせの計算、寄り道、確認問題の答えです。本文の【答え N】から、ここの同じ番号に来ます。`,
      ),
    );
    let n = 0;
    for (const d of folded) {
      const inner = [...d.children].filter((c) => c.tagName !== "SUMMARY");
      if (!inner.some((c) => c.textContent.trim() || c.querySelector("img, svg"))) {
        d.classList.add("qkv-print-hidden");
        undo.push(() => d.classList.remove("qkv-print-hidden"));
        continue;
      }
      n += 1;
      const unit = d.closest(".cell") || d;
      const summary = d.querySelector(":scope > summary");
      const note = (summary && summary.dataset.printNote) || "";
      // An aside is named by its own summary: a why or the reading of an answer check.
      const what = d.classList.contains("qkv-aside")
        ? `「${summary.textContent.trim()}」`
        : !d.classList.contains("hide")
          ? "確認問題の答え"
          : note.startsWith("解答例")
            ? "解答例"
            : "答え合わせ";
      const link = (to, text) => {
        const a = document.createElement("a");
        a.href = `#${to}`;
        a.textContent = text;
        return a;
      };
      const here = make(
        "p",
        "qkv-print-answer-note",
        `${what}は、この章の終わりの「${TITLE}」の `,
        link(`qkv-answer-${n}`, `【答え ${n}】`),
        " にあります。",
      );
      here.id = `qkv-answer-from-${n}`;
      unit.replaceWith(here);
      undo.push(() => here.replaceWith(unit));
      const title = make(
        "p",
        "qkv-print-answer-title",
        link(`qkv-answer-from-${n}`, `【答え ${n}】`),
        ` ${what}(本文へ戻る)`,
      );
      const box = make("div", "qkv-print-answer", title, unit);
      box.id = `qkv-answer-${n}`;
      section.append(box);
      for (const fold of [unit, ...unit.querySelectorAll("details")]) {
        if (fold.tagName !== "DETAILS") continue;
        const { open } = fold;
        fold.open = true;
        fold.classList.add("qkv-print-open");
        undo.push(() => {
          fold.classList.remove("qkv-print-open");
          fold.open = open;
        });
      }
    }
    if (n) {
      article.append(section);
      undo.push(() => section.remove());
    }
    return () => undo.reverse().forEach((step) => step());
  }

  let restore = null;
  window.addEventListener("beforeprint", () => {
    if (!restore) restore = laidOutForPaper();
  });
  window.addEventListener("afterprint", () => {
    if (restore) restore();
    restore = null;
  });
})();
