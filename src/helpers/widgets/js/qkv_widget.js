// The widget runtime every explorable shares: `mount` builds the controls once, binds them to the
// model's traits and redraws the picture (drawn by the module with qkv_draw.js) on every change;
// `setter` is how a control or a drag sets a trait. The same code runs in JupyterLab (anywidget's
// model) and in the book (book/_ext's model shim).

import { spoken, subscriptParts } from "./qkv_math.js";

const SYNC_AFTER_MS = 200; // a held arrow key repeats every ~33 ms: it syncs once, when let go
const GLIDE_MS = 300; // a preset's way to its state (mount's `glide`)

// With reduced motion asked for (or no way to ask), nothing glides. The answer is kept, not
// asked again on every redraw.
const REDUCED = globalThis.matchMedia?.("(prefers-reduced-motion: reduce)");
let reduced = REDUCED?.matches ?? true;
REDUCED?.addEventListener?.("change", (event) => (reduced = event.matches));
const still = () => reduced;
// How far a glide begun at `start` is at `now` (0 … 1: a frame's time stamp may be a little
// before the glide began), eased in and out.
function eased(start, now) {
  const u = Math.min(1, Math.max(0, (now - start) / GLIDE_MS));
  return u < 0.5 ? 2 * u * u : 1 - 2 * (1 - u) ** 2;
}

// The presentation attributes a picture glides along (positions, sizes, colours) when a choice or
// a checkbox changes it (mount's `glideTo`); texts, names and values change at once.
const MOVING = new Set(["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height"]);
for (const name of ["points", "d", "fill", "transform", "style", "stroke-width", "opacity"])
  MOVING.add(name);
const NUMBER = /-?\d*\.?\d+(?:e[-+]?\d+)?/gi;

// What pairs a node of a picture before a redraw with one after it: its kind and its item
// (data-item, data-cell); among siblings with the same, the first with the first, and so on.
const slot = (node) =>
  node.nodeType === Node.ELEMENT_NODE
    ? `${node.nodeName} ${node.getAttribute("data-item") ?? node.getAttribute("data-cell") ?? ""}`
    : node.nodeName;

// Bring the children of `live` to those of `fresh` (a parse of the new picture, used up) with the
// fewest DOM changes: each child of `fresh` is paired with the child of `live` in its `slot`,
// which keeps its place and gets the new attributes and text (a part drawn only now, like a
// masked cell's hatching, is added and shifts no other); an unpaired old child is removed. A step
// of a slider moves a few arrows and numbers, so the browser lays out and paints those alone, and
// the titles and labels keep their shaped text. With `glides` (a list), a moving attribute whose
// numbers alone changed keeps the value it shows and is listed instead, as [node, attribute,
// final text, its text between the numbers, the numbers shown, the final numbers] (mount's
// `glideTo`): nothing is written twice and nothing is copied. A kept node keeps its tabindex.
function patch(live, fresh, glides = null) {
  const want = [...fresh.childNodes];
  const was = new Map();
  for (const node of live.childNodes) {
    const key = slot(node);
    if (was.has(key)) was.get(key).push(node);
    else was.set(key, [node]);
  }
  const pairs = want.map((next) => was.get(slot(next))?.shift());
  for (const unpaired of was.values()) for (const node of unpaired) node.remove();
  want.forEach((next, i) => {
    const have = pairs[i];
    const here = live.childNodes[i] ?? null;
    if (!have) return live.insertBefore(next, here);
    if (have !== here) live.insertBefore(have, here);
    if (have.nodeType === Node.TEXT_NODE) {
      if (have.data !== next.data) have.data = next.data;
      return;
    }
    if (have.nodeType !== Node.ELEMENT_NODE || have.isEqualNode(next)) return;
    const names = next.getAttributeNames(); // names, not Attr nodes: none made per redraw
    for (const name of names) {
      const now = next.getAttribute(name);
      const shown = have.getAttribute(name);
      if (shown === now || name === "tabindex") continue; // the tab stop is mount's (`rove`)
      if (glides && shown !== null && MOVING.has(name) && !now.includes("#")) {
        const parts = now.split(NUMBER);
        if (shown.split(NUMBER).join("#") === parts.join("#")) {
          glides.push([
            have,
            name,
            now,
            parts,
            shown.match(NUMBER).map(Number),
            now.match(NUMBER).map(Number),
          ]);
          continue;
        }
      }
      have.setAttribute(name, now);
    }
    if (have.attributes.length !== names.length)
      for (const name of have.getAttributeNames())
        if (!next.hasAttribute(name)) have.removeAttribute(name);
    patch(have, next, glides);
  });
}

