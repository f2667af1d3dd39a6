// What every explorable shares: SVG pictures as strings (bars, heatmaps, arrows on a plane) and
// `mount`, which builds the controls once, binds them to the model's traits and redraws the
// picture on every change. The same code runs in JupyterLab (anywidget's model) and in the book
// (book/_ext's model shim). Colours come from CSS variables (qkv.css), so the theme's dark mode
// and the book's Q/K/V palette apply.

export const FONT = 14; // user units; every panel is PANEL wide, so ≥ 12 CSS px once stacked on a phone
export const PANEL = 300;
const SYNC_AFTER_MS = 200; // a held arrow key repeats every ~33 ms: it syncs once, when let go

// About how wide `s` is drawn, in SVG units at font size `size`: a kana or kanji (or any other
// character past Latin-1) is about 1 em, a Latin letter or digit about 0.6 em. Labels are placed
// and columns are checked for crowding with it (the picture is a string; nothing is measured).
export function textWidth(s, size = FONT) {
  let w = 0;
  for (const c of String(s)) w += c.codePointAt(0) > 0xff ? size : 0.6 * size;
  return w;
}

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// A number as the book prints it: fixed digits, never "-0.00".
export function fmt(v, digits = 2) {
  if (Number.isNaN(v)) return "—";
  const s = v.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

export function text(x, y, s, { size = FONT, anchor = "middle", base = "central", fill = "var(--qkv-fg)", weight = "normal", rotate = 0, cls = "" } = {}) {
  const turn = rotate ? ` transform="rotate(${rotate} ${x} ${y})"` : "";
  return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" dominant-baseline="${base}" style="fill:${fill}" font-weight="${weight}"${turn}${cls ? ` class="${cls}"` : ""}>${esc(s)}</text>`;
}

export function svg(width, height, body, { cls = "", label = "" } = {}) {
  const name = label ? ` aria-label="${esc(label)}"` : ' aria-hidden="true"';
  return `<svg class="qkv-panel ${cls}" viewBox="0 0 ${width} ${height}" style="--qkv-w:${width}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg"${name}>${body}</svg>`;
}

// A bar chart: one bar per label, the value printed at its end, the highlighted bar outlined.
export function bars({ labels, values, lo, hi, title, color = "var(--qkv-x)", highlight = null, width = PANEL, height = 230, digits = 2 }) {
  const top = 30;
  const bottom = height - 44;
  const left = 12;
  const step = (width - 2 * left) / labels.length;
  const y = (v) => bottom - ((Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * (bottom - top);
  const zero = y(Math.max(lo, Math.min(0, hi)));
  let body = text(width / 2, 12, title, { weight: "bold" });
  body += `<line x1="${left}" x2="${width - left}" y1="${zero}" y2="${zero}" style="stroke:var(--qkv-axis)" stroke-width="1"/>`;
  labels.forEach((label, i) => {
    const v = Number.isNaN(values[i]) ? 0 : values[i];
    const x = left + i * step + step * 0.15;
    const w = step * 0.7;
    const yv = y(v);
    const outline = i === highlight ? ' style="stroke:var(--qkv-fg)" stroke-width="2.5"' : "";
    body += `<rect x="${x}" y="${Math.min(yv, zero)}" width="${w}" height="${Math.abs(zero - yv)}" style="fill:${color}"/>`;
    if (outline) body += `<rect x="${x}" y="${Math.min(yv, zero)}" width="${w}" height="${Math.max(Math.abs(zero - yv), 1)}" fill="none"${outline}/>`;
    const above = v >= 0;
    body += text(x + w / 2, above ? yv - 8 : yv + 9, fmt(values[i], digits), { size: FONT - 1 });
    const long = labels.some((l) => textWidth(l) > step * 1.1);
    body += long
      ? text(x + w / 2, bottom + 6, label, { anchor: "end", base: "central", rotate: -40 })
      : text(x + w / 2, bottom + 14, label);
  });
  return svg(width, height, body);
}

// Matplotlib's Blues and RdBu_r, a few stops each, interpolated linearly in sRGB.
const MAPS = {
  Blues: ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"],
  RdBu_r: ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f"],
};

function rgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

export function colormap(name, t) {
  const stops = MAPS[name];
  const u = Math.min(Math.max(t, 0), 1) * (stops.length - 1);
  const i = Math.min(Math.floor(u), stops.length - 2);
  const a = rgb(stops[i]);
  const b = rgb(stops[i + 1]);
  const c = a.map((v, k) => Math.round(v + (b[k] - v) * (u - i)));
  const light = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 150;
  return { fill: `rgb(${c.join(",")})`, ink: light ? "#111111" : "#ffffff" };
}

// A labelled heatmap: rows = who looks (問い), columns = who is looked at (見出し), a number in
// each cell, `outline` a list of [row, col] cells framed, `hatch` cells crossed out (masked).
export function heatmap({ M, rows, cols, lo, hi, title, cmap = "Blues", rowTitle = "問い(見る側)", colTitle = "見出し(見られる側)", digits = 2, outline = [], hatch = [], width = PANEL }) {
  const longest = Math.max(...rows.map((r) => String(r).length));
  const left = 34 + longest * FONT;
  const top = 58;
  const cell = Math.min(44, (width - left - 10) / cols.length);
  const height = top + cell * rows.length + 14;
  let body = text(width / 2, 12, title, { weight: "bold" });
  body += text(left + (cell * cols.length) / 2, 32, colTitle, { size: FONT - 1, fill: "var(--qkv-muted)" });
  body += text(12, top + (cell * rows.length) / 2, rowTitle, { size: FONT - 1, fill: "var(--qkv-muted)", rotate: -90 });
  cols.forEach((c, j) => {
    body += text(left + (j + 0.5) * cell, top - 10, c, { size: FONT - 1 });
  });
  rows.forEach((r, i) => {
    body += text(left - 6, top + (i + 0.5) * cell, r, { anchor: "end", size: FONT - 1 });
    cols.forEach((_, j) => {
      const v = M[i][j];
      const { fill, ink } = colormap(cmap, (v - lo) / (hi - lo));
      const x = left + j * cell;
      const y = top + i * cell;
      body += `<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${fill}"/>`;
      if (cell >= 30) body += text(x + cell / 2, y + cell / 2, fmt(v, digits), { size: FONT - 2, fill: ink });
    });
  });
  for (const [i, j] of hatch) {
    const x = left + j * cell;
    const y = top + i * cell;
    body += `<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="url(#qkv-hatch)" style="stroke:var(--qkv-muted)"/>`;
  }
  for (const [i, j, style = "solid"] of outline) {
    const dash = style === "dashed" ? ' stroke-dasharray="5 3"' : "";
    body += `<rect x="${left + j * cell + 1.5}" y="${top + i * cell + 1.5}" width="${cell - 3}" height="${cell - 3}" fill="none" style="stroke:var(--qkv-frame)" stroke-width="3"${dash}/>`;
  }
  const defs = hatch.length
    ? '<defs><pattern id="qkv-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" style="fill:var(--qkv-bg)"/><line x1="0" y1="0" x2="0" y2="6" style="stroke:var(--qkv-muted)" stroke-width="2"/></pattern></defs>'
    : "";
  return svg(width, height, defs + body);
}

// A square plane from -lim to lim with both axes; `at(x, y)` maps data to SVG units, and
// `back(px, py)` maps them back (dragging in the picture uses it).
export function plane(lim, size = PANEL, pad = 34) {
  const span = size - 2 * pad;
  const at = (x, y) => [pad + ((x + lim) / (2 * lim)) * span, pad + ((lim - y) / (2 * lim)) * span];
  const back = (px, py) => [((px - pad) / span) * 2 * lim - lim, lim - ((py - pad) / span) * 2 * lim];
  return { lim, size, pad, at, back };
}

export function planeAxes(p, { title = "", xLabel = "", yLabel = "" } = {}) {
  const [x0, y0] = p.at(-p.lim, 0);
  const [x1] = p.at(p.lim, 0);
  const [, yTop] = p.at(0, p.lim);
  const [xc, yBottom] = p.at(0, -p.lim);
  let body = `<rect x="${p.pad}" y="${p.pad}" width="${p.size - 2 * p.pad}" height="${p.size - 2 * p.pad}" fill="none" style="stroke:var(--qkv-axis)"/>`;
  body += `<line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y0}" style="stroke:var(--qkv-axis)"/>`;
  body += `<line x1="${xc}" x2="${xc}" y1="${yTop}" y2="${yBottom}" style="stroke:var(--qkv-axis)"/>`;
  if (title) body += text(p.size / 2, 12, title, { weight: "bold" });
  if (xLabel) body += text(p.size / 2, p.size - 10, xLabel, { size: FONT - 1, fill: "var(--qkv-muted)" });
  if (yLabel) body += text(12, p.size / 2, yLabel, { size: FONT - 1, fill: "var(--qkv-muted)", rotate: -90 });
  return body;
}

// An arrow from the origin to (x, y) on plane `p`, with an optional label past its tip.
export function arrow(p, x, y, { color = "var(--qkv-x)", width = 2.5, label = "", labelColor = null, dash = false } = {}) {
  const [ox, oy] = p.at(0, 0);
  const [tx, ty] = p.at(x, y);
  const len = Math.hypot(tx - ox, ty - oy);
  let body = "";
  if (len > 0.5) {
    const ux = (tx - ox) / len;
    const uy = (ty - oy) / len;
    const head = Math.min(10 + width, len);
    const bx = tx - ux * head;
    const by = ty - uy * head;
    const side = head * 0.45;
    const d = dash ? ' stroke-dasharray="4 3"' : "";
    body += `<line x1="${ox}" y1="${oy}" x2="${bx}" y2="${by}" style="stroke:${color}" stroke-width="${width}"${d}/>`;
    body += `<polygon points="${tx},${ty} ${bx - uy * side},${by + ux * side} ${bx + uy * side},${by - ux * side}" style="fill:${color}"/>`;
  }
  if (label) {
    const right = x >= 0;
    body += text(tx + (right ? 5 : -5), ty + (y >= 0 ? -9 : 11), label, { anchor: right ? "start" : "end", fill: labelColor ?? color, cls: "qkv-halo" });
  }
  return body;
}

// Bring the children of `live` to those of `fresh` with the fewest DOM changes: a node of the
// same kind keeps its place and gets the new attributes and text; another kind is replaced. A
// step of a slider moves a few arrows and numbers, so the browser lays out and paints those
// alone, and the titles and labels keep their shaped text.
function patch(live, fresh) {
  const want = fresh.childNodes;
  while (live.childNodes.length > want.length) live.lastChild.remove();
  for (let i = 0; i < want.length; i++) {
    const have = live.childNodes[i];
    const next = want[i];
    if (!have) live.append(next.cloneNode(true));
    else if (have.nodeName !== next.nodeName) have.replaceWith(next.cloneNode(true));
    else if (have.nodeType === Node.TEXT_NODE) { if (have.data !== next.data) have.data = next.data; }
    else if (have.nodeType === Node.ELEMENT_NODE) {
      for (const { name, value } of next.attributes) if (have.getAttribute(name) !== value) have.setAttribute(name, value);
      for (const { name } of [...have.attributes]) if (!next.hasAttribute(name)) have.removeAttribute(name);
      patch(have, next);
    }
  }
}

// `set(trait, value)` for a control or a drag: the picture follows at once (model.set is local),
// the kernel hears of it when the hand pauses. A message per key press or drag step made
// JupyterLab redraw its kernel status on every frame, and the kernel echoed each value back.
export function setter(model) {
  let pending = 0;
  return (trait, value) => {
    model.set(trait, value);
    clearTimeout(pending);
    pending = setTimeout(() => model.save_changes(), SYNC_AFTER_MS);
  };
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

// One control, bound to one trait. Kinds: "range" (numbers; `scale: "log"` moves in log10;
// `options` walks through a list), "checkbox", "choice" (a row of radio buttons).
function control(spec, model, onInput) {
  const box = el("div", "qkv-control");
  const id = `qkv-${Math.random().toString(36).slice(2)}`;
  if (spec.kind === "checkbox") {
    const input = el("input", "", { type: "checkbox", id });
    const label = el("label", "", { for: id });
    label.textContent = spec.label;
    box.append(input, label);
    input.addEventListener("change", () => onInput(spec.trait, input.checked));
    return { box, show: (v) => (input.checked = Boolean(v)) };
  }
  if (spec.kind === "choice") {
    const group = el("div", "qkv-choice", { role: "radiogroup", "aria-label": spec.label });
    const name = el("span", "qkv-label");
    name.textContent = spec.label;
    group.append(name);
    const inputs = spec.options.map(({ label, value }, i) => {
      const input = el("input", "", { type: "radio", name: id, id: `${id}-${i}` });
      const tag = el("label", "", { for: `${id}-${i}` });
      tag.textContent = label;
      input.addEventListener("change", () => input.checked && onInput(spec.trait, value));
      group.append(input, tag);
      return input;
    });
    box.append(group);
    return { box, show: (v) => spec.options.forEach(({ value }, i) => (inputs[i].checked = value === v)) };
  }
  // range
  // A log slider moves in log10 units, in a whole number of equal steps from min to max (so both
  // ends are stops), and says its value to 3 significant digits, never past either end: the
  // trait refuses 0.04999… when its minimum is 0.05.
  const log = spec.scale === "log";
  const within = (v) => Math.min(spec.max, Math.max(spec.min, v));
  const toSlider = spec.options ? (v) => spec.options.indexOf(v) : log ? Math.log10 : (v) => v;
  const fromSlider = spec.options ? (i) => spec.options[i]
    : log ? (u) => within(Number((10 ** u).toPrecision(3))) : (u) => within(u);
  const span = log ? Math.log10(spec.max) - Math.log10(spec.min) : 0;
  const [lo, hi, step] = spec.options ? [0, spec.options.length - 1, 1]
    : log ? [Math.log10(spec.min), Math.log10(spec.max), span / Math.round(span / spec.step)]
    : [spec.min, spec.max, spec.step];
  box.classList.add("qkv-range");
  const label = el("label", "qkv-label", { for: id });
  label.textContent = spec.label;
  const input = el("input", "", { type: "range", id, min: lo, max: hi, step });
  const out = el("output", "", { for: id });
  const format = spec.format ?? ((v) => String(v));
  box.append(label, input, out);
  input.addEventListener("input", () => onInput(spec.trait, fromSlider(Number(input.value))));
  // A click anywhere on the control leaves the keyboard on the slider.
  box.addEventListener("pointerup", () => input.focus());
  return {
    box,
    show: (v) => {
      input.value = String(toSlider(v));
      input.setAttribute("aria-valuetext", format(v));
      out.textContent = format(v);
    },
  };
}

// Build an explorable in `el`. `controls`: specs as above, one per control trait; a spec with
// `panel: k` sits right above panel k (an explorable with many controls keeps each next to the
// picture it moves), the others in one bar on top, which stays in view while the panels scroll
// past. `data`: the names of the other traits the picture reads (the learner's arrays).
// `draw(traits)` returns { panels: [svg strings], alt, readout, numbers }, `traits` holding every
// trait named. `drag` (optional) = { panel, plane, set(x, y) → trait values } moves controls by
// dragging in that panel (a panel must not nest another <svg>: the drag looks for the outer one).
export function mount({ model, el: root, controls, data = [], draw, drag = null }) {
  root.classList.add("qkv-ex");
  const bar = el("div", "qkv-controls");
  // A group, not an image: panels may carry their own controls. Its name states the numbers.
  const picture = el("div", "qkv-panels", { role: "group" });
  const readout = el("p", "qkv-readout");
  root.replaceChildren(bar, picture, readout);
  const traits = controls.map((c) => c.trait);
  const set = setter(model);
  // JupyterLab's notebook takes the focus on mousedown (to select the cell), and a page's own key
  // handlers (the book's theme reads the layout on every key) cost a frame: the controls keep
  // their presses and keys to themselves.
  const keep = (node) => ["mousedown", "pointerdown", "keydown", "keyup"]
    .forEach((t) => node.addEventListener(t, (e) => e.stopPropagation()));
  keep(bar);
  const bound = controls.map((spec) => control(spec, model, set));
  bound.forEach(({ box }, i) => controls[i].panel === undefined && bar.append(box));
  bar.hidden = !bar.childElementCount;
  bar.classList.toggle("qkv-many", bar.childElementCount >= 3); // too tall to stick (qkv.css)
  const names = [...traits, ...data];
  let hosts = [];
  let drawn = [];
  const shown = []; // the value each control shows now
  const scratch = document.createElement("template"); // where a new panel is parsed, off the page
  function layout(count) {
    // One cell per panel: its own controls (if any), then the drawing. Built again only when
    // the number of panels changes, so a control keeps its focus while it is moved.
    hosts = [];
    drawn = [];
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
      const host = el("div", k === drag?.panel ? "qkv-host qkv-drag" : "qkv-host");
      cell.append(host);
      picture.append(cell);
      hosts.push(host);
    }
  }
  function redraw() {
    const values = Object.fromEntries(names.map((t) => [t, model.get(t)]));
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
        patch(hosts[k], scratch.content);
      } else hosts[k].innerHTML = panel;
      // The host's size comes from the panel's viewBox, not from its content (qkv.css: contain),
      // so a redraw lays out and paints this panel alone, not the page around it.
      const [box, w, h] = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(panel) ?? [];
      if (w && hosts[k].dataset.box !== box) {
        hosts[k].dataset.box = box;
        Object.assign(hosts[k].style, { aspectRatio: `${w} / ${h}`, maxWidth: `${w * 1.4}px` });
      }
    });
    if (picture.getAttribute("aria-label") !== pic.alt) picture.setAttribute("aria-label", pic.alt);
    if (readout.textContent !== (pic.readout ?? "")) readout.textContent = pic.readout ?? "";
    // What the picture shows and for which state: tests hold these numbers to numpy's. The data
    // (which can be large) is written only when it changes.
    root.dataset.qkvState = JSON.stringify(Object.fromEntries(traits.map((t) => [t, values[t]])));
    root.dataset.qkvNumbers = JSON.stringify(pic.numbers ?? {});
  }
  const writeData = () => (root.dataset.qkvData = JSON.stringify(Object.fromEntries(data.map((t) => [t, model.get(t)]))));
  writeData();
  data.forEach((t) => model.on(`change:${t}`, writeData));
  const events = names.map((t) => `change:${t}`);
  events.forEach((e) => model.on(e, redraw));
  if (drag) {
    let dragging = false;
    const move = (event) => {
      const panel = picture.querySelectorAll("svg")[drag.panel];
      if (!panel) return;
      const m = panel.getScreenCTM();
      if (!m) return;
      const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(m.inverse());
      const [x, y] = drag.plane.back(pt.x, pt.y);
      for (const [trait, value] of Object.entries(drag.set(x, y))) set(trait, value);
    };
    picture.addEventListener("pointerdown", (event) => {
      if (!event.target.closest("svg") || event.target.closest("svg") !== picture.querySelectorAll("svg")[drag.panel]) return;
      dragging = true;
      picture.setPointerCapture(event.pointerId);
      move(event);
    });
    picture.addEventListener("pointermove", (event) => dragging && move(event));
    picture.addEventListener("pointerup", () => (dragging = false));
    picture.addEventListener("pointercancel", () => (dragging = false));
  }
  redraw();
  return () => {
    events.forEach((e) => model.off(e, redraw));
    data.forEach((t) => model.off(`change:${t}`, writeData));
  };
}
