"""A class tries every code exercise: wrong and right attempts of kinds issue 36 did not list, each
through the visible check, the hidden test and the grade cell as nbgrader's autograder runs it
(under NBGRADER_EXECUTION=autograde: ✗ printed, `score(points)` the cell's partial credit).

Each attempt must get the right verdict on all three (a right one ✓ and full points, a wrong one
✗ and fewer points), with a one-line Japanese message (no English words besides code names, no
traceback). `python tests/test_checks_class_trial.py` prints the counts by kind.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from contextlib import redirect_stdout

import numpy as np
import pytest
import reference

import helpers
from helpers import checks
from helpers.checks._base import CheckFailed

SOFTMAX = reference.softmax


def _loop_softmax(s):
    e = [np.exp(v - max(s)) for v in s]
    return [v / sum(e) for v in e]


def _rows(S, f):
    return np.array([f(row) for row in S])


def _causal_weights(Q, K, mask_value=-np.inf, scale=True, k=1):
    n = Q.shape[0]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    return SOFTMAX(S + np.triu(np.full((n, n), mask_value), k=k))


def _heads_loop(X, W_Q, W_K, W_V, W_O, h, root=None, merge=np.hstack):
    d_k = W_Q.shape[1] // h
    outs = []
    for i in range(h):
        c = slice(i * d_k, (i + 1) * d_k)
        Qi, Ki, Vi = X @ W_Q[:, c], X @ W_K[:, c], X @ W_V[:, c]
        outs.append(SOFTMAX(Qi @ Ki.T / (root if root else np.sqrt(d_k))) @ Vi)
    return merge(outs) @ W_O


def _fused(X, a, b, c, join=np.hstack):
    A = X @ join([a, b, c])
    i, j = a.shape[1], 2 * a.shape[1]
    return A[:, :i], A[:, i:j], A[:, j:]


#: (exercise, check, kind, right?, the learner's function)
ATTEMPTS = [
    # chapter 00: to_weights(scores)
    ("first_softmax", checks.check_first_softmax, "loop with max subtracted", True, _loop_softmax),
    ("first_softmax", checks.check_first_softmax, "float32", True,
     lambda s: (np.exp(s.astype(np.float32)) / np.exp(s.astype(np.float32)).sum())),
    ("first_softmax", checks.check_first_softmax, "np.sum", True, lambda s: np.exp(s) / np.sum(np.exp(s))),
    ("first_softmax", checks.check_first_softmax, "negated scores", False, lambda s: np.exp(-s) / np.exp(-s).sum()),
    ("first_softmax", checks.check_first_softmax, "square root norm", False,
     lambda s: np.exp(s) / np.sqrt((np.exp(s) ** 2).sum())),
    ("first_softmax", checks.check_first_softmax, "one-hot argmax", False, lambda s: np.eye(len(s))[np.argmax(s)]),
    ("first_softmax", checks.check_first_softmax, "sum returned", False, lambda s: float(np.exp(s).sum())),
    ("first_softmax", checks.check_first_softmax, "method not called", False, lambda s: np.exp(s) / np.exp(s).sum),
    # chapter 01: cosine(a, b)
    ("cosine", checks.check_cosine, "np.dot and sqrt", True,
     lambda a, b: np.dot(a, b) / (np.sqrt(np.dot(a, a)) * np.sqrt(np.dot(b, b)))),
    ("cosine", checks.check_cosine, "python loop", True,
     lambda a, b: sum(x * y for x, y in zip(a, b, strict=True)) / (sum(x * x for x in a) ** 0.5 * sum(y * y for y in b) ** 0.5)),
    ("cosine", checks.check_cosine, "absolute value", False,
     lambda a, b: abs(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))),
    ("cosine", checks.check_cosine, "one minus", False,
     lambda a, b: 1 - float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))),
    ("cosine", checks.check_cosine, "sum of lengths", False,
     lambda a, b: float(a @ b / (np.linalg.norm(a) + np.linalg.norm(b)))),
    ("cosine", checks.check_cosine, "angle", False,
     lambda a, b: float(np.arccos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), -1, 1)))),
    ("cosine", checks.check_cosine, "array of one", False,
     lambda a, b: np.array([a @ b / (np.linalg.norm(a) * np.linalg.norm(b))])),
    # chapter 02: soft_lookup(q, K, V, temperature)
    ("soft_lookup", checks.check_soft_lookup, "loop over books", True,
     lambda q, K, V, T: sum(w * V[i] for i, w in enumerate(SOFTMAX(q @ K.T / T)[0]))[None]),
    ("soft_lookup", checks.check_soft_lookup, "helpers.softmax", True,
     lambda q, K, V, T: helpers.softmax(q @ K.T, temperature=T) @ V),
    ("soft_lookup", checks.check_soft_lookup, "temperature after softmax", False,
     lambda q, K, V, T: SOFTMAX(q @ K.T) / T @ V),
    ("soft_lookup", checks.check_soft_lookup, "mean of the values", False, lambda q, K, V, T: V.mean(axis=0, keepdims=True)),
    ("soft_lookup", checks.check_soft_lookup, "squared scores", False, lambda q, K, V, T: SOFTMAX((q @ K.T) ** 2 / T) @ V),
    # chapter 03: party_weights(Q, K)
    ("party_weights", checks.check_party_weights, "row by row", True,
     lambda Q, K: _rows(Q @ K.T, lambda r: np.exp(r - r.max()) / np.exp(r - r.max()).sum())),
    ("party_weights", checks.check_party_weights, "softmax of the transpose, transposed back", True,
     lambda Q, K: SOFTMAX((Q @ K.T).T, axis=0).T),
    ("party_weights", checks.check_party_weights, "divided by the row's maximum", False,
     lambda Q, K: (Q @ K.T) / (Q @ K.T).max(axis=1, keepdims=True)),
    ("party_weights", checks.check_party_weights, "sigmoid", False, lambda Q, K: 1 / (1 + np.exp(-(Q @ K.T)))),
    ("party_weights", checks.check_party_weights, "row minimum subtracted", False,
     lambda Q, K: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(Q @ K.T - (Q @ K.T).min(axis=1, keepdims=True)))),
    ("party_weights", checks.check_party_weights, "float16", False,
     lambda Q, K: SOFTMAX((Q @ K.T).astype(np.float16)).astype(np.float16)),
    # chapter 04: three_faces(x, W_Q, W_K, W_V)
    ("three_faces", checks.check_three_faces, "np.matmul list", True, lambda x, *Ws: [np.matmul(x, W) for W in Ws]),
    ("three_faces", checks.check_three_faces, "einsum", True, lambda x, *Ws: tuple(np.einsum("ij,jk->ik", x, W) for W in Ws)),
    ("three_faces", checks.check_three_faces, "column style transposed back", True,
     lambda x, *Ws: tuple((W.T @ x.T).T for W in Ws)),
    ("three_faces", checks.check_three_faces, "sum of the three", False,
     lambda x, a, b, c: (x @ (a + b + c),) * 3),
    ("three_faces", checks.check_three_faces, "k and v swapped", False, lambda x, a, b, c: (x @ a, x @ c, x @ b)),
    ("three_faces", checks.check_three_faces, "the matrices returned", False, lambda x, a, b, c: (a, b, c)),
    # chapter 05: cell(X, W, i, j)
    ("matmul_cell", checks.check_matmul_cell, "generator sum", True,
     lambda X, W, i, j: sum(X[i, k] * W[k, j] for k in range(X.shape[1]))),
    ("matmul_cell", checks.check_matmul_cell, "np.dot of row and column", True, lambda X, W, i, j: np.dot(X[i], W[:, j])),
    ("matmul_cell", checks.check_matmul_cell, "one entry times one entry", False, lambda X, W, i, j: X[i, j] * W[i, j]),
    ("matmul_cell", checks.check_matmul_cell, "sums multiplied", False, lambda X, W, i, j: X[i].sum() * W[:, j].sum()),
    ("matmul_cell", checks.check_matmul_cell, "plus one", False, lambda X, W, i, j: X[i] @ W[:, j] + 1),
    ("matmul_cell", checks.check_matmul_cell, "rounded to one decimal", False, lambda X, W, i, j: round(X[i] @ W[:, j], 1)),
    # chapter 05: fused_qkv(X, W_Q, W_K, W_V)
    ("fused_qkv", checks.check_fused_qkv, "np.concatenate", True, lambda X, a, b, c: _fused(X, a, b, c, lambda m: np.concatenate(m, axis=1))),
    ("fused_qkv", checks.check_fused_qkv, "np.split at the widths", True,
     lambda X, a, b, c: tuple(np.split(X @ np.hstack([a, b, c]), np.cumsum([a.shape[1], b.shape[1]]), axis=1))),
    ("fused_qkv", checks.check_fused_qkv, "np.block", True, lambda X, a, b, c: _fused(X, a, b, c, lambda m: np.block(m))),
    ("fused_qkv", checks.check_fused_qkv, "cut at d_v", False,
     lambda X, a, b, c: (lambda A, d: (A[:, :d], A[:, d:2 * d], A[:, 2 * d:]))(X @ np.hstack([a, b, c]), c.shape[1])),
    ("fused_qkv", checks.check_fused_qkv, "two returned", False, lambda X, a, b, c: _fused(X, a, b, c)[:2]),
    ("fused_qkv", checks.check_fused_qkv, "K and V swapped", False, lambda X, a, b, c: (lambda q, k, v: (q, v, k))(*_fused(X, a, b, c))),
    ("fused_qkv", checks.check_fused_qkv, "two products", False,
     lambda X, a, b, c: (*_fused(X, a, b, c)[:2], X @ c)),
    # chapter 06: my_attention(Q, K, V)
    ("attention", checks.check_attention, "row loop", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(_rows(Q @ K.T / np.sqrt(K.shape[1]), lambda r: np.exp(r) / np.exp(r).sum()))),
    ("attention", checks.check_attention, "float32", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX((Q @ K.T / np.sqrt(Q.shape[1])).astype(np.float32)))),
    ("attention", checks.check_attention, "divided by √d_v", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(V.shape[1])))),
    ("attention", checks.check_attention, "divided by √(number of keys)", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(K.shape[0])))),
    ("attention", checks.check_attention, "relu instead of exp", False,
     lambda Q, K, V: (lambda r: (r / r.sum(axis=1, keepdims=True) @ V, r / r.sum(axis=1, keepdims=True)))(
         np.maximum(Q @ K.T / np.sqrt(Q.shape[1]), 0) + 1e-3)),
    ("attention", checks.check_attention, "output mixes V transposed", False,
     lambda Q, K, V: (lambda w: (w @ V @ V.T @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1])))),
    # chapter 07: update_W_Q(W_Q, X, dQ, lr)
    ("gradient_step", checks.check_gradient_step, "np.subtract", True, lambda W, X, dQ, lr: np.subtract(W, lr * X.T @ dQ)),
    ("gradient_step", checks.check_gradient_step, "loop over words", True,
     lambda W, X, dQ, lr: W - lr * sum(np.outer(X[t], dQ[t]) for t in range(len(X)))),
    ("gradient_step", checks.check_gradient_step, "averaged over words", False, lambda W, X, dQ, lr: W - lr * X.T @ dQ / len(X)),
    ("gradient_step", checks.check_gradient_step, "unchanged", False, lambda W, X, dQ, lr: W.copy()),
    ("gradient_step", checks.check_gradient_step, "dQ used as the gradient", False,
     lambda W, X, dQ, lr: W - lr * dQ[: W.shape[0], : W.shape[1]]),
    # chapter 08: causal_attention(Q, K, V)
    ("causal_attention", checks.check_causal_attention, "mask of -1e9", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, -1e9))),
    ("causal_attention", checks.check_causal_attention, "np.where on tril", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(np.where(np.tril(np.ones((len(Q), len(Q)))) > 0,
                                                            Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)))),
    ("causal_attention", checks.check_causal_attention, "not scaled", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, scale=False))),
    ("causal_attention", checks.check_causal_attention, "renormalised after zeroing", False,
     lambda Q, K, V: (lambda w: (w @ V, w))((lambda z: z / z.sum(axis=1, keepdims=True))(
         SOFTMAX(Q @ K.T) * np.tril(np.ones((len(Q), len(Q))))))),
    ("causal_attention", checks.check_causal_attention, "mask of -1", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, -1.0))),
    # chapter 08: multi_head(X, W_Q, W_K, W_V, W_O, h)
    ("multi_head", checks.check_multi_head, "head loop", True, _heads_loop),
    ("multi_head", checks.check_multi_head, "heads joined with concatenate", True,
     lambda *a: _heads_loop(*a, merge=lambda o: np.concatenate(o, axis=1))),
    ("multi_head", checks.check_multi_head, "divided by √d_model", False,
     lambda X, *a: _heads_loop(X, *a, root=np.sqrt(X.shape[1]))),
    ("multi_head", checks.check_multi_head, "heads summed", False,
     lambda X, W_Q, W_K, W_V, W_O, h: _heads_loop(X, W_Q, W_K, W_V, W_O, h,
                                                   merge=lambda o: np.hstack([sum(o)] * h))),
    ("multi_head", checks.check_multi_head, "W_O first", False, lambda X, W_Q, W_K, W_V, W_O, h: X @ W_O.T @ W_O),
    # crashes: a beginner's Python errors, said in Japanese with the line (and a list that numpy reads)
    ("first_softmax", checks.check_first_softmax, "a list divided by a numpy number", True,
     lambda s: [float(np.exp(v)) for v in s] / sum(np.exp(s))),
    ("attention", checks.check_attention, "shape called", False,
     lambda Q, K, V: SOFTMAX(Q @ K.T / np.sqrt(Q.shape(1)))),
    ("party_weights", checks.check_party_weights, "axis out of range", False,
     lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=2, keepdims=True)),
    ("causal_attention", checks.check_causal_attention, "np.Inf", False,
     lambda Q, K, V: _causal_weights(Q, K, -np.Inf)),
    ("cosine", checks.check_cosine, "index past the end", False,
     lambda a, b: float(a[0] * b[0] + a[1] * b[1] + a[2] * b[2])),
]

#: (exercise, check, kind, right?, the typed answers): predictions and chapter 04's matrix.
TYPED = [
    ("matmul_shape", checks.check_matmul_shape_prediction, "list", True, ([1, 3],)),
    ("matmul_shape", checks.check_matmul_shape_prediction, "1 行 3 列です", True, ("1 行 3 列です",)),
    ("matmul_shape", checks.check_matmul_shape_prediction, "full-width x", True, ("１ｘ３",)),
    ("matmul_shape", checks.check_matmul_shape_prediction, "ERROR in capitals", False, ("ERROR",)),
    ("matmul_shape", checks.check_matmul_shape_prediction, "W's shape typed", False, ("2×3",)),
    ("pudding", checks.check_pudding_prediction, "けーき in hiragana", True, ("けーき",)),
    ("pudding", checks.check_pudding_prediction, "ケーキだと思います", True, ("ケーキだと思います",)),
    ("pudding", checks.check_pudding_prediction, "ケ－キ (a full-width minus)", True, ("ケ－キ",)),
    ("pudding", checks.check_pudding_prediction, "itself", False, ("ぷりん",)),
    ("temperature", checks.check_temperature_prediction, "readings", True, ("いっさつ", "へいきん")),
    ("temperature", checks.check_temperature_prediction, "polite", True, ("1冊に集中します", "平均になります")),
    ("temperature", checks.check_temperature_prediction, "both ends swapped", False, ("平均", "一冊")),
    ("temperature", checks.check_temperature_prediction, "zero", False, ("一冊", "ゼロです")),
    ("symmetry", checks.check_party_symmetry_prediction, "対称です", True, ("対称です",)),
    ("symmetry", checks.check_party_symmetry_prediction, "たいしょうになる", True, ("たいしょうになる",)),
    ("symmetry", checks.check_party_symmetry_prediction, "非対称", False, ("非対称",)),
    ("q_shape", checks.check_q_shape_prediction, "[5, 3]", True, ("[5, 3]",)),
    ("q_shape", checks.check_q_shape_prediction, "5行3列", True, ("5行3列",)),
    ("q_shape", checks.check_q_shape_prediction, "transposed", False, ("3x5",)),
    ("order", checks.check_order_prediction, "変わりません", True, ("変わりません",)),
    ("order", checks.check_order_prediction, "かわらない", True, ("かわらない",)),
    ("order", checks.check_order_prediction, "sometimes", False, ("ときどき",)),
    ("identical_keys", checks.check_identical_keys_prediction, "均等になります", True, ("均等になります",)),
    ("identical_keys", checks.check_identical_keys_prediction, "1/5", True, ("1/5",)),
    ("identical_keys", checks.check_identical_keys_prediction, "先頭だけ", False, ("先頭",)),
    ("learning_rate", checks.check_learning_rate_prediction, "発散します", True, ("発散します",)),
    ("learning_rate", checks.check_learning_rate_prediction, "こわれる", True, ("こわれる",)),
    ("learning_rate", checks.check_learning_rate_prediction, "faster", False, ("はやくなる",)),
    ("question_matrix", checks.check_question_matrix, "list of lists", True, ([[0, 0.5], [1, 0]],)),
    ("question_matrix", checks.check_question_matrix, "sign flipped", False, ([[0, -0.5], [1, 0]],)),
    ("question_matrix", checks.check_question_matrix, "one-by-four", False, ([[0, 0.5, 1, 0]],)),
]

_CODE_NAMES = r"\b(shape|axis|keepdims?|dtype|float\d*|int|None|return|reshape|ravel|transpose|split|hstack|vstack|" \
               r"softmax|exp|max|sum|sqrt|inf|Inf|nan|NaN|NumPy|numpy|np|helpers|print|round|tuple|list|ndarray|str|" \
               r"output|weights|cell|cosine|to_weights|soft_lookup|party_weights|three_faces|fused_qkv|my_attention|" \
               r"update_W_Q|causal_attention|multi_head|temperature|scores|lr|ravel|clip|einsum|matmul|dot|" \
               r"argmax|mean|copy|lambda|heads|masked_softmax)\b"


def _calls(check, fn) -> list:
    """The calls a grade cell makes: the visible check and the hidden test of a code exercise
    (`fn` a function), or the one check of a typed answer (`fn` the answers)."""
    if isinstance(fn, tuple):
        hidden = "hidden" in __import__("inspect").signature(check).parameters
        return [lambda: check(*fn)] + ([lambda: check(*fn, hidden=True)] if hidden else [])
    return [lambda: check(fn), lambda: check(fn, hidden=True)]


def graded(check, fn, points: float = 2.0) -> tuple[str, float]:
    """What the grade cell prints and scores under the autograder: visible then hidden check."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, redirect_stdout(out), np.errstate(all="ignore"):
        mp.setenv("NBGRADER_EXECUTION", "autograde")
        checks.score(points)  # a fresh cell: no credit left from checks run before
        for call in _calls(check, fn):
            call()
        earned = checks.score(points)
    return out.getvalue(), earned


