"""helpers.checks._base.learner: calling the learner's function."""


import numpy as np
import pytest

from helpers.checks._base import (
    CheckFailed,
    as_number,
    call_learner,
    three_arrays,
)


def test_call_learner_returns_the_result():
    assert call_learner(lambda a, b: a + b, 2, 3, what="add") == 5


def test_call_learner_is_quiet_about_numpy_warnings(recwarn):
    got = call_learner(lambda a: np.array([1.0]) / a, 0.0, what="divide")
    assert np.isinf(got[0])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _stub(x):
    raise NotImplementedError


@pytest.mark.parametrize(
    "fn, kwargs, words",
    [
        ("add", {}, "add には関数を渡して.*str"),
        (_stub, {}, "add はまだ書かれていません"),
        (lambda x: {}["k"], {}, r"add\(\.\.\.\) がエラーで止まりました\(KeyError.*print して"),
        (lambda x: 1 / 0, {"call": "add(x)", "on_error": "割り算を見ましょう。"},
         r"add\(x\) がエラーで止まりました\(ZeroDivisionError.*割り算を見ましょう。"),
        (lambda x: None, {}, "何も返していません.*return"),
    ],
)
def test_call_learner_turns_each_stumble_into_a_hint(fn, kwargs, words):
    with pytest.raises(AssertionError, match=words):
        call_learner(fn, 1.0, what="add", **kwargs)


def test_as_number_wants_exactly_one_number():
    assert as_number(np.array([[2.5]]), "f") == 2.5
    with pytest.raises(AssertionError, match=r"数を 1 つ.*shape \(2,\)"):
        as_number([1.0, 2.0], "f")
    with pytest.raises(AssertionError, match="数の配列を返して"):
        as_number("二", "f")


def test_three_arrays():
    q, k, v = three_arrays(([1], [2], [3]), "faces")
    assert q.dtype == float and v.tolist() == [3.0]
    with pytest.raises(AssertionError, match=r"faces は 3 つの配列を \(Q, K, V\) の順に.*tuple"):
        three_arrays(([1], [2]), "faces")
    with pytest.raises(AssertionError, match="数の配列"):
        three_arrays(([1], "k", [3]), "faces")


def test_forgotten_return_is_named():
    def no_return(a):
        a + 1

    with pytest.raises(CheckFailed, match="return を書き忘れて"):
        call_learner(no_return, np.zeros(2), what="f")


def test_changing_an_argument_in_place_is_named_with_its_name():
    def in_place(W_Q, lr):
        W_Q -= lr
        return W_Q

    with pytest.raises(CheckFailed, match="W_Q の中身を書き換えて"):
        call_learner(in_place, np.ones((2, 2)), 0.5, what="update")


def test_a_crash_becomes_a_hint_with_the_advice_for_it():
    def crash(a):
        raise ValueError("boom")

    with pytest.raises(CheckFailed, match=r"ValueError: boom.*形を見て") as info:
        call_learner(crash, 1, what="f", on_error=lambda err: "形を見て")
    assert info.value.__cause__ is None or isinstance(info.value.__context__, ValueError)
