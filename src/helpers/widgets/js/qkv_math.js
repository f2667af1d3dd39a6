// The maths every explorable draws from, in plain JavaScript: the same formulas as the numpy in
// src/helpers (attention.softmax, geometry.rotation_scale_matrix, geometry.question_vector, ...),
// held to them by tests/test_explorables.py. Row vectors, as in the book: x @ W.
// Vectors are arrays of numbers, matrices arrays of rows.

export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function transpose(A) {
  return A[0].map((_, j) => A.map((row) => row[j]));
}

// A (n × m) @ B (m × p): each output cell is a row of A against a column of B.
export function matmul(A, B) {
  const Bt = transpose(B);
  return A.map((row) => Bt.map((col) => dot(row, col)));
}

export function vecmat(x, W) {
  return matmul([x], W)[0];
}

export function norm(a) {
  return Math.sqrt(dot(a, a));
}

// cos of the angle between a and b; NaN when either has no direction (length 0).
export function cosine(a, b) {
  const n = norm(a) * norm(b);
  return n === 0 ? NaN : dot(a, b) / n;
}

export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// Softmax of one row, divided by `temperature` first. -Infinity means "masked": weight 0.
// Subtracting the row's maximum keeps every exponent ≤ 0 (no overflow), as attention.softmax does.
export function softmax(row, temperature = 1) {
  const top = Math.max(...row);
  if (top === -Infinity) throw new Error("すべてが -inf(マスク)の行です");
  const e = row.map((s) => (s === -Infinity ? 0 : Math.exp((s - top) / temperature)));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

export function softmaxRows(M, temperature = 1) {
  return M.map((row) => softmax(row, temperature));
}

// The 2×2 W that turns the plane by `angleDeg` counter-clockwise and stretches it by `scale`:
// [1, 0] @ W = scale · (cos θ, sin θ).
export function rotationScale(angleDeg, scale = 1) {
  const t = (angleDeg * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  return [
    [scale * c, scale * s],
    [-scale * s, scale * c],
  ];
}

// A question on the 甘い/辛い plane: `angleDeg` from the 甘い axis, `length` long.
export function questionVector(angleDeg, length = 2) {
  const a = (angleDeg * Math.PI) / 180;
  return [length * Math.cos(a), length * Math.sin(a)];
}

// Scaled dot-product attention of row-stacked Q, K, V: weights = softmax(QKᵀ/√d_k [+ mask]),
// output = weights @ V. `mask` (optional) holds 0 where a query may look and -Infinity where not.
export function attention(Q, K, V, mask = null) {
  const scale = Math.sqrt(K[0].length);
  const scores = matmul(Q, transpose(K)).map((row, i) =>
    row.map((s, j) => s / scale + (mask ? mask[i][j] : 0)),
  );
  const weights = softmaxRows(scores);
  return { scores, weights, output: matmul(weights, V) };
}

// -Infinity above the diagonal: word i may look at words 0..i only.
export function causalMask(n) {
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (j > i ? -Infinity : 0)),
  );
}

// How a screen reader should say a label, a value, a result or an item's name: symbols as words
// (W_Q is not "W underscore Q"), the rest as written. Words, not maths, but here because both
// the drawing (qkv_draw.js: names of items) and the runtime (qkv_widget.js) need it, and
// neither imports the other.
const SPOKEN = [
  [/W_Q/g, "ダブリュー・キュー"],
  [/W_K/g, "ダブリュー・ケー"],
  [/W_V/g, "ダブリュー・ブイ"],
  [/W_O/g, "ダブリュー・オー"],
  [/d_k/g, "ディー・ケー"],
  [/√/g, "ルート"],
  [/q·k/g, "キュー・ケーの内積"],
  [/\bT\b/g, "ティー"],
];
export function spoken(s) {
  return SPOKEN.reduce((t, [pattern, words]) => t.replace(pattern, words), String(s));
}

// How the eye should see a symbol: each "W_Q" or "d_k" of `s` as a letter and its subscript,
// never an underscore. `s` cut into [text, subscript] pairs, the text ending with the letter the
// subscript belongs to, the last pair's subscript empty: "W_Q の角度" → [["W", "Q"], [" の角度", ""]].
// The pictures draw the subscript as a lowered tspan (qkv_draw.js), the controls as <sub>
// (qkv_widget.js); both need it, and neither imports the other.
const SUBSCRIPT = /([A-Za-z])_([A-Za-z0-9]+)/g;
export function subscriptParts(s) {
  const all = String(s);
  const parts = [];
  let at = 0;
  for (const m of all.matchAll(SUBSCRIPT)) {
    parts.push([all.slice(at, m.index) + m[1], m[2]]);
    at = m.index + m[0].length;
  }
  parts.push([all.slice(at), ""]);
  return parts;
}
