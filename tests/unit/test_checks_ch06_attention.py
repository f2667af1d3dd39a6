"""helpers.checks.ch06_attention: chapter 06's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""


import re

import numpy as np
import pytest
import reference

import helpers
from helpers import checks
from helpers.checks import CheckFailed, ch06_attention

right = reference.attention


def no_sqrt(Q, K, V):
    w = reference.softmax(Q @ K.T)
    return w @ V, w


def by_d(Q, K, V):
    w = reference.softmax(Q @ K.T / Q.shape[1])
    return w @ V, w


def axis0(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ V, w


def whole(Q, K, V):
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    w = e / e.sum()
    return w @ V, w


def transposed(Q, K, V):
    w = reference.softmax(K @ Q.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def no_softmax(Q, K, V):
    w = Q @ K.T / np.sqrt(Q.shape[1])
    return w @ V, w


def unnormalised(Q, K, V):
    w = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def other_unnormalised(Q, K, V):
    w = 2 * reference.softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def swapped(Q, K, V):
    out, w = right(Q, K, V)
    return w, out


def weights_twice(Q, K, V):
    _, w = right(Q, K, V)
    return w, w


def no_keepdims(Q, K, V):
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    w = e / e.sum(axis=1)  # (n,) divides column i by row i's sum on a square table
    return w @ V, w


def no_keepdims_as_in_step_2(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=1, keepdims=True))  # the chapter's step 2, then the slip
    w = e / e.sum(axis=1)
    return w @ V, w


def max_without_keepdims(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=1))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ V, w


def v_times_weights(Q, K, V):
    _, w = right(Q, K, V)
    return w[:, : V.shape[1]] * V[: w.shape[0]], w


@pytest.mark.parametrize(
    "fn, hint",
    [
        (no_sqrt, "no_sqrt"),
        (by_d, "by_d"),
        (axis0, "axis0"),
        (whole, "whole"),
        (transposed, "transposed"),
        (no_softmax, "no_softmax"),
        (unnormalised, "unnormalised"),
        (other_unnormalised, "not_normalised"),
        (swapped, "swapped"),
        (weights_twice, "weights_as_output"),
        (v_times_weights, "bad_output"),
        (no_keepdims, "no_keepdims"),
        (no_keepdims_as_in_step_2, "no_keepdims"),
        (max_without_keepdims, "max_no_keepdims"),
    ],
)
def test_check_attention_names_each_mistake(fn, hint):
    with pytest.raises(AssertionError) as info:
        checks.check_attention(fn)
    assert checks.ATTENTION_HINTS[hint] in str(info.value)
    others = [h for name, h in checks.ATTENTION_HINTS.items() if name != hint]
    assert not any(h in str(info.value) for h in others)


def test_check_attention_hints_are_all_different():
    hints = list(checks.ATTENTION_HINTS.values())
    assert len(set(hints)) == len(hints)


def test_check_attention_mistakes_are_distinguishable_on_the_test_data():
    for Q, K, V in helpers.checks.ch06_attention._attention_cases():
        variants = checks.attention_variants(Q, K, V)
        names = list(variants)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                wa, wb = variants[a], variants[b]
                assert wa.shape != wb.shape or not np.allclose(wa, wb, atol=1e-3), (a, b)
        assert V.shape[1] != K.shape[0]  # weights and output never share a shape


def test_check_attention_accepts_the_right_answer(capsys):
    checks.check_attention(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize("fn, name", [
    (helpers.scaled_dot_product_attention, "scaled_dot_product_attention"),
    (lambda Q, K, V: (lambda w: (w @ V, w))(helpers.softmax(Q @ K.T / np.sqrt(Q.shape[1]))), "softmax"),
])
def test_check_attention_refuses_the_helper_the_text_forbids(fn, name):
    """The text says: no helpers, softmax included. The check says so, kindly, and the hidden
    test agrees (tests/test_checks_agree.py)."""
    for hidden in (False, True):
        with pytest.raises(CheckFailed, match=rf"helpers\.{name} を使っています"):
            checks.check_attention(fn, hidden=hidden)


def test_check_attention_accepts_lists():
    def as_lists(Q, K, V):
        out, w = right(Q, K, V)
        return [out.tolist(), w.tolist()]

    checks.check_attention(as_lists)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda Q, K, V: (_ for _ in ()).throw(NotImplementedError()), "まだ書かれていません"),
        ("my_attention", "関数を渡して"),
        (lambda Q, K, V: right(Q, K, V)[0], "2 つ"),
        (lambda Q, K, V: (1, 2, 3), "2 つ"),
        (lambda Q, K, V: ("a", "b"), "数の配列"),
        (lambda Q, K, V: Q @ V.T, "エラーで止まりました"),
        (lambda Q, K, V: (np.zeros((Q.shape[0], V.shape[1])), np.full((Q.shape[0], 2), 0.5)),
         "weights の形"),
        (lambda Q, K, V: (np.zeros((Q.shape[0], V.shape[1])),
                          np.full((Q.shape[0], K.shape[0]), 1 / K.shape[0])), "1 行め"),
    ],
)
def test_check_attention_other_stumbles(fn, words):
    with pytest.raises(AssertionError, match=words):
        checks.check_attention(fn)


def test_check_attention_does_not_let_the_learner_change_the_inputs():
    def scribble(Q, K, V):
        Q *= 0
        return right(Q, K, V)

    with pytest.raises(AssertionError):
        checks.check_attention(scribble)
    checks.check_attention(right)  # the next check still sees the original problems


def test_identical_keys_prediction(capsys):
    checks.check_identical_keys_prediction("均等")
    assert "1/n" in capsys.readouterr().out
    hints = set()
    for wrong in ("自分", "先頭", "問い次第"):
        with pytest.raises(AssertionError) as info:
            checks.check_identical_keys_prediction(wrong)
        hints.add(str(info.value))
    assert len(hints) == 3
    for bad, words in ((None, "まだ答え"), ("", "まだ答え"), ("ケーキ", "選択肢にありません")):
        with pytest.raises(AssertionError, match=words):
            checks.check_identical_keys_prediction(bad)


# ---------------------------------------------------------------- table-driven (issue 11)


@pytest.mark.parametrize("fn", [right, lambda Q, K, V: list(right(Q, K, V))])
def test_right_attention_passes(fn, capsys):
    checks.check_attention(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


def with_weights(make_weights):
    def attention(Q, K, V):
        A = make_weights(Q, K)
        return A @ V if A.shape[1] == V.shape[0] else V[: A.shape[0]], A
    return attention


@pytest.mark.parametrize("fn, hint", [
    (with_weights(lambda Q, K: reference.softmax(Q @ K.T)), "√d_k で割り忘れて"),
    (with_weights(lambda Q, K: reference.softmax(Q @ K.T / Q.shape[1])), "d_k そのもので割って"),
    (with_weights(lambda Q, K: reference.softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0)), "列の方向"),
    (with_weights(lambda Q, K: np.exp(Q @ K.T / np.sqrt(Q.shape[1]))), "行の和"),
    (lambda Q, K, V: right(Q, K, V)[::-1], "返す順番が逆"),
    (lambda Q, K, V: (right(Q, K, V)[1], right(Q, K, V)[1]), "重みをそのまま"),
    (lambda Q, K, V: (right(Q, K, V)[1].T @ V, right(Q, K, V)[1]), r"weights\.T @ V"),
    (lambda Q, K, V: (2 * right(Q, K, V)[0], right(Q, K, V)[1]), "出力が違います"),
    (lambda Q, K, V: right(Q, K, V)[0], "2 つを"),
    (lambda Q, K, V: None, "return を書き忘れて"),
])
def test_each_attention_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_attention(fn)


def test_same_shape_is_never_called_a_wrong_shape():
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(lambda Q, K, V: (2 * right(Q, K, V)[0], right(Q, K, V)[1]))
    assert "形は" not in str(info.value) and "行 0(1 行め)は" in str(info.value)


def test_a_flattened_output_is_called_flattened_not_v_at_weights():
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(lambda Q, K, V: (right(Q, K, V)[0].ravel(), right(Q, K, V)[1]))
    assert "ravel" in str(info.value) and "V @ weights" not in str(info.value)


def test_the_fallback_says_what_was_expected_and_what_came_and_nothing_more():
    """No step of the solution in it: the sizes, the expected row, the row that came."""
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(with_weights(lambda Q, K: reference.softmax(np.abs(Q @ K.T) / 2)))
    message = str(info.value)
    assert "はずが" in message and "(4, 3)" in message and "softmax(" not in message and "@" not in message


@pytest.mark.parametrize("answer", ["均等", " 均等 ", "均等。", "均等　", "一様", "均一"])
def test_identical_keys_prediction_accepts(answer, capsys):
    checks.check_identical_keys_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("自分", "第 1 章"), ("先頭", "ソフトマックスの式"), ("問い次第", "1 つの行の中の得点"), ("全部", "選択肢にありません"),
    ("", "まだ答えが"),
])
def test_identical_keys_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_identical_keys_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_attention(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_attention(with_weights(lambda Q, K: reference.softmax(Q @ K.T)), hidden=True)


@pytest.mark.parametrize("answer", ["先頭", "問い次第", "自分"])
def test_identical_keys_wrong_answers_do_not_state_the_rule(answer):
    with pytest.raises(CheckFailed) as info:
        checks.check_identical_keys_prediction(answer)
    message = str(info.value)
    assert "均等に" not in message and "同じ重み" not in message and "1/n" not in message


def _scaled_by(divisor):
    def my_attention(Q, K, V):
        S = Q @ K.T / divisor(Q, K, V)
        E = np.exp(S - S.max(axis=-1, keepdims=True))
        weights = E / E.sum(axis=-1, keepdims=True)
        return weights @ V, weights
    return my_attention


@pytest.mark.parametrize("hidden", [False, True])
@pytest.mark.parametrize("divisor", [
    lambda Q, K, V: np.sqrt(K.shape[0]), lambda Q, K, V: np.sqrt(V.shape[1]), lambda Q, K, V: np.sqrt(2),
])
def test_a_wrong_scale_is_named_with_what_was_divided_by(divisor, hidden):
    """The message says the number the scores were divided by and where to look, never the right
    divisor's value (that would hand over the fix)."""
    with pytest.raises(CheckFailed, match=r"割る数が違います.*得点を \d+\.\d{3} で割っています。") as info:
        checks.check_attention(_scaled_by(divisor), hidden=hidden)
    assert info.value.mistake in ("by_sqrt_n", "wrong_divisor")
    assert not re.search(r"√d_k = √\d|= (1\.732|2\.000|3\.000)(?!\d) です", str(info.value)), str(info.value)


