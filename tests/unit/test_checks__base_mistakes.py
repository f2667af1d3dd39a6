"""helpers.checks._base.mistakes: a wrong result matched to its typical mistake."""


import numpy as np
import pytest

from helpers.checks._base import (
    CheckFailed,
    mistakes,
    same,
    typical_mistake,
)


def test_same_needs_the_shape_and_the_values():
    assert same([1.0, 2.0], np.array([1.0, 2.0 + 1e-9]))
    assert not same([1.0, 2.0], [[1.0, 2.0]])
    assert not same([1.0, 2.0], [1.0, 2.1])


def test_typical_mistake_names_the_first_match_but_never_right():
    variants = {"right": np.ones(2), "half": np.full(2, 0.5), "also_half": np.full(2, 0.5)}
    assert typical_mistake(np.full(2, 0.5), variants) == "half"
    assert typical_mistake(np.ones(2), variants) is None
    assert typical_mistake(np.zeros(2), variants) is None


def test_fail_on_typical_mistake_says_its_hint_after_what_came():
    variants = {"right": np.ones(2), "half:rounded": np.full(2, 0.5)}
    hints = {"half": "半分です。"}
    with pytest.raises(AssertionError, match="^✗ 2 番目: 半分です。$"):
        mistakes.fail_on_typical_mistake(np.full(2, 0.5), variants, hints, said="2 番目: ")
    mistakes.fail_on_typical_mistake(np.zeros(2), variants, hints)  # no known mistake: no verdict


def test_a_recognised_mistake_carries_its_name_for_the_class_report():
    variants = {"right": np.ones(2), "half:rounded": np.full(2, 0.5)}
    with pytest.raises(CheckFailed) as failed:
        mistakes.fail_on_typical_mistake(np.full(2, 0.5), variants, {"half": "半分です。"})
    assert failed.value.mistake == "half"  # one name for each spelling of the mistake


def test_fail_unless_right_says_the_mistake_then_the_shape_then_the_first_difference():
    variants = {"right": np.array([1.0, 2.0]), "doubled": np.array([2.0, 4.0])}
    hints = {"doubled": "2 倍です。"}
    mistakes.fail_unless_right(np.array([1.0, 2.0]), variants, hints, wrong_shape="形", name="答え")
    for got, said, mistake in ((np.array([2.0, 4.0]), "2 倍です。", "doubled"),
                               (np.ones(3), "形", "shape"),
                               (np.array([1.0, 2.5]), "2", None)):
        with pytest.raises(CheckFailed, match=said) as failed:
            mistakes.fail_unless_right(got, variants, hints, wrong_shape="形", name="答え")
        if mistake:
            assert failed.value.mistake == mistake


def test_rounding_is_named_only_when_the_rounded_values_show_it():
    want = np.array([0.862, 0.750, 0.550, 0.928, 1.481])
    assert mistakes.rounded_to(np.round(want, 2), want) == 2
    assert mistakes.rounded_to(np.array([0.0, 0.0, 0.0, 0.0, 1.0]), want) == 0  # int(...) of each
    assert mistakes.rounded_to(np.ones(5), want) is None  # all ones: row sums, not a rounding
    # the same constant is a rounding when the right values are themselves all alike
    assert mistakes.rounded_to(np.ones(3), np.full(3, 1.2)) == 0
    with pytest.raises(CheckFailed) as failed:
        mistakes.fail_on_wrong_values(want, np.ones(5), "答え")
    assert failed.value.mistake == "wrong_values" and "丸め" not in str(failed.value)


def test_first_difference_counts_from_0_as_numpy_and_says_the_ordinal_beside():
    want = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    one = want.copy()
    one[1, 2] = 7.0
    said = mistakes.first_difference(want, one, "答え")
    assert said.startswith("答えの行 1(2 行め)は") and "(列 2 が違います)" in said, said
    said = mistakes.first_difference(want, want + [[0, 0, 0], [1, 0, 1]], "weights")
    assert said.startswith("weights の行 1(2 行め)は") and "列 0 と 2 が違います" in said, said
    said = mistakes.first_difference(want, want + 1, "出力")
    assert said.startswith("出力の行 0(1 行め)は") and "どの列も違います" in said, said
    said = mistakes.first_difference(np.array([1.0, 2.0]), np.array([1.0, 3.0]), "q")
    assert said.startswith("q の成分 1(2 番め)は 2.000 になるはずが、3.000"), said
