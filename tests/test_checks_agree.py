"""Every code exercise's typical mistakes, through the learner's visible check and the hidden test:
both must give the same verdict (✓ or ✗) on the same kind of answer.

The mistakes come from the checks' own tables (`*_variants`: the formula of each typical mistake),
so a mistake added to a chapter's table is run here too, plus the hand-written answers of the
chapters that have no table. The one difference allowed is the hidden test's stated job, inputs of
sizes the notebook never shows: `SIZE_ONLY` lists those answers, each written for the shown sizes.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import reference

import helpers
from helpers import checks
from helpers.checks import ch08_going_further as ch08
from helpers.checks._base import CheckFailed


def verdict(check, fn, hidden: bool) -> bool:
    """True for ✓, False for ✗ (a wrong answer must fail, never crash the check)."""
    try:
        with np.errstate(all="ignore"):
            check(fn, hidden=hidden)
    except CheckFailed:
        return False
    return True


def from_table(variants, name: str, pair: bool = False):
    """A learner's function that returns mistake `name` of a chapter's table for its inputs; where
    the table has no such entry for these sizes (a slip only a square shows), it crashes, as the
    learner's code would."""
    def fn(*args):
        found = variants(*args)
        if name not in found:
            raise ValueError("operands could not be broadcast together with shapes (3,4) (3,)")
        w = found[name]
        return (w @ args[2], w) if pair else w
    fn.__name__ = name
    return fn


def names(variants, *args) -> list[str]:
    return sorted(variants(*args))


FIRST_SOFTMAX = {
    "right": lambda s: np.exp(s) / np.exp(s).sum(),
    "stable": lambda s: np.exp(s - s.max()) / np.exp(s - s.max()).sum(),
    "raw": lambda s: s, "no_exp": lambda s: s / s.sum(), "unnormalised": np.exp,
    "by_score_sum": lambda s: np.exp(s) / s.sum(), "by_max": lambda s: np.exp(s) / np.exp(s).max(),
    "helpers_softmax": lambda s: helpers.softmax(s),
}

COSINE = {
    "right": lambda a, b: float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))),
    "dot": lambda a, b: float(a @ b), "one_length": lambda a, b: float(a @ b / np.linalg.norm(a)),
    "left_to_right": lambda a, b: float(a @ b / np.linalg.norm(a) * np.linalg.norm(b)),
    "squares": lambda a, b: float(a @ b / (a @ a * (b @ b))),
    "distance": lambda a, b: float(np.linalg.norm(a - b)),
    "two_d_only": lambda a, b: float((a[0] * b[0] + a[1] * b[1])
                                     / (np.hypot(a[0], a[1]) * np.hypot(b[0], b[1]))),
    "helpers_cosine": lambda a, b: float(helpers.cosine_similarity(a[None], b[None])[0, 0]),
}

PARTY = {
    "right": lambda Q, K: reference.softmax(Q @ K.T),
    "naive": lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=1, keepdims=True),
    "global_max": lambda Q, K: (lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(Q @ K.T - (Q @ K.T).max())),
    "helpers_softmax": lambda Q, K: helpers.softmax(Q @ K.T, axis=1),
}

FACES = {
    "right": lambda x, *Ws: tuple(x @ W for W in Ws),
    "swapped": lambda x, a, b, c: (x @ b, x @ a, x @ c),
    "column_convention": lambda x, *Ws: tuple((W @ x.T).T for W in Ws),
    "transposed": lambda x, *Ws: tuple(x @ W.T for W in Ws),
    "elementwise": lambda x, *Ws: tuple(x * W for W in Ws),
    "flat": lambda x, *Ws: tuple(x[0] @ W for W in Ws),
}

