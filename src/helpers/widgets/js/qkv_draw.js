// The drawing primitives every explorable shares: SVG pictures as strings (text, bars, heatmaps,
// arrows on a plane, axis ticks). Pure functions of their arguments, no DOM: the same code draws
// in the browser, in Node (tests, the saved notebooks' first pictures) and in the book. Colours
// come from CSS variables (qkv.css), so the theme's dark mode and the book's Q/K/V palette apply.
// The widget runtime (controls, binding to the model, redraws, dragging) is qkv_widget.js.

import { spoken, subscriptParts } from "./qkv_math.js";

export const FONT = 14; // user units; every panel is PANEL wide, so ≥ 12 CSS px once stacked on a phone
export const PANEL = 300;

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

// A cell's edge, ≥ 3:1 against the page in light and dark: a pale cell on a light page and a
// dark one on a dark page (1.4:1) still stand out as marks.
export const EDGE = 'style="stroke:var(--qkv-axis)" stroke-width="1"';

// A palette colour made readable as text: half of it mixed with the theme's text colour, so it
// darkens on a light page and lightens on a dark one (≥ 4.5:1 against the page in both; as a
// mark, through `mark` below, ≥ 3:1). The theme's own colours and a cell's ink stay as given.
const PLAIN = /^(var\(--qkv-(fg|muted|bg)\)|#000000|#ffffff)$/i;
export function ink(color) {
  return PLAIN.test(color) ? color : `color-mix(in srgb, ${color} 50%, var(--qkv-fg))`;
}

// A palette colour drawn as a mark (a line, an arrow, a point): a palette colour under 3:1 against
// a light page (the orange, 2.25:1) is darkened a little, and lightened on a dark page.
export function mark(color) {
  return PLAIN.test(color) ? color : `color-mix(in srgb, ${color} 70%, var(--qkv-fg))`;
}

// A symbol's subscript drawn as a subscript, not as an underscore: each "W_Q" or "d_k" of `s`
// becomes W with a small Q set 4 units lower (as chapters 04 and 07 draw W_Q), the text after
// it back on the line; the rest escaped as written.
function subscripts(s, size) {
  let low = false; // after a subscript: the next text goes back up
  return subscriptParts(s)
    .map(([before, sub]) => {
      let out = low && before ? `<tspan dy="-4">${esc(before)}</tspan>` : esc(before);
      if (sub)
        out += `<tspan dy="4" font-size="${Math.max(size - 2, FONT - 2)}">${esc(sub)}</tspan>`;
      low = Boolean(sub);
      return out;
    })
    .join("");
}

export function text(
  x,
  y,
  s,
  {
    size = FONT,
    anchor = "middle",
    base = "central",
    fill = "var(--qkv-fg)",
    weight = "normal",
    rotate = 0,
    cls = "",
  } = {},
) {
  const turn = rotate ? ` transform="rotate(${rotate} ${x} ${y})"` : "";
  return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" dominant-baseline="${base}" style="fill:${ink(fill)}" font-weight="${weight}"${turn}${cls ? ` class="${cls}"` : ""}>${subscripts(s, size)}</text>`;
}

export function svg(width, height, body, { cls = "", label = "" } = {}) {
  // A panel whose items the keyboard reaches is not hidden from a screen reader.
  const hidden = body.includes("data-item=") ? "" : ' aria-hidden="true"';
  const name = label ? ` aria-label="${esc(spoken(label))}"` : hidden;
  return `<svg class="qkv-panel ${cls}" viewBox="0 0 ${width} ${height}" style="--qkv-w:${width}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg"${name}>${body}</svg>`;
}

// What links the marks of one item (a word, a book) across panels: a group named by the item,
// with its exact value, which the widget runtime lights up and says on hover (qkv_widget.js).
// Each is reached by the keyboard too (mount keeps one in the tab order) and named by what it says.
export function item(name, body, value = "") {
  const said = value === "" ? "" : ` data-value="${esc(value)}"`;
  const named = esc(spoken(value === "" ? name : `${name}、${value}`));
  return `<g data-item="${esc(name)}"${said} tabindex="-1" role="img" aria-label="${named}">${body}</g>`;
}

// A number to the last digit that matters (hovering an item shows it): 6 significant digits.
export function exact(v) {
  return Number.isFinite(v) ? String(Number(v.toPrecision(6))) : fmt(v);
}

// A bar chart: one bar per label, the value printed at its end, the highlighted bar outlined;
// each bar is an `item` named by its label; `xLabel` names the labels, under them.
export function bars({
  labels,
  values,
  lo,
  hi,
  title,
  color = "var(--qkv-x)",
  highlight = null,
  width = PANEL,
  height = 230,
  digits = 2,
  xLabel = "",
}) {
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
    let bar = "";
    bar += `<rect x="${x}" y="${Math.min(yv, zero)}" width="${w}" height="${Math.abs(zero - yv)}" style="fill:${color}"/>`;
    if (outline)
      bar += `<rect x="${x}" y="${Math.min(yv, zero)}" width="${w}" height="${Math.max(Math.abs(zero - yv), 1)}" fill="none"${outline}/>`;
    const above = v >= 0;
    bar += text(x + w / 2, above ? yv - 8 : yv + 9, fmt(values[i], digits), { size: FONT - 1 });
    const long = labels.some((l) => textWidth(l) > step * 1.1);
    bar += long
      ? text(x + w / 2, bottom + 6, label, { anchor: "end", base: "central", rotate: -40 })
      : text(x + w / 2, bottom + 14, label);
    body += item(label, bar, `${title} ${exact(values[i])}`);
  });
  if (xLabel)
    body += text(width / 2, height - 12, xLabel, { size: FONT - 1, fill: "var(--qkv-muted)" });
  return svg(width, height, body);
}

