// ESLint for every JavaScript file of the project (make lint): the recommended rules, each file
// with the globals of where it runs. The explorables' ES modules are browser code that also runs
// in Node (tests and the saved notebooks' first pictures draw with it); the book's page scripts
// run in the browser beside Sphinx's scripts, whose globals they read; the build's MathJax runner
// and this file run in Node.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: "error",
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: [
      "book/_ext/qkv_book/explorables_shim.js",
      "book/_static/qkv-book.js",
      "book/_ext/search_scorer.js",
    ],
    languageOptions: { sourceType: "script" },
  },
  {
    // loaded after Sphinx's own scripts and sphinx-copybutton's copybutton.js
    files: ["book/_static/qkv-book.js"],
    languageOptions: {
      globals: {
        DOCUMENTATION_OPTIONS: "readonly",
        Documentation: "readonly",
        messages: "readonly",
        locale: "writable",
      },
    },
  },
  {
    // Sphinx's html_search_scorer: read by searchtools.js (Stemmer, splitQuery) as the global
    // `Scorer`, which searchtools.js declares with `var` when missing (a `const` here would clash
    // with it); QKV_SEARCH is the book's search data (book/_ext/qkv_book/search_ranking.py)
    files: ["book/_ext/search_scorer.js"],
    languageOptions: {
      globals: { QKV_SEARCH: "readonly", Stemmer: "readonly", splitQuery: "readonly" },
    },
    rules: { "no-var": "off", "no-unused-vars": ["error", { varsIgnorePattern: "^Scorer$" }] },
  },
  {
    files: ["book/_ext/qkv_book/maths_svg.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
  {
    files: ["eslint.config.mjs"],
    languageOptions: { globals: { ...globals.node } },
  },
];