@pytest.mark.parametrize("hidden", [False, True])
@pytest.mark.parametrize("rows", [lambda Q, K: Q.shape[0], lambda Q, K: K.shape[0]])
def test_a_scale_by_the_number_of_words_gets_its_own_hint(rows, hidden):
    """√n (Q's or K's rows) for √d_k: named as the number of words, also where √n is a whole
    number that a divisor typed by hand could be (the square case's √4 = 2)."""
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(_scaled_by(lambda Q, K, V: np.sqrt(rows(Q, K))), hidden=hidden)
    assert info.value.mistake == "by_sqrt_n" and checks.ATTENTION_HINTS["by_sqrt_n"] in str(info.value)


@pytest.mark.parametrize("hidden", [False, True])
def test_a_typed_two_is_not_called_the_number_of_words(hidden):
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(_scaled_by(lambda Q, K, V: 2.0), hidden=hidden)
    assert info.value.mistake == "wrong_divisor" and "語の数" not in str(info.value)


def test_the_right_scale_passes(capsys):
    checks.check_attention(_scaled_by(lambda Q, K, V: np.sqrt(Q.shape[1])))
    assert "✓" in capsys.readouterr().out


# ------------------------------------------------------------ 練習 3: attention over a batch


def batch_right(Q, K, V):
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    w = reference.softmax(S, axis=-1)
    return w @ V, w