// Matplotlib's Blues and RdBu_r, a few stops each, interpolated linearly in sRGB.
const MAPS = {
  Blues: [
    "#f7fbff",
    "#deebf7",
    "#c6dbef",
    "#9ecae1",
    "#6baed6",
    "#4292c6",
    "#2171b5",
    "#08519c",
    "#08306b",
  ],
  RdBu_r: [
    "#053061",
    "#2166ac",
    "#4393c3",
    "#92c5de",
    "#d1e5f0",
    "#f7f7f7",
    "#fddbc7",
    "#f4a582",
    "#d6604d",
    "#b2182b",
    "#67001f",
  ],
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
  // Black or white, whichever stands out more (WCAG contrast): one of them is ≥ 4.58:1 on any cell.
  const linear = c.map((v) =>
    v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4,
  );
  const lum = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  const dark = (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05);
  return { fill: `rgb(${c.join(",")})`, ink: dark ? "#000000" : "#ffffff" };
}

// How the column labels of `cols` fit `cell`-wide columns: flat, staggered in two lines, or
// tilted 45°; `rise` is the height they need above the map.
function columnLabels(cols, cell) {
  const widest = Math.max(...cols.map((c) => textWidth(c, FONT - 1)));
  if (widest <= cell * 0.95) return { mode: "flat", rise: 18, widest };
  if (widest <= cell * 1.9) return { mode: "stagger", rise: 36, widest };
  return { mode: "tilt", rise: widest * 0.71 + 12, widest };
}

// A title wider than the panel (or than `widest`, the longest it may become) breaks before its
// parenthesis, into two lines: the same lines whatever the controls say, so nothing jumps.
function titleLines(title, widest = title) {
  const cut = title.indexOf("(");
  return textWidth(widest, FONT) <= PANEL - 8 || cut <= 0
    ? [title]
    : [title.slice(0, cut), title.slice(cut)];
}

const GROUP_GAP = 12; // between two groups of columns of one heatmap
const GROUP_HEAD = 24; // the height of a group's heading

