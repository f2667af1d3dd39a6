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
from helpers.checks import ch00_introduction as ch00
from helpers.checks import ch01_one_vector as ch01
from helpers.checks import ch02_library_search as ch02
from helpers.checks import ch03_three_roles as ch03
from helpers.checks import ch04_three_matrices as ch04
from helpers.checks import ch05_all_matmul as ch05
from helpers.checks import ch06_attention as ch06
from helpers.checks import ch07_how_w_learns as ch07
from helpers.checks import ch08_going_further as ch08
from helpers.checks._base import CheckFailed, case_kinds


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
    "helpers_softmax": lambda s: helpers.softmax(s), "one_hot": lambda s: np.eye(len(s))[np.argmax(s)],
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

FACES = {  # chapter 04's matrices come as a library saves them, (d_k × d_model)
    "right": lambda x, *Ws: tuple(x @ W.T for W in Ws),
    "swapped": lambda x, a, b, c: (x @ b.T, x @ a.T, x @ c.T),
    "column_convention": lambda x, *Ws: tuple(W @ x.T for W in Ws),
    "book_layout": lambda x, *Ws: tuple(x @ W for W in Ws),
    "elementwise": lambda x, *Ws: tuple(x * W for W in Ws),
    "flat": lambda x, *Ws: tuple(x[0] @ W.T for W in Ws),
}

CELL = {  # one cell of the scores Q Kᵀ: score_cell(Q, K, i, j)
    "right": lambda Q, K, i, j: Q[i, :] @ K[j, :],
    "row_off_by_one": lambda Q, K, i, j: Q[i - 1, :] @ K[j, :],
    "col_off_by_one": lambda Q, K, i, j: Q[i, :] @ K[j - 1, :],
    "column_of_K": lambda Q, K, i, j: Q[i, :] @ K[:, j],
    "column_of_Q": lambda Q, K, i, j: Q[:, i] @ K[j, :],
    "swapped": lambda Q, K, i, j: Q[j, :] @ K[i, :],
    "whole_product": lambda Q, K, i, j: (Q @ K.T)[i, j],
    "no_sum": lambda Q, K, i, j: Q[i, :] * K[j, :],
    "one_element_array": lambda Q, K, i, j: np.array([Q[i, :] @ K[j, :]]),
    "rounded": lambda Q, K, i, j: int(Q[i, :] @ K[j, :]),
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
    "rows_swapped": checks.QUESTION_MATRIX[::-1], "components_swapped": checks.QUESTION_MATRIX[:, [1, 0, 2]],
    "sign": checks.QUESTION_MATRIX * [[-1, 1, 1]], "chapters_W_Q_sign_flipped": np.array([[0.0, 0.5], [1.0, 0.0]]),
    "identity": np.eye(2), "halves": np.full((2, 3), 0.5),
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
    *[("soft_lookup", checks.check_soft_lookup, n, from_table(ch02._soft_lookup_variants, n))
      for n in names(ch02._soft_lookup_variants, Q4[:1], K4, V4, 1.0, np.array([True, False, True, True]))],
    *[("scores_from_weights", checks.check_scores_from_weights, n, from_table(ch00._scores_from_weights_variants, n))
      for n in names(ch00._scores_from_weights_variants, np.array([0.5, 0.25, 0.25]))],
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
      for n in names(checks.gradient_step_variants, W5, np.stack([X5, -X5]), np.stack([X5 @ W5, X5 @ W5 / 2]), 0.1)],
    *[("causal_attention", checks.check_causal_attention, n, from_table(ch08._causal_variants, n, pair=True))
      for n in sorted({*names(ch08._causal_variants, Q4, K4, V4), *names(ch08._causal_variants, Q4[:2], K4, V4)})],
    *[("multi_head", checks.check_multi_head, n, from_table(checks.multi_head_variants, n))
      for n in names(checks.multi_head_variants, X5[:, :2], *(rng.normal(size=(2, 4)),) * 3,
                     rng.normal(size=(4, 2)), 2)],
    *[("batch_attention", checks.check_batch_attention, n,
       from_table(ch06._batch_attention_variants, n, pair=True))
      for n in names(ch06._batch_attention_variants, *(rng.normal(size=s) for s in ((2, 3, 2), (2, 2, 2), (2, 2, 3))))],
    *[("grad_W_shared", checks.check_grad_W_shared, n, from_table(ch07._grad_W_shared_variants, n))
      for n in names(ch07._grad_W_shared_variants, X5[:3], X5[2:], W5[:, :3], rng.normal(size=(3, 3)))],
    *[("undo_W", checks.check_undo_W, n, from_table(ch04._undo_variants, n))
      for n in names(ch04._undo_variants, X5[:1], np.eye(2) + 0.3)],
    *[("received", checks.check_received, n, from_table(ch03._received_variants, n))
      for n in names(ch03._received_variants, Q4, K4)],
    *[("matmul_in_two", checks.check_matmul_in_two, n, from_table(ch05._in_two_variants, n))
      for n in names(ch05._in_two_variants, X5[:, :2], W5[:2], 1)],
    *[("cosine_table", checks.check_cosine_table, n, from_table(ch01._cosine_table_variants, n))
      for n in names(ch01._cosine_table_variants, X5[:3], X5[2:])],
    *[("padded_attention", checks.check_padded_attention, n,
       from_table(ch08._padding_variants, n, pair=True)) for n in names(ch08._padding_variants, Q4, K4, V4, 2)],
]

