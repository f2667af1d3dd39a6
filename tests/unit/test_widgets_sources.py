"""helpers.widgets.sources: the explorables' ES modules and stylesheet as text (no browser)."""

import json
import re
import subprocess
from pathlib import Path

import pytest
from explorable_pictures import node

from helpers._validate import HelpersError
from helpers.plotting import COLORS
from helpers.widgets import explorables, sources
from helpers.widgets.sources import (
    SHARED_MODULES,
    imported_modules,
    js_source,
    module_source,
    stylesheet,
)

ROOT = Path(__file__).resolve().parents[2]

#: Node: each module parsed with espree (ESLint's parser, locked in package-lock.json); the names
#: of the functions it defines (declarations, and variables given an arrow or a function
#: expression, at any depth) and of what it exports.
_FUNCTIONS = """
const espree = require(process.argv[1]);
const sources = JSON.parse(require("fs").readFileSync(0, "utf8"));
const FUNCTION = new Set(["ArrowFunctionExpression", "FunctionExpression"]);
const out = {};
for (const [name, text] of Object.entries(sources)) {
  const defined = [], exported = [];
  (function walk(node) {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node.type !== "string") return;
    if (node.type === "FunctionDeclaration" && node.id) defined.push(node.id.name);
    if (node.type === "VariableDeclarator" && node.init && FUNCTION.has(node.init.type)) defined.push(node.id.name);
    if (node.type === "AssignmentExpression" && node.left.type === "Identifier" && FUNCTION.has(node.right.type))
      defined.push(node.left.name);
    if (node.type === "ExportNamedDeclaration" && node.declaration) {
      const d = node.declaration;
      if (d.id) exported.push(d.id.name);
      for (const v of d.declarations || []) exported.push(v.id.name);
    }
    if (node.type === "ExportNamedDeclaration") for (const s of node.specifiers) exported.push(s.exported.name);
    if (node.type === "ExportDefaultDeclaration") exported.push("default");
    for (const [key, value] of Object.entries(node)) if (key !== "parent") walk(value);
  })(espree.parse(text, { ecmaVersion: "latest", sourceType: "module" }));
  out[name] = { defined, exported };
}
process.stdout.write(JSON.stringify(out));
"""


def defined_functions(modules: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """For each module's text: the functions it defines and the names it exports."""
    done = subprocess.run([node(), "-e", _FUNCTIONS, str(ROOT / "node_modules" / "espree")],
                          input=json.dumps(modules), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)



def test_every_chapter_module_is_one_module_with_the_shared_code_inlined():
    for module, cls in explorables().items():
        source = module_source(module)
        assert not re.search(r"^import\s", source, re.M), f"{module}: import が残っています"
        assert "export default" in source and "function softmax" in source
        assert source.count("function mount(") == 1 and source.count("function softmax(") == 1
        assert cls.__module__.endswith("." + module), (cls.__module__, module)


def test_drawing_and_the_widget_runtime_are_separate_modules():
    """qkv_draw.js draws strings (no DOM, no model: Node runs it); qkv_widget.js binds the model
    and the page and draws nothing itself."""
    draw, widget = js_source("qkv_draw"), js_source("qkv_widget")
    for word in (r"\bdocument\.", r"\bmodel\.", "addEventListener", r"\bNode\."):
        assert not re.search(word, draw), word
    assert "export function mount(" in widget and not re.search(r"[`\"]<(svg|rect|text|line)\b", widget)
    assert "qkv_draw" not in imported_modules("qkv_widget") and "qkv_widget" not in imported_modules("qkv_draw")


def test_no_chapter_module_writes_a_shared_function_again():
    """A chapter's module defines no function a shared module exports (no `vecmat` twin), in
    any form (a declaration, a `const` arrow or function, at any depth), and no tick helper of its
    own (qkv_draw's tickStep/tickValues are the one)."""
    found = defined_functions({name: js_source(name) for name in [*SHARED_MODULES, *explorables()]})
    shared = {name for dep in SHARED_MODULES for name in found[dep]["exported"]}
    assert {"vecmat", "softmax", "tickStep", "tickValues", "heatmap", "plane", "mount"} <= shared
    assert len(explorables()) >= 8
    for module in explorables():
        own = set(found[module]["defined"])
        assert not own & shared, f"{module}.js が共通モジュールの関数を書き直しています: {sorted(own & shared)}"
        assert not [f for f in own if "tick" in f.lower()], (module, own)


def test_the_twin_finder_sees_every_way_to_write_a_function():
    """The finder above, on a module that writes shared functions again in each form it knows."""
    twin = """
import { mount } from "./qkv_widget.js";
function vecmat(v, M) { return M[0].map((_, j) => v.reduce((s, x, i) => s + x * M[i][j], 0)); }
const softmax = (row) => row;
export const tickStep = function (span) { return span / 4; };
export function picture(state) {
  const heatmap = (cells) => cells.length;
  let plane;
  plane = () => 0;
  return heatmap(state) + vecmat([1], [[1]]) + softmax(1) + tickStep(1) + plane();
}
export default { render: (args) => mount(args) };
"""
    found = defined_functions({"ch99_twin": twin})["ch99_twin"]
    assert {"vecmat", "softmax", "tickStep", "heatmap", "plane", "picture"} <= set(found["defined"])
    assert set(found["exported"]) == {"tickStep", "picture", "default"}


def test_a_module_importing_an_unknown_file_is_refused(monkeypatch):
    monkeypatch.setattr(sources, "js_source", lambda name: 'import { x } from "./elsewhere.js";\n')
    module_source.cache_clear()
    try:
        with pytest.raises(HelpersError, match="elsewhere"):
            module_source("ch99_nothing")
    finally:
        module_source.cache_clear()


def test_the_stylesheet_carries_the_books_palette():
    css = stylesheet()
    for face, colour in COLORS.items():
        assert f"--qkv-{face.lower()}: {colour};" in css
    assert "@container" in css and "@media print" in css


def test_the_shared_modules_are_shipped():
    for name in SHARED_MODULES:
        assert "export function" in js_source(name)


def test_the_node_runner_answers_a_module_that_never_returns_with_an_error_and_goes_on(monkeypatch):
    """tools/explorable_pictures.py keeps one Node process for every call: a module stuck in a loop
    must end in an error after the timeout (not hang a test or `make sync`), and the next call
    gets a fresh process."""
    import explorable_pictures

    # A short wait: the stuck module spins one of Node's cores until the runner gives up on it.
    monkeypatch.setattr(explorable_pictures, "ANSWER_TIMEOUT_S", 0.2)
    with pytest.raises(RuntimeError, match="答えませんでした"):
        explorable_pictures.run_module("export function stuck() { for (;;); }", "stuck", [[]])
    monkeypatch.undo()  # the fresh process has the usual time to start and answer
    assert explorable_pictures.run_module("export const twice = (x) => 2 * x;", "twice", [[3]]) == [{"ok": 6}]
