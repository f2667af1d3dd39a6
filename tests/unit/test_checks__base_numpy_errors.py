"""helpers.checks._base.numpy_errors: numpy's shape errors in Japanese."""

import re

import numpy as np
import pytest

from helpers.checks._base import CheckFailed, call_learner, crash_in_japanese


@pytest.mark.parametrize("crash, said", [
    (lambda: np.ones((5, 2)) @ np.ones((5, 2)), "左の列の数が 2、右の行の数が 5"),
    (lambda: np.ones((1, 3)) + np.ones((5, 2)), "形 (1,3) と (5,2) の配列は"),
    (lambda: 1 / 0, "ZeroDivisionError: division by zero"),
    (lambda: np.dot(np.ones((2, 9)), np.ones((5, 2))), "左の列の数が 9、右の行の数が 5"),
])
def test_numpys_shape_errors_are_said_in_japanese(crash, said):
    with pytest.raises(CheckFailed, match=re.escape(said)) as caught:
        call_learner(lambda: crash(), what="f")
    assert "gufunc" not in str(caught.value) and "broadcast" not in str(caught.value)


def _error_of(fn):
    try:
        fn()
    except Exception as err:  # noqa: BLE001
        return err
    raise AssertionError("no error")


@pytest.mark.parametrize("make, words", [
    (lambda e: e / e.sum, "かっこ ()"),
    (lambda e: e.shape(1), "タプル"),
    (lambda e: e.sum(axis=1), "axis=1 を指定しましたが、この配列は 1 次元"),
    (lambda e: e.sum(keepdim=True), "keepdims の打ち間違い"),
    (lambda e: np.Inf, "np.inf を使います"),
    (lambda e: e[3], "番号 3 は範囲の外"),
    (lambda e: [1][2], "番号が範囲の外"),
])
def test_a_beginners_python_errors_are_said_in_japanese_without_english(make, words):
    import re
    said = crash_in_japanese(_error_of(lambda: make(np.ones(3))))
    assert words in said
    code = re.sub(r"\b(shape|axis|keepdims?|list|tuple|sum|inf|Inf|NumPy)\b", "", said)  # names, not English
    assert not re.search(r"[A-Za-z]{3,}", code), said


def test_a_crash_names_the_learners_own_line():
    import helpers

    def to_weights(scores):
        e = np.exp(scores)
        return e / e.sum
    with pytest.raises(helpers.checks.CheckFailed) as info:
        helpers.checks.check_first_softmax(to_weights)
    assert "to_weights の 3 行め `return e / e.sum`" in str(info.value)


@pytest.mark.parametrize("make, words", [
    (lambda: [1.0, 2.0] * 0.5, "リスト(またはタプル)に小数を掛けて"),
    (lambda: [1.0, 2.0] @ [3.0, 4.0], "リストやタプルのまま計算(@)"),
    (lambda: int("3")[0], "int に [番号]"),
    (lambda: bool(np.ones(3) > 0), "if や and・or"),
    (lambda: __import__("math").exp(1000), "あふれました"),
])
def test_more_of_a_beginners_errors_are_said_in_japanese(make, words):
    assert words in crash_in_japanese(_error_of(make))
