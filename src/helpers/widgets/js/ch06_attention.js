// Chapter 06: why attention divides by √d_k. Pick d_k (or click the right panel) and whether to
// divide; the spread of all scores q·k, the softmax of one typical row and the average largest
// weight of a row follow. The random experiment was drawn once in Python; the row's softmax is
// computed here, as the chapter teaches it: softmax(q·k / √d_k), or of the raw q·k.
import { argmax, softmax } from "./qkv_math.js";
import { FONT, PANEL, bars, fmt, svg, text, tickStep, tickValues } from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

const HEIGHT = 250;

function index({ d_k, d_ks }) {
  const i = d_ks.indexOf(d_k);
  if (i < 0) throw new Error(`d_k = ${d_k} はこの図にありません(${d_ks.join("、")} のどれか)`);
  return i;
}

export function numbers(data) {
  const { d_k, scaled } = data;
  const i = index(data);
  const row = data.rows[i];
  const weights = softmax(scaled ? row.map((s) => s / Math.sqrt(d_k)) : row);
  return {
    d_k,
    scaled,
    variance: (scaled ? data.var_scaled : data.var_raw)[i],
    expected_variance: scaled ? 1 : d_k,
    row: data.row_index[i],
    weights,
    max_weight: Math.max(...weights),
    mean_max_weight: (scaled ? data.mean_max_scaled : data.mean_max_raw)[i],
  };
}

const line = (x1, y1, x2, y2, style, extra = "") =>
  `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" style="${style}"${extra}/>`;

// Left: the histogram of all scores as softmax gets them (the tallest bin = 1).
function histogramPanel(data, n, i) {
  const left = 46;
  const right = PANEL - 12;
  const top = 70;
  const bottom = 192;
  const lim = data.hist_limit;
  const heights = (n.scaled ? data.hist_scaled : data.hist_raw)[i];
  const x = (v) => left + ((v + lim) / (2 * lim)) * (right - left);
  const y = (h) => bottom - (Math.min(h, 1.15) / 1.15) * (bottom - top);
  const w = (right - left) / heights.length;
  let d = `M${left},${bottom}`;
  heights.forEach((h, k) => (d += `L${left + k * w},${y(h)}L${left + (k + 1) * w},${y(h)}`));
  d += `L${right},${bottom}Z`;
  let body = text(PANEL / 2, 12, "得点の散らばり", { weight: "bold" });
  body += text(left, 34, `d_k = ${n.d_k}・${data.scaling_words[n.scaled ? 1 : 0]}`, {
    anchor: "start",
    size: FONT - 1,
  });
  body += text(left, 53, `分散 ${fmt(n.variance, 1)}(理論では ${n.expected_variance})`, {
    anchor: "start",
    size: FONT - 1,
  });
  body += `<path d="${d}" style="fill:var(--qkv-x)"/>`;
  body += line(left, bottom, right, bottom, "stroke:var(--qkv-axis)");
  body += line(left, top, left, bottom, "stroke:var(--qkv-axis)");
  for (const v of tickValues(-lim, lim, tickStep(lim, 3))) {
    body += line(x(v), bottom, x(v), bottom + 4, "stroke:var(--qkv-axis)");
    body += text(x(v), bottom + 13, fmt(v, 0), { size: FONT - 2 });
  }
  for (const h of [0, 0.5, 1]) {
    body += line(left - 4, y(h), left, y(h), "stroke:var(--qkv-axis)");
    body += text(left - 6, y(h), fmt(h, h === 0.5 ? 1 : 0), { anchor: "end", size: FONT - 2 });
  }
  body += text((left + right) / 2, HEIGHT - 14, "ソフトマックスに渡す得点", {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
  });
  body += text(13, (top + bottom) / 2, "相対的な頻度(最大 = 1)", {
    size: FONT - 2,
    fill: "var(--qkv-muted)",
    rotate: -90,
  });
  return svg(PANEL, HEIGHT, body);
}

// Middle: the weights of the typical row (the heaviest outlined), as a bar chart.
function rowPanel(n) {
  const labels = n.weights.map((_, k) => String(k + 1));
  return bars({
    labels,
    values: n.weights,
    lo: 0,
    hi: 1.15,
    title: "ある 1 行の注目の重み",
    color: "var(--qkv-q)",
    highlight: argmax(n.weights),
    height: HEIGHT,
    digits: labels.length > 9 ? 1 : 2,
    xLabel: "見出し(キー)の番号",
  });
}

// Right: the average largest weight of a row against d_k (log₂ axis), unscaled and scaled.
function curveGeometry(d_ks) {
  const left = 44;
  const right = PANEL - 16;
  const top = 34;
  const bottom = 192;
  const lo = Math.log2(d_ks[0]);
  const hi = Math.log2(d_ks[d_ks.length - 1]);
  const span = hi - lo || 1;
  const x = (d) => left + ((Math.log2(d) - lo) / span) * (right - left);
  const y = (v) => bottom - (v / 1.05) * (bottom - top);
  // From SVG units back to the nearest d_k (clicking or dragging in the panel picks it).
  const nearest = (px) => {
    const u = lo + ((px - left) / (right - left)) * span;
    return d_ks.reduce((best, d) =>
      Math.abs(Math.log2(d) - u) < Math.abs(Math.log2(best) - u) ? d : best,
    );
  };
  return { left, right, top, bottom, x, y, nearest, back: (px, py) => [px, py] };
}

