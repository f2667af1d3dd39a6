// Chapter 03: the networking party. Pick a guest (a button, or a click on their name tag in the
// first panel): their Q against everyone's name tag K, the softmax weights of their row, and what
// they take home, the weights' mix of everyone's V. As in helpers.data.party_attention, the
// scores are q·k as they are (this chapter does not divide by √d_k).
import { argmax, dot, matmul, softmax, vecmat } from "./qkv_math.js";
import {
  FONT,
  PANEL,
  arrow,
  bars,
  fmt,
  item,
  plane,
  planeAxes,
  svg,
  text,
  textWidth,
  tipLabel,
} from "./qkv_draw.js";
import { mount } from "./qkv_widget.js";

export function numbers({ person, names, tastes, w_q, w_k, w_v }) {
  const i = names.indexOf(person);
  if (i < 0) throw new Error(`「${person}」という参加者はいません`);
  const q = vecmat(tastes[i], w_q);
  const K = matmul(tastes, w_k);
  const V = matmul(tastes, w_v);
  const scores = K.map((k) => dot(q, k));
  const weights = softmax(scores);
  return {
    person,
    q,
    scores,
    weights,
    take_home: vecmat(weights, V),
    pick: names[argmax(weights)],
  };
}

// The old figures' limits: a little room past the longest arrow, and the origin always inside.
function limits(rows, below, grow, least) {
  const all = rows.flat();
  return [Math.min(below, Math.min(...all) * grow), Math.max(0.5, Math.max(...all) * least)];
}

// Where a label of the arrow to (x, y) sits, beside its shaft (`at` of the way out, `side` 1:
// clockwise of it, -1: the other side), not past its tip, where it would touch the name tag of a
// guest facing the same way: its anchor point, text-anchor and box [left, top, right, bottom].
function besideShaft(p, x, y, label, at, side) {
  const [ox, oy] = p.at(0, 0);
  const [mx, my] = p.at(at * x, at * y);
  const len = Math.hypot(mx - ox, my - oy) || 1;
  // in SVG units (y down) the arrow is (mx-ox, my-oy); its clockwise normal is (-(my-oy), mx-ox)
  const nx = (-(my - oy) / len) * side;
  const ny = ((mx - ox) / len) * side;
  const anchor = Math.abs(nx) < 0.3 ? "middle" : nx > 0 ? "start" : "end";
  const tx = mx + nx * 8;
  const ty = my + ny * 8 + (ny > 0.3 ? FONT / 2 : ny < -0.3 ? -FONT / 2 : 0);
  const w = textWidth(label);
  const left = anchor === "start" ? tx : anchor === "end" ? tx - w : tx - w / 2;
  return { tx, ty, anchor, box: [left, ty - FONT / 2, left + w, ty + FONT / 2] };
}

// The same, past the arrow's tip (as qkv_draw's `arrow` places a label).
function pastTip(p, x, y, label) {
  const [px, py] = p.at(x, y);
  const right = x >= 0;
  const tx = px + (right ? 5 : -5);
  const ty = py + (y >= 0 ? -9 : 11);
  const w = textWidth(label);
  const left = right ? tx : tx - w;
  return {
    tx,
    ty,
    anchor: right ? "start" : "end",
    box: [left, ty - FONT / 2, left + w, ty + FONT / 2],
  };
}