// The geometry of heatmaps drawn side by side with the same `rows`, so that their rows line up:
// the left edge (after the row labels), the top (below the tallest column labels), the row
// height, and per panel ({ cols, title, widest, maxCell }) its column width and column labels.
// A panel's `gaps` is the room between its groups of columns (see `heatmap`'s `groups`), `heads`
// that its groups have headings above their columns.
export function heatmapLayout(rows, panels, width = PANEL) {
  const left = 30 + Math.max(...rows.map((r) => textWidth(r, FONT - 1)));
  const fitted = panels.map(({ cols, maxCell = 44, gaps = 0 }) => {
    let cellW = Math.min(maxCell, (width - left - 12 - gaps) / cols.length);
    const labels = columnLabels(cols, cellW);
    // Tilted labels lean right past their column: narrow the columns so the last one fits.
    if (labels.mode === "tilt")
      cellW = Math.min(cellW, (width - left - 4 - labels.widest * 0.71) / (cols.length - 0.5));
    return { cellW, labels };
  });
  const lines = Math.max(
    ...panels.map(({ title = "", widest }) => titleLines(title, widest).length),
  );
  const head = 32 + 18 * (lines - 1); // where the column title sits, below the title's lines
  const heading = Math.max(0, ...panels.map(({ heads }) => (heads ? GROUP_HEAD : 0)));
  const top = head + 14 + heading + Math.max(...fitted.map((f) => f.labels.rise));
  return { left, top, head, cellH: fitted[0].cellW, fitted };
}

