"""The explorables in the static book: the same ES modules as in JupyterLab, with no kernel.

While the book is built the chapters run with QKV_STATIC_BOOK=1, so each explorable's output is a
`.qkv-explorable` box holding its state as JSON (helpers.widgets' `static_html`). This extension
ships, beside the pages, one script with the shared modules (maths, drawing, widget runtime) and
the model shim that mounts the explorables (explorables_shim.js), one small script per chapter
module, and the explorables' stylesheet. A page with explorables loads the shared script and the
scripts of its own explorables only, deferred (after its text, never blocking it); the shared
script is the same file on every page, so the browser fetches it once. A page opened from disk
cannot import() a file, so the scripts carry the modules as text and the shim imports them from
Blob URLs, each chapter module importing the shared ones (loaded once per page).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinx.application import Sphinx

SHARED_SCRIPT = "qkv-explorables.js"
STYLESHEET = "qkv-explorables.css"
SHIM = Path(__file__).with_name("explorables_shim.js")
_MODULE = re.compile(r'class="qkv-explorable" data-qkv-module="(\w+)"')


def module_script(name: str) -> str:
    """The file name of the script that carries chapter module `name`."""
    return f"qkv-explorable-{name}.js"


def _register(modules: dict[str, str]) -> str:
    text = json.dumps(modules, ensure_ascii=False).replace("</", "<\\/")
    return f"Object.assign((window.QKV_MODULES ??= {{}}), {text});\n"


def shared_script_text() -> str:
    """The shared modules' text as written (their imports kept), then the model shim."""
    from helpers.widgets import sources

    shared = {name: sources.js_source(name) for name in sources.SHARED_MODULES}
    return _register(shared) + SHIM.read_text(encoding="utf-8")


def module_script_text(name: str) -> str:
    """Chapter module `name`'s text as written (it imports the shared modules)."""
    from helpers.widgets import sources

    sources.imported_modules(name)  # refuses a module that imports anything unshipped
    return _register({name: sources.js_source(name)})


def chapter_modules() -> list[str]:
    """Every chapter's explorable module, by name."""
    from helpers.widgets import explorables

    return sorted(explorables())


def write_assets(app: Sphinx) -> None:
    from helpers.widgets import sources

    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / SHARED_SCRIPT).write_text(shared_script_text(), encoding="utf-8")
    for name in chapter_modules():
        (static / module_script(name)).write_text(module_script_text(name), encoding="utf-8")
    (static / STYLESHEET).write_text(sources.stylesheet(), encoding="utf-8")


def load_on_pages_with_explorables(app: Sphinx, pagename: str, templatename: str, context: dict,
                                   doctree) -> None:
    names = sorted(set(_MODULE.findall(context.get("body", ""))))
    if not names:
        return
    for name in names:  # deferred scripts run in order: the modules' text, then the shim
        app.add_js_file(module_script(name), priority=940, defer="defer")
    app.add_js_file(SHARED_SCRIPT, priority=950, defer="defer")
    app.add_css_file(STYLESHEET, priority=950)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_assets)
    app.connect("html-page-context", load_on_pages_with_explorables)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
