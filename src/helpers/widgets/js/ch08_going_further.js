// Chapter 08: several heads and the causal mask. Choose a head and turn the mask on or off; the
// left map is that head's attention weights (the hidden cells hatched), the right one the output
// of every head, side by side, mixed by W_O. All computed here from X and each head's W.
import { attention, causalMask, matmul } from "./qkv_math.js";
import { EDGE, FONT, PANEL, colormap, fmt, svg, text, textWidth } from "./qkv_draw.js";
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

export function numbers(data) {
  const { weights, output } = multiHead(data, data.masked);
  return { head: data.head, masked: data.masked, weights: weights[data.head], output };
}

// --- A heatmap whose rows line up with a neighbour's (local: qkv_draw's heatmap has fixed
// geometry and flat column labels, which overlap when the labels are wider than a cell).

// How the column labels of `cols` fit `cell`-wide columns: flat, staggered in two lines, or
// tilted 45°; `rise` is the height they need above the map.
function columnLabels(cols, cell) {
  const widest = Math.max(...cols.map((c) => textWidth(c, FONT - 1)));
  if (widest <= cell * 0.95) return { mode: "flat", rise: 18, widest };
  if (widest <= cell * 1.9) return { mode: "stagger", rise: 36, widest };
  return { mode: "tilt", rise: widest * 0.71 + 12, widest };
}

// The geometry two heatmaps share so that their rows line up: the left edge (after the row
// labels), the top (below the tallest column labels) and the row height.
// A title wider than the panel (or than `widest`, the longest it may become) breaks before its
// parenthesis, into two lines: the same lines whatever the controls say, so nothing jumps.
function titleLines(title, widest = title) {
  const cut = title.indexOf("(");
  return textWidth(widest, FONT) <= PANEL - 8 || cut <= 0
    ? [title]
    : [title.slice(0, cut), title.slice(cut)];
}

function sharedLayout(rows, panels) {
  const left = 30 + Math.max(...rows.map((r) => textWidth(r, FONT - 1)));
  const fitted = panels.map(({ cols, maxCell = 44 }) => {
    let cellW = Math.min(maxCell, (PANEL - left - 12) / cols.length);
    const labels = columnLabels(cols, cellW);
    // Tilted labels lean right past their column: narrow the columns so the last one fits.
    if (labels.mode === "tilt")
      cellW = Math.min(cellW, (PANEL - left - 4 - labels.widest * 0.71) / (cols.length - 0.5));
    return { cellW, labels };
  });
  const lines = Math.max(...panels.map(({ title, widest }) => titleLines(title, widest).length));
  const head = 32 + 18 * (lines - 1); // where the column title sits, below the title's lines
  const top = head + 14 + Math.max(...fitted.map((f) => f.labels.rise));
  return { left, top, head, cellH: fitted[0].cellW, fitted };
}

function grid({
  M,
  rows,
  cols,
  lo,
  hi,
  title,
  widest,
  cmap,
  rowTitle,
  colTitle,
  rowColor,
  colColor,
  hatch = [],
  layout,
  fit,
}) {
  const { left, top, head, cellH } = layout;
  const { cellW, labels } = fit;
  const height = top + cellH * rows.length + 12;
  const mid = left + (cellW * cols.length) / 2;
  let body = titleLines(title, widest)
    .map((line, k) => text(PANEL / 2, 12 + 18 * k, line, { weight: "bold" }))
    .join("");
  body += text(mid, head, colTitle, { size: FONT - 1, fill: colColor });
  body += text(12, top + (cellH * rows.length) / 2, rowTitle, {
    size: FONT - 1,
    fill: rowColor,
    rotate: -90,
  });
  cols.forEach((c, j) => {
    const x = left + (j + 0.5) * cellW;
    if (labels.mode === "tilt")
      body += text(x - 2, top - 6, c, { size: FONT - 1, anchor: "start", rotate: -45 });
    else
      body += text(x, top - 10 - (labels.mode === "stagger" && j % 2 ? 17 : 0), c, {
        size: FONT - 1,
      });
  });
  rows.forEach((r, i) => {
    body += text(left - 6, top + (i + 0.5) * cellH, r, { anchor: "end", size: FONT - 1 });
    cols.forEach((_, j) => {
      const { fill, ink } = colormap(cmap, (M[i][j] - lo) / (hi - lo));
      const x = left + j * cellW;
      const y = top + i * cellH;
      body += `<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" fill="${fill}" ${EDGE}/>`;
      if (Math.min(cellW, cellH) >= 28)
        body += text(x + cellW / 2, y + cellH / 2, fmt(M[i][j]), { size: FONT - 2, fill: ink });
    });
  });
  for (const [i, j] of hatch) {
    body += `<rect x="${left + j * cellW}" y="${top + i * cellH}" width="${cellW}" height="${cellH}" fill="url(#qkv-hatch)" style="stroke:var(--qkv-muted)"/>`;
  }
  const defs = hatch.length
    ? '<defs><pattern id="qkv-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" style="fill:var(--qkv-bg)"/><line x1="0" y1="0" x2="0" y2="6" style="stroke:var(--qkv-muted)" stroke-width="2"/></pattern></defs>'
    : "";
  return svg(PANEL, height, defs + body);
}

// --- The picture

export function picture(data) {
  const n = numbers(data);
  const { words, out_labels: outs, head_names: names } = data;
  const name = names[data.head];
  // One colour scale for the output, with and without the mask: colours compare across the switch.
  const other = multiHead(data, !data.masked).output;
  const reach = Math.max(...[...n.output, ...other].flat().map(Math.abs)) || 1;
  const hidden = data.masked
    ? words.flatMap((_, i) => words.map((_, j) => [i, j]).filter(([, j]) => j > i))
    : [];
  const mapTitle = `注目の重み(${name}${data.masked ? "、因果マスクあり" : ""})`;
  const longest = names.reduce((a, b) => (textWidth(b, FONT) > textWidth(a, FONT) ? b : a));
  const widest = `注目の重み(${longest}、因果マスクあり)`;
  const outTitle = "全部の頭を W_O で混ぜた出力";
  const layout = sharedLayout(words, [
    { cols: words, title: mapTitle, widest },
    { cols: outs, maxCell: 64, title: outTitle },
  ]);
  const panels = [
    grid({
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
    grid({
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
