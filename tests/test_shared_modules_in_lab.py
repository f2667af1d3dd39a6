"""JupyterLab's loader of an explorable's module (`helpers.widgets.sources.lab_esm`) in a real
browser, without a Lab: a stand-in for anywidget's `host.getModel` and model (the real Lab is
tests/test_lab.py's `test_explorables_in_a_real_lab`).

Each explorable's module in Lab is its chapter's text and a loader that reads the shared modules'
text from the kernel's one `SharedModules` model: a saved notebook keeps that text once.
"""

from __future__ import annotations

import json

import chromium
import lab_server
import pytest

from helpers.widgets import explorables
from helpers.widgets._base import SharedModules
from helpers.widgets.sources import lab_esm

#: Renders explorables with their Lab modules as anywidget does (each module imported from a Blob
#: URL of its text, `render({ model, el, host })`), `host.getModel` answering only once `arrive()`
#: is called: the shared model may come long after the explorables (a loaded machine reopening a
#: chapter). Counts the Blob URLs the loaders make.
HARNESS = """() => {
  const create = URL.createObjectURL.bind(URL);
  window.blobs = 0;
  URL.createObjectURL = (b) => { window.blobs += 1; return create(b); };
  class Model {
    constructor(state) { this.state = { ...state }; this.handlers = {}; }
    get(k) { return this.state[k]; }
    set(k, v) { this.state[k] = v; (this.handlers[`change:${k}`] ?? []).forEach((f) => f()); }
    on(e, f) { (this.handlers[e] ??= []).push(f); }
    off() {}
    save_changes() {}
    send() {}
  }
  const models = new Map(); // model id → the shared model's state, once it has come
  let arrived;
  window.arrival = new Promise((r) => (arrived = r));
  window.arrive = (id, state) => { models.set(id, state); arrived(); };
  window.asked = [];
  const host = {
    async getModel(ref) {
      window.asked.push(ref);
      await window.arrival;
      const id = ref.replace(/^anywidget:/, "");
      if (!models.has(id)) throw new Error("widget model not found");
      return new Model(models.get(id));
    },
  };
  const imported = new Map();
  // `again`: with the module the last view of this text used (another view of the same model)
  window.render = async (esm, state, again = false) => {
    const el = document.createElement("div");
    document.body.append(el);
    if (!again || !imported.has(esm))
      imported.set(esm, await import(create(new Blob([esm], { type: "text/javascript" }))));
    const module = imported.get(esm);
    try {
      await module.default.render({ model: new Model(state), el, host });
      return { ok: true, ex: el.classList.contains("qkv-ex"), svgs: el.querySelectorAll("svg").length,
               numbers: el.dataset.qkvNumbers ?? null };
    } catch (error) {
      return { ok: false, error: String(error), text: el.textContent };
    }
  };
}"""


@pytest.fixture(scope="module")
def page():
    try:
        with lab_server.browser() as browser:
            page = browser.new_page()
            page.goto("about:blank")
            page.evaluate(HARNESS)
            yield page
    except chromium.Missing as missing:
        pytest.fail(str(missing), pytrace=False)


def _explorer(name: str):
    explorer = explorables()[name].example()
    return explorer, json.loads(json.dumps(explorer.get_state()))


def test_explorables_wait_for_the_shared_model_and_share_one_copy_of_its_modules(page):
    """Two chapters' explorables render before the shared model has come, then draw once it has;
    the three shared modules are one Blob URL each for the page (a second kernel's model with the
    same text adds none), a chapter's module one; no anywidget `getWidget` (its 10-s timeout)."""
    (ch02, s02), (ch06, s06) = _explorer("ch02_library_search"), _explorer("ch06_attention")
    shared = ch02._qkv_shared
    assert ch06._qkv_shared is shared and s02["_qkv_shared"] == f"IPY_MODEL_{shared.model_id}"
    assert all("getWidget" not in lab_esm(name) for name in explorables())
    pending = page.evaluate_handle("([a, b]) => [render(a._esm, a), render(b._esm, b)]", [s02, s06])
    page.wait_for_function("() => window.asked.length === 2")
    page.wait_for_timeout(300)  # nothing drawn, nothing refused while the shared model is away
    assert page.evaluate("() => document.querySelectorAll('.qkv-ex').length") == 0
    page.evaluate("([id, state]) => arrive(id, state)", [shared.model_id, shared.get_state()])
    drawn = page.evaluate("p => Promise.all(p)", pending)
    assert [d["ok"] and d["ex"] and d["svgs"] >= 1 for d in drawn] == [True, True], drawn
    assert json.loads(drawn[0]["numbers"])["best"] == ch02.numbers()["best"]
    assert page.evaluate("() => window.blobs") == 3 + 2
    # After a kernel restart: a new SharedModules (another model id), the same text.
    again = SharedModules()
    restarted = dict(s06, _qkv_shared=f"IPY_MODEL_{again.model_id}")
    page.evaluate("([id, state]) => arrive(id, state)", [again.model_id, again.get_state()])
    assert page.evaluate("([esm, s]) => render(esm, s)", [s06["_esm"], restarted])["ok"]
    assert page.evaluate("() => window.blobs") == 3 + 2 + 1


def test_a_missing_shared_model_says_so_in_japanese_and_a_later_view_tries_again(page):
    """An explorable whose shared model is missing (a notebook saved without it): the output says
    in one Japanese line to run the cell again; a later view of the same model, once the shared
    model is there, draws (a failed load is not kept)."""
    explorer, state = _explorer("ch08_going_further")
    ref = explorer._qkv_shared
    page.evaluate("() => arrive('someone-else', {})")
    lost = dict(state, _qkv_shared="IPY_MODEL_not-yet")
    first = page.evaluate("([esm, s]) => render(esm, s)", [state["_esm"], lost])
    assert not first["ok"] and "widget model not found" in first["error"], first
    assert first["text"] == "図に使う共通のコードが見つかりません。このセルを実行し直してください。"
    page.evaluate("([s]) => arrive('not-yet', s)", [ref.get_state()])
    later = page.evaluate("([esm, s]) => render(esm, s, true)", [state["_esm"], lost])
    assert later["ok"] and later["ex"] and later["svgs"] >= 1, later
