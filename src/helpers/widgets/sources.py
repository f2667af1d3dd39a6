"""The explorables' ES modules and stylesheet as text, as the package ships them (`js/`): for
JupyterLab (`lab_esm`, `SharedModules`' state), for Node (`module_source`: the tests, the saved
first pictures) and for the static book (`js_source`, `imported_modules`, `stylesheet`: the
book's extension ships each module once per page).

A chapter's module imports the shared `qkv_math.js`, `qkv_draw.js` and `qkv_widget.js`; anywidget
loads one module with no path to resolve another from, so `module_source` inlines those imports,
and in JupyterLab every explorable imports them through the kernel's one `SharedModules` widget
(`lab_esm`), so that a saved notebook keeps their text once.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

from .._validate import HelpersError
from ..plotting import COLORS

#: The shared modules an explorable may import, each after those it imports: the maths, the
#: drawing primitives, the widget runtime (controls, binding to the model, redraws, dragging).
SHARED_MODULES = ("qkv_math", "qkv_draw", "qkv_widget")
_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"\./(\w+)\.js";\s*$', re.M)
_EXPORT = re.compile(r"^export (?=function|const|class|let)", re.M)


def js_source(name: str) -> str:
    """The text of `js/<name>.js` as shipped in the package."""
    return resources.files(__package__).joinpath("js", f"{name}.js").read_text(encoding="utf-8")


def imported_modules(name: str) -> list[str]:
    """The shared modules `js/<name>.js` needs, directly or through one another, in the order
    they must run (SHARED_MODULES'); a module importing any other file is refused."""
    wanted, todo = set(), [name]
    while todo:
        found = set(_IMPORT.findall(js_source(todo.pop())))
        unknown = found - set(SHARED_MODULES)
        if unknown:
            raise HelpersError(f"{name}.js が知らないモジュールを読み込んでいます: {sorted(unknown)}")
        todo += sorted(found - wanted)
        wanted |= found
    return [dep for dep in SHARED_MODULES if dep in wanted]


@cache
def module_source(name: str) -> str:
    """`js/<name>.js` as one module: its `import {…} from "./qkv_*.js"` lines replaced by those
    shared modules' text (each once, `export` kept only on the explorable's own names). JupyterLab
    (anywidget) loads one module with no path to resolve another from; the book loads the shared
    modules once per page instead (book/_ext/qkv_book/explorables.py)."""
    shared = [_IMPORT.sub("", _EXPORT.sub("", js_source(dep))) for dep in imported_modules(name)]
    return "\n".join([*shared, _IMPORT.sub("", js_source(name))])


#: The module of an explorable in JupyterLab: its chapter module's text without its imports
#: (`%s`, JSON) and the names it imports from each shared module (`%s`). The shared modules' text
#: is the state of the notebook's one `SharedModules` model, read with anywidget's
#: `host.getModel` (anywidget >= 0.11), which waits for that model however long it takes to come
#: (`host.getWidget` would also wait for that model's own module, and gives up after 10 s: a
#: needless limit on a loaded machine). Each shared module becomes one Blob URL per page and per
#: text (`key`), whichever explorable, notebook or kernel asks first; a failed load is tried again
#: by the next view.
_LAB_ESM = """\
const SOURCE = %s;
const NEEDS = %s;
const IMPORT = /(\\bfrom\\s*")\\.\\/(\\w+)\\.js(")/g;
const PAGE = (globalThis[Symbol.for("qkv-shared-modules")] ??= new Map());
const blob = (text) => URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
function urlOf({ key, sources }, name) {
  const at = `${key}/${name}`;
  if (!PAGE.has(at)) {
    const linked = sources[name].replace(IMPORT, (_, a, dep, b) => a + urlOf({ key, sources }, dep) + b);
    PAGE.set(at, blob(linked));
  }
  return PAGE.get(at);
}
async function link(model, host) {
  // ipywidgets' "IPY_MODEL_<id>" (what a saved notebook's state follows), as anywidget names it
  const ref = String(model.get("_qkv_shared")).replace(/^IPY_MODEL_/, "anywidget:");
  const shared = await host.getModel(ref);
  const modules = { key: shared.get("key"), sources: shared.get("sources") };
  const head = Object.entries(NEEDS).map(([dep, names]) => `import { ${names} } from "${urlOf(modules, dep)}";`);
  return import(blob([...head, SOURCE].join("\\n")));
}
let loaded = null;
export default {
  async render({ model, el, host }) {
    loaded ??= link(model, host).catch((error) => {
      loaded = null;
      throw error;
    });
    let module;
    try {
      module = await loaded;
    } catch (error) {
      el.textContent = "図に使う共通のコードが見つかりません。このセルを実行し直してください。";
      throw error;
    }
    return module.default.render({ model, el });
  },
};
"""


@cache
def shared_sources() -> dict[str, str]:
    """The shared modules' text by name: `SharedModules`' state."""
    return {name: js_source(name) for name in SHARED_MODULES}


@cache
def lab_esm(name: str) -> str:
    """An explorable's module in JupyterLab: `js/<name>.js` with its imports taken out and named
    (see _LAB_ESM); the shared modules come from the notebook's one `SharedModules`."""
    imported_modules(name)  # refuses a module that imports anything unshipped
    source = js_source(name)
    needs = {dep: " ".join(names.split()) for names, dep in re.findall(
        r'^import\s*\{([^}]*)\}\s*from\s*"\./(\w+)\.js";\s*$', source, re.M)}
    return _LAB_ESM % (json.dumps(_IMPORT.sub("", source), ensure_ascii=False), json.dumps(needs))


@cache
def stylesheet() -> str:
    """The explorables' CSS: the book's palette (plotting.COLORS) as variables, then js/qkv.css."""
    palette = "".join(f"  --qkv-{name.lower()}: {colour};\n" for name, colour in COLORS.items())
    css = resources.files(__package__).joinpath("js", "qkv.css").read_text(encoding="utf-8")
    return f".qkv-ex {{\n{palette}}}\n{css}"