// `set(trait, value)` for a control or a drag: the picture follows at once (model.set is local),
// the kernel hears of it when the hand pauses. A message per key press or drag step made
// JupyterLab redraw its kernel status on every frame, and the kernel echoed each value back.
// `settled()` (optional) runs then too: the live region says the result once, not per step.
export function setter(model, settled = () => {}) {
  let pending = 0;
  return (trait, value) => {
    model.set(trait, value);
    clearTimeout(pending);
    pending = setTimeout(() => {
      model.save_changes();
      settled();
    }, SYNC_AFTER_MS);
  };
}

// A control's name is its visible label (WCAG 2.5.3: a speech user says what they see); the
// reading of its symbols in words, where it differs, is its description.
function described(node, label) {
  if (spoken(label) !== label) node.setAttribute("aria-description", spoken(label));
  return node;
}

// Visible text outside the pictures (a label, a button, the readout) with each symbol's subscript
// as <sub>, as the pictures draw it: 「W<sub>Q</sub> の角度」, never 「W_Q の角度」. Its name is that
// text (「WQ の角度」); how it is read in words stays its description (`described`). Written only
// when it changed: setting even the same text lays the page out again.
function write(node, s) {
  const text = String(s);
  if (node.qkvText === text) return;
  node.qkvText = text;
  node.replaceChildren(
    ...subscriptParts(text).flatMap(([before, low]) => {
      if (!low) return [before];
      const sub = document.createElement("sub");
      sub.textContent = low;
      return [before, sub];
    }),
  );
}

function el(tag, cls, attrs = {}) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  // JupyterLab binds bare arrow keys in command mode, and its shortcut matching looks at the
  // focused element itself before its parents: every input keeps Lab's shortcuts off itself.
  if (tag === "input") node.setAttribute("data-lm-suppress-shortcuts", "true");
  return node;
}

const ARROW_STEP = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

// One control, bound to one trait. Kinds: "range" (numbers; `scale: "log"` moves in log10;
// `options` walks through a list), "checkbox", "choice" (a row of radio buttons).
function control(spec, model, onInput) {
  const box = el("div", "qkv-control");
  const id = `qkv-${Math.random().toString(36).slice(2)}`;
  if (spec.kind === "checkbox") {
    const input = described(el("input", "", { type: "checkbox", id }), spec.label);
    const label = el("label", "", { for: id });
    write(label, spec.label);
    box.append(input, label);
    input.addEventListener("change", () => onInput(spec.trait, input.checked));
    return { box, show: (v) => (input.checked = Boolean(v)) };
  }
  if (spec.kind === "choice") {
    const group = el("div", "qkv-choice", { role: "radiogroup", "aria-labelledby": `${id}-name` });
    described(group, spec.label);
    const name = el("span", "qkv-label", { id: `${id}-name` });
    write(name, spec.label);
    group.append(name);
    const inputs = spec.options.map(({ label, value }, i) => {
      const input = el("input", "", { type: "radio", name: id, id: `${id}-${i}` });
      const tag = el("label", "", { for: `${id}-${i}` });
      write(tag, label);
      input.addEventListener("change", () => input.checked && onInput(spec.trait, value));
      group.append(input, tag);
      return input;
    });
    // An arrow key moves the choice as a radio group's does (← ↑ the one before, → ↓ the next,
    // round from the last to the first), answered here: the browser's own answer fires a click
    // before the change, which the book's theme meets with queries over the whole document.
    group.addEventListener("keydown", (event) => {
      const at = inputs.indexOf(event.target);
      const step = ARROW_STEP[event.key];
      if (at < 0 || !step || event.defaultPrevented || event.isComposing) return;
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      const to = (at + step + inputs.length) % inputs.length;
      inputs[to].checked = true;
      inputs[to].focus();
      onInput(spec.trait, spec.options[to].value);
    });
    box.append(group);
    return {
      box,
      show: (v) => spec.options.forEach(({ value }, i) => (inputs[i].checked = value === v)),
    };
  }
  // range
  // A log slider moves in log10 units, in a whole number of equal steps from min to max (so both
  // ends are stops), and says its value to 3 significant digits, never past either end: the
  // trait refuses 0.04999… when its minimum is 0.05.
  const log = spec.scale === "log";
  const within = (v) => Math.min(spec.max, Math.max(spec.min, v));
  const toSlider = spec.options ? (v) => spec.options.indexOf(v) : log ? Math.log10 : (v) => v;
  const fromSlider = spec.options
    ? (i) => spec.options[i]
    : log
      ? (u) => within(Number((10 ** u).toPrecision(3)))
      : (u) => within(u);
  const span = log ? Math.log10(spec.max) - Math.log10(spec.min) : 0;
  const [lo, hi, step] = spec.options
    ? [0, spec.options.length - 1, 1]
    : log
      ? [Math.log10(spec.min), Math.log10(spec.max), span / Math.round(span / spec.step)]
      : [spec.min, spec.max, spec.step];
  box.classList.add("qkv-range");
  const label = el("label", "qkv-label", { for: id });
  write(label, spec.label);
  const input = described(
    el("input", "", { type: "range", id, min: lo, max: hi, step }),
    spec.label,
  );
  const out = el("output", "", { for: id });
  const format = spec.format ?? ((v) => String(v));
  box.append(label, input, out);
  input.addEventListener("input", () => onInput(spec.trait, fromSlider(Number(input.value))));
  // A click anywhere on the control leaves the keyboard on the slider.
  box.addEventListener("pointerup", () => input.focus());
  // A value part way (`e` from 0 to 1) from `a` to `b`, on one of the slider's stops: what a
  // preset's glide shows on the way (mount's `glide`). A slider over a list jumps.
  const between = spec.options
    ? null
    : (a, b, e) => {
        const u = toSlider(a) + (toSlider(b) - toSlider(a)) * e;
        return fromSlider(Number((lo + Math.round((u - lo) / step) * step).toFixed(12)));
      };
  return {
    box,
    between,
    show: (v) => {
      input.value = String(toSlider(v));
      input.setAttribute("aria-valuetext", spoken(format(v)));
      write(out, format(v));
    },
  };
}

