// Chapter 00: a first look at the destination. The slider blends the hand-made W_Q from
// "keep x as it is" (t = 0, so Q = K = X) to "swap the two axes" (t = 1); W_K = W_V = I.
// Left: W_Q's numbers; right: the attention weights, a ring on each row's largest weight.
import { argmax, attention, matmul } from "./qkv_math.js";
import { FONT, PANEL, fmt, heatmap, svg, text } from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

// The weights' colour scale: fixed, so colours stay comparable while t moves (0.6 and above
// are the darkest blue).
const TOP = 0.6;

// W_Q = (1 - t) I + t SWAP, as helpers.data.preview_w_q.
export function previewWQ(t) {
  return [
    [(1 - t) * 1 + t * 0, (1 - t) * 0 + t * 1],
    [(1 - t) * 0 + t * 1, (1 - t) * 1 + t * 0],
  ];
}

export function numbers({ mix, words, vectors }) {
  const W_Q = previewWQ(mix);
  const X = vectors;
  const Q = matmul(X, W_Q);
  const { weights } = attention(Q, X, X); // K = X W_K = X, V = X W_V = X
  const picks = weights.map((row) => words[argmax(row)]);
  return { W_Q, weights, picks };
}

// The weights, a ring on each row's largest weight and a colour scale under the grid (the column
// labels go to two staggered rows when they are wider than a cell: 4-letter words are).
function weightsPanel(words, weights, picks) {
  return heatmap({
    M: weights,
    rows: words,
    cols: words,
    lo: 0,
    hi: TOP,
    title: "注目の重み(各行の合計 = 1)",
    rings: picks.map((word, i) => [i, words.indexOf(word)]),
    scale: ["0", fmt(TOP / 2, 1), `${fmt(TOP, 1)} 以上`],
  });
}

// "Sweet and spicy" for the book's two axes; any other plane says "the two axes".
function swapWords(axes) {
  const sweet = String(axes[0] ?? "").startsWith("甘") && String(axes[1] ?? "").startsWith("辛");
  return sweet ? "甘さと辛さを入れ替え" : "2 つの軸を入れ替え";
}

function matrixPanel(W, t, axes) {
  let body = text(PANEL / 2, 12, "問いを作る行列 W_Q", { weight: "bold", fill: "var(--qkv-q)" });
  body += text(PANEL / 2, 40, `入れ替え度 t = ${fmt(t)}`);
  const [x0, x1, y0, y1] = [110, 190, 82, 122];
  W.forEach((row, i) => {
    row.forEach((v, j) => {
      body += text(j ? x1 : x0, i ? y1 : y0, fmt(v), { size: FONT + 6, fill: "var(--qkv-q)" });
    });
  });
  const bracket = (x, dx) =>
    `<path d="M${x + dx},60 H${x} V144 H${x + dx}" fill="none" style="stroke:var(--qkv-q)" stroke-width="2"/>`;
  body += bracket(62, 10) + bracket(238, -10);
  const note = { size: FONT - 1, fill: "var(--qkv-muted)" };
  body += text(PANEL / 2, 176, "t = 0:そのまま(Q = X)", note);
  body += text(PANEL / 2, 198, `t = 1:${swapWords(axes)}`, note);
  body += `<circle cx="44" cy="238" r="12" fill="none" style="stroke:var(--qkv-k)" stroke-width="2.5"/>`;
  body += text(64, 238, "= 各行で一番重いマス", { anchor: "start" });
  body += text(64, 260, "(その語が一番注目する語)", { ...note, anchor: "start" });
  return svg(PANEL, 276, body);
}

export function picture(data) {
  const n = numbers(data);
  const panels = [
    matrixPanel(n.W_Q, data.mix, data.axes),
    weightsPanel(data.words, n.weights, n.picks),
  ];
  const best = data.words
    .map((w, i) => `${w}→${n.picks[i]}(${fmt(Math.max(...n.weights[i]))})`)
    .join("、");
  const rows = data.words
    .map((w, i) => `${w}の行 ${n.weights[i].map((v) => fmt(v)).join(", ")}`)
    .join("。");
  const alt =
    `入れ替え度 t = ${fmt(data.mix)}。W_Q = [[${n.W_Q[0].map((v) => fmt(v)).join(", ")}], [${n.W_Q[1].map((v) => fmt(v)).join(", ")}]]。` +
    `注目の重み(行が見る側、列は ${data.words.join("、")} の順): ${rows}。一番の注目先: ${best}。`;
  return { panels, alt, readout: `一番の注目先: ${best}`, numbers: n };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」), then the t its answer
// names, where a word's heaviest weight moves to another word: folded, since the text asks the
// reader to find them first.
const SWITCHES = [0.36, 0.42, 0.47, 0.54, 0.55, 0.57, 0.58];
export const PRESETS = [
  { label: "t = 0", state: { mix: 0 } },
  { label: "t = 0.5", state: { mix: 0.5 } },
  { label: "t = 1", state: { mix: 1 } },
  ...SWITCHES.map((t) => ({ label: `t = ${t}`, state: { mix: t }, fold: "答え:入れ替わる t" })),
];

export default {
  render({ model, el }) {
    return mount({
      model,
      el,
      data: ["words", "vectors", "axes"],
      controls: [
        {
          trait: "mix",
          kind: "range",
          label: "入れ替え度 t",
          min: 0,
          max: 1,
          step: 0.01,
          format: (v) => fmt(v),
        },
      ],
      draw: picture,
      presets: PRESETS,
    });
  },
};
