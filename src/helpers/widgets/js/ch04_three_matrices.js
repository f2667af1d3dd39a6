// Chapter 04: three matrices, three faces. Each W turns the plane by an angle and stretches it by
// a scale; three panels show the grid, the unit square and every word's face xW under W_Q, W_K,
// W_V, and a fourth names the words, says whose key best matches each word's query (largest q·k)
// and prints the three matrices. Drag the ring (where (1, 0) goes) to set that W's angle and scale.
import { argmax, matmul, norm, rotationScale, spoken, transpose } from "./qkv_math.js";
import {
  FONT,
  PANEL,
  arrow,
  esc,
  exact,
  fmt,
  ink,
  item,
  plane,
  planeAxes,
  svg,
  text,
  tickStep,
  tickValues,
} from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

// face, its matrix, the prefix of its two traits, its role, its colour (the order the book uses)
const FACES = [
  { face: "Q", w: "W_Q", t: "q", role: "問い", color: "var(--qkv-q)" },
  { face: "K", w: "W_K", t: "k", role: "見出し", color: "var(--qkv-k)" },
  { face: "V", w: "W_V", t: "v", role: "中身", color: "var(--qkv-v)" },
];
const TIE = "(同点)";
const GRID = [-2, -1, 0, 1, 2];
const PAD = 38;
const LIM = 2.5; // the smallest plane: ±2.5, where the ring stretched twice still fits
const R = 8; // a word's marker (its widest shape reaches 1.3 R from its centre)
const INSET = 1.3 * R + 1.5; // a marker this far inside the frame is drawn whole
const FAINT = 0.75; // the embeddings x before the map: behind the mapped ones, ≥ 3:1 all the same

// The word whose key best matches `row` (a word's q·k with every key), or TIE when the two largest
// scores are equal (as numpy's isclose with atol 1e-9: a zero query ties them all).
function bestMatch(row, words) {
  const top = [...row].sort((a, b) => b - a);
  const tied = top.length > 1 && Math.abs(top[0] - top[1]) <= 1e-9 + 1e-5 * Math.abs(top[1]);
  return tied ? TIE : words[argmax(row)];
}

export function numbers(traits) {
  const X = traits.vectors;
  const out = {};
  for (const { face, w, t } of FACES) {
    out[w] = rotationScale(traits[`${t}_angle`], traits[`${t}_scale`]);
    out[face] = matmul(X, out[w]);
  }
  out.scores = matmul(out.Q, transpose(out.K));
  out.looks_at = out.scores.map((row) => bestMatch(row, traits.words));
  return out;
}

// The plane every panel uses, fitted to the words: a face xW at scale 1 turned any way stays
// within the longest x, so the plane reaches a little past it (the book's foods: ±2.5), never
// under ±2.5 so that the ring (where (1, 0) goes, at most 2 from the origin) is always in reach.
// It does not follow the sliders (a plane that zoomed while the ring is dragged would move the
// ring away from the finger); a face stretched past the frame is pinned to it (facePoint).
function planeFor(vectors) {
  const far = Math.max(...vectors.map(norm), 0);
  return plane(Math.max(LIM, 1.15 * far), PANEL, PAD);
}

// Where a face's marker is drawn: at the face, or, when the marker would cross the frame, on the
// frame's inside on the face's way out from the origin (`pinned`: drawn hollow, said on hover).
function facePoint(p, a, b) {
  const [ox, oy] = p.at(0, 0);
  const [tx, ty] = p.at(a, b);
  const lo = p.pad + INSET;
  const hi = p.size - p.pad - INSET;
  let s = 1;
  for (const [o, t] of [
    [ox, tx],
    [oy, ty],
  ]) {
    if (t > hi) s = Math.min(s, (hi - o) / (t - o));
    if (t < lo) s = Math.min(s, (lo - o) / (t - o));
  }
  return { x: ox + s * (tx - ox), y: oy + s * (ty - oy), pinned: s < 1 };
}

// Text with a subscript: "XW" + "Q" drawn as XW_Q (the subscript at FONT - 2, never smaller).
function subscripted(
  x,
  y,
  parts,
  { size = FONT, anchor = "middle", fill = "var(--qkv-fg)", weight = "normal" } = {},
) {
  const body = parts
    .map(([s, sub]) =>
      sub ? `<tspan dy="4" font-size="${FONT - 2}">${esc(s)}</tspan>` : `<tspan>${esc(s)}</tspan>`,
    )
    .join("");
  return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" dominant-baseline="central" style="fill:${ink(fill)}" font-weight="${weight}">${body}</text>`;
}

