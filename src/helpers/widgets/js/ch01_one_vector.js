// Chapter 01: move one word's arrow (two sliders, or drag its tip in the plane); its dot products
// and cosine similarities with the other words follow. A zero vector has no direction: its
// cosines are NaN, shown as "—", and no bar is outlined.
import { argmax, cosine, dot, norm } from "./qkv_math.js";
import {
  FONT,
  arrow,
  bars,
  exact,
  fmt,
  item,
  mark,
  plane,
  planeAxes,
  svg,
  text,
  textWidth,
  tickValues,
} from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

const LIMIT = 2; // each slider runs from -2 to 2
const LIM = 2.2; // the plane shows a little more

// The index of the largest number that is not NaN (the first one on a tie); null if all are NaN.
function nanArgmax(values) {
  let best = null;
  values.forEach((v, i) => {
    if (!Number.isNaN(v) && (best === null || v > values[best])) best = i;
  });
  return best;
}

export function numbers({ sweet, spicy, other_words: words, other_vectors: rest }) {
  const vector = [sweet, spicy];
  const moved = sweet !== 0 || spicy !== 0;
  const dots = rest.map((k) => dot(vector, k));
  const cosines = rest.map((k) => cosine(vector, k));
  const bestCos = nanArgmax(cosines);
  return {
    vector,
    others: [...words],
    dot: dots,
    cosine: cosines,
    best_dot: moved ? words[argmax(dots)] : null,
    best_cosine: bestCos === null ? null : words[bestCos],
  };
}

// A word's label beside the tip of its arrow: above it (`below` false) or below it, on the far
// side from the origin, turned back inwards only where it would run well out of the panel (a
// label turned inwards at ケーキ's tip would sit on プリン's).
function label(p, x, y, s, { fill, below = false, weight = "normal" }) {
  const [tx, ty] = p.at(x, y);
  let right = x >= 0;
  const w = textWidth(s);
  if (right && tx + 4 + w > p.size + 6) right = false;
  if (!right && tx - 4 - w < -6) right = true;
  const dy = below ? 13 : -11;
  const yy = Math.min(Math.max(ty + dy, FONT), p.size - FONT);
  return text(tx + (right ? 4 : -4), yy, s, {
    anchor: right ? "start" : "end",
    fill,
    weight,
    cls: "qkv-halo",
  });
}

// The integer grid over the plane (guides: faint, for reference), labelled outside its frame.
function grid(p) {
  let body = "";
  const lo = p.pad;
  const hi = p.size - p.pad;
  for (const v of tickValues(-LIMIT, LIMIT, 1)) {
    if (v === 0) continue;
    const [x] = p.at(v, 0);
    const [, y] = p.at(0, v);
    const guide = 'class="qkv-guide" style="stroke:var(--qkv-axis)" stroke-opacity="0.3"';
    body += `<line x1="${x}" x2="${x}" y1="${lo}" y2="${hi}" ${guide}/>`;
    body += `<line x1="${lo}" x2="${hi}" y1="${y}" y2="${y}" ${guide}/>`;
    body += text(x, hi + 9, String(v), { size: FONT - 2, fill: "var(--qkv-muted)" });
    body += text(lo - 3, y, String(v), { size: FONT - 2, anchor: "end", fill: "var(--qkv-muted)" });
  }
  return body;
}

