// Chapter 02: the library search counter. Turn the question (or drag its arrow) and change the
// temperature; the scores q·k, the softmax weights and the mixed answer follow.
import { argmax, dot, questionVector, softmax, vecmat } from "./qkv_math.js";
import { arrow, bars, fmt, plane, planeAxes, svg } from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

export function numbers({ angle, temperature, book_keys: keys, book_values: values, names }) {
  const question = questionVector(angle);
  const scores = keys.map((k) => dot(question, k));
  const weights = softmax(scores, temperature);
  const answer = vecmat(weights, values);
  return { question, scores, weights, answer, best: names[argmax(weights)] };
}

// The plane of the keys: ±2.6 holds the question (length 2) and the chapter's books; a catalog
// with keys further out (the factory takes coordinates up to ±1000) widens it to hold them all.
export function keyPlane(keys) {
  return plane(Math.max(2.6, 1.15 * Math.max(...keys.flat().map(Math.abs))));
}

export function picture(data) {
  const n = numbers(data);
  const p = keyPlane(data.book_keys);
  let body = planeAxes(p, {
    title: "問い(青)と見出し(朱)",
    xLabel: data.key_axes[0],
    yLabel: data.key_axes[1],
  });
  data.book_keys.forEach((k, i) => {
    body += arrow(p, k[0], k[1], {
      color: "var(--qkv-k)",
      width: 1.8,
      label: data.names[i],
      labelColor: "var(--qkv-fg)",
    });
  });
  body += arrow(p, n.question[0], n.question[1], { color: "var(--qkv-q)", width: 3.5 });
  const best = data.names.indexOf(n.best);
  // The axes hold every score and every answer, also for a learner's catalog with zero or
  // negative contents (a range of zero width would draw nothing).
  const reach = Math.max(2 * Math.max(...data.book_keys.map((k) => Math.hypot(...k))) * 1.15, 1e-9);
  const low = Math.min(0, ...data.book_values.flat()) * 1.2;
  const top = Math.max(Math.max(...data.book_values.flat()) * 1.2, low + 1e-9, 1e-9);
  const panels = [
    svg(p.size, p.size, body),
    bars({
      labels: data.names,
      values: n.scores,
      lo: -reach,
      hi: reach,
      title: "得点 q·k",
      color: "var(--qkv-k)",
      highlight: best,
    }),
    bars({
      labels: data.names,
      values: n.weights,
      lo: 0,
      hi: 1.15,
      title: "重み(ソフトマックス)",
      color: "var(--qkv-k)",
      highlight: best,
    }),
    bars({
      labels: data.value_axes,
      values: n.answer,
      lo: low,
      hi: top,
      title: "答え:中身の混ぜ合わせ",
      color: "var(--qkv-v)",
    }),
  ];
  const list = (xs, vs) => xs.map((x, i) => `${x} ${fmt(vs[i])}`).join("、");
  const alt =
    `問いの向き ${fmt(data.angle, 0)}°、温度 ${fmt(data.temperature)}。重み: ${list(data.names, n.weights)}。` +
    `答え: ${list(data.value_axes, n.answer)}。一番重いのは${n.best}。`;
  return { panels, alt, readout: alt, numbers: n };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」).
export const PRESETS = [
  { label: "温度 0.05・45°", state: { temperature: 0.05, angle: 45 } },
  { label: "温度 1", state: { temperature: 1 } },
  { label: "温度 20", state: { temperature: 20 } },
];

export default {
  render({ model, el }) {
    return mount({
      model,
      el,
      data: ["names", "book_keys", "book_values", "key_axes", "value_axes"],
      controls: [
        {
          trait: "angle",
          kind: "range",
          label: "問いの向き",
          min: -90,
          max: 180,
          step: 1,
          format: (v) => `${fmt(v, 0)}°`,
        },
        {
          trait: "temperature",
          kind: "range",
          label: "温度 T",
          scale: "log",
          min: 0.05,
          max: 20,
          step: 0.01,
          // 3 significant digits: each step (× 1.023) shows a new number (0.05, 0.0512, …)
          format: (v) => String(Number(v.toPrecision(3))),
        },
      ],
      draw: picture,
      presets: PRESETS,
      // Drag the question's arrow: its direction is the angle (its length stays 2).
      drag: {
        panel: 0,
        plane: (traits) => keyPlane(traits.book_keys),
        set: (x, y) => {
          const a = Math.round((Math.atan2(y, x) * 180) / Math.PI);
          // The slider runs from -90° to 180°: a direction between them (past -90° clockwise)
          // goes to the nearer end.
          if (a >= -90) return { angle: a };
          return { angle: a + 180 < -90 - a ? 180 : -90 };
        },
      },
    });
  },
};