def batch_one_by_one(Q, K, V):
    pairs = [reference.attention(q, k, v) for q, k, v in zip(Q, K, V, strict=True)]
    return np.stack([o for o, _ in pairs]), np.stack([w for _, w in pairs])


def batch_full_T(Q, K, V):
    w = reference.softmax(Q @ K.T / np.sqrt(Q.shape[-1]), axis=-1)
    return w @ V, w


def batch_axis1(Q, K, V):
    w = reference.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]), axis=1)
    return w @ V, w


def batch_d_k_from_2d(Q, K, V):
    """d_k = Q.shape[1] copied from the 2-D cells: in 3-D that is the number of queries."""
    w = reference.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[1]), axis=-1)
    return w @ V, w


def batch_step_2_whole(Q, K, V):
    """Step 2's cell with K.T mended but its d_k = Q.shape[1] and axis=1 kept."""
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    w = E / E.sum(axis=1, keepdims=True)
    return w @ V, w


def batch_no_sqrt(Q, K, V):
    w = reference.softmax(Q @ np.swapaxes(K, -1, -2), axis=-1)
    return w @ V, w


def batch_whole_sentence(Q, K, V):
    E = np.exp(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    w = E / E.sum(axis=(1, 2), keepdims=True)
    return w @ V, w


def batch_first_sentence_everywhere(Q, K, V):
    _, w0 = reference.attention(Q[0], K[0], V[0])
    w = np.broadcast_to(w0, (len(Q), *w0.shape))
    return w @ V, w


def batch_with_helpers(Q, K, V):
    w = helpers.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]), axis=-1)
    return w @ V, w