// The one heatmap: rows = who looks (問い), columns = who is looked at (見出し), a number in each
// cell wide enough. `outline`: [row, col(, "dashed")] cells framed; `hatch`: cells crossed out
// (masked); `rings`: [row, col] cells ringed (a row's largest); `scale`: the labels under a colour strip
// from lo to hi (left, middle, right). Several heatmaps with the same rows share one `layout`
// (heatmapLayout) and each its own `fit` from it. Each row (its label and cells) is an `item`
// named by its label with its exact values, so hovering it lights that row in every panel; each
// cell says its own exact value (data-cell, shown first when the pointer is on it).
// `groups`: several matrices with the same rows side by side in one panel, on one colour scale
// (chapter 07's three W), each { M, cols, name, head(x, y) → its heading }: they replace `M` and
// `cols`, a row's item runs through every group, and a cell is said with its group's name.
export function heatmap({
  M,
  rows,
  cols,
  lo,
  hi,
  title,
  widest = title,
  cmap = "Blues",
  rowTitle = "問い(見る側)",
  colTitle = "見出し(見られる側)",
  rowColor = "var(--qkv-muted)",
  colColor = "var(--qkv-muted)",
  digits = 2,
  outline = [],
  hatch = [],
  rings = [],
  scale = null,
  groups = null,
  width = PANEL,
  layout = null,
  fit = null,
}) {
  const group = groups ? groups.flatMap((g, k) => g.cols.map(() => k)) : null;
  if (groups) {
    M = rows.map((_, i) => groups.flatMap((g) => g.M[i]));
    cols = groups.flatMap((g) => g.cols);
  }
  const called = groups ? groups.flatMap((g) => g.cols.map((c) => `${g.name} ${c}`)) : cols;
  const gaps = groups ? GROUP_GAP * (groups.length - 1) : 0;
  layout ??= heatmapLayout(rows, [{ cols, title, widest, gaps, heads: !!groups }], width);
  fit ??= layout.fitted[0];
  const { left, top, head, cellH } = layout;
  const { cellW, labels } = fit;
  const colX = (j) => left + j * cellW + (group ? GROUP_GAP * group[j] : 0);
  const bottom = top + cellH * rows.length;
  const right = colX(cols.length - 1) + cellW;
  let body = titleLines(title, widest)
    .map((line, k) => text(width / 2, 12 + 18 * k, line, { weight: "bold" }))
    .join("");
  body += text((left + right) / 2, head, colTitle, { size: FONT - 1, fill: colColor });
  body += text(12, (top + bottom) / 2, rowTitle, { size: FONT - 1, fill: rowColor, rotate: -90 });
  (groups ?? []).forEach((g, k) => {
    const js = group.flatMap((at, j) => (at === k ? [j] : []));
    const x = (colX(js[0]) + colX(js.at(-1)) + cellW) / 2;
    const y = top - labels.rise - GROUP_HEAD / 2;
    body += g.head ? g.head(x, y) : text(x, y, g.name, { weight: "bold" });
  });
  cols.forEach((c, j) => {
    const x = colX(j) + cellW / 2;
    if (labels.mode === "tilt")
      body += text(x - 2, top - 6, c, { size: FONT - 1, anchor: "start", rotate: -45 });
    else
      body += text(x, top - 10 - (labels.mode === "stagger" && j % 2 ? 17 : 0), c, {
        size: FONT - 1,
      });
  });
  rows.forEach((r, i) => {
    let row = text(left - 6, top + (i + 0.5) * cellH, r, { anchor: "end", size: FONT - 1 });
    cols.forEach((c, j) => {
      const v = M[i][j];
      const { fill, ink } = colormap(cmap, (v - lo) / (hi - lo));
      const x = colX(j);
      const y = top + i * cellH;
      let cell = `<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" fill="${fill}" ${EDGE}/>`;
      if (Math.min(cellW, cellH) >= 28)
        cell += text(x + cellW / 2, y + cellH / 2, fmt(v, digits), { size: FONT - 2, fill: ink });
      row += `<g data-cell="${esc(called[j])}" data-value="${esc(`${r} → ${called[j]} ${exact(v)}`)}">${cell}</g>`;
    });
    const ring = Math.min(cellW, cellH);
    for (const [, j] of rings.filter(([k]) => k === i))
      row += `<circle cx="${colX(j) + cellW / 2}" cy="${top + (i + 0.5) * cellH}" r="${ring * 0.45}" fill="none" style="stroke:var(--qkv-k)" stroke-width="${Math.min(2.5, ring / 10)}" pointer-events="none"/>`;
    const said = called.map((c, j) => `${c} ${exact(M[i][j])}`).join(", ");
    body += item(r, row, `${title || "重み"}: ${said}`);
  });
  for (const [i, j] of hatch) {
    body += `<rect x="${colX(j)}" y="${top + i * cellH}" width="${cellW}" height="${cellH}" fill="url(#qkv-hatch)" style="stroke:var(--qkv-muted)" pointer-events="none"/>`;
  }
  for (const [i, j, style = "solid"] of outline) {
    const dash = style === "dashed" ? ' stroke-dasharray="5 3"' : "";
    body += `<rect x="${colX(j) + 1.5}" y="${top + i * cellH + 1.5}" width="${cellW - 3}" height="${cellH - 3}" fill="none" style="stroke:var(--qkv-frame)" stroke-width="3"${dash} pointer-events="none"/>`;
  }
  let height = bottom + 12;
  if (scale) {
    // The colour scale: a strip of small rects from lo to hi, labelled at both ends and halfway;
    // its frame is the mark against the page (its steps are guides).
    const y = bottom + 16;
    const steps = 24;
    const w = (right - left) / steps;
    for (let s = 0; s < steps; s++)
      body += `<rect class="qkv-guide" x="${left + s * w}" y="${y}" width="${w + 0.3}" height="10" fill="${colormap(cmap, (s + 0.5) / steps).fill}"/>`;
    body += `<rect x="${left}" y="${y}" width="${right - left}" height="10" fill="none" style="stroke:var(--qkv-axis)"/>`;
    const label = { size: FONT - 2, fill: "var(--qkv-muted)" };
    body += text(left, y + 24, scale[0], { ...label, anchor: "start" });
    body += text((left + right) / 2, y + 24, scale[1], label);
    body += text(right, y + 24, scale[2], { ...label, anchor: "end" });
    height = y + 36;
  }
  const defs = hatch.length
    ? '<defs><pattern id="qkv-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" style="fill:var(--qkv-bg)"/><line x1="0" y1="0" x2="0" y2="6" style="stroke:var(--qkv-muted)" stroke-width="2"/></pattern></defs>'
    : "";
  return svg(width, height, defs + body);
}

