// The drawing primitives every explorable shares: SVG pictures as strings (text, bars, heatmaps,
// arrows on a plane, axis ticks). Pure functions of their arguments, no DOM: the same code draws
// in the browser, in Node (tests, the saved notebooks' first pictures) and in the book. Colours
// come from CSS variables (qkv.css), so the theme's dark mode and the book's Q/K/V palette apply.
// The widget runtime (controls, binding to the model, redraws, dragging) is qkv_widget.js.

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
  return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" dominant-baseline="${base}" style="fill:${ink(fill)}" font-weight="${weight}"${turn}${cls ? ` class="${cls}"` : ""}>${esc(s)}</text>`;
}

export function svg(width, height, body, { cls = "", label = "" } = {}) {
  // A panel whose items the keyboard reaches is not hidden from a screen reader.
  const hidden = body.includes("data-item=") ? "" : ' aria-hidden="true"';
  const name = label ? ` aria-label="${esc(label)}"` : hidden;
  return `<svg class="qkv-panel ${cls}" viewBox="0 0 ${width} ${height}" style="--qkv-w:${width}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg"${name}>${body}</svg>`;
}

// What links the marks of one item (a word, a book) across panels: a group named by the item,
// with its exact value, which the widget runtime lights up and says on hover (qkv_widget.js).
// Each is reached by the keyboard too (mount keeps one in the tab order) and named by what it says.
export function item(name, body, value = "") {
  const said = value === "" ? "" : ` data-value="${esc(value)}"`;
  const named = esc(value === "" ? name : `${name}、${value}`);
  return `<g data-item="${esc(name)}"${said} tabindex="-1" role="img" aria-label="${named}">${body}</g>`;
}

// A number to the last digit that matters (hovering an item shows it): 6 significant digits.
export function exact(v) {
  return Number.isFinite(v) ? String(Number(v.toPrecision(6))) : fmt(v);
}

// A bar chart: one bar per label, the value printed at its end, the highlighted bar outlined;
// each bar is an `item` named by its label.
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

// A labelled heatmap: rows = who looks (問い), columns = who is looked at (見出し), a number in
// each cell, `outline` a list of [row, col] cells framed, `hatch` cells crossed out (masked).
export function heatmap({
  M,
  rows,
  cols,
  lo,
  hi,
  title,
  cmap = "Blues",
  rowTitle = "問い(見る側)",
  colTitle = "見出し(見られる側)",
  digits = 2,
  outline = [],
  hatch = [],
  width = PANEL,
}) {
  const longest = Math.max(...rows.map((r) => String(r).length));
  const left = 34 + longest * FONT;
  const top = 58;
  const cell = Math.min(44, (width - left - 10) / cols.length);
  const height = top + cell * rows.length + 14;
  let body = text(width / 2, 12, title, { weight: "bold" });
  body += text(left + (cell * cols.length) / 2, 32, colTitle, {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
  });
  body += text(12, top + (cell * rows.length) / 2, rowTitle, {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
    rotate: -90,
  });
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
      body += `<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${fill}" ${EDGE}/>`;
      if (cell >= 30)
        body += text(x + cell / 2, y + cell / 2, fmt(v, digits), { size: FONT - 2, fill: ink });
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
  const back = (px, py) => [
    ((px - pad) / span) * 2 * lim - lim,
    lim - ((py - pad) / span) * 2 * lim,
  ];
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
  if (label) {
    const right = x >= 0;
    body += text(tx + (right ? 5 : -5), ty + (y >= 0 ? -9 : 11), label, {
      anchor: right ? "start" : "end",
      fill: labelColor ?? color,
      cls: "qkv-halo",
    });
  }
  return label ? item(label, body) : body;
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