@pytest.mark.parametrize("fn", [batch_right, batch_one_by_one])
def test_check_batch_attention_passes_right_answers(fn, capsys):
    checks.check_batch_attention(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_batch_attention(fn, hidden=True)


@pytest.mark.parametrize("fn, mistake", [(batch_full_T, "full_T"), (batch_axis1, "axis1"),
                                         (batch_no_sqrt, "no_sqrt"), (batch_whole_sentence, "whole_sentence"),
                                         (batch_d_k_from_2d, "by_n_q"), (batch_step_2_whole, "by_n_q_axis1")])
def test_check_batch_attention_names_each_mistake(fn, mistake):
    with pytest.raises(CheckFailed) as info:
        checks.check_batch_attention(fn)
    assert info.value.mistake == mistake
    assert checks.BATCH_HINTS[mistake] in str(info.value)


def test_check_batch_attention_sees_one_sentence_used_for_all():
    with pytest.raises(CheckFailed) as info:
        checks.check_batch_attention(batch_first_sentence_everywhere)
    assert info.value.mistake == "later_sentences"
    assert "2 文め" in str(info.value)


def test_check_batch_attention_names_a_2d_result_from_the_first_sentence():
    """Sentence 0's Q, K, V only: a 2-D (n_q × n_k) table back, named as the first sentence alone."""
    def first_only(Q, K, V):
        return batch_right(Q[:1], K[:1], V[:1])[0][0], batch_right(Q[:1], K[:1], V[:1])[1][0]
    for hidden in (False, True):
        with pytest.raises(CheckFailed) as info:
            checks.check_batch_attention(first_only, hidden=hidden)
        assert info.value.mistake == "first_sentence" and "1 文め" in str(info.value)


def test_check_batch_attention_refuses_the_helpers_function():
    with pytest.raises(CheckFailed, match="helpers.softmax"):
        checks.check_batch_attention(batch_with_helpers)


def test_batch_cases_let_K_T_run_silently_once():
    """The first visible batch is shaped so that the `.T` slip gives numbers, not an error."""
    Q, K, V = checks.ch06_attention._batch_cases()[0]
    assert "full_T" in ch06_attention._batch_attention_variants(Q, K, V)
    assert (Q @ K.T).shape == (Q.shape[0], Q.shape[1], K.shape[1])