// Whether `value` is one control `spec` can take (a state from a preset or from the page's URL).
function accepts(spec, value) {
  if (spec.kind === "checkbox") return typeof value === "boolean";
  if (spec.kind === "choice") return spec.options.some((o) => o.value === value);
  if (spec.options) return spec.options.includes(value);
  return Number.isFinite(value) && value >= spec.min && value <= spec.max;
}

// Build an explorable in `el`. `controls`: specs as above, one per control trait; a spec with
// `panel: k` sits right above panel k (an explorable with many controls keeps each next to the
// picture it moves), the others in one bar on top, which stays in view while the panels scroll
// past. `data`: the names of the other traits the picture reads (the learner's arrays).
// `draw(traits)` returns { panels: [svg strings], alt, readout, announce, numbers }, `traits`
// holding every trait named; `announce` (else `readout`) is what the live region says once a
// control settles. `drag` (optional) moves controls by dragging in a panel (see `dragging`).
// `presets`: [{ label, state, fold }], the states the chapter's text asks the reader to try, each a
// button (a state naming a choice the data lacks is left out; with `fold`, inside a fold of that
// name), and a reset to the first state.
// `root.qkvApply(state)` sets the controls named in `state` that can take their value (the
// book's URL) and returns the names it refused.
export function mount({ model, el: root, controls, data = [], draw, drag = null, presets = [] }) {
  root.classList.add("qkv-ex");
  const bar = el("div", "qkv-controls");
  // A group, not an image: panels may carry their own controls. Its name states the numbers.
  const picture = el("div", "qkv-panels", { role: "group" });
  const readout = el("p", "qkv-readout");
  // For the eye (symbols with <sub>: 「WQ」 would be read as letters): a screen reader hears the
  // same in words from the focused item's name (qkv_draw's `item`), and the live region.
  const hint = el("p", "qkv-hint", { "aria-hidden": "true" });
  const live = el("p", "qkv-live", { "aria-live": "polite", role: "status" });
  const traits = controls.map((c) => c.trait);
  let said = "";
  const announce = () => {
    if (live.textContent !== said) live.textContent = said;
  };
  const set = setter(model, announce);
  const specOf = Object.fromEntries(controls.map((c) => [c.trait, c]));
  const usable = (state) =>
    Object.entries(state).every(([t, v]) => specOf[t] && accepts(specOf[t], v));
  const apply = (state) => {
    const refused = Object.keys(state).filter((t) => !specOf[t] || !accepts(specOf[t], state[t]));
    for (const [t, v] of Object.entries(state)) if (!refused.includes(t)) set(t, v);
    return refused;
  };
  root.qkvApply = apply;
  const first = Object.fromEntries(traits.map((t) => [t, model.get(t)]));
  const choices = [
    ...presets.filter(({ state }) => usable(state)),
    { label: "最初に戻す", state: first },
  ];
  const buttons = choices.map(({ label, state }) => {
    const button = el("button", "qkv-preset", { type: "button", "aria-pressed": "false" });
    write(button, label);
    described(button, label); // its name is its visible text
    button.addEventListener("click", () => glide(state));
    return button;
  });
  const presetBar = el("div", "qkv-presets", { role: "group", "aria-label": "試してほしい状態" });
  // A preset with a `fold` (the states an answer names: the text asks the reader to find them
  // first) is in a fold of that name, which the reader opens; the reset stays last.
  const folds = new Map();
  choices.forEach(({ fold }, i) => {
    if (fold && !folds.has(fold)) {
      const details = el("details", "qkv-preset-fold");
      const summary = el("summary", "qkv-preset");
      write(summary, fold);
      details.append(summary);
      presetBar.append(details);
      folds.set(fold, details);
    }
    (fold ? folds.get(fold) : presetBar).append(buttons[i]);
  });
  root.replaceChildren(presetBar, bar, picture, hint, readout, live);
  const unfit = fitHeight(root, readout);
  // Linked highlighting: hovering an item (a word, a book, a heatmap's row: qkv_draw's `item`)
  // lights it in every panel, dims the rest and says its exact values under the picture; a
  // heatmap's cell under the pointer (`data-cell`) is framed and said first, with its value.
  let lit = null;
  let litCell = null;
  const light = (name, cell = null) => {
    lit = name;
    litCell = name === null ? null : cell;
    picture.classList.toggle("qkv-linking", name !== null);
    for (const node of picture.querySelectorAll(".qkv-lit, .qkv-lit-cell"))
      node.classList.remove("qkv-lit", "qkv-lit-cell");
    const marks =
      name === null ? [] : picture.querySelectorAll(`[data-item="${CSS.escape(name)}"]`);
    for (const node of marks) node.classList.add("qkv-lit");
    const values = [...marks].map((node) => node.dataset.value).filter(Boolean);
    let said = name;
    if (litCell?.isConnected) {
      litCell.classList.add("qkv-lit-cell");
      said = litCell.dataset.value; // "row → column value"
    }
    write(hint, name === null ? "" : [said, ...values].join("、"));
  };
  picture.addEventListener("pointerover", (event) => {
    const name = event.target.closest?.("[data-item]")?.dataset.item ?? null;
    const cell = event.target.closest?.("[data-cell]") ?? null;
    if (name !== lit || cell !== litCell) light(name, cell);
  });
  picture.addEventListener("pointerleave", () => lit !== focused && light(focused));
  // The keyboard does the same: Tab reaches the picture's items once (one of them is in the tab
  // order, the one last visited), the arrow keys go from item to item (in the same panel where
  // it has the next one), Home and End to the first and last; the focused item is lit.
  let focused = null; // the item the keyboard is on
  let stop = null; // the item in the tab order: the last one visited, else the first
  const itemNodes = () => [...picture.querySelectorAll("[data-item]")];
  const rove = () => {
    const nodes = itemNodes();
    const on =
      nodes.find((n) => n === document.activeElement) ??
      nodes.find((n) => n.dataset.item === stop) ??
      nodes[0];
    for (const n of nodes) {
      const want = n === on ? "0" : "-1";
      if (n.getAttribute("tabindex") !== want) n.setAttribute("tabindex", want);
    }
  };
  picture.setAttribute("data-lm-suppress-shortcuts", "true"); // JupyterLab: arrows stay here
  picture.addEventListener("focusin", (event) => {
    const node = event.target.closest?.("[data-item]");
    if (!node) return;
    focused = stop = node.dataset.item;
    rove();
    light(focused);
  });
  picture.addEventListener("focusout", (event) => {
    if (event.relatedTarget?.closest?.("[data-item]") && picture.contains(event.relatedTarget))
      return;
    focused = null;
    light(null);
  });
  const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  picture.addEventListener("keydown", (event) => {
    const node = event.target.closest?.("[data-item]");
    if (!node || !(event.key in STEPS || event.key === "Home" || event.key === "End")) return;
    event.preventDefault();
    event.stopPropagation();
    const nodes = itemNodes();
    const order = [...new Set(nodes.map((n) => n.dataset.item))];
    const at = order.indexOf(node.dataset.item);
    const next =
      event.key === "Home"
        ? 0
        : event.key === "End"
          ? order.length - 1
          : Math.min(order.length - 1, Math.max(0, at + STEPS[event.key]));
    const named = nodes.filter((n) => n.dataset.item === order[next]);
    (named.find((n) => n.ownerSVGElement === node.ownerSVGElement) ?? named[0]).focus();
  });
  // JupyterLab's notebook takes the focus on mousedown (to select the cell), and a page's own key
  // handlers (the book's theme reads the layout on every key) cost a frame: the controls keep
  // their presses and keys to themselves.
  const keep = (node) =>
    ["mousedown", "pointerdown", "keydown", "keyup"].forEach((t) =>
      node.addEventListener(t, (e) => e.stopPropagation()),
    );
  keep(bar);
  keep(presetBar);
  // A preset glides there (GLIDE_MS, easing in and out) so the eye can follow what moved; the
  // sliders step through their stops on the way, the other controls land at once. Any control
  // moved by hand stops it; with reduced motion asked for, it lands at once.
  let gliding = 0;
  const byHand = (trait, value) => {
    cancelAnimationFrame(gliding);
    set(trait, value);
  };
  const bound = controls.map((spec) => control(spec, model, byHand));
  const glide = (state) => {
    cancelAnimationFrame(gliding);
    const ways = {}; // trait → [from, to, between] of each slider that moves
    bound.forEach(({ between }, i) => {
      const t = traits[i];
      if (between && t in state && accepts(controls[i], state[t]) && model.get(t) !== state[t])
        ways[t] = [model.get(t), state[t], between];
    });
    apply(Object.fromEntries(Object.entries(state).filter(([t]) => !(t in ways))));
    const instant = still();
    const start = performance.now();
    const frame = (now) => {
      const e = instant ? 1 : eased(start, now);
      for (const [t, [a, b, between]] of Object.entries(ways)) set(t, e < 1 ? between(a, b, e) : b);
      if (e < 1) gliding = requestAnimationFrame(frame);
    };
    frame(start);
  };
  bound.forEach(({ box }, i) => controls[i].panel === undefined && bar.append(box));
  bar.hidden = !bar.childElementCount;
  bar.classList.toggle("qkv-many", bar.childElementCount >= 3); // too tall to stick (qkv.css)
  const names = [...traits, ...data];
  const dragPanels = drag && !drag.grab ? (drag.panels ?? [drag.panel]) : []; // dragged anywhere
  let hosts = [];
  let drawn = [];
  const shown = []; // the value each control shows now
  const scratch = document.createElement("template"); // where a new panel is parsed, off the page
  function layout(count) {
    // One cell per panel: its own controls (if any), then the drawing. Built again only when
    // the number of panels changes, so a control keeps its focus while it is moved.
    hosts = [];
    drawn = [];
    glides.length = 0; // the old panels' glides end with them
    picture.replaceChildren();
    for (let k = 0; k < count; k++) {
      const cell = el("div", "qkv-cell");
      const own = bound.filter((_, i) => controls[i].panel === k);
      if (own.length) {
        const controlsOfPanel = el("div", "qkv-controls qkv-panel-controls");
        keep(controlsOfPanel);
        own.forEach(({ box }) => controlsOfPanel.append(box));
        cell.append(controlsOfPanel);
      }
      const host = el("div", dragPanels.includes(k) ? "qkv-host qkv-drag" : "qkv-host");
      cell.append(host);
      picture.append(cell);
      hosts.push(host);
    }
  }
  // A choice or a checkbox has no values between its own: when one alone changed the picture (by
  // hand, from a preset or from Python), the picture glides from what it showed to what it shows
  // now (GLIDE_MS, eased as a preset's glide): each shape's position, size and colour moves there,
  // its texts and values are the new ones at once. The key press writes only what changes at once
  // (patch lists the rest), and the animation frames move the rest. Another redraw of a panel
  // takes its glide over from where it is. While it glides, the root says so (data-qkv-gliding):
  // the picture is the state's once it is gone.
  const glides = []; // by panel: { start, shown, moving } while it glides
  let morphing = 0;
  const morph = (now) => {
    let on = false;
    glides.forEach((glide, k) => {
      if (!glide) return;
      const e = eased(glide.start, now);
      const done = e === 1;
      // a step the eye can see: else nothing to repaint
      if (done || e - glide.shown >= 0.01) {
        glide.shown = e;
        for (const [node, name, end, parts, x, y] of glide.moving) {
          const at = (i) => +(x[i] + (y[i] - x[i]) * e).toFixed(3);
          node.setAttribute(
            name,
            done ? end : parts.reduce((t, part, i) => t + part + (i < x.length ? at(i) : ""), ""),
          );
        }
      }
      if (done) glides[k] = null;
      else on = true;
    });
    morphing = on ? requestAnimationFrame(morph) : 0;
    if (!on) delete root.dataset.qkvGliding;
  };
  const glideTo = (k, moving) => {
    glides[k] = moving?.length ? { start: performance.now(), shown: 0, moving } : null;
    const on = glides.some(Boolean);
    if (on && !morphing) {
      root.dataset.qkvGliding = "true";
      morphing = requestAnimationFrame(morph);
    } else if (!on && morphing) {
      cancelAnimationFrame(morphing);
      morphing = 0;
      delete root.dataset.qkvGliding;
    }
  };
  const DISCRETE = ["choice", "checkbox"];
  function redraw() {
    const values = Object.fromEntries(names.map((t) => [t, model.get(t)]));
    const changed = bound.map((_, i) => i in shown && shown[i] !== values[traits[i]]);
    const turned =
      changed.some((c, i) => c && DISCRETE.includes(controls[i].kind)) &&
      !changed.some((c, i) => c && !DISCRETE.includes(controls[i].kind)) &&
      !still();
    // Only what changed is written: setting even the same text lays the page out again.
    bound.forEach(({ show }, i) => {
      if (shown[i] !== values[traits[i]]) show((shown[i] = values[traits[i]]));
    });
    const pic = draw(values);
    if (hosts.length !== pic.panels.length) layout(pic.panels.length);
    pic.panels.forEach((panel, k) => {
      if (drawn[k] === panel) return; // unchanged: nothing to parse, lay out or paint
      drawn[k] = panel;
      if (hosts[k].firstChild) {
        scratch.innerHTML = panel;
        const moving = turned ? [] : null;
        patch(hosts[k], scratch.content, moving);
        glideTo(k, moving);
      } else hosts[k].innerHTML = panel;
      // The host's size comes from the panel's viewBox, not from its content (qkv.css: contain),
      // so a redraw lays out and paints this panel alone, not the page around it.
      const [box, w, h] = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(panel) ?? [];
      if (w && hosts[k].dataset.box !== box) {
        hosts[k].dataset.box = box;
        Object.assign(hosts[k].style, { aspectRatio: `${w} / ${h}`, maxWidth: `${w * 1.4}px` });
      }
    });
    const alt = spoken(pic.alt);
    if (picture.getAttribute("aria-label") !== alt) picture.setAttribute("aria-label", alt);
    write(readout, pic.readout ?? "");
    said = spoken(pic.announce ?? pic.readout ?? "");
    if (lit !== null) light(lit, litCell); // a redraw drew the items anew
    rove();
    choices.forEach(({ state }, i) => {
      const on = String(Object.entries(state).every(([t, v]) => values[t] === v));
      if (buttons[i].getAttribute("aria-pressed") !== on)
        buttons[i].setAttribute("aria-pressed", on);
    });
    // What the picture shows and for which state: tests hold these numbers to numpy's. The data
    // (which can be large) is written only when it changes.
    root.dataset.qkvState = JSON.stringify(Object.fromEntries(traits.map((t) => [t, values[t]])));
    root.dataset.qkvNumbers = JSON.stringify(pic.numbers ?? {});
  }
  const writeData = () =>
    (root.dataset.qkvData = JSON.stringify(Object.fromEntries(data.map((t) => [t, model.get(t)]))));
  writeData();
  data.forEach((t) => model.on(`change:${t}`, writeData));
  const events = names.map((t) => `change:${t}`);
  events.forEach((e) => model.on(e, redraw));
  const undrag = drag
    ? dragging(picture, drag, () => Object.fromEntries(names.map((t) => [t, model.get(t)])), byHand)
    : () => {};
  redraw();
  return () => {
    events.forEach((e) => model.off(e, redraw));
    data.forEach((t) => model.off(`change:${t}`, writeData));
    undrag();
    unfit();
  };
}