export function picture(data) {
  const n = numbers(data);
  const { word, word_color: colour, other_words: words, other_vectors: rest, start } = data;
  const [xLabel = "", yLabel = ""] = data.axis_labels;
  const p = plane(LIM);
  const span = p.size - 2 * p.pad;
  // What lies beyond the frame is cut off there (a learner's word may sit far out). A clip path,
  // not a nested <svg>: mount's drag looks for the panel as the pointer's nearest <svg>. Every
  // copy of this id clips the same square, so two explorables on one page may share it.
  const clip = (inner) =>
    `<defs><clipPath id="qkv-ch01-frame"><rect x="${p.pad}" y="${p.pad}" width="${span}" height="${span}"/></clipPath></defs>` +
    `<g clip-path="url(#qkv-ch01-frame)">${inner}</g>`;
  let inside = "";
  const [ox, oy] = p.at(0, 0);
  const radius = (norm(start) / (2 * LIM)) * span;
  if (radius > 1)
    inside += `<circle cx="${ox}" cy="${oy}" r="${radius}" fill="none" style="stroke:${mark(colour)}" stroke-width="1.2" stroke-dasharray="3 4"/>`;
  // Each word's arrow and label are one item with the bars named by it (lit together on hover
  // or focus, its vector said exactly).
  const vectorOf = (v) => `ベクトル (${exact(v[0])}, ${exact(v[1])})`;
  rest.forEach((k, i) => {
    inside += item(
      words[i],
      arrow(p, k[0], k[1], { color: "var(--qkv-muted)", width: 2 }),
      vectorOf(k),
    );
  });
  const [x, y] = n.vector;
  const [tx, ty] = p.at(x, y);
  // The handle the learner drags (and the only mark left when the vector is zero).
  const handle = `<circle cx="${tx}" cy="${ty}" r="7" style="fill:${colour};stroke:${mark(colour)}" fill-opacity="0.35" stroke-width="1.5"/>`;
  const moved = arrow(p, x, y, { color: mark(colour), width: 3.5 });
  inside += item(word, moved + handle, vectorOf(n.vector));
  let labels = "";
  rest.forEach((k, i) => {
    if (Math.abs(k[0]) <= LIM && Math.abs(k[1]) <= LIM)
      labels += item(words[i], label(p, k[0], k[1], words[i], { fill: "var(--qkv-muted)" }));
  });
  labels += item(word, label(p, x, y, word, { fill: colour, below: true, weight: "bold" }));
  const body =
    grid(p) +
    planeAxes(p, { title: `「${word}」を動かす`, xLabel, yLabel }) +
    clip(inside) +
    labels;

  const reach =
    1.15 * Math.max(...rest.map((k) => LIMIT * (Math.abs(k[0]) + Math.abs(k[1]))), 1e-9);
  const at = (name) => (name === null ? null : words.indexOf(name));
  const panels = [
    svg(p.size, p.size, body),
    bars({
      labels: words,
      values: n.dot,
      lo: -reach,
      hi: reach,
      title: `「${word}」との内積`,
      highlight: at(n.best_dot),
    }),
    bars({
      labels: words,
      values: n.cosine,
      lo: -1.15,
      hi: 1.15,
      title: `「${word}」とのコサイン類似度`,
      highlight: at(n.best_cosine),
    }),
  ];

  const list = (vs) => words.map((w, i) => `${w} ${fmt(vs[i])}`).join("、");
  const where = `「${word}」のベクトル (${fmt(x)}, ${fmt(y)})、長さ ${fmt(Math.hypot(x, y))}。`;
  const dots = `内積: ${list(n.dot)}。`;
  const best = (name, vs) => `${name}(${fmt(vs[words.indexOf(name)])})`;
  let alt;
  let readout;
  if (n.best_dot === null) {
    alt = `${where}${dots}長さ 0 のベクトルには向きがないので、コサイン類似度は決まりません(—)。`;
    readout = `(${fmt(x)}, ${fmt(y)}):長さ 0 のベクトルには向きがなく、コサイン類似度は決まりません`;
  } else {
    const cosText =
      n.best_cosine === null
        ? "コサイン類似度は決まりません(—)。"
        : `コサイン類似度: ${list(n.cosine)}。`;
    const top =
      `内積が一番大きいのは${best(n.best_dot, n.dot)}` +
      (n.best_cosine === null
        ? "。"
        : `、コサイン類似度が一番大きいのは${best(n.best_cosine, n.cosine)}。`);
    alt = `${where}${dots}${cosText}${top}`;
    readout = `(${fmt(x)}, ${fmt(y)})、長さ ${fmt(Math.hypot(x, y))}:${top}`;
  }
  return { panels, alt, readout, numbers: n };
}

// The two sliders, labelled with the embedding's axes. Their step divides 2, so 0 (the zero
// vector) is a stop on both.
export function controls([xLabel = "横", yLabel = "縦"] = []) {
  const range = (trait, label) => ({
    trait,
    kind: "range",
    label,
    min: -LIMIT,
    max: LIMIT,
    step: 0.01,
    format: (v) => fmt(v),
  });
  return [range("sweet", xLabel), range("spicy", yLabel)];
}

// Where dragging the arrow's tip to (x, y) on the plane puts the word: each coordinate rounded
// to the sliders' step and kept within ±2 (+ 0 turns a -0 into 0).
export function dragTo(x, y) {
  const clamp = (v) => Math.min(LIMIT, Math.max(-LIMIT, Math.round(v * 100) / 100)) + 0;
  return { sweet: clamp(x), spicy: clamp(y) };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」).
export const PRESETS = [
  { label: "(0.33, 1.98) カレーと同じ向き", state: { sweet: 0.33, spicy: 1.98 } },
  { label: "(1.00, 0.10) 長さを半分", state: { sweet: 1, spicy: 0.1 } },
  { label: "(0.50, 0.05)", state: { sweet: 0.5, spicy: 0.05 } },
  { label: "(−1.50, −1.50) 左下", state: { sweet: -1.5, spicy: -1.5 } },
  { label: "(0, 0) 長さ 0", state: { sweet: 0, spicy: 0 } },
];

export default {
  render({ model, el }) {
    return mount({
      model,
      el,
      data: ["word", "word_color", "start", "other_words", "other_vectors", "axis_labels"],
      controls: controls(model.get("axis_labels") ?? []),
      draw: picture,
      presets: PRESETS,
      // Drag the word's arrow: its tip goes where the pointer is.
      drag: { panel: 0, plane: plane(LIM), set: dragTo },
    });
  },
};
