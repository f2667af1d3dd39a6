// TeX → SVG with MathJax 3 in Node, for book/_ext/qkv_book/maths.py (run once per book build).
//
//   node maths_svg.js NODE_MODULES < [[{"tex": "q = xW_Q", "display": false}, …], …]   (pages)
//                                  > [{"svg": ["<mjx-container …>", …], "glyphs": "<defs>…"}, …]
//
// Each formula's SVG refers to its glyphs' outlines by id; a page's outlines come once, in
// "glyphs" (fontCache "global", emptied between pages). Beside each SVG (aria-hidden) the formula
// is MathML for screen readers (a11y/assistive-mml). A TeX error comes back as MathJax draws it
// (an merror node); maths.py reports it.
"use strict";

const path = require("path");

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", async () => {
  const pages = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const MathJax = await require(path.join(process.argv[2], "mathjax")).init({
    loader: { load: ["input/tex", "output/svg", "a11y/assistive-mml"] },
    tex: { packages: { "[+]": ["ams"] } },
    // Text in formulas (\text{答え}) takes the page's font (book/_static/qkv.css), not a serif.
    svg: { fontCache: "global", mtextInheritFont: true },
    startup: { typeset: false },
  });
  const adaptor = MathJax.startup.adaptor;
  const cache = MathJax.startup.output.fontCache;
  const out = pages.map((formulas) => {
    cache.clearCache();
    const svg = formulas.map(({ tex, display }) =>
      adaptor.outerHTML(MathJax.tex2svg(tex, { display })),
    );
    return { svg, glyphs: adaptor.outerHTML(cache.getCache()) };
  });
  process.stdout.write(JSON.stringify(out));
});