// One marker shape per word, as the old figure's matplotlib markers: o s ^ D P v X h.
function marker(i, cx, cy, r, fill, stroke = "var(--qkv-bg)", width = 1.2) {
  const paint = `style="fill:${fill};stroke:${stroke}" stroke-width="${width}"`;
  const poly = (pts) =>
    `<polygon points="${pts.map(([a, b]) => `${(cx + a * r).toFixed(2)},${(cy + b * r).toFixed(2)}`).join(" ")}" ${paint}/>`;
  const cross = (turn) => {
    const arm = [
      [-0.38, -1.15],
      [0.38, -1.15],
      [0.38, -0.38],
      [1.15, -0.38],
      [1.15, 0.38],
      [0.38, 0.38],
      [0.38, 1.15],
      [-0.38, 1.15],
      [-0.38, 0.38],
      [-1.15, 0.38],
      [-1.15, -0.38],
      [-0.38, -0.38],
    ];
    const c = Math.cos(turn);
    const s = Math.sin(turn);
    return poly(arm.map(([a, b]) => [a * c - b * s, a * s + b * c]));
  };
  switch (i % 8) {
    case 0:
      return `<circle cx="${cx}" cy="${cy}" r="${r}" ${paint}/>`;
    case 1:
      return poly([
        [-0.9, -0.9],
        [0.9, -0.9],
        [0.9, 0.9],
        [-0.9, 0.9],
      ]);
    case 2:
      return poly([
        [0, -1.25],
        [1.15, 0.8],
        [-1.15, 0.8],
      ]);
    case 3:
      return poly([
        [0, -1.3],
        [0.95, 0],
        [0, 1.3],
        [-0.95, 0],
      ]);
    case 4:
      return cross(0);
    case 5:
      return poly([
        [0, 1.25],
        [1.15, -0.8],
        [-1.15, -0.8],
      ]);
    case 6:
      return cross(Math.PI / 4);
    default:
      return poly(
        [0, 1, 2, 3, 4, 5].map((k) => [
          1.1 * Math.sin((k * Math.PI) / 3),
          -1.1 * Math.cos((k * Math.PI) / 3),
        ]),
      );
  }
}

function line(p, [a, b], [c, d], style) {
  const [x1, y1] = p.at(a, b);
  const [x2, y2] = p.at(c, d);
  return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" ${style}/>`;
}

const apply = (pt, W) => [pt[0] * W[0][0] + pt[1] * W[1][0], pt[0] * W[0][1] + pt[1] * W[1][1]];