#: Answers written for the sizes the notebook shows: right there, wrong on the hidden sizes. None
#: is left: the visible checks see every kind of case the hidden tests grade (chapter 01's
#: two-component cosine now fails visibly too), which `test_visible_cases_cover_the_hidden_kinds`
#: keeps true.
SIZE_ONLY: set[tuple[str, str]] = set()


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
    assert run == hidden and len(run) == 20
    for exercise in {e for e, *_ in CASES}:
        made = {n for e, _, n, _ in CASES if e == exercise}
        assert "right" in made and len(made) > 2, exercise


# --- What the visible and the hidden cases cover, per exercise (issue 36) --------------------------



def _question_cases(hidden: bool):
    """Chapter 04's W_mine is checked on the foods (visible) or six others (hidden)."""
    from helpers.data import foods
    return [(np.round(helpers.checks._base.hidden_cases("question_matrix", ((6, 2),))[0][0], 1),)] if hidden \
        else [(foods().vectors,)]


def _no_kinds(case) -> set[str]:
    return set()


#: Each code exercise: its cases (visible and hidden), the arrays a case puts to the learner, and
#: the exercise's own kinds (sizes that matter to it), compared by `test_visible_cases_cover…`.
COVERAGE = {
    "check_first_softmax": (ch00._first_softmax_cases, lambda c: c, _no_kinds),
    "check_cosine": (ch01._cosine_cases, lambda c: c, _no_kinds),
    "check_scores_from_weights": (ch00._scores_from_weights_cases, lambda c: c, _no_kinds),
    "check_soft_lookup": (ch02._soft_lookup_cases, lambda c: c[:3],
                          lambda c: {"d_v ≠ d_k"} if c[2].shape[1] != c[1].shape[1] else set()),
    "check_party_weights": (ch03._party_cases, lambda c: c[1:], ch03._party_score_kinds),
    "check_three_faces": (ch04._face_cases, lambda c: c, _no_kinds),
    "check_question_matrix": (_question_cases, lambda c: c, _no_kinds),
    "check_matmul_cell": (ch05._cell_cases, lambda c: c[0], ch05._cell_kinds),
    "check_fused_qkv": (ch05._fused_cases, lambda c: c, ch05._fused_kinds),
    "check_attention": (ch06._attention_cases, lambda c: c, ch06._attention_kinds),
    "check_gradient_step": (ch07._gradient_step_cases, lambda c: c[:3], _no_kinds),
    "check_causal_attention": (ch08._causal_cases, lambda c: c, ch06._attention_kinds),
    "check_multi_head": (ch08._multi_head_cases, lambda c: c[:5], ch08._multi_head_kinds),
    "check_cosine_table": (ch01._cosine_table_cases, lambda c: c, _no_kinds),
    "check_batch_attention": (ch06._batch_cases, lambda c: c, _no_kinds),
    "check_grad_W_shared": (ch07._grad_W_shared_cases, lambda c: c, _no_kinds),
    "check_padded_attention": (ch08._padding_cases, lambda c: c[:3], _no_kinds),
    "check_received": (ch03._received_cases, lambda c: c, _no_kinds),
    "check_undo_W": (ch04._undo_cases, lambda c: c, _no_kinds),
    "check_matmul_in_two": (ch05._in_two_cases, lambda c: c[:2], _no_kinds),
}