function segmentDistance(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

function boxDistance(px, py, [l, t, r, b]) {
  return Math.hypot(Math.max(l - px, 0, px - r), Math.max(t - py, 0, py - b));
}

// The Q arrow's label where it keeps farthest from the name tags' arrows, their heads and names:
// beside its shaft (a few places along it, on either side) or, when nothing is near, past its tip.
function qLabel(p, q, K, names, label) {
  const origin = p.at(0, 0);
  const tags = K.map(([x, y], j) => {
    const tip = p.at(x, y);
    const w = textWidth(names[j]);
    const cy = tip[1] + (y >= 0 ? -9 : 11);
    const left = x >= 0 ? tip[0] + 5 : tip[0] - 5 - w;
    return { tip, box: [left, cy - FONT / 2, left + w, cy + FONT / 2] };
  });
  const candidates = [];
  for (const at of [0.7, 0.55, 0.4, 0.85]) {
    for (const side of [1, -1]) candidates.push(besideShaft(p, q[0], q[1], label, at, side));
  }
  candidates.push(pastTip(p, q[0], q[1], label)); // where nothing else is near the tip
  let best = null;
  for (const place of candidates) {
    const [l, t, r, b] = place.box;
    const points = [];
    for (let i = 0; i <= 4; i++)
      points.push([l + ((r - l) * i) / 4, t], [l + ((r - l) * i) / 4, b]);
    let room = Math.min(
      ...points.map(([px, py]) =>
        Math.min(
          ...tags.map(({ tip }) => segmentDistance(px, py, origin, tip)),
          ...tags.map(({ tip }) => Math.hypot(px - tip[0], py - tip[1]) - 14), // a head is wider than a shaft
          ...tags.map(({ box }) => boxDistance(px, py, box) - 4),
        ),
      ),
    );
    if (l < 0 || r > p.size || t < 20 || b > p.size - 20) room -= 100;
    if (!best || room > best.room + 2) best = { ...place, room };
  }
  return text(best.tx, best.ty, label, {
    anchor: best.anchor,
    fill: "var(--qkv-q)",
    weight: "bold",
    cls: "qkv-halo",
  });
}

// The name tag whose arrow passes within `reach` of (x, y); -1 for none (or near the origin,
// where every arrow starts).
function nearestTag(K, x, y, reach) {
  let best = -1;
  if (Math.hypot(x, y) < reach * 0.6) return best;
  let bestDistance = reach;
  K.forEach(([kx, ky], j) => {
    const t = Math.max(0, Math.min(1, (x * kx + y * ky) / (kx * kx + ky * ky || 1)));
    const d = Math.hypot(x - t * kx, y - t * ky);
    if (d < bestDistance) [best, bestDistance] = [j, d];
  });
  return best;
}

function planes({ tastes, w_q, w_k, w_v }) {
  const Q = matmul(tastes, w_q);
  const K = matmul(tastes, w_k);
  const V = matmul(tastes, w_v);
  return {
    K,
    V,
    qk: plane(limits([...Q, ...K], -0.5, 1.3, 1.2)),
    v: plane(limits(V, -0.2, 1.3, 1.25)),
  };
}

export function picture(data) {
  const n = numbers(data);
  const { K, V, qk, v } = planes(data);
  const [xLabel, yLabel] = data.axis_labels;
  let left = planeAxes(qk, { title: "探す相手像 Q(青)と名札 K(朱)", xLabel, yLabel });
  // the name tags' arrows, the Q arrow over them, then every name over both (a name past its
  // tip may cross the Q arrow of a guest looking that way)
  K.forEach(([x, y], j) => {
    left += item(data.names[j], arrow(qk, x, y, { color: "var(--qkv-k)", width: 1.6 }));
  });
  left += arrow(qk, n.q[0], n.q[1], { color: "var(--qkv-q)", width: 4 });
  K.forEach(([x, y], j) => (left += item(data.names[j], tipLabel(qk, x, y, data.names[j]))));
  left += qLabel(qk, n.q, K, data.names, `${data.person}の Q`);
  let right = planeAxes(v, { title: "中身 V(緑)と持ち帰り(太い矢印)", xLabel, yLabel });
  V.forEach(([x, y], j) => {
    right += arrow(v, x, y, {
      color: "var(--qkv-v)",
      width: 1.4,
      label: data.names[j],
      labelColor: "var(--qkv-fg)",
    });
  });
  right += arrow(v, n.take_home[0], n.take_home[1], { color: "var(--qkv-v)", width: 5 });
  const best = data.names.indexOf(n.pick);
  const panels = [
    svg(PANEL, PANEL, left),
    // a weight belongs to neither Q nor K (it is made from both): neutral grey bars
    bars({
      labels: data.names,
      values: n.weights,
      lo: 0,
      hi: 1.1,
      title: "注目の重み(合計 1)",
      color: "var(--qkv-x)",
      highlight: best,
    }),
    svg(PANEL, PANEL, right),
  ];
  const weights = data.names.map((name, j) => `${name} ${fmt(n.weights[j])}`).join("、");
  const home = `(${fmt(n.take_home[0])}, ${fmt(n.take_home[1])})`;
  const alt =
    `探す人 ${data.person}。${data.person}の Q は (${fmt(n.q[0])}, ${fmt(n.q[1])})。` +
    `注目の重み: ${weights}。一番重いのは${n.pick}。持ち帰り(重みで混ぜた V)は ${home}。`;
  const readout = `${data.person}が一番探しているのは${n.pick}(重み ${fmt(n.weights[best])})。持ち帰り ${home}。`;
  return { panels, alt, readout, numbers: n };
}

// The states the chapter's text asks the reader to try (「試してほしいこと」): ミオ, then アオイ
// and ケン in turn.
export const PRESETS = [
  { label: "ミオ:重みが散らばる", state: { person: "ミオ" } },
  { label: "アオイ:持ち帰りは辛い側", state: { person: "アオイ" } },
  { label: "ケン:持ち帰りは甘い側", state: { person: "ケン" } },
];

export default {
  render({ model, el }) {
    const names = model.get("names");
    const { K, qk } = planes(
      Object.fromEntries(["tastes", "w_q", "w_k", "w_v"].map((t) => [t, model.get(t)])),
    );
    return mount({
      model,
      el,
      data: ["names", "tastes", "w_q", "w_k", "w_v", "axis_labels"],
      controls: [
        {
          trait: "person",
          kind: "choice",
          label: "探す人",
          options: names.map((name) => ({ label: name, value: name })),
        },
      ],
      draw: picture,
      presets: PRESETS,
      // A click (or a drag) on or near a name tag's arrow in the first panel picks that guest.
      drag: {
        panel: 0,
        plane: qk,
        set: (x, y) => {
          const j = nearestTag(K, x, y, 0.15 * (qk.hi - qk.lo));
          return j < 0 ? {} : { person: names[j] };
        },
      },
    });
  },
};