// One face's panel: the embeddings x (faint grey), the grid and the unit square as W maps them
// (lines of constant first coordinate solid, of the second dashed), every word's face as a
// marker, and the ring at (1, 0)W that can be dragged.
function facePanel(p, { face, w, role, color }, W, F, X, words) {
  const clip = `qkv04-clip-${face}`;
  const span = p.size - 2 * p.pad;
  let body = `<defs><clipPath id="${clip}"><rect x="${p.pad}" y="${p.pad}" width="${span}" height="${span}"/></clipPath></defs>`;
  body += planeAxes(p, { xLabel: "1 成分め", yLabel: "2 成分め" });
  body += subscripted(p.size / 2, 14, [[`${role} ${face} = XW`], [face, true]], {
    fill: color,
    weight: "bold",
  });
  const step = tickStep(p.lim, 2.5);
  for (const v of tickValues(-p.lim, p.lim, step)) {
    const [tx] = p.at(v, 0);
    const [, ty] = p.at(0, v);
    const label = fmt(v, Number.isInteger(step) ? 0 : 1);
    body += text(tx, p.size - p.pad + 10, label, { size: FONT - 2, fill: "var(--qkv-muted)" });
    body += text(p.pad - 5, ty, label, { size: FONT - 2, anchor: "end", fill: "var(--qkv-muted)" });
  }
  let inside = "";
  // The mapped grid and unit square are guides (class qkv-guide: faint, for reference); the
  // embeddings x before the map are marks, fainter than the mapped ones but ≥ 3:1.
  const grid = `class="qkv-guide" style="stroke:${color}" stroke-opacity="0.45" stroke-width="1"`;
  for (const c of GRID) {
    inside += line(p, apply([c, -2], W), apply([c, 2], W), grid);
    inside += line(p, apply([-2, c], W), apply([2, c], W), `${grid} stroke-dasharray="4 3"`);
  }
  const square = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 1],
  ]
    .map((pt) => p.at(...apply(pt, W)).join(","))
    .join(" ");
  inside += `<polygon class="qkv-guide" points="${square}" style="fill:${color}" fill-opacity="0.18"/>`;
  inside += `<g opacity="${FAINT}">${X.map(([a, b]) => arrow(p, a, b, { color: "var(--qkv-x)", width: 1.5 })).join("")}</g>`;
  const [ox, oy] = p.at(0, 0);
  F.forEach(([a, b]) => {
    const [tx, ty] = p.at(a, b);
    inside += `<line x1="${ox}" y1="${oy}" x2="${tx}" y2="${ty}" style="stroke:${color}" stroke-width="2.2"/>`;
  });
  // The ring: where (1, 0) goes, i.e. W's first row; dragging it sets the angle and the scale.
  const [hx, hy] = p.at(W[0][0], W[0][1]);
  inside += `<circle cx="${hx}" cy="${hy}" r="10" style="fill:none;stroke:${color}" stroke-width="2.5"/>`;
  F.forEach(([a, b], i) => {
    const { x, y, pinned } = facePoint(p, a, b);
    const shape = pinned
      ? marker(i, x, y, R, "var(--qkv-bg)", color, 2)
      : marker(i, x, y, R, color);
    const where = pinned ? "(枠の外。枠の縁に中抜きの印で描いています)" : "";
    inside += item(words[i], shape, `${face} (${exact(a)}, ${exact(b)})${where}`);
  });
  body += `<g clip-path="url(#${clip})">${inside}</g>`;
  // The press area over the ring: drawn last, on top, but transparent (the markers show through).
  body += `<circle class="qkv04-handle" cx="${hx}" cy="${hy}" r="20" fill="transparent" style="cursor:grab"><title>(1, 0) の行き先:ドラッグすると ${spoken(w)} の角度と倍率が変わります</title></circle>`;
  return svg(p.size, p.size, body);
}

function matrixBlock(cx, top, { face, color }, W) {
  let body = subscripted(cx, top, [["W"], [face, true]], { fill: color, weight: "bold" });
  const y0 = top + 24;
  W.forEach((row, r) =>
    row.forEach((v, c) => {
      body += text(cx + (c === 0 ? -19 : 19), y0 + r * 20, fmt(v), {
        size: FONT - 2,
        anchor: "middle",
      });
    }),
  );
  const bracket = (x, dir) =>
    `<path d="M${x + 5 * dir},${y0 - 11} h${-5 * dir} v42 h${5 * dir}" fill="none" style="stroke:var(--qkv-fg)" stroke-width="1.2"/>`;
  return body + bracket(cx - 41, 1) + bracket(cx + 41, -1);
}

// The key: each word's marker, its name and the word whose key best matches its query; the grey
// x and the ring; then the three matrices.
function keyPanel(data, n) {
  const words = data.words;
  let body = text(PANEL / 2, 14, "一番合う見出し", { weight: "bold" });
  body += text(PANEL / 2, 34, "問い q との内積 q·k が最大の語", {
    size: FONT - 2,
    fill: "var(--qkv-muted)",
  });
  let y = 60;
  words.forEach((word, i) => {
    const best = n.looks_at[i];
    let row = `<rect x="8" y="${y - 12}" width="${PANEL - 16}" height="24" fill="none" pointer-events="all"/>`;
    row += marker(i, 22, y, 7, "var(--qkv-fg)");
    row += text(38, y, word, { anchor: "start" });
    row += text(150, y, "→", { fill: "var(--qkv-muted)" });
    row += text(166, y, best, {
      anchor: "start",
      fill: best === TIE ? "var(--qkv-muted)" : "var(--qkv-fg)",
    });
    body += item(word, row, `一番合う見出し ${best}`);
    y += 24;
  });
  y += 4;
  body += `<line x1="12" x2="32" y1="${y}" y2="${y}" style="stroke:var(--qkv-x)" stroke-opacity="${FAINT}" stroke-width="2"/>`;
  body += text(38, y, "元の埋め込み x", { anchor: "start", size: FONT - 1 });
  y += 24;
  body += `<circle cx="22" cy="${y}" r="9" style="fill:none;stroke:var(--qkv-fg)" stroke-width="2.5"/>`;
  body += text(38, y, "(1, 0) の行き先(ドラッグできます)", { anchor: "start", size: FONT - 1 });
  y += 32;
  FACES.forEach((f, i) => {
    body += matrixBlock(50 + i * 100, y, f, n[f.w]);
  });
  return svg(PANEL, y + 70, body);
}

