// Chapter 07: a training run, step by step. The slider (or a drag along the loss curve) walks the
// saved steps; the loss curve marks the step, the attention map of the full menu frames each
// food's right partner, and W_Q, W_K, W_V are drawn side by side in one heatmap on one colour scale.
import { argmax } from "./qkv_math.js";
import {
  FONT,
  PANEL,
  esc,
  fmt,
  heatmap,
  ink,
  svg,
  text,
  tickStep,
  tickValues,
} from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

const NAMES = ["W_Q", "W_K", "W_V"];
const ROLE = { W_Q: "q", W_K: "k", W_V: "v" };
const W_ROWS = ["甘さ", "辛さ"]; // the input components (the rows of each W: x @ W)

export function numbers({
  step,
  steps,
  saved_losses,
  saved_accuracies,
  saved_weights,
  saved_params,
  partner,
}) {
  const i = steps.indexOf(step);
  if (i < 0) throw new Error(`保存されていないステップです: ${step}`);
  const params = Object.fromEntries(NAMES.map((name) => [name, saved_params[i][name]]));
  return {
    step,
    loss: saved_losses[i],
    accuracy: saved_accuracies[i],
    weights: saved_weights[i],
    params,
    partner,
  };
}

// A loss as the chapter prints it: three decimals, four once it is below 0.01.
function lossText(v) {
  return fmt(v, Math.abs(v) < 0.01 ? 4 : 3);
}

function percent(v) {
  return `${fmt(v * 100, 0)}%`;
}

// Tick labels of a log axis: 0.001 … 1000 written out, 1e-4 and beyond in e-notation.
function decade(e) {
  if (e >= 0 && e <= 3) return String(10 ** e);
  if (e < 0 && e >= -3) return `0.${"0".repeat(-e - 1)}1`;
  return `1e${e}`;
}

// The loss curve's frame: step → x, loss → y on a log scale. `back` turns a point of the panel
// into a step (the drag picks the saved step nearest to it).
function lossFrame(losses) {
  const left = 58;
  const right = PANEL - 14;
  const top = 56;
  const bottom = 182;
  const positive = losses.filter((v) => v > 0);
  const floor = positive.length ? Math.min(...positive) : 1e-6;
  // the curve's own range with a little room, so the decades between fill the frame
  const lo = Math.log10(floor) - 0.15;
  const hi = Math.max(Math.log10(Math.max(...losses, floor)), lo + 1) + 0.15;
  const last = Math.max(losses.length - 1, 1);
  const x = (s) => left + (s / last) * (right - left);
  const y = (v) => bottom - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * (bottom - top);
  const back = (px) => ((px - left) / (right - left)) * last;
  return { left, right, top, bottom, lo, hi, last, x, y, back };
}

function lossPanel(data, n) {
  const f = lossFrame(data.losses);
  let body = text(PANEL / 2, 12, "損失の下がり方", { weight: "bold" });
  body += text(
    PANEL / 2,
    34,
    `${n.step} 回目:損失 ${lossText(n.loss)}、正解率 ${percent(n.accuracy)}`,
    { size: FONT - 1 },
  );
  const first = Math.ceil(f.lo);
  const last = Math.floor(f.hi);
  const every = Math.max(1, Math.ceil((last - first + 1) / 5)); // at most about five labelled decades
  for (let e = first; e <= last; e++) {
    const yy = f.y(10 ** e);
    body += `<line x1="${f.left}" x2="${f.right}" y1="${yy}" y2="${yy}" style="stroke:var(--qkv-axis)" stroke-width="0.5" stroke-dasharray="2 3"/>`;
    if ((e - first) % every === 0)
      body += text(f.left - 5, yy, decade(e), { anchor: "end", size: FONT - 2 });
  }
  // A round whole step (1, 2 or 5 × 10^k) giving at most five intervals.
  for (const s of tickValues(0, f.last, tickStep(Math.max(f.last, 5), 5))) {
    const xx = f.x(s);
    body += `<line x1="${xx}" x2="${xx}" y1="${f.bottom}" y2="${f.bottom + 4}" style="stroke:var(--qkv-axis)"/>`;
    body += text(xx, f.bottom + 14, String(s), { size: FONT - 2 });
  }
  body += `<rect x="${f.left}" y="${f.top}" width="${f.right - f.left}" height="${f.bottom - f.top}" fill="none" style="stroke:var(--qkv-axis)"/>`;
  const points = data.losses.map((v, s) => `${f.x(s).toFixed(1)},${f.y(v).toFixed(1)}`).join(" ");
  body += `<polyline points="${points}" fill="none" style="stroke:var(--qkv-x)" stroke-width="2" stroke-linejoin="round"/>`;
  const cx = f.x(n.step);
  const cy = f.y(n.loss);
  body += `<line x1="${cx}" x2="${cx}" y1="${cy}" y2="${f.bottom}" style="stroke:var(--qkv-q)" stroke-width="1.2" stroke-dasharray="3 3"/>`;
  body += `<circle cx="${cx}" cy="${cy}" r="6" style="fill:var(--qkv-q);stroke:var(--qkv-bg)" stroke-width="1.5"/>`;
  body += text(PANEL / 2, f.bottom + 34, "更新の回数(ステップ)", {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
  });
  body += text(12, (f.top + f.bottom) / 2, "損失(対数目盛り)", {
    size: FONT - 1,
    fill: "var(--qkv-muted)",
    rotate: -90,
  });
  return svg(PANEL, f.bottom + 46, body);
}