function curvePanel(data, n) {
  const g = curveGeometry(data.d_ks);
  const even = 1 / n.weights.length;
  let body = text(PANEL / 2, 12, "行の最大の重み(平均)", { weight: "bold" });
  body += line(g.left, g.bottom, g.right, g.bottom, "stroke:var(--qkv-axis)");
  body += line(g.left, g.top, g.left, g.bottom, "stroke:var(--qkv-axis)");
  data.d_ks.forEach((d, k) => {
    body += line(g.x(d), g.bottom, g.x(d), g.bottom + 4, "stroke:var(--qkv-axis)");
    if (k % 2 === 0 || k === data.d_ks.length - 1)
      body += text(g.x(d), g.bottom + 13, String(d), { size: FONT - 2 });
  });
  for (const v of [0, 0.5, 1]) {
    body += line(g.left - 4, g.y(v), g.left, g.y(v), "stroke:var(--qkv-axis)");
    body += text(g.left - 6, g.y(v), fmt(v, v === 0.5 ? 1 : 0), { anchor: "end", size: FONT - 2 });
  }
  body += text((g.left + g.right) / 2, HEIGHT - 14, "d_k(目盛りは 2 倍ずつ)", {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
  });
  body += line(
    g.left,
    g.y(even),
    g.right,
    g.y(even),
    "stroke:var(--qkv-muted)",
    ' stroke-width="1.5" stroke-dasharray="2 3"',
  );
  const curve = (values, colour) => {
    const pts = data.d_ks.map((d, k) => `${g.x(d)},${g.y(values[k])}`).join(" ");
    let s = `<polyline points="${pts}" fill="none" style="stroke:${colour}" stroke-width="2"/>`;
    data.d_ks.forEach(
      (d, k) =>
        (s += `<circle cx="${g.x(d)}" cy="${g.y(values[k])}" r="3.5" style="fill:${colour}"/>`),
    );
    return s;
  };
  body += curve(data.mean_max_raw, "var(--qkv-muted)");
  body += curve(data.mean_max_scaled, "var(--qkv-q)");
  body += `<circle cx="${g.x(n.d_k)}" cy="${g.y(n.mean_max_weight)}" r="9" fill="none" style="stroke:var(--qkv-fg)" stroke-width="2.5"/>`;
  // The legend sits between the two curves, on the right (unscaled runs high, scaled low).
  const lx = g.right - 112;
  const entries = [
    ["割らない", "var(--qkv-muted)", ""],
    ["√d_k で割る", "var(--qkv-q)", ""],
    [`均等(1/${n.weights.length})`, "var(--qkv-muted)", ' stroke-dasharray="2 3"'],
  ];
  entries.forEach(([label, colour, dash], k) => {
    const ly = g.y(0.7) + k * 18;
    body += line(lx, ly, lx + 18, ly, `stroke:${colour}`, ` stroke-width="2"${dash}`);
    body += text(lx + 23, ly, label, { anchor: "start", size: FONT - 2, cls: "qkv-halo" });
  });
  return svg(PANEL, HEIGHT, body);
}

export function picture(data) {
  const n = numbers(data);
  const i = index(data);
  const how = data.scaling_words[n.scaled ? 1 : 0];
  const heaviest = argmax(n.weights);
  const panels = [histogramPanel(data, n, i), rowPanel(n), curvePanel(data, n)];
  const list = n.weights.map((w, k) => `${k + 1} 番 ${fmt(w)}`).join("、");
  const alt =
    `d_k = ${n.d_k}・${how}。得点の分散は ${fmt(n.variance, 1)}(理論では ${n.expected_variance})。` +
    `典型的な 1 行(${data.n_rows} 行のうち上から ${n.row + 1} 行め)の重み: ${list}。` +
    `一番重いのは ${heaviest + 1} 番の ${fmt(n.max_weight)}。` +
    `行の最大の重みの平均は、割らないと ${fmt(data.mean_max_raw[i])}、√d_k で割ると ${fmt(data.mean_max_scaled[i])}` +
    `(均等なら ${fmt(1 / n.weights.length, 3)})。`;
  const readout =
    `d_k = ${n.d_k}・${how}:分散 ${fmt(n.variance, 1)}、この行の最大の重み ${fmt(n.max_weight)}、` +
    `行の最大の重みの平均 ${fmt(n.mean_max_weight)}`;
  return { panels, alt, readout, numbers: n };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」).
export const PRESETS = [
  { label: "d_k = 512", state: { d_k: 512, scaled: false } },
  { label: "d_k = 512・√d_k で割る", state: { d_k: 512, scaled: true } },
  { label: "d_k = 1", state: { d_k: 1, scaled: false } },
  { label: "d_k = 1・√d_k で割る", state: { d_k: 1, scaled: true } },
];

export default {
  render({ model, el }) {
    const d_ks = model.get("d_ks");
    const g = curveGeometry(d_ks);
    return mount({
      model,
      el,
      data: [
        "d_ks",
        "rows",
        "row_index",
        "n_rows",
        "scaling_words",
        "hist_limit",
        "hist_raw",
        "hist_scaled",
        "var_raw",
        "var_scaled",
        "mean_max_raw",
        "mean_max_scaled",
      ],
      controls: [
        {
          trait: "d_k",
          kind: "range",
          label: "d_k(次元)",
          options: d_ks,
          format: (v) => String(v),
        },
        { trait: "scaled", kind: "checkbox", label: "√d_k で割る" },
      ],
      draw: picture,
      presets: PRESETS,
      // Click or drag across the right panel: the nearest d_k on its axis is chosen.
      drag: { panel: 2, plane: g, set: (px) => ({ d_k: g.nearest(px) }) },
    });
  },
};
