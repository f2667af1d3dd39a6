// The book's stand-in for a kernel: mounts each explorable (a `.qkv-explorable` box written by
// helpers.widgets' static_html) with the same ES module JupyterLab runs, on a small model that
// keeps the state in the page (get/set/on/off/save_changes, as anywidget's model offers them).
// The modules' text comes from window.QKV_MODULES (book/_ext/qkv_book/explorables.py writes the
// scripts that fill it, deferred: they and this file run after the page's text is parsed).
(function () {
  "use strict";

  class PageModel {
    constructor(state, saved = () => {}) {
      this.state = state;
      this.handlers = new Map();
      this.saved = saved;
    }
    get(key) {
      return this.state[key];
    }
    set(key, value) {
      if (this.state[key] === value) return;
      this.state[key] = value;
      for (const handler of this.handlers.get(`change:${key}`) ?? []) handler();
    }
    on(event, handler) {
      if (!this.handlers.has(event)) this.handlers.set(event, new Set());
      this.handlers.get(event).add(handler);
    }
    off(event, handler) {
      if (!event) return this.handlers.clear();
      if (handler) this.handlers.get(event)?.delete(handler);
      else this.handlers.delete(event);
    }
    save_changes() {
      this.saved(); // nothing to send: the page is the whole state; its address keeps it
    }
    send() {}
  }

  // Each module's text is in window.QKV_MODULES (the shared ones written in front of this file,
  // each chapter's by its own script). A page opened from disk may not import() a file, but a
  // Blob URL works: a module's `from "./qkv_math.js"` is pointed at the Blob URL of that module's
  // text, made once per page, so every explorable on the page shares one copy of each.
  const IMPORT = /(\bfrom\s*")\.\/(\w+)\.js(")/g;
  const urls = new Map();
  function urlOf(name) {
    if (!urls.has(name)) {
      const source = window.QKV_MODULES?.[name];
      if (source === undefined) throw new Error(`module ${name} is not shipped`);
      const linked = source.replace(IMPORT, (_, from, dep, end) => `${from}${urlOf(dep)}${end}`);
      urls.set(name, URL.createObjectURL(new Blob([linked], { type: "text/javascript" })));
    }
    return urls.get(name);
  }
  const modules = new Map();
  function load(name) {
    if (!modules.has(name)) {
      try {
        modules.set(name, import(urlOf(name)));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return modules.get(name);
  }

  // The page's address says one explorable's state, so that a reader can share it:
  // #qkv=<its number on the page>&<control>=<value as JSON>&…, written when a control settles
  // and read when the page opens (each value checked by the explorable's controls).
  function stateInAddress() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (!params.has("qkv")) return null;
    const state = {};
    for (const [name, value] of params) {
      if (name === "qkv") continue;
      try {
        state[name] = JSON.parse(value);
      } catch {
        state[name] = value; // a choice's text written bare
      }
    }
    return { index: Number(params.get("qkv")), state };
  }
  function writeAddress(index, el) {
    const params = new URLSearchParams({ qkv: String(index) });
    for (const [name, value] of Object.entries(JSON.parse(el.dataset.qkvState ?? "{}")))
      params.set(name, JSON.stringify(value));
    history.replaceState(history.state, "", `#${params}`);
  }

  async function mount(box, index) {
    const state = JSON.parse(box.querySelector("script.qkv-state").textContent);
    const module = await load(box.dataset.qkvModule);
    const el = document.createElement("div");
    box.replaceChildren(el);
    // The output box around it scrolls by itself (myst-nb's overflow: auto), which would keep
    // the explorable's controls from sticking to the top of the page while its panels scroll past.
    const output = box.closest(".output");
    if (output) output.style.overflow = "visible";
    const widget = module.default ?? module;
    widget.render({ model: new PageModel(state, () => writeAddress(index, el)), el });
    const asked = stateInAddress();
    if (asked?.index === index && el.qkvApply) {
      const refused = el.qkvApply(asked.state);
      if (refused.length)
        console.warn(`qkv: the address's ${refused.join(", ")} left as they were`);
      box.scrollIntoView({ block: "start" });
    }
    box.dataset.qkvReady = "true";
  }

  // The page's skip links (the theme's 「本文へスキップ」, shown when focused) gain one per
  // explorable, to its first control: a few Tab presses from the top of the page instead of the
  // 80 or so links of the text before it. The address keeps its state: the link moves the focus.
  function skipLinks(boxes) {
    const bar = document.getElementById("pst-skip-link");
    if (!bar) return;
    boxes.forEach((box, index) => {
      box.id ||= `qkv-ex-${index + 1}`;
      const link = document.createElement("a");
      link.href = `#${box.id}`;
      link.className = "qkv-skip";
      link.textContent = `図 ${index + 1} の操作へスキップ`;
      link.addEventListener("click", (event) => {
        const first = box.querySelector(".qkv-ex button, .qkv-ex input");
        if (!first) return; // not mounted: the link goes to the box as any link would
        event.preventDefault();
        first.scrollIntoView({ block: "center" });
        first.focus({ preventScroll: true });
      });
      bar.append(link);
    });
  }

  function mountAll() {
    const boxes = document.querySelectorAll(".qkv-explorable");
    skipLinks(boxes);
    boxes.forEach((box, index) => {
      mount(box, index).catch((error) => {
        box.dataset.qkvError = String(error);
        console.error(error);
      });
    });
  }

  // The text away from the screen is not drawn for an explorable's frames (book/_static/qkv.css,
  // .qkv-near-screen-only): only once the page has been drawn with its fonts and pictures, so
  // that every block has a size to keep; while the window changes width, everything is drawn
  // (the kept sizes would be the old width's), and skipped again once it has settled.
  const NEAR = "qkv-near-screen-only";
  let settling = 0;
  function skipFarText() {
    clearTimeout(settling);
    settling = setTimeout(
      () =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => document.documentElement.classList.add(NEAR)),
        ),
      250,
    );
  }
  function drawEverything() {
    document.documentElement.classList.remove(NEAR);
    skipFarText();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
  const drawn = () => document.fonts.ready.then(skipFarText);
  if (document.readyState === "complete") drawn();
  else window.addEventListener("load", drawn, { once: true });
  window.addEventListener("resize", drawEverything);
})();