// "W" with its role as a subscript, in the role's colour.
function wTitle(x, y, name) {
  const role = ROLE[name];
  return `<text x="${x}" y="${y}" font-size="${FONT + 2}" text-anchor="middle" dominant-baseline="central" style="fill:${ink(`var(--qkv-${role})`)}" font-weight="bold" font-style="italic">W<tspan font-size="${FONT}" dy="4">${esc(role.toUpperCase())}</tspan></text>`;
}

// The three W side by side in the one heatmap, one shared colour range (RdBu_r, symmetric
// about 0): a row (an input component) lights through all three, a cell says its exact value.
function wPanel(params, reach) {
  return heatmap({
    rows: params.W_Q.map((_, i) => W_ROWS[i] ?? String(i + 1)),
    groups: NAMES.map((name) => ({
      M: params[name],
      cols: params[name][0].map((_, j) => String(j + 1)),
      name,
      head: (x, y) => wTitle(x, y, name),
    })),
    lo: -reach,
    hi: reach,
    cmap: "RdBu_r",
    title: "三つの W(この回の値)",
    rowTitle: "入力の成分",
    colTitle: "出力の成分",
    scale: [fmt(-reach, 1), "0", fmt(reach, 1)],
  });
}

// One colour range for every W at every saved step, rounded up to a multiple of 0.5.
export function reachOf(saved_params) {
  let far = 0;
  for (const snap of saved_params)
    for (const name of NAMES)
      for (const row of snap[name]) for (const v of row) far = Math.max(far, Math.abs(v));
  return Math.max(Math.ceil(far * 2) / 2, 0.5);
}

export function picture(data) {
  const n = numbers(data);
  const words = data.words;
  const outline = n.partner.map((j, i) => [i, j]);
  const panels = [
    lossPanel(data, n),
    heatmap({
      M: n.weights,
      rows: words,
      cols: words,
      lo: 0,
      hi: 1,
      title: `注目の重み(全 ${words.length} 品)`,
      outline,
    }),
    wPanel(n.params, reachOf(data.saved_params)),
  ];
  const onPartner = words
    .map((w, i) => `${w}→${words[n.partner[i]]} ${fmt(n.weights[i][n.partner[i]])}`)
    .join("、");
  const matrix = (M) => `[${M.map((row) => `[${row.map((v) => fmt(v)).join(", ")}]`).join(", ")}]`;
  const ws = NAMES.map((name) => `${name} = ${matrix(n.params[name])}`).join("、");
  const right = n.weights.filter((row, i) => argmax(row) === n.partner[i]).length;
  const head = `${n.step} 回目:損失 ${lossText(n.loss)}、正解率 ${percent(n.accuracy)}`;
  const alt = `${head}。正解の相手(枠)への注目の重み:${onPartner}(全 ${words.length} 品のメニューで、一番重いのが正解の相手なのは ${right} 品)。${ws}。`;
  const mean = n.partner.reduce((s, j, i) => s + n.weights[i][j], 0) / words.length;
  const readout = `${head}、正解の相手への重みの平均 ${fmt(mean)}`;
  return { panels, alt, readout, numbers: n };
}

// The steps the chapter's text asks the reader to look at (「試してほしいこと」).
export const PRESETS = [0, 1, 5, 6, 20, 200].map((step) => ({
  label: `${step} 回目`,
  state: { step },
}));

export default {
  render({ model, el }) {
    const steps = model.get("steps");
    const f = lossFrame(model.get("losses"));
    return mount({
      model,
      el,
      data: [
        "steps",
        "losses",
        "words",
        "partner",
        "saved_losses",
        "saved_accuracies",
        "saved_weights",
        "saved_params",
      ],
      controls: [
        {
          trait: "step",
          kind: "range",
          label: "更新の回数",
          options: steps,
          format: (v) => `${v} 回目`,
        },
      ],
      draw: picture,
      presets: PRESETS,
      // Drag along the loss curve: the saved step nearest to the finger.
      drag: {
        panel: 0,
        plane: { back: (px, py) => [f.back(px), py] },
        set: (s) => ({
          step: steps.reduce(
            (best, t) => (Math.abs(t - s) < Math.abs(best - s) ? t : best),
            steps[0],
          ),
        }),
      },
    });
  },
};