// The explorable's own height written on it (`--qkv-height`, the bottom of `last`, its last part
// in the flow): on a screen qkv.css then contains its size (`contain: strict`), so a key press
// lays out the explorable alone, not the notebook or the page around it (in JupyterLab a press
// laid out the document from its root). A ResizeObserver on its parts keeps it: a fold opened, a
// narrower window, a readout on more lines are measured after that frame's layout and laid out
// again before its paint. Returns the unbinder.
function fitHeight(root, last) {
  if (typeof ResizeObserver === "undefined") return () => {};
  const fit = () => {
    const style = getComputedStyle(root);
    const edge = (side) =>
      parseFloat(style[`padding${side}`]) + parseFloat(style[`border${side}Width`]);
    const [top, bottom] = style.boxSizing === "border-box" ? [0, edge("Bottom")] : [edge("Top"), 0];
    const from = root.getBoundingClientRect().top + top;
    const height = `${Math.max(0, last.getBoundingClientRect().bottom + bottom - from)}px`;
    if (root.style.getPropertyValue("--qkv-height") !== height)
      root.style.setProperty("--qkv-height", height);
  };
  const watch = new ResizeObserver(fit);
  for (const part of root.children) watch.observe(part);
  return () => watch.disconnect();
}

// The one drag system. `drag` = { panel (or panels: a list), plane, set, grab }: a press in one of
// those panels (an <svg> that nests no other) and every move until it is let go call
// `set(x, y, k, traits)` with the point in the data units of `plane` (an object with `back(px, py)`,
// or a function of the traits giving one) and the panel's index `k`; it returns the traits to set.
// With `grab(k, px, py, traits)` (SVG units), only a press it accepts starts a drag, and only there
// does a finger not scroll the page (a panel dragged anywhere says so in CSS: .qkv-drag). A press
// that starts a drag is cancelled, so it never selects the picture's text. Returns the unbinder.
function dragging(picture, drag, current, set) {
  const panels = drag.panels ?? [drag.panel];
  const planeOf = () => (typeof drag.plane === "function" ? drag.plane(current()) : drag.plane);
  const local = (at, panel) => {
    const m = panel?.getScreenCTM();
    return m ? new DOMPoint(at.clientX, at.clientY).matrixTransform(m.inverse()) : null;
  };
  // The index of the panel a press at `at` (a pointer event or a touch) drags, or null.
  const target = (at) => {
    const panel = at.target?.closest?.("svg");
    const k = panel ? [...picture.querySelectorAll("svg")].indexOf(panel) : -1;
    if (!panels.includes(k)) return null;
    if (!drag.grab) return k;
    const pt = local(at, panel);
    return pt && drag.grab(k, pt.x, pt.y, current()) ? k : null;
  };
  let active = null;
  const move = (event) => {
    const pt = local(event, picture.querySelectorAll("svg")[active]);
    if (!pt) return;
    const [x, y] = planeOf().back(pt.x, pt.y);
    for (const [trait, value] of Object.entries(drag.set(x, y, active, current())))
      set(trait, value);
  };
  const down = (event) => {
    active = target(event);
    if (active === null) return;
    event.preventDefault();
    picture.setPointerCapture(event.pointerId);
    move(event);
  };
  // A touch that starts on a handle must not scroll the page (touch-action does not reach an SVG
  // shape in Chromium): only a cancelled touchstart keeps the browser from panning.
  const touch = (event) => {
    if (drag.grab && event.touches.length === 1) {
      const at = {
        target: event.target,
        clientX: event.touches[0].clientX,
        clientY: event.touches[0].clientY,
      };
      if (target(at) !== null) event.preventDefault();
    }
  };
  const handlers = [
    ["pointerdown", down],
    ["pointermove", (event) => active !== null && move(event)],
    ["pointerup", () => (active = null)],
    ["pointercancel", () => (active = null)],
    ["touchstart", touch],
  ];
  for (const [type, handler] of handlers)
    picture.addEventListener(type, handler, { passive: false });
  return () => handlers.forEach(([type, handler]) => picture.removeEventListener(type, handler));
}