def covered(exercise: str, hidden: bool) -> tuple[set[str], set[str]]:
    """(the generic kinds, the exercise's own kinds) of an exercise's visible or hidden cases."""
    cases, arrays, own = COVERAGE[exercise]
    generic, special = set(), set()
    for case in cases(hidden):
        generic |= case_kinds(arrays(case))
        special |= own(case)
    return generic, special


def test_coverage_names_every_code_exercise():
    assert set(COVERAGE) == {check.__name__ for _, check, _, _ in CASES}


@pytest.mark.parametrize("exercise", sorted(COVERAGE))
def test_visible_cases_cover_the_hidden_kinds(exercise):
    """Every kind of input the hidden test grades (dimensions, a vector's components, square or
    not, three or more decimals, the exercise's own sizes) is one the visible check shows; the
    exercise's own kinds (huge scores, d_v ≠ d_k …) are the same both ways, so neither side is
    the milder one."""
    seen, seen_own = covered(exercise, hidden=False)
    graded, graded_own = covered(exercise, hidden=True)
    assert graded <= seen, f"{exercise}: only hidden: {sorted(graded - seen)}"
    assert graded_own <= seen_own, f"{exercise}: only hidden: {sorted(graded_own - seen_own)}"
    if exercise in ("check_party_weights", "check_attention", "check_causal_attention"):
        assert seen_own == graded_own, f"{exercise}: only visible: {sorted(seen_own - graded_own)}"


# --- Every mistake issue 36 lists, through both (its id where the check names it) -------------------

W_K = np.eye(2)  # a notebook's global, as a learner's function may read it by mistake


def _cut_typed(X, a, b, c):
    A = X @ np.hstack([a, b, c])
    return A[:, :3], A[:, 3:6], A[:, 6:]


def _three_products_on_a_copy(X, a, b, c):
    X = np.array(X)
    return X @ a, X @ b, X @ c


def _einsum_three_times(X, a, b, c):
    return tuple(np.einsum("ij,jk->ik", X, W) for W in (a, b, c))


