"""helpers.checks.ch00_introduction: chapter 00's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import re

import numpy as np
import pytest

import helpers
from helpers import checks
from helpers.checks import (
    FIRST_SOFTMAX_HINTS,
    SCORES_FROM_WEIGHTS_HINTS,
    SCORES_SCALED_HINT,
    CheckFailed,
    check_first_softmax,
    check_matmul_shape_prediction,
)
from helpers.checks.ch00_introduction import (
    _scores_from_weights_cases,
    _scores_from_weights_variants,
)


def test_first_softmax_right(capsys):
    check_first_softmax(lambda s: np.exp(s) / np.exp(s).sum())
    assert capsys.readouterr().out.count("✓ 正解です。") == 1


def test_first_softmax_refuses_helpers_softmax_as_the_text_says():
    for hidden in (False, True):
        with pytest.raises(CheckFailed, match=r"helpers\.softmax を使っています.*使わずに書いて"):
            check_first_softmax(lambda s: helpers.softmax(s), hidden=hidden)


FIRST_MISTAKES = {
    "raw": lambda s: s,
    "no_exp": lambda s: s / s.sum(),
    "unnormalised": lambda s: np.exp(s),
    "by_score_sum": lambda s: np.exp(s) / s.sum(),
    "by_max": lambda s: np.exp(s) / np.exp(s).max(),
    "by_count": lambda s: np.exp(s) / len(s),
    "abs": lambda s: np.abs(s) / np.abs(s).sum(),
    "negated": lambda s: np.exp(-s) / np.exp(-s).sum(),
    "one_hot": lambda s: np.eye(len(s))[np.argmax(s)],  # the top score takes it all
}


def test_every_first_softmax_hint_has_a_mistake():
    assert set(FIRST_MISTAKES) == set(FIRST_SOFTMAX_HINTS)


@pytest.mark.parametrize("mistake", sorted(FIRST_MISTAKES))
def test_first_softmax_names_each_mistake(mistake):
    with pytest.raises(AssertionError, match=re.escape(FIRST_SOFTMAX_HINTS[mistake])):
        check_first_softmax(FIRST_MISTAKES[mistake])


def test_first_softmax_other_failures():
    def stub(scores):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        check_first_softmax(stub)
    with pytest.raises(AssertionError, match=r"shape \(3,\) のはずが"):
        check_first_softmax(lambda s: np.exp(s).sum())
    with pytest.raises(AssertionError, match="になるはずが"):
        check_first_softmax(lambda s: np.full(s.shape, 1 / s.size))
    with pytest.raises(AssertionError, match="エラーで止まりました.*KeyError"):
        check_first_softmax(lambda s: {}["x"])
    with pytest.raises(AssertionError, match="数の配列を返して"):
        check_first_softmax(lambda s: "重み")
    with pytest.raises(AssertionError, match="関数を渡して"):
        check_first_softmax([0.5, 0.5])


@pytest.mark.parametrize("answer", [(1, 3), [1, 3], (np.int64(1), np.int64(3))])
def test_shape_prediction_right(answer, capsys):
    check_matmul_shape_prediction(answer)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize(
    "answer, words",
    [((1, 2), "x と同じ形"), ((2, 3), "W の形そのもの"), ((3, 1), "縦一列の形"),
     ((2, 2), "選択肢にありません"), ("エラー", "比べてみましょう"), ((), "まだ答えが入っていません"),
     ("", "まだ答えが入っていません"), ((5, 7), "選択肢にありません"), (1.3, "のような組"),
     ((1.0, 3.0), "選択肢にありません"), ((True, 3), "選択肢にありません"),
     ("わからない", "選択肢にありません.*エラー")],
)
def test_shape_prediction_hints(answer, words):
    with pytest.raises(AssertionError, match=words):
        check_matmul_shape_prediction(answer)


# ---------------------------------------------------------------- table-driven (issue 11)


def right(scores):
    e = np.exp(scores)
    return e / e.sum()


def stable(scores):
    e = np.exp(scores - scores.max())
    return e / e.sum()


@pytest.mark.parametrize("fn", [right, stable, lambda s: list(right(s))])
def test_right_softmax_passes(fn, capsys):
    checks.check_first_softmax(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda s: s, "そのまま返して"),
    (lambda s: s / s.sum(), "np.exp を取っていません"),
    (lambda s: np.exp(s), "np.exp を取ったところで止まって"),
    (lambda s: np.exp(s) / s.sum(), "割る数が違います"),
    (lambda s: np.exp(s - s.max()), "np.exp\\(scores - scores.max\\(\\)\\)"),
    (lambda s: np.exp(s) / np.exp(s).max(), "最大値を引くのは"),
    (lambda s: right(s)[None, :], "shape"),
    (lambda s: None, "return を書き忘れて"),
    (lambda s: s.sort(), "return を書き忘れて"),
])
def test_each_softmax_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_first_softmax(fn)


def test_sorting_the_scores_in_place_is_named():
    def in_place(scores):
        scores -= scores.max()
        e = np.exp(scores)
        return e / e.sum()

    with pytest.raises(CheckFailed, match="scores の中身を書き換えて"):
        checks.check_first_softmax(in_place)


@pytest.mark.parametrize("answer", [(1, 3), [1, 3], np.array([1, 3]), (np.int64(1), 3)])
def test_shape_prediction_accepts(answer, capsys):
    checks.check_matmul_shape_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ((1, 2), "x と同じ形"), ((2, 3), "W の形そのもの"), ((3, 1), "縦一列"), ((2, 2), "選択肢にありません"),
    ("エラー", "比べてみましょう"), (" エラー。", "比べてみましょう"), ("エラー　", "比べてみましょう"),
    ((4, 4), "選択肢にありません"), ("", "まだ答えが"), (None, "まだ答えが"),
    ((True, 3), "選択肢にありません"),
])
def test_shape_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_matmul_shape_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_first_softmax(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_first_softmax(lambda s: np.exp(s), hidden=True)


@pytest.mark.parametrize("answer", ["(1, 3)", "1,3", "（１，３）", "1×3", "1行3列", "(1, 3)です"])
def test_a_shape_typed_as_text_is_the_same_answer_as_the_tuple(answer, capsys):
    """One rule with chapter 04, which asks for the shape as text: "(1, 3)" is (1, 3)."""
    checks.check_matmul_shape_prediction(answer)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("answer, words", [((1, 2), "3"), ((2, 3), "1 と 3"), ("エラー", "違う")])
def test_shape_hints_do_not_state_the_answer(answer, words):
    """A wrong shape's hint points back at x and W; it does not say which sizes remain."""
    with pytest.raises(CheckFailed) as info:
        checks.check_matmul_shape_prediction(answer)
    assert "(1, 3)" not in str(info.value) and f"({words})" not in str(info.value)
    assert "外側の数です" not in str(info.value) and "から来ます" not in str(info.value)
    assert "違うとき" not in str(info.value) and "列の数は変わります" not in str(info.value)