// A square plane from -lim to lim on both axes, or from lo to hi when `lim` is [lo, hi] (data
// that sit mostly in one quadrant fill it); `at(x, y)` maps data to SVG units, and `back(px, py)`
// maps them back (dragging in the picture uses it).
export function plane(lim, size = PANEL, pad = 34) {
  const [lo, hi] = Array.isArray(lim) ? lim : [-lim, lim];
  const span = size - 2 * pad;
  const at = (x, y) => [pad + ((x - lo) / (hi - lo)) * span, pad + ((hi - y) / (hi - lo)) * span];
  const back = (px, py) => [
    lo + ((px - pad) / span) * (hi - lo),
    hi - ((py - pad) / span) * (hi - lo),
  ];
  return { lim: Math.max(-lo, hi), lo, hi, size, pad, at, back };
}

// The plane's frame and both axes through the origin (the origin is inside: lo <= 0 <= hi).
export function planeAxes(p, { title = "", xLabel = "", yLabel = "" } = {}) {
  const [x0, y0] = p.at(p.lo, 0);
  const [x1] = p.at(p.hi, 0);
  const [xc, yTop] = p.at(0, p.hi);
  const [, yBottom] = p.at(0, p.lo);
  let body = `<rect x="${p.pad}" y="${p.pad}" width="${p.size - 2 * p.pad}" height="${p.size - 2 * p.pad}" fill="none" style="stroke:var(--qkv-axis)"/>`;
  body += `<line x1="${x0}" x2="${x1}" y1="${y0}" y2="${y0}" style="stroke:var(--qkv-axis)"/>`;
  body += `<line x1="${xc}" x2="${xc}" y1="${yTop}" y2="${yBottom}" style="stroke:var(--qkv-axis)"/>`;
  if (title) body += text(p.size / 2, 12, title, { weight: "bold" });
  if (xLabel)
    body += text(p.size / 2, p.size - 10, xLabel, { size: FONT - 1, fill: "var(--qkv-muted)" });
  if (yLabel)
    body += text(12, p.size / 2, yLabel, { size: FONT - 1, fill: "var(--qkv-muted)", rotate: -90 });
  return body;
}

// An arrow from the origin to (x, y) on plane `p`, with an optional label past its tip.
export function arrow(
  p,
  x,
  y,
  { color = "var(--qkv-x)", width = 2.5, label = "", labelColor = null, dash = false } = {},
) {
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
  if (label) body += tipLabel(p, x, y, label, labelColor ?? color);
  return label ? item(label, body) : body;
}

// The label of the arrow to (x, y), past its tip (drawn on its own when the label must lie over
// other arrows: put it in the same `item` as its arrow).
export function tipLabel(p, x, y, label, fill = "var(--qkv-fg)") {
  const [tx, ty] = p.at(x, y);
  const right = x >= 0;
  return text(tx + (right ? 5 : -5), ty + (y >= 0 ? -9 : 11), label, {
    anchor: right ? "start" : "end",
    fill,
    cls: "qkv-halo",
  });
}

// The step between axis ticks: the smallest of 1, 2 or 5 × 10^k that cuts `span` into at most
// `most` intervals, so tick labels never crowd each other.
export function tickStep(span, most) {
  const raw = span / most;
  const base = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * base).find((s) => s >= raw);
}

// The multiples of `step` from `lo` to `hi` (each end included when it is one), computed as
// k · step so that no rounding error piles up along the axis.
export function tickValues(lo, hi, step) {
  const out = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k++) out.push(k * step);
  return out;
}
