// Chapter 08: several heads and the causal mask. Choose a head and turn the mask on or off; the
// left map is that head's attention weights (the hidden cells hatched), the right one the output
// of every head, side by side, mixed by W_O. All computed here from X and each head's W.
import { attention, causalMask, matmul } from "./qkv_math.js";
import { FONT, fmt, heatmap, heatmapLayout, textWidth } from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

// Every head's attention (with the causal mask when `masked`), the heads' outputs side by side
// (head 0's columns first), times W_O: helpers.heads.multi_head_attention, step by step.
function multiHead({ X, W_Q, W_K, W_V, W_O }, masked) {
  const mask = masked ? causalMask(X.length) : null;
  const heads = W_Q.map((_, h) =>
    attention(matmul(X, W_Q[h]), matmul(X, W_K[h]), matmul(X, W_V[h]), mask),
  );
  const joined = X.map((_, i) => heads.flatMap((head) => head.output[i]));
  return { weights: heads.map((head) => head.weights), output: matmul(joined, W_O) };
}

// The same, kept for the data it was computed from: choosing another head or turning the mask
// back computes nothing again (the outputs do not depend on the head shown).
const computed = new WeakMap(); // X → { W_Q, W_K, W_V, W_O, [masked]: multiHead }
function multiHeadOf(data, masked) {
  const { X, W_Q, W_K, W_V, W_O } = data;
  let kept = computed.get(X);
  if (!kept || kept.W_Q !== W_Q || kept.W_K !== W_K || kept.W_V !== W_V || kept.W_O !== W_O)
    computed.set(X, (kept = { W_Q, W_K, W_V, W_O }));
  return (kept[masked] ??= multiHead(data, masked));
}

export function numbers(data) {
  const { weights, output } = multiHeadOf(data, data.masked);
  return { head: data.head, masked: data.masked, weights: weights[data.head], output };
}

// --- The picture

export function picture(data) {
  const n = numbers(data);
  const { words, out_labels: outs, head_names: names } = data;
  const name = names[data.head];
  // One colour scale for the output, with and without the mask: colours compare across the switch.
  const other = multiHeadOf(data, !data.masked).output;
  const reach = Math.max(...[...n.output, ...other].flat().map(Math.abs)) || 1;
  const hidden = data.masked
    ? words.flatMap((_, i) => words.map((_, j) => [i, j]).filter(([, j]) => j > i))
    : [];
  const mapTitle = `注目の重み(${name}${data.masked ? "、因果マスクあり" : ""})`;
  const longest = names.reduce((a, b) => (textWidth(b, FONT) > textWidth(a, FONT) ? b : a));
  const widest = `注目の重み(${longest}、因果マスクあり)`;
  const outTitle = "全部の頭を W_O で混ぜた出力";
  const layout = heatmapLayout(words, [
    { cols: words, title: mapTitle, widest },
    { cols: outs, maxCell: 64, title: outTitle },
  ]);
  const panels = [
    heatmap({
      M: n.weights,
      rows: words,
      cols: words,
      lo: 0,
      hi: 1,
      cmap: "Blues",
      title: mapTitle,
      widest,
      rowTitle: "問い(見る側)",
      colTitle: "見出し(見られる側)",
      rowColor: "var(--qkv-q)",
      colColor: "var(--qkv-k)",
      hatch: hidden,
      layout,
      fit: layout.fitted[0],
    }),
    heatmap({
      M: n.output,
      rows: words,
      cols: outs,
      lo: -reach,
      hi: reach,
      cmap: "RdBu_r",
      title: outTitle,
      rowTitle: "問い(見る側)",
      colTitle: "出力の列",
      rowColor: "var(--qkv-q)",
      colColor: "var(--qkv-v)",
      layout,
      fit: layout.fitted[1],
    }),
  ];
  const how = data.masked ? "因果マスクあり(右上の隠したマスは 0)" : "マスクなし";
  const rowsSaid = words.map((w, i) => {
    const seen = words
      .map((v, j) => `${v} ${fmt(n.weights[i][j])}`)
      .filter((_, j) => !data.masked || j <= i);
    return `${w} の行: ${seen.join("、")}`;
  });
  const outSaid = words.map((w, i) => `${w} ${n.output[i].map((v) => fmt(v)).join("・")}`);
  const alt =
    `注目の重み(${name}、${how})。${rowsSaid.join("。")}。` +
    `全部の頭を W_O で混ぜた出力(${outs.join("・")}): ${outSaid.join("、")}。`;
  const best = words.map((w, i) => {
    let j = 0;
    n.weights[i].forEach((v, k) => v > n.weights[i][j] && (j = k));
    return `${w}→${words[j]} ${fmt(n.weights[i][j])}`;
  });
  const readout = `${name}、${data.masked ? "因果マスクあり" : "マスクなし"}。各行で一番重い見出し: ${best.join("、")}`;
  return { panels, alt, readout, numbers: n };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」): head 2 is index 1.
export const PRESETS = [
  { label: "頭 2・マスクなし", state: { head: 1, masked: false } },
  { label: "頭 2・マスクあり", state: { head: 1, masked: true } },
];

export default {
  render({ model, el }) {
    const names = model.get("head_names");
    return mount({
      model,
      el,
      data: ["heads", "head_names", "words", "out_labels", "X", "W_Q", "W_K", "W_V", "W_O"],
      controls: [
        {
          trait: "head",
          kind: "choice",
          label: "頭",
          options: model.get("heads").map((h) => ({ label: names[h], value: h })),
        },
        { trait: "masked", kind: "checkbox", label: "因果マスク(先を見ない)" },
      ],
      draw: picture,
      presets: PRESETS,
    });
  },
};
