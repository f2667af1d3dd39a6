"""The explorables in the static book: the same ES modules as in JupyterLab, with no kernel.

While the book is built the chapters run with QKV_STATIC_BOOK=1, so each explorable's output is a
`.qkv-explorable` box holding its state as JSON (helpers.widgets' `static_html`). This extension
ships, beside the pages, one script with every explorable's module text and the model shim that
mounts them (explorables_shim.js), and the explorables' stylesheet; a page loads them only when
it has an explorable. All pages share the two files, so a chapter's own HTML stays small.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx

SCRIPT = "qkv-explorables.js"
STYLESHEET = "qkv-explorables.css"
SHIM = Path(__file__).with_name("explorables_shim.js")


def explorable_modules() -> dict[str, str]:
    """Every explorable's module, by name, as JupyterLab gets it (shared modules inlined)."""
    from helpers.widgets import explorables

    return {module: cls._esm for module, cls in explorables().items()}


def script_text() -> str:
    modules = json.dumps(explorable_modules(), ensure_ascii=False)
    return f"window.QKV_EXPLORABLES = {modules};\n{SHIM.read_text(encoding='utf-8')}"


def write_assets(app: Sphinx) -> None:
    from helpers.widgets._base import stylesheet

    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / SCRIPT).write_text(script_text(), encoding="utf-8")
    (static / STYLESHEET).write_text(stylesheet(), encoding="utf-8")


def load_on_pages_with_explorables(app: Sphinx, pagename: str, templatename: str, context: dict,
                                   doctree) -> None:
    if 'class="qkv-explorable"' in context.get("body", ""):
        app.add_js_file(SCRIPT, priority=950)
        app.add_css_file(STYLESHEET, priority=950)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_assets)
    app.connect("html-page-context", load_on_pages_with_explorables)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