CELL = {
    "right": lambda X, W, i, j: X[i, :] @ W[:, j],
    "row_off_by_one": lambda X, W, i, j: X[i - 1, :] @ W[:, j],
    "col_off_by_one": lambda X, W, i, j: X[i, :] @ W[:, j - 1],
    "row_of_W": lambda X, W, i, j: X[i, :] @ W[j, :],
    "column_of_X": lambda X, W, i, j: X[:, i] @ W[:, j],
    "swapped": lambda X, W, i, j: X[j, :] @ W[:, i],
    "whole_product": lambda X, W, i, j: (X @ W)[i, j],
    "no_sum": lambda X, W, i, j: X[i, :] * W[:, j],
    "one_element_array": lambda X, W, i, j: np.array([X[i, :] @ W[:, j]]),
    "rounded": lambda X, W, i, j: int(X[i, :] @ W[:, j]),
}

def _cut(R, a):
    return tuple(np.split(R, [a.shape[1], 2 * a.shape[1]], axis=1))


FUSED = {
    "right": lambda X, a, b, c: _cut(X @ np.hstack([a, b, c]), a),
    "split_in_three": lambda X, a, b, c: tuple(np.split(X @ np.hstack([a, b, c]), 3, axis=1)),
    "three_products": lambda X, a, b, c: (X @ a, X @ b, X @ c),
    "split_rows": lambda X, a, b, c: tuple(np.split(X @ np.hstack([a, b, c]), [a.shape[1], 2 * a.shape[1]])),
    "stacked": lambda X, a, b, c: _cut(X @ np.vstack([a, b, c]), a),
    "stacked_transposed": lambda X, a, b, c: _cut(X @ np.vstack([a.T, b.T, c.T]), a),
    "order": lambda X, a, b, c: _cut(np.hstack([a, b, c]) @ X, a),
    "k_first": lambda X, a, b, c: _cut(X @ np.hstack([b, a, c]), a),
    "transposed": lambda X, a, b, c: tuple(M.T for M in _cut(X @ np.hstack([a, b, c]), a)),
}


QUESTION = {  # chapter 04's W_mine: a matrix, not a function
    "right": checks.QUESTION_MATRIX, "transposed": checks.QUESTION_MATRIX.T,
    "columns_swapped": checks.QUESTION_MATRIX[:, ::-1], "components_swapped": np.array([[1.0, 0.0], [0.0, 0.5]]),
    "identity": np.eye(2), "halves": np.full((2, 2), 0.5),
}


def output_mixups(right):
    """An attention's output mistakes around right weights: the pair swapped, the weights as the
    output, the weights transposed before mixing, K mixed instead of V, a flattened output."""
    return {
        "swapped": lambda Q, K, V: right(Q, K, V)[::-1],
        "weights_as_output": lambda Q, K, V: (right(Q, K, V)[1],) * 2,
        "transposed_output": lambda Q, K, V: (right(Q, K, V)[1].T @ V, right(Q, K, V)[1]),
        "mixes_keys": lambda Q, K, V: (right(Q, K, V)[1] @ K, right(Q, K, V)[1]),
        "ravel": lambda Q, K, V: (right(Q, K, V)[0].ravel(), right(Q, K, V)[1]),
        "helpers_softmax": lambda Q, K, V: (helpers.softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V,
                                            helpers.softmax(Q @ K.T / np.sqrt(Q.shape[1]))),
    }


def attention_right(Q, K, V):
    w = reference.softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


rng = np.random.default_rng(0)
Q4, K4, V4 = rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 3))
X5, W5 = rng.normal(size=(5, 2)), rng.normal(size=(2, 4))