def test_the_shape_messages_list_the_page_choices_and_ask_for_a_tuple():
    """The page offers (1, 2), (1, 3), (2, 3), (3, 1) and "エラー", and its template is a tuple."""
    with pytest.raises(CheckFailed) as info:
        checks.check_matmul_shape_prediction(())
    message = str(info.value)
    assert "(2, 2)" not in message and "文字列で" not in message and "組" in message
    assert "(1, 2)、(1, 3)、(2, 3)、(3, 1)、\"エラー\"" in message


# ------------------------------------------------ 練習 3: scores back from weights (a transfer)

SCORES_BACK_MISTAKES = {
    "weights_back": lambda w: w, "exp": np.exp, "negated": lambda w: -np.log(w), "log10": np.log10,
    "log2": np.log2, "reciprocal": lambda w: 1 / w, "softmax_again": lambda w: np.exp(w) / np.exp(w).sum(),
}


@pytest.mark.parametrize("fn", [np.log, lambda w: np.log(w) + 7.5, lambda w: [float(np.log(v)) for v in w],
                                lambda w: np.log(w / w.min())])
def test_any_scores_whose_softmax_is_the_weights_pass(fn, capsys):
    checks.check_scores_from_weights(fn)
    checks.check_scores_from_weights(fn, hidden=True)
    assert capsys.readouterr().out.count("✓ 正解です") == 1  # the hidden test is silent


def test_every_scores_back_mistake_has_a_hint_and_is_tried():
    assert set(SCORES_FROM_WEIGHTS_HINTS) == set(SCORES_BACK_MISTAKES) == set(
        _scores_from_weights_variants(np.array([0.5, 0.25, 0.25]))) - {"right"}


@pytest.mark.parametrize("mistake", sorted(SCORES_BACK_MISTAKES))
def test_each_scores_back_mistake_gets_its_hint_shifted_or_not(mistake):
    for shift in (0.0, 2.0):  # a mistake plus a constant is still that mistake
        for hidden in (False, True):
            with pytest.raises(CheckFailed) as info:
                checks.check_scores_from_weights(
                    lambda w, shift=shift: np.asarray(SCORES_BACK_MISTAKES[mistake](w)) + shift, hidden=hidden)
            assert info.value.mistake == mistake and SCORES_FROM_WEIGHTS_HINTS[mistake] in str(info.value)


@pytest.mark.parametrize("fn, mistake, words", [
    (lambda w: float(np.log(w).sum()), "wrong_shape", "同じ shape"),
    (lambda w: np.log(w - 0.3), "not_finite", "inf か nan"),
    (lambda w: w * len(w), "wrong_values", "元の重みに戻るはず"),
    (lambda w: None, "no_return", "return"),
])
def test_other_wrong_scores_say_what_was_expected(fn, mistake, words):
    with pytest.raises(CheckFailed, match=words) as info:
        checks.check_scores_from_weights(fn)
    assert info.value.mistake == mistake


def test_the_weights_asked_about_are_weights():
    for hidden in (False, True):
        for (w,) in _scores_from_weights_cases(hidden):
            assert np.all(w > 0) and np.isclose(w.sum(), 1.0)


@pytest.mark.parametrize("factor", [2.0, 0.5, 3.0])
def test_scores_scaled_by_a_number_are_told_adding_keeps_the_weights_and_multiplying_does_not(factor):
    """2 · np.log(w), np.log(w²), np.log(w) / 2: the order is right, the differences are not; said by
    the check and the hidden test alike (weights of two values only cannot tell it, so the
    five-word case decides), shifted or not."""
    for hidden in (False, True):
        with pytest.raises(CheckFailed) as info:
            checks.check_scores_from_weights(lambda w: factor * np.log(w) + 1.5, hidden=hidden)
        assert info.value.mistake == "scaled" and SCORES_SCALED_HINT in str(info.value)
