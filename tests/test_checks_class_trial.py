"""A class tries every code exercise: wrong and right attempts of kinds issue 36 did not list, each
through the visible check, the hidden test and the grade cell as nbgrader's autograder runs it
(under NBGRADER_EXECUTION=autograde: ✗ printed, `score(points)` the cell's partial credit).

Each attempt must get the right verdict on all three (a right one ✓ and full points, a wrong one
✗ and fewer points), with a one-line Japanese message (no English words besides code names, no
traceback). `PYTHONPATH=tests/support python tests/test_checks_class_trial.py` prints the counts
by kind.
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
    """The queries are the last n_q of the n_k words: query i is word n_k − n_q + i."""
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    return SOFTMAX(S + np.triu(np.full((n_q, n_k), mask_value), k=k + n_k - n_q))


def _seen(Q, K):
    """True where query i may look at key j (j ≤ its own word n_k − n_q + i)."""
    return np.arange(len(K))[None, :] <= np.arange(len(Q))[:, None] + len(K) - len(Q)


def _heads_loop(X, W_Q, W_K, W_V, W_O, h, root=None, merge=np.hstack):
    d_k, d_v = W_Q.shape[1] // h, W_V.shape[1] // h
    outs = []
    for i in range(h):
        c, cv = slice(i * d_k, (i + 1) * d_k), slice(i * d_v, (i + 1) * d_v)
        Qi, Ki, Vi = X @ W_Q[:, c], X @ W_K[:, c], X @ W_V[:, cv]
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
    # chapter 00: scores_from_weights(weights)
    ("scores_from_weights", checks.check_scores_from_weights, "np.log plus a constant", True, lambda w: np.log(w) + 3.0),
    ("scores_from_weights", checks.check_scores_from_weights, "a list of math.log", True,
     lambda w: [__import__("math").log(v) for v in w]),
    ("scores_from_weights", checks.check_scores_from_weights, "log of the weights over their maximum", True,
     lambda w: np.log(w / w.max())),
    ("scores_from_weights", checks.check_scores_from_weights, "log of one minus the weights", False, lambda w: np.log(1 - w)),
    ("scores_from_weights", checks.check_scores_from_weights, "doubled log", False, lambda w: 2 * np.log(w)),
    ("scores_from_weights", checks.check_scores_from_weights, "the weights times their count", False, lambda w: w * len(w)),
    ("scores_from_weights", checks.check_scores_from_weights, "one number", False, lambda w: float(np.log(w).sum())),
    ("scores_from_weights", checks.check_scores_from_weights, "the weights' softmax", False,
     lambda w: np.exp(w) / np.exp(w).sum()),
    ("scores_from_weights", checks.check_scores_from_weights, "log of the weights squared", False, lambda w: np.log(w ** 2)),
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
    ("cosine", checks.check_cosine, "divided by the sum of the lengths", False,
     lambda a, b: float(a @ b / (np.linalg.norm(a) + np.linalg.norm(b)))),
    ("cosine", checks.check_cosine, "angle", False,
     lambda a, b: float(np.arccos(np.clip(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)), -1, 1)))),
    ("cosine", checks.check_cosine, "a * b instead of a @ b", False,
     lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b))),
    ("cosine", checks.check_cosine, "array of one", False,
     lambda a, b: np.array([a @ b / (np.linalg.norm(a) * np.linalg.norm(b))])),
    # chapter 02: soft_lookup(q, K, V, temperature, on_shelf)
    ("soft_lookup", checks.check_soft_lookup, "loop over books on the shelf", True,
     lambda q, K, V, T, on: sum(w * V[on][i] for i, w in enumerate(SOFTMAX(q @ K[on].T / T)[0]))[None]),
    ("soft_lookup", checks.check_soft_lookup, "helpers.softmax of a -inf mask", True,
     lambda q, K, V, T, on: helpers.softmax(np.where(on, q @ K.T, -np.inf), temperature=T) @ V),
    ("soft_lookup", checks.check_soft_lookup, "loaned books' scores minus 1e9", True,
     lambda q, K, V, T, on: SOFTMAX((q @ K.T - 1e9 * ~on) / T) @ V),
    ("soft_lookup", checks.check_soft_lookup, "temperature after softmax", False,
     lambda q, K, V, T, on: SOFTMAX(q @ K[on].T) / T @ V[on]),
    ("soft_lookup", checks.check_soft_lookup, "weights of the books on the shelf returned", False,
     lambda q, K, V, T, on: SOFTMAX(q @ K[on].T / T)),
    ("soft_lookup", checks.check_soft_lookup, "mean of the values", False, lambda q, K, V, T, on: V.mean(axis=0, keepdims=True)),
    ("soft_lookup", checks.check_soft_lookup, "squared scores", False,
     lambda q, K, V, T, on: SOFTMAX((q @ K[on].T) ** 2 / T) @ V[on]),
    ("soft_lookup", checks.check_soft_lookup, "weights cut, values not", False,
     lambda q, K, V, T, on: SOFTMAX(q @ K[on].T / T) @ V[:int(on.sum())]),
    ("soft_lookup", checks.check_soft_lookup, "loaned weights divided by their count", False,
     lambda q, K, V, T, on: (SOFTMAX(q @ K.T / T) * on) / on.sum() @ V),
    ("soft_lookup", checks.check_soft_lookup, "mask multiplied into the scores", False,
     lambda q, K, V, T, on: SOFTMAX(q @ K.T * on / T) @ V),
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
    # chapter 04: three_faces(x, W_Q_saved, W_K_saved, W_V_saved), matrices saved as (d_k × d_model)
    ("three_faces", checks.check_three_faces, "np.matmul list", True, lambda x, *Ws: [np.matmul(x, W.T) for W in Ws]),
    ("three_faces", checks.check_three_faces, "einsum", True, lambda x, *Ws: tuple(np.einsum("ij,kj->ik", x, W) for W in Ws)),
    ("three_faces", checks.check_three_faces, "column style transposed back", True,
     lambda x, *Ws: tuple((W @ x.T).T for W in Ws)),
    ("three_faces", checks.check_three_faces, "np.transpose", True, lambda x, *Ws: tuple(x @ np.transpose(W) for W in Ws)),
    ("three_faces", checks.check_three_faces, "sum of the three", False,
     lambda x, a, b, c: (x @ (a + b + c).T,) * 3),
    ("three_faces", checks.check_three_faces, "k and v swapped", False, lambda x, a, b, c: (x @ a.T, x @ c.T, x @ b.T)),
    ("three_faces", checks.check_three_faces, "inverse instead of transpose", False,
     lambda x, *Ws: tuple(x @ np.linalg.pinv(W) for W in Ws)),
    ("three_faces", checks.check_three_faces, "the matrices returned", False, lambda x, a, b, c: (a, b, c)),
    ("three_faces", checks.check_three_faces, "saved matrices used as the book's", False,
     lambda x, *Ws: tuple(x @ W for W in Ws)),
    ("three_faces", checks.check_three_faces, "multiplied entry by entry", False, lambda x, *Ws: tuple(x * W for W in Ws)),
    # chapter 05: score_cell(Q, K, i, j), one cell of Q Kᵀ
    ("matmul_cell", checks.check_matmul_cell, "generator sum", True,
     lambda Q, K, i, j: sum(Q[i, k] * K[j, k] for k in range(Q.shape[1]))),
    ("matmul_cell", checks.check_matmul_cell, "np.dot of row and column of K.T", True,
     lambda Q, K, i, j: np.dot(Q[i], K.T[:, j])),
    ("matmul_cell", checks.check_matmul_cell, "the chapter's column copied", False, lambda Q, K, i, j: Q[i] @ K[:, j]),
    ("matmul_cell", checks.check_matmul_cell, "one entry times one entry", False, lambda Q, K, i, j: Q[i, j] * K[j, i]),
    ("matmul_cell", checks.check_matmul_cell, "sums multiplied", False, lambda Q, K, i, j: Q[i].sum() * K[j].sum()),
    ("matmul_cell", checks.check_matmul_cell, "plus one", False, lambda Q, K, i, j: Q[i] @ K[j] + 1),
    ("matmul_cell", checks.check_matmul_cell, "columns of both", False, lambda Q, K, i, j: Q[:, i] @ K[:, j]),
    ("matmul_cell", checks.check_matmul_cell, "rounded to one decimal", False, lambda Q, K, i, j: round(Q[i] @ K[j], 1)),
    ("matmul_cell", checks.check_matmul_cell, "i and j swapped", False, lambda Q, K, i, j: float(Q[j] @ K[i])),
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
    # chapter 07: update_W_Q(W_Q, X, dQ, lr), X and dQ holding b menus on their first axis
    ("gradient_step", checks.check_gradient_step, "np.subtract and einsum", True,
     lambda W, X, dQ, lr: np.subtract(W, lr * np.einsum("bnd,bnk->dk", X, dQ))),
    ("gradient_step", checks.check_gradient_step, "swapaxes, then sum over menus", True,
     lambda W, X, dQ, lr: W - lr * (np.swapaxes(X, 1, 2) @ dQ).sum(axis=0)),
    ("gradient_step", checks.check_gradient_step, "loop over menus and words", True,
     lambda W, X, dQ, lr: W - lr * sum(np.outer(X[b, t], dQ[b, t]) for b in range(len(X)) for t in range(X.shape[1]))),
    ("gradient_step", checks.check_gradient_step, "the chapter's X.T @ dQ", False, lambda W, X, dQ, lr: W - lr * X.T @ dQ),
    ("gradient_step", checks.check_gradient_step, "averaged over menus", False,
     lambda W, X, dQ, lr: W - lr * np.einsum("bnd,bnk->dk", X, dQ) / len(X)),
    ("gradient_step", checks.check_gradient_step, "averaged over words", False,
     lambda W, X, dQ, lr: W - lr * np.einsum("bnd,bnk->dk", X, dQ) / X.shape[1]),
    ("gradient_step", checks.check_gradient_step, "unchanged", False, lambda W, X, dQ, lr: W.copy()),
    ("gradient_step", checks.check_gradient_step, "dQ used as the gradient", False,
     lambda W, X, dQ, lr: W - lr * dQ[0, : W.shape[0], : W.shape[1]]),
    # chapter 08: causal_attention(Q, K, V)
    ("causal_attention", checks.check_causal_attention, "mask of -1e9", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, -1e9))),
    ("causal_attention", checks.check_causal_attention, "np.where on the positions", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(np.where(_seen(Q, K), Q @ K.T / np.sqrt(Q.shape[1]),
                                                            -np.inf)))),
    ("causal_attention", checks.check_causal_attention, "the chapter's n × n mask", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1])
                                                    + np.triu(np.full((len(Q), len(Q)), -np.inf), k=1)))),
    ("causal_attention", checks.check_causal_attention, "queries as the first words", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1])
                                                    + np.triu(np.full((len(Q), len(K)), -np.inf), k=1)))),
    ("causal_attention", checks.check_causal_attention, "offset in the wrong direction", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, k=1 - 2 * (len(K) - len(Q))))),
    ("causal_attention", checks.check_causal_attention, "offset in the wrong direction, -1e9", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, -1e9, k=1 - 2 * (len(K) - len(Q))))),
    ("causal_attention", checks.check_causal_attention, "border at n_k − 1 (right for two queries only)", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, k=len(Q) - 1))),
    ("causal_attention", checks.check_causal_attention, "square mask for squares, border at n_k − 1 otherwise", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, k=1 if len(Q) == len(K) else len(Q) - 1))),
    ("causal_attention", checks.check_causal_attention, "not scaled", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, scale=False))),
    ("causal_attention", checks.check_causal_attention, "renormalised after zeroing", False,
     lambda Q, K, V: (lambda w: (w @ V, w))((lambda z: z / z.sum(axis=1, keepdims=True))(
         SOFTMAX(Q @ K.T) * _seen(Q, K)))),
    ("causal_attention", checks.check_causal_attention, "mask of -1", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(_causal_weights(Q, K, -1.0))),
    # chapter 08: multi_head(X, W_Q, W_K, W_V, W_O, h)
    ("multi_head", checks.check_multi_head, "head loop", True, _heads_loop),
    ("multi_head", checks.check_multi_head, "the chapter's loop, values cut d_k wide", False,
     lambda X, W_Q, W_K, W_V, W_O, h: np.hstack([
         SOFTMAX((X @ W_Q[:, i * (W_Q.shape[1] // h):(i + 1) * (W_Q.shape[1] // h)])
                 @ (X @ W_K[:, i * (W_Q.shape[1] // h):(i + 1) * (W_Q.shape[1] // h)]).T / np.sqrt(W_Q.shape[1] // h))
         @ (X @ W_V[:, i * (W_Q.shape[1] // h):(i + 1) * (W_Q.shape[1] // h)]) for i in range(h)]) @ W_O),
    ("multi_head", checks.check_multi_head, "heads joined with concatenate", True,
     lambda *a: _heads_loop(*a, merge=lambda o: np.concatenate(o, axis=1))),
    ("multi_head", checks.check_multi_head, "divided by √d_model", False,
     lambda X, *a: _heads_loop(X, *a, root=np.sqrt(X.shape[1]))),
    ("multi_head", checks.check_multi_head, "the chapter's global d_k = 2", False,
     lambda *a: _heads_loop(*a, root=np.sqrt(2))),
    ("multi_head", checks.check_multi_head, "heads summed", False,
     lambda X, W_Q, W_K, W_V, W_O, h: _heads_loop(X, W_Q, W_K, W_V, W_O, h,
                                                   merge=lambda o: np.hstack([sum(o)] * h))),
    ("multi_head", checks.check_multi_head, "W_O first", False, lambda X, W_Q, W_K, W_V, W_O, h: X @ W_O.T @ W_O),
    ("multi_head", checks.check_multi_head, "one head scaled by a head's √d_k", False,
     lambda X, W_Q, W_K, W_V, W_O, h: SOFTMAX((X @ W_Q) @ (X @ W_K).T / np.sqrt(W_Q.shape[1] // h)) @ (X @ W_V) @ W_O),
    # transfer exercises (the seven added after the first trial)
    # chapter 01: cosine_table(A, B)
    ("cosine_table", checks.check_cosine_table, "double loop with cosine of two rows", True,
     lambda A, B: [[float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))) for b in B] for a in A]),
    ("cosine_table", checks.check_cosine_table, "rows normalised first", True,
     lambda A, B: (A / np.linalg.norm(A, axis=1, keepdims=True)) @ (B / np.linalg.norm(B, axis=1, keepdims=True)).T),
    ("cosine_table", checks.check_cosine_table, "einsum", True,
     lambda A, B: np.einsum("id,jd->ij", A, B) / np.sqrt(np.einsum("id,id->i", A, A)[:, None] * np.einsum("jd,jd->j", B, B))),
    ("cosine_table", checks.check_cosine_table, "float32", True,
     lambda A, B: (lambda a, b: a @ b.T / np.outer(np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)))(
         A.astype(np.float32), B.astype(np.float32))),
    ("cosine_table", checks.check_cosine_table, "squared lengths", False,
     lambda A, B: A @ B.T / np.outer((A ** 2).sum(axis=1), (B ** 2).sum(axis=1))),
    ("cosine_table", checks.check_cosine_table, "lengths along the wrong axis", False,
     lambda A, B: A @ B.T / np.outer(np.linalg.norm(A, axis=0), np.linalg.norm(B, axis=0))),
    ("cosine_table", checks.check_cosine_table, "only the diagonal", False,
     lambda A, B: np.array([A[i] @ B[i] / (np.linalg.norm(A[i]) * np.linalg.norm(B[i])) for i in range(min(len(A), len(B)))])),
    ("cosine_table", checks.check_cosine_table, "one minus (a distance)", False,
     lambda A, B: 1 - A @ B.T / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))),
    ("cosine_table", checks.check_cosine_table, "B against A", False,
     lambda A, B: B @ A.T / np.outer(np.linalg.norm(B, axis=1), np.linalg.norm(A, axis=1))),
    ("cosine_table", checks.check_cosine_table, "helpers.cosine_similarity in a loop", False,
     lambda A, B: [[helpers.attention.cosine_similarity(a, b) for b in B] for a in A]),
    # chapter 03: received_from_others(Q, K)
    ("received", checks.check_received, "loops over people", True,
     lambda Q, K: (lambda A: [sum(A[i][j] for i in range(len(A)) if i != j) for j in range(len(A))])(SOFTMAX(Q @ K.T))),
    ("received", checks.check_received, "diagonal zeroed then summed", True,
     lambda Q, K: (SOFTMAX(Q @ K.T) * (1 - np.eye(len(Q)))).sum(axis=0)),
    ("received", checks.check_received, "einsum and trace", True,
     lambda Q, K: (lambda A: np.einsum("ij->j", A) - np.einsum("ii->i", A))(SOFTMAX(np.einsum("id,jd->ij", Q, K)))),
    ("received", checks.check_received, "float32", True,
     lambda Q, K: (lambda A: A.sum(axis=0) - np.diag(A))(SOFTMAX((Q @ K.T).astype(np.float32)))),
    ("received", checks.check_received, "Q and K swapped", False,
     lambda Q, K: (lambda A: A.sum(axis=0) - np.diag(A))(SOFTMAX(K @ Q.T))),
    ("received", checks.check_received, "scaled by √d", False,
     lambda Q, K: (lambda A: A.sum(axis=0) - np.diag(A))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1])))),
    ("received", checks.check_received, "mean instead of sum", False,
     lambda Q, K: (lambda A: (A.sum(axis=0) - np.diag(A)) / (len(A) - 1))(SOFTMAX(Q @ K.T))),
    ("received", checks.check_received, "the whole table returned", False,
     lambda Q, K: SOFTMAX(Q @ K.T) * (1 - np.eye(len(Q)))),
    ("received", checks.check_received, "row sums with the diagonal (all 1)", False,
     lambda Q, K: SOFTMAX(Q @ K.T).sum(axis=1)),
    ("received", checks.check_received, "column sums minus one", False,
     lambda Q, K: SOFTMAX(Q @ K.T).sum(axis=0) - 1),
    ("received", checks.check_received, "first row removed instead of the diagonal", False,
     lambda Q, K: SOFTMAX(Q @ K.T)[1:].sum(axis=0)),
    ("received", checks.check_received, "diagonal scores zeroed before softmax", False,
     lambda Q, K: (lambda S: (lambda A: A.sum(axis=0) - np.diag(A))(SOFTMAX(S - np.diag(np.diag(S)))))(Q @ K.T)),
    # chapter 04: x_from_q(q, W_Q)
    ("undo_W", checks.check_undo_W, "np.linalg.solve on the transpose", True,
     lambda q, W: np.linalg.solve(W.T, q.T).T),
    ("undo_W", checks.check_undo_W, "np.matmul with inv", True, lambda q, W: np.matmul(q, np.linalg.inv(W))),
    ("undo_W", checks.check_undo_W, "lstsq", True, lambda q, W: np.linalg.lstsq(W.T, q.ravel(), rcond=None)[0][None]),
    ("undo_W", checks.check_undo_W, "pinv in float32", True, lambda q, W: q.astype(np.float32) @ np.linalg.pinv(W).astype(np.float32)),
    ("undo_W", checks.check_undo_W, "inverse on the left", False, lambda q, W: (np.linalg.inv(W) @ q.T).T),
    ("undo_W", checks.check_undo_W, "divided entry by entry", False, lambda q, W: q / W.sum(axis=0)),
    ("undo_W", checks.check_undo_W, "q divided by W entry by entry", False, lambda q, W: q / W),
    ("undo_W", checks.check_undo_W, "1-D answer", False, lambda q, W: (q @ np.linalg.inv(W)).ravel()),
    ("undo_W", checks.check_undo_W, "q returned", False, lambda q, W: q.copy()),
    ("undo_W", checks.check_undo_W, "a list back", True, lambda q, W: (q @ np.linalg.inv(W)).tolist()),
    ("undo_W", checks.check_undo_W, "solve without the transpose", False, lambda q, W: np.linalg.solve(W, q.T).T),
    ("undo_W", checks.check_undo_W, "the inverse returned", False, lambda q, W: np.linalg.inv(W)),
    # chapter 05: matmul_in_two(X, W, k)
    ("matmul_in_two", checks.check_matmul_in_two, "np.matmul", True,
     lambda X, W, k: np.matmul(X[:, :k], W[:k]) + np.matmul(X[:, k:], W[k:])),
    ("matmul_in_two", checks.check_matmul_in_two, "einsum halves", True,
     lambda X, W, k: np.einsum("ik,kj->ij", X[:, :k], W[:k]) + np.einsum("ik,kj->ij", X[:, k:], W[k:])),
    ("matmul_in_two", checks.check_matmul_in_two, "np.dot and np.add", True,
     lambda X, W, k: np.add(np.dot(X[:, :k], W[:k]), np.dot(X[:, k:], W[k:]))),
    ("matmul_in_two", checks.check_matmul_in_two, "array copy first", True,
     lambda X, W, k: (lambda A: A[:, :k] @ W[:k] + A[:, k:] @ W[k:])(np.array(X))),
    ("matmul_in_two", checks.check_matmul_in_two, "whole product through np.array", False,
     lambda X, W, k: np.array(X) @ W),
    ("matmul_in_two", checks.check_matmul_in_two, "whole product with einsum", False,
     lambda X, W, k: np.einsum("ik,kj->ij", X, W)),
    ("matmul_in_two", checks.check_matmul_in_two, "overlap at k", False,
     lambda X, W, k: X[:, :k + 1] @ W[:k + 1] + X[:, k:] @ W[k:]),
    ("matmul_in_two", checks.check_matmul_in_two, "rows cut instead of the shared axis", False,
     lambda X, W, k: np.vstack([X[:k] @ W, X[k:] @ W])),
    ("matmul_in_two", checks.check_matmul_in_two, "slice one past the cut (a term left out)", False,
     lambda X, W, k: X[:, :k] @ W[:k] + X[:, k + 1:] @ W[k + 1:]),
    ("matmul_in_two", checks.check_matmul_in_two, "halves averaged", False,
     lambda X, W, k: (X[:, :k] @ W[:k] + X[:, k:] @ W[k:]) / 2),
    # chapter 06: batch_attention(Q, K, V)
    ("batch_attention", checks.check_batch_attention, "loop over sentences", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(np.array([SOFTMAX(q @ k.T / np.sqrt(q.shape[1])) for q, k in zip(Q, K, strict=True)]))),
    ("batch_attention", checks.check_batch_attention, "einsum", True,
     lambda Q, K, V: (lambda w: (np.einsum("bqk,bkv->bqv", w, V), w))(
         SOFTMAX(np.einsum("bqd,bkd->bqk", Q, K) / np.sqrt(Q.shape[-1]), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "transpose(0, 2, 1) and matmul", True,
     lambda Q, K, V: (lambda w: (np.matmul(w, V), w))(SOFTMAX(np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(Q.shape[2]), axis=2))),
    ("batch_attention", checks.check_batch_attention, "float32", True,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX((Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[-1])).astype(np.float32), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "the chapter's K.T", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[-1]), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "√ of the number of keys", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ np.swapaxes(K, 1, 2) / np.sqrt(K.shape[1]), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "d_k = Q.shape[1] copied from 2-D", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[1]), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "step 2 whole, K.T mended", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(SOFTMAX(Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[1]), axis=1))),
    ("batch_attention", checks.check_batch_attention, "first sentence for all", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(np.broadcast_to(SOFTMAX(Q[0] @ K[0].T / np.sqrt(Q.shape[-1])), (len(Q),) + Q[0][:, :0].shape[:1] + (K.shape[1],)).copy())),
    ("batch_attention", checks.check_batch_attention, "sentence 0 only, a 2-D result", False,
     lambda Q, K, V: (lambda w: (w @ V[0], w))(SOFTMAX(Q[0] @ K[0].T / np.sqrt(Q.shape[-1])))),
    ("batch_attention", checks.check_batch_attention, "softmax over the whole sentence", False,
     lambda Q, K, V: (lambda S: (lambda w: (w @ V, w))(np.exp(S) / np.exp(S).sum(axis=(1, 2), keepdims=True)))(
         Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[-1]))),
    ("batch_attention", checks.check_batch_attention, "weights and output swapped", False,
     lambda Q, K, V: (lambda w: (w, w @ V))(SOFTMAX(Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[-1]), axis=-1))),
    ("batch_attention", checks.check_batch_attention, "helpers attention per sentence", False,
     lambda Q, K, V: tuple(np.array(r) for r in zip(*[helpers.attention.scaled_dot_product_attention(q, k, v)
                                                      for q, k, v in zip(Q, K, V, strict=True)], strict=True))),
    ("batch_attention", checks.check_batch_attention, "weights averaged over sentences", False,
     lambda Q, K, V: (lambda w: (w @ V, w))(np.broadcast_to(SOFTMAX(Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[-1]), axis=-1)
                                                            .mean(axis=0), (len(Q), Q.shape[1], K.shape[1])).copy())),
    # chapter 07: grad_W_shared(X_q, X_kv, W, dS), one W for questions and keys
    ("grad_W_shared", checks.check_grad_W_shared, "two paths in two steps", True,
     lambda X_q, X_kv, W, dS: (lambda Q, K: X_q.T @ (dS @ K / np.sqrt(W.shape[1]))
                               + X_kv.T @ (dS.T @ Q / np.sqrt(W.shape[1])))(X_q @ W, X_kv @ W)),
    ("grad_W_shared", checks.check_grad_W_shared, "einsum", True,
     lambda X_q, X_kv, W, dS: (np.einsum("qd,qk,ke,ef->df", X_q, dS, X_kv, W)
                               + np.einsum("kd,qk,qe,ef->df", X_kv, dS, X_q, W)) / np.sqrt(W.shape[1])),
    ("grad_W_shared", checks.check_grad_W_shared, "sum of outer products", True,
     lambda X_q, X_kv, W, dS: sum(dS[i, j] * (np.outer(X_q[i], X_kv[j] @ W) + np.outer(X_kv[j], X_q[i] @ W))
                                  for i in range(len(X_q)) for j in range(len(X_kv))) / np.sqrt(W.shape[1])),
    ("grad_W_shared", checks.check_grad_W_shared, "float32 list", True,
     lambda X_q, X_kv, W, dS: ((X_q.T @ dS @ X_kv @ W + X_kv.T @ dS.T @ X_q @ W) / np.sqrt(W.shape[1]))
     .astype(np.float32).tolist()),
    ("grad_W_shared", checks.check_grad_W_shared, "the chapter's dK line, X_kv for X (key path only)", False,
     lambda X_q, X_kv, W, dS: X_kv.T @ (dS.T @ (X_q @ W) / np.sqrt(W.shape[1]))),
    ("grad_W_shared", checks.check_grad_W_shared, "the chapter's dW_Q (query path only)", False,
     lambda X_q, X_kv, W, dS: X_q.T @ (dS @ (X_kv @ W) / np.sqrt(W.shape[1]))),
    ("grad_W_shared", checks.check_grad_W_shared, "√d_model", False,
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W + X_kv.T @ dS.T @ X_q @ W) / np.sqrt(W.shape[0])),
    ("grad_W_shared", checks.check_grad_W_shared, "a step taken (W minus the gradient)", False,
     lambda X_q, X_kv, W, dS: W - (X_q.T @ dS @ X_kv @ W + X_kv.T @ dS.T @ X_q @ W) / np.sqrt(W.shape[1])),
    ("grad_W_shared", checks.check_grad_W_shared, "the two paths returned as a pair", False,
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W / np.sqrt(W.shape[1]), X_kv.T @ dS.T @ X_q @ W / np.sqrt(W.shape[1]))),
    ("grad_W_shared", checks.check_grad_W_shared, "paths averaged", False,
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W + X_kv.T @ dS.T @ X_q @ W) / np.sqrt(W.shape[1]) / 2),
    ("grad_W_shared", checks.check_grad_W_shared, "paths multiplied", False,
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W) * (X_kv.T @ dS.T @ X_q @ W) / W.shape[1]),
    ("grad_W_shared", checks.check_grad_W_shared, "keys' path without the transpose", False,
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W + X_kv.T @ dS @ X_q @ W) / np.sqrt(W.shape[1])),
    ("grad_W_shared", checks.check_grad_W_shared, "X_q and X_kv swapped", False,
     lambda X_q, X_kv, W, dS: (X_kv.T @ dS @ X_q @ W + X_q.T @ dS.T @ X_kv @ W) / np.sqrt(W.shape[1])),
    ("grad_W_shared", checks.check_grad_W_shared, "query path doubled", False,
     lambda X_q, X_kv, W, dS: 2 * X_q.T @ dS @ X_kv @ W / np.sqrt(W.shape[1])),
    # chapter 08: padded_attention(Q, K, V, n_real)
    ("padded_attention", checks.check_padded_attention, "mask of -1e9", True,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1]) + np.where(np.arange(len(K)) < n, 0, -1e9)))),
    ("padded_attention", checks.check_padded_attention, "softmax of the real columns, zeros padded", True,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(np.hstack([SOFTMAX(Q @ K[:n].T / np.sqrt(Q.shape[1])), np.zeros((len(Q), len(K) - n))]))),
    ("padded_attention", checks.check_padded_attention, "loop over rows and float32", True,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(np.array([[np.exp(s) / np.exp(r[:n]).sum() if j < n else 0.0
                                                         for j, s in enumerate(r)] for r in
                                                        (Q @ K.T / np.sqrt(Q.shape[1])).astype(np.float32)]))),
    ("padded_attention", checks.check_padded_attention, "mask multiplied", False,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1]) * (np.arange(len(K)) < n)))),
    ("padded_attention", checks.check_padded_attention, "real columns hidden instead", False,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1]) + np.where(np.arange(len(K)) < n, -np.inf, 0)))),
    ("padded_attention", checks.check_padded_attention, "padding cut off the weights", False,
     lambda Q, K, V, n: (lambda w: (w @ V[:n], w))(SOFTMAX(Q @ K[:n].T / np.sqrt(Q.shape[1])))),
    ("padded_attention", checks.check_padded_attention, "mask of -10", False,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1]) + np.where(np.arange(len(K)) < n, 0, -10.0)))),
    ("padded_attention", checks.check_padded_attention, "padded rows zeroed too", False,
     lambda Q, K, V, n: (lambda w: (w @ V, w))(np.nan_to_num(SOFTMAX(
         Q @ K.T / np.sqrt(Q.shape[1]) + np.where((np.arange(len(K)) < n) & (np.arange(len(Q)) < n)[:, None], 0, -np.inf))))),
    ("padded_attention", checks.check_padded_attention, "only the weights returned", False,
     lambda Q, K, V, n: SOFTMAX(Q @ K.T / np.sqrt(Q.shape[1]) + np.where(np.arange(len(K)) < n, 0, -np.inf))),
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
    ("symmetry", checks.check_party_symmetry_prediction, "非対称です", True, ("非対称です",)),
    ("symmetry", checks.check_party_symmetry_prediction, "たいしょうにならない", True, ("たいしょうにならない",)),
    ("symmetry", checks.check_party_symmetry_prediction, "対称です (the scores' answer)", False, ("対称です",)),
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
    ("question_matrix", checks.check_question_matrix, "list of lists", True, ([[-1, 0.5, 1], [1, 0, 1]],)),
    ("question_matrix", checks.check_question_matrix, "fractions written as divisions", True, ([[-1, 1 / 2, 1], [1, 0 / 1, 1]],)),
    ("question_matrix", checks.check_question_matrix, "sign flipped", False, ([[1, 0.5, 1], [-1, 0, 1]],)),
    ("question_matrix", checks.check_question_matrix, "one-by-six", False, ([[-1, 0.5, 1, 1, 0, 1]],)),
    ("question_matrix", checks.check_question_matrix, "the chapter's W_Q, sign flipped", False, ([[0, 0.5], [1, 0]],)),
    ("question_matrix", checks.check_question_matrix, "third component halved", False, ([[-1, 0.5, 0.5], [1, 0, 0.5]],)),
    ("question_matrix", checks.check_question_matrix, "half of the spiciness", False, ([[-1, 0, 1], [1, 0.5, 1]],)),
]

#: Mistakes a fresh reader made that once got only the general message: (exercise, kind) → the
#: mistake id its hint names, so the learner reads what went wrong instead of a number.
NAMED = {
    ("first_softmax", "negated scores"): "negated",
    ("first_softmax", "one-hot argmax"): "one_hot",
    ("cosine", "a * b instead of a @ b"): "elementwise",
    ("received", "row sums with the diagonal (all 1)"): "row_sums_with_self",
    ("cosine", "divided by the sum of the lengths"): "sum_of_lengths",
    ("soft_lookup", "weights of the books on the shelf returned"): "weights",
    ("party_weights", "row minimum subtracted"): "row_min",
    ("received", "column sums minus one"): "minus_one",
    ("undo_W", "q divided by W entry by entry"): "elementwise",
    ("causal_attention", "border at n_k − 1 (right for two queries only)"): "offset_n_k",
    ("matmul_in_two", "overlap at k"): "term_twice",
    ("matmul_in_two", "slice one past the cut (a term left out)"): "term_missing",
    ("attention", "divided by √(number of keys)"): "by_sqrt_n",
    ("batch_attention", "sentence 0 only, a 2-D result"): "first_sentence",
    ("grad_W_shared", "X_q and X_kv swapped"): "roles_swapped",
    ("grad_W_shared", "query path doubled"): "path_doubled",
}

_CODE_NAMES = r"\b(shape|axis|keepdims?|dtype|float\d*|int|None|return|reshape|ravel|transpose|split|hstack|vstack|" \
               r"softmax|exp|max|sum|sqrt|inf|Inf|nan|NaN|NumPy|numpy|np|helpers|print|round|tuple|list|ndarray|str|" \
               r"output|weights|cell|score_cell|swapaxes|cosine|to_weights|scores_from_weights|on_shelf|soft_lookup|party_weights|three_faces|fused_qkv|my_attention|" \
               r"update_W_Q|causal_attention|multi_head|temperature|scores|lr|ravel|clip|einsum|matmul|dot|" \
               r"argmax|mean|copy|lambda|heads|masked_softmax|True|False)\b"


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


WRONG = [a for a in ATTEMPTS if not a[3]]


@pytest.mark.parametrize("exercise, check, kind, right, fn", WRONG, ids=[f"{e}-{k}" for e, _, k, _, _ in WRONG])
def test_the_hidden_test_names_the_mistake_the_visible_check_named(exercise, check, kind, right, fn):
    """A student who made one mistake reads one reason in the feedback (the grade cell prints the
    visible check's ✗ and then the hidden test's), and the class report counts one mistake for
    them: the hidden cases come in the visible ones' order, so a slip the first visible case names
    (a square case, where it runs) is named by the hidden test too, not met as a crash on a
    rectangular case first. Numbers the student reads are short (a hidden case's inputs rounded)."""
    calls = _calls(check, fn)
    seen, hidden = run(calls[0]), run(calls[-1])
    assert seen is not None and hidden is not None, f"{exercise} / {kind}: visible {seen}, hidden {hidden}"
    assert seen.mistake == hidden.mistake, f"{exercise} / {kind}: visible {seen.mistake}: {seen} / hidden {hidden.mistake}: {hidden}"
    for message in (str(seen), str(hidden)):
        assert not re.search(r"\d\.\d{6,}", message), f"{exercise} / {kind}: unrounded numbers: {message}"


@pytest.mark.parametrize("exercise, kind", sorted(NAMED), ids=[f"{e}-{k}" for e, k in sorted(NAMED)])
def test_a_readers_mistake_gets_its_own_hint(exercise, kind):
    [(check, fn)] = [(c, f) for e, c, k, _, f in ATTEMPTS if (e, k) == (exercise, kind)]
    for call in _calls(check, fn):
        wrong = run(call)
        assert wrong is not None and wrong.mistake == NAMED[(exercise, kind)], (exercise, kind, wrong)


def test_the_w_mine_message_names_the_component_without_its_value():
    """A wrong W_mine is told which component of q differs, not the number it should be (カレー's
    q₂ = 0.3 / 2 = 0.150 would be the rule itself)."""
    [answers] = [a for e, _, k, _, a in TYPED if (e, k) == ("question_matrix", "half of the spiciness")]
    wrong = run(lambda: checks.check_question_matrix(*answers))
    assert wrong.mistake == "wrong_values" and "2 番め" in str(wrong) and "0.150" not in str(wrong)


if __name__ == "__main__":
    counts: Counter = Counter()
    for exercise, check, kind, right, fn in ATTEMPTS + TYPED:
        result, message = outcome(check, fn, right)
        counts[("right" if right else "wrong", result)] += 1
        print(f"{'✓' if right else '✗'} {exercise:16} {kind:40} {result:28} {message[:160]}")
    for key, n in sorted(counts.items()):
        print(key, n)