function angleText(v) {
  return `${fmt(v, Number.isInteger(v) ? 0 : 1)}°`;
}

export function picture(data) {
  const n = numbers(data);
  const p = planeFor(data.vectors);
  const panels = FACES.map((f) => facePanel(p, f, n[f.w], n[f.face], data.vectors, data.words));
  panels.push(keyPanel(data, n));
  const settings = FACES.map(
    ({ w, t }) => `${w} は角度 ${angleText(data[`${t}_angle`])}・倍率 ${fmt(data[`${t}_scale`])}`,
  ).join("、");
  const point = ([a, b]) => `(${fmt(a)}, ${fmt(b)})`;
  const faces = FACES.map(
    ({ face, role }) =>
      `${role} ${face}: ${data.words.map((word, i) => `${word} ${point(n[face][i])}`).join("、")}`,
  ).join("。");
  const matches = data.words.map((word, i) => `${word}→${n.looks_at[i]}`).join("、");
  const alt =
    `三つのパネルに、${data.words.length} 語の問い Q・見出し K・中身 V を描いた図。${settings}。${faces}。` +
    `問い q との内積が最大の見出し: ${matches}。`;
  const short = FACES.map(
    ({ w, t }) => `${w} ${angleText(data[`${t}_angle`])}×${fmt(data[`${t}_scale`])}`,
  ).join("、");
  const readout = `${short}。一番合う見出し: ${matches}`;
  return { panels, alt, readout, numbers: n };
}

// Dragging a ring (where (1, 0) goes) sets that W's angle and scale; each of the three panels
// moves its own W, and only a press on (or near) the ring starts a drag, so a finger that swipes
// elsewhere across the picture still scrolls the page.
const RINGS = {
  panels: [0, 1, 2],
  plane: (traits) => planeFor(traits.vectors), // as the picture draws it now
  grab: (k, px, py, traits) => {
    const { t } = FACES[k];
    const W = rotationScale(traits[`${t}_angle`], traits[`${t}_scale`]);
    const [hx, hy] = planeFor(traits.vectors).at(W[0][0], W[0][1]);
    return Math.hypot(px - hx, py - hy) <= 22;
  },
  set: (x, y, k) => {
    const { t } = FACES[k];
    const angle = Math.round((Math.atan2(y, x) * 180) / Math.PI);
    // atan2 gives -180 … 180; the slider stops at 180
    return {
      [`${t}_angle`]: angle === -180 ? 180 : angle,
      [`${t}_scale`]: Math.min(2, Math.round(Math.hypot(x, y) * 100) / 100),
    };
  },
};

// The states the chapter's text and exercises name (「試してほしいこと」): from the identity,
// W_Q turned or squashed.
const IDENTITY = { q_angle: 0, q_scale: 1, k_angle: 0, k_scale: 1, v_angle: 0, v_scale: 1 };
export const PRESETS = [
  { label: "W_Q −90°", state: { ...IDENTITY, q_angle: -90 } },
  { label: "W_Q −89°", state: { ...IDENTITY, q_angle: -89 } },
  { label: "W_Q −91°", state: { ...IDENTITY, q_angle: -91 } },
  { label: "W_Q 倍率 0", state: { ...IDENTITY, q_scale: 0 } },
  { label: "W_Q 倍率 0.01", state: { ...IDENTITY, q_scale: 0.01 } },
];

export default {
  render({ model, el }) {
    // Each W's two sliders sit right above its own panel (six in one bar would cover a phone).
    const controls = FACES.flatMap(({ w, t }, panel) => [
      {
        trait: `${t}_angle`,
        kind: "range",
        label: `${w} の角度`,
        min: -180,
        max: 180,
        step: 1,
        format: angleText,
        panel,
      },
      {
        trait: `${t}_scale`,
        kind: "range",
        label: `${w} の倍率`,
        min: 0,
        max: 2,
        step: 0.01,
        format: (v) => fmt(v),
        panel,
      },
    ]);
    // On a phone the panels stack: the key (「一番合う見出し」) comes right under W_Q's panel, on
    // the same screen as the W_Q sliders that change it (qkv.css: .qkv-key-second).
    el.classList.add("qkv-key-second");
    return mount({
      model,
      el,
      data: ["words", "vectors"],
      controls,
      draw: picture,
      drag: RINGS,
      presets: PRESETS,
    });
  },
};