def run(call) -> CheckFailed | None:
    try:
        with redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            call()
    except CheckFailed as wrong:
        return wrong
    return None


def outcome(check, fn, right: bool) -> tuple[str, str]:
    """(the attempt's outcome, its visible message): "ok" or what went wrong."""
    calls = _calls(check, fn)
    seen, hidden = run(calls[0]), run(calls[-1])
    printed, earned = graded(check, fn)
    message = str(seen) if seen else ""
    if right:
        if seen or hidden:
            return "right code refused", str(seen or hidden)
        return ("ok", "") if earned == 2.0 else ("grade cell disagrees", printed)
    if not seen and not hidden:
        return "wrong code accepted", ""
    if not seen or not hidden:
        return "visible and hidden disagree", message or str(hidden)
    if earned >= 2.0:
        return "grade cell disagrees", printed
    if "\n" in message.strip() or "Traceback" in message:
        return "not one line", message
    code_free = re.sub(r"\b\w+_\w+\b", "", re.sub(r"`[^`]*`", "", message))  # d_model, W_Q: code names
    if re.search(r"[A-Za-z]{3,}", re.sub(_CODE_NAMES, "", code_free)):
        return "English inside the ✗ line", message
    return ("ok: general message" if seen.mistake == "wrong_values" else "ok"), message


@pytest.mark.parametrize("exercise, check, kind, right, fn", ATTEMPTS + TYPED,
                         ids=[f"{e}-{k}" for e, _, k, _, _ in ATTEMPTS + TYPED])
def test_a_class_attempt_gets_the_same_verdict_everywhere_in_japanese(exercise, check, kind, right, fn):
    result, message = outcome(check, fn, right)
    assert result.startswith("ok"), f"{exercise} / {kind}: {result}: {message}"


if __name__ == "__main__":
    counts: Counter = Counter()
    for exercise, check, kind, right, fn in ATTEMPTS + TYPED:
        result, message = outcome(check, fn, right)
        counts[("right" if right else "wrong", result)] += 1
        print(f"{'✓' if right else '✗'} {exercise:16} {kind:40} {result:28} {message[:160]}")
    for key, n in sorted(counts.items()):
        print(key, n)