def _causal(Q, K, V, mask, after=None):
    """`mask(S, n_q, n_k)`: the scores as the learner hides them (the queries are the last n_q of
    the n_k words)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    w = reference.softmax(mask(S, Q.shape[0], K.shape[0]))
    return w @ V, w


def _upper(n_q, n_k, value=-np.inf, k=1):
    return np.triu(np.full((n_q, n_k), value), k=k + n_k - n_q)


def _right_causal(Q, K, V):
    return _causal(Q, K, V, lambda S, n_q, n_k: S + _upper(n_q, n_k))


ISSUE_MISTAKES = [
    ("first_softmax", checks.check_first_softmax, "by_count", lambda s: np.exp(s) / len(s), "by_count"),
    ("cosine", checks.check_cosine, "two_components", COSINE["two_d_only"], None),
    ("three_faces", checks.check_three_faces, "two_components",
     lambda x, *Ws: tuple(np.array([[x[0, 0] * W[j, 0] + x[0, 1] * W[j, 1] for j in range(W.shape[0])]])
                          for W in Ws), None),
    ("three_faces", checks.check_three_faces, "x_W_Q_thrice", lambda x, a, b, c: (x @ a.T,) * 3,
     "one_matrix_thrice"),
    ("three_faces", checks.check_three_faces, "global_W_K", lambda x, a, b, c: (x @ a.T, x @ W_K.T, x @ c.T),
     "global_variable"),
    ("three_faces", checks.check_three_faces, "saved_matrix_used_as_the_books",
     lambda x, a, b, c: (x @ a, x @ b, x @ c), "book_layout"),
    ("matmul_cell", checks.check_matmul_cell, "round_2", lambda Q, K, i, j: round(float(Q[i, :] @ K[j, :]), 2),
     "rounded"),
    ("fused_qkv", checks.check_fused_qkv, "cuts_typed", _cut_typed, "cut_misplaced"),
    ("fused_qkv", checks.check_fused_qkv, "np_array_copy", _three_products_on_a_copy, "several_products"),
    ("fused_qkv", checks.check_fused_qkv, "einsum", _einsum_three_times, "several_products"),
    ("party_weights", checks.check_party_weights, "clip_700",
     lambda Q, K: reference.softmax(np.clip(Q @ K.T, -700, 700)), "clipped"),
    ("attention", checks.check_attention, "weights_transposed",
     lambda Q, K, V: (attention_right(Q, K, V)[0], attention_right(Q, K, V)[1].T), "transposed_weights"),
    ("attention", checks.check_attention, "weights_rounded",
     lambda Q, K, V: (attention_right(Q, K, V)[0], np.round(attention_right(Q, K, V)[1], 3)), "rounded"),
    ("attention", checks.check_attention, "divided_by_2",
     lambda Q, K, V: (reference.softmax(Q @ K.T / 2) @ V, reference.softmax(Q @ K.T / 2)), "wrong_divisor"),
    ("causal_attention", checks.check_causal_attention, "weights_transposed",
     lambda Q, K, V: (_right_causal(Q, K, V)[0], _right_causal(Q, K, V)[1].T), "transposed_weights"),
    ("causal_attention", checks.check_causal_attention, "mask_multiplied",
     lambda Q, K, V: _causal(Q, K, V, lambda S, n_q, n_k: S * (_upper(n_q, n_k) == 0)), "mask_multiplied"),
    ("causal_attention", checks.check_causal_attention, "mask_minus_10",
     lambda Q, K, V: _causal(Q, K, V, lambda S, n_q, n_k: S + _upper(n_q, n_k, -10.0)), "mask_finite"),
    ("causal_attention", checks.check_causal_attention, "triu_k2",
     lambda Q, K, V: _causal(Q, K, V, lambda S, n_q, n_k: S + _upper(n_q, n_k, k=2)), "mask_shifted"),
    ("causal_attention", checks.check_causal_attention, "triu_k_n_k_minus_1",
     lambda Q, K, V: _causal(Q, K, V, lambda S, n_q, n_k: S + _upper(n_q, n_k, k=n_q - 1)), "offset_n_k"),
    ("causal_attention", checks.check_causal_attention, "weights_rounded",
     lambda Q, K, V: (_right_causal(Q, K, V)[0], np.round(_right_causal(Q, K, V)[1], 3)), "rounded"),
    ("causal_attention", checks.check_causal_attention, "heads_masked_softmax",
     lambda Q, K, V: (lambda w: (w @ V, w))(helpers.heads.masked_softmax(
         Q @ K.T / np.sqrt(Q.shape[1]), helpers.heads.causal_mask(Q.shape[0]))), "forbidden_helper"),
    ("multi_head", checks.check_multi_head, "heads_multi_head_attention",
     lambda X, W_Q, W_K, W_V, W_O, h: helpers.heads.multi_head_attention(
         X, *(np.split(W, h, axis=1) for W in (W_Q, W_K, W_V)), W_O)[0], "forbidden_helper"),
    ("multi_head", checks.check_multi_head, "sqrt_h",
     from_table(checks.multi_head_variants, "sqrt_h"), "sqrt_h"),
    # found grading a class through nbgrader: each had only the general "the first entry that differs"
    ("multi_head", checks.check_multi_head, "one_head_scaled_by_a_heads_d_k",
     from_table(checks.multi_head_variants, "one_head:head_root"), "one_head"),
    ("scores_from_weights", checks.check_scores_from_weights, "doubled_log", lambda w: 2 * np.log(w), "scaled"),
    ("scores_from_weights", checks.check_scores_from_weights, "to_weights_again",
     lambda w: np.exp(w) / np.exp(w).sum(), "softmax_again"),
    ("grad_W_shared", checks.check_grad_W_shared, "step_taken",
     lambda X_q, X_kv, W, dS: W - (X_q.T @ dS @ X_kv @ W + X_kv.T @ dS.T @ X_q @ W) / np.sqrt(W.shape[1]), "step"),
    ("grad_W_shared", checks.check_grad_W_shared, "paths_as_a_pair",
     lambda X_q, X_kv, W, dS: (X_q.T @ dS @ X_kv @ W / np.sqrt(W.shape[1]), X_kv.T @ dS.T @ X_q @ W / np.sqrt(W.shape[1])),
     "pair"),
]


def raised(check, fn, hidden: bool) -> CheckFailed | None:
    try:
        with np.errstate(all="ignore"):
            check(fn, hidden=hidden)
    except CheckFailed as wrong:
        return wrong
    return None


@pytest.mark.parametrize("exercise, check, name, fn, mistake", ISSUE_MISTAKES,
                         ids=[f"{e}-{n}" for e, _, n, _, _ in ISSUE_MISTAKES])
def test_each_mistake_of_the_issue_fails_both_with_its_own_id(exercise, check, name, fn, mistake):
    seen, graded = raised(check, fn, hidden=False), raised(check, fn, hidden=True)
    assert seen is not None and graded is not None, f"{exercise} {name}: visible {seen}, hidden {graded}"
    if mistake:
        assert seen.mistake == mistake, f"{exercise} {name}: {seen.mistake}: {seen}"


def test_the_first_entry_that_differs_is_named_with_digits_that_differ():
    """A weight off in its fifth decimal in the last row: the message names that row and shows
    two different numbers (never 「0.161 のはずが 0.161」)."""
    def almost(Q, K, V):
        out, w = attention_right(Q, K, V)
        w = w.copy()
        w[-1, 0] += 3e-5
        w[-1, 1] -= 3e-5
        return w @ V, w
    wrong = raised(checks.check_attention, almost, hidden=False)
    assert wrong is not None and wrong.mistake == "wrong_values"
    import re
    m = re.search(r"行 (\d)\((\d) 行め\)は \[([^\]]+)\] になるはずが、\[([^\]]+)\]", str(wrong))
    assert m and int(m.group(1)) == 3 and int(m.group(2)) == 4 and m.group(3) != m.group(4), str(wrong)


#: Each table of mistakes with the visible cases it is computed on (its arguments from a case).
TABLES = [
    ("soft_lookup", ch02._soft_lookup_variants, ch02._soft_lookup_cases, lambda c: c),
    ("scores_from_weights", ch00._scores_from_weights_variants, ch00._scores_from_weights_cases, lambda c: c),
    ("party_weights", checks.party_weight_variants, ch03._party_cases, lambda c: c[1:]),
    ("attention", checks.attention_variants, ch06._attention_cases, lambda c: c),
    ("gradient_step", checks.gradient_step_variants, ch07._gradient_step_cases, lambda c: c),
    ("causal_attention", ch08._causal_variants, ch08._causal_cases, lambda c: c),
    ("multi_head", checks.multi_head_variants, ch08._multi_head_cases, lambda c: c),
]


@pytest.mark.parametrize("exercise, variants, cases, args", TABLES, ids=[t[0] for t in TABLES])
def test_no_two_named_mistakes_coincide_on_a_visible_case(exercise, variants, cases, args):
    """Two named mistakes are told apart on the first visible case where either is wrong (the
    case whose ✗ the learner reads; spellings of one mistake, "name:spelling", aside), so a
    message never names another mistake than the one made (chapter 08's h = d_k, chapter 06's
    d_k where √ of it is another size, chapter 00's scores whose sum is their count); and each
    mistake is wrong on some visible case (temperature 1 hides a forgotten temperature, another
    case shows it)."""
    from helpers.checks._base import same
    with np.errstate(all="ignore"):
        tables = [variants(*args(case)) for case in cases(False)]
    named = {name for found in tables for name in found} - {"right"}
    for a in sorted(named):
        first = next((found for found in tables if a in found and not same(found[a], found["right"])), None)
        assert first is not None, f"{exercise}: {a} is right on every visible case"
        for b in sorted(named):
            if b.split(":")[0] != a.split(":")[0] and b in first and np.all(np.isfinite(first[a])):
                assert not same(first[a], first[b]), f"{exercise}: {a} = {b} where {a} first shows"


def test_chapter_00s_scores_tell_dividing_by_their_sum_from_dividing_by_their_count():
    for (s,) in ch00._first_softmax_cases():
        if s.size > 1 and s.any():
            assert not np.isclose(s.sum(), s.size)


#: Where the text says to write it yourself, a helper that does it is refused, by module too
#: (chapter 02's text allows helpers, and its check accepts them).
FORBIDDEN = [
    ("first_softmax", checks.check_first_softmax, lambda s: helpers.heads.masked_softmax(s[None])[0]),
    ("party_weights", checks.check_party_weights, lambda Q, K: helpers.heads.masked_softmax(Q @ K.T)),
    ("attention", checks.check_attention,
     lambda Q, K, V: (lambda w: (w @ V, w))(helpers.heads.masked_softmax(Q @ K.T / np.sqrt(Q.shape[1])))),
]


@pytest.mark.parametrize("exercise, check, fn", FORBIDDEN, ids=[f[0] for f in FORBIDDEN])
def test_a_helper_that_does_the_exercise_is_refused_visible_and_hidden(exercise, check, fn):
    for hidden in (False, True):
        wrong = raised(check, fn, hidden)
        assert wrong is not None and wrong.mistake == "forbidden_helper", (exercise, hidden, wrong)