CASES = [
    *[("first_softmax", checks.check_first_softmax, n, f) for n, f in FIRST_SOFTMAX.items()],
    *[("cosine", checks.check_cosine, n, f) for n, f in COSINE.items()],
    *[("soft_lookup", checks.check_soft_lookup, n, from_table(checks.soft_lookup_variants, n))
      for n in names(checks.soft_lookup_variants, Q4[:1], K4, V4, 1.0)],
    *[("party_weights", checks.check_party_weights, n, from_table(checks.party_weight_variants, n))
      for n in names(checks.party_weight_variants, Q4, K4)],
    *[("party_weights", checks.check_party_weights, n, f) for n, f in PARTY.items()],
    *[("three_faces", checks.check_three_faces, n, f) for n, f in FACES.items()],
    *[("question_matrix", checks.check_question_matrix, n, W) for n, W in QUESTION.items()],
    *[("matmul_cell", checks.check_matmul_cell, n, f) for n, f in CELL.items()],
    *[("fused_qkv", checks.check_fused_qkv, n, f) for n, f in FUSED.items()],
    *[("attention", checks.check_attention, n, from_table(checks.attention_variants, n, pair=True))
      for n in names(checks.attention_variants, Q4, K4, V4)],
    *[("attention", checks.check_attention, n, f) for n, f in output_mixups(attention_right).items()],
    *[("gradient_step", checks.check_gradient_step, n, from_table(checks.gradient_step_variants, n))
      for n in names(checks.gradient_step_variants, W5, X5, X5 @ W5, 0.1)],
    *[("causal_attention", checks.check_causal_attention, n, from_table(ch08._causal_variants, n, pair=True))
      for n in names(ch08._causal_variants, Q4, K4, V4)],
    *[("multi_head", checks.check_multi_head, n, from_table(checks.multi_head_variants, n))
      for n in names(checks.multi_head_variants, X5[:, :2], *(rng.normal(size=(2, 4)),) * 3,
                     rng.normal(size=(4, 2)), 2)],
    *[("batch_attention", checks.check_batch_attention, n,
       from_table(checks.batch_attention_variants, n, pair=True))
      for n in names(checks.batch_attention_variants, *(rng.normal(size=s) for s in ((2, 3, 2), (2, 2, 2), (2, 2, 3))))],
    *[("grad_W_K", checks.check_grad_W_K, n, from_table(checks.grad_W_K_variants, n))
      for n in names(checks.grad_W_K_variants, X5[:3], X5[2:], W5, W5, rng.normal(size=(3, 3)))],
    *[("undo_W", checks.check_undo_W, n, from_table(checks.undo_variants, n))
      for n in names(checks.undo_variants, X5[:1], np.eye(2) + 0.3)],
    *[("received", checks.check_received, n, from_table(checks.received_variants, n))
      for n in names(checks.received_variants, Q4, K4)],
    *[("matmul_in_two", checks.check_matmul_in_two, n, from_table(checks.in_two_variants, n))
      for n in names(checks.in_two_variants, X5[:, :2], W5[:2], 1)],
    *[("cosine_table", checks.check_cosine_table, n, from_table(checks.cosine_table_variants, n))
      for n in names(checks.cosine_table_variants, X5[:3], X5[2:])],
    *[("padded_attention", checks.check_padded_attention, n,
       from_table(checks.padding_variants, n, pair=True)) for n in names(checks.padding_variants, Q4, K4, V4, 2)],
]

#: Answers written for the sizes the notebook shows: right there, wrong on the hidden sizes. The
#: teacher guide names this case (half the points); it is the hidden test's job, not a disagreement.
SIZE_ONLY = {("cosine", "two_d_only")}


@pytest.mark.parametrize("exercise, check, name, fn", CASES,
                         ids=[f"{e}-{n}" for e, _, n, _ in CASES])
def test_visible_check_and_hidden_test_agree(exercise, check, name, fn):
    seen, graded = verdict(check, fn, hidden=False), verdict(check, fn, hidden=True)
    if (exercise, name) in SIZE_ONLY:
        assert seen and not graded, "written for the shown sizes: ✓ on them, ✗ on the hidden ones"
        return
    assert seen == graded, f"{exercise} {name}: visible {'✓' if seen else '✗'}, hidden {'✓' if graded else '✗'}"
    assert seen == (name == "right" or name == "stable"), f"{exercise} {name}: {'✓' if seen else '✗'}"


def test_every_code_exercise_is_run_through_both():
    """Every check with a hidden test is in CASES, each with its right answer and a mistake."""
    hidden = {name for name in checks.__all__ if name.startswith("check_")
              and "hidden" in inspect.signature(getattr(checks, name)).parameters}
    run = {check.__name__ for _, check, _, _ in CASES}
    assert run == hidden and len(run) == 19
    for exercise in {e for e, *_ in CASES}:
        made = {n for e, _, n, _ in CASES if e == exercise}
        assert "right" in made and len(made) > 2, exercise
