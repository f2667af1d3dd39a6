// ESLint for the explorables' ES modules (make lint): the recommended rules, for browser code
// that also runs in Node (tests and the saved notebooks' first pictures draw with it).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["src/helpers/widgets/js/**/*.js", "book/_ext/qkv_book/explorables_shim.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: "error",
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["book/_ext/qkv_book/explorables_shim.js"],
    languageOptions: { sourceType: "script" },
  },
];
