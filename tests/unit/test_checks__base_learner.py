"""helpers.checks._base.learner: calling the learner's function."""


import numpy as np
import pytest

from helpers.checks._base import (
    CheckFailed,
    as_float_array,
    as_number,
    call_learner,
    real_array,
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
    assert as_number(np.float64(2.5), "f") == 2.5 and as_number(np.array(2.5), "f") == 2.5
    for one in (np.array([2.5]), np.array([[2.5]])):  # one value, but an array: not what was asked
        with pytest.raises(CheckFailed, match=rf"数を 1 つ.*shape \({one.shape[0]},"):
            as_number(one, "f")
    with pytest.raises(AssertionError, match=r"数を 1 つ.*shape \(2,\)"):
        as_number([1.0, 2.0], "f")
    with pytest.raises(AssertionError, match="f は数を返して") as info:  # one number asked: not "an array"
        as_number("二", "f")
    assert "配列" not in str(info.value)


def test_real_array_takes_real_numbers_only(recwarn):
    assert real_array([[1, 2], [3, 4]]).dtype == float and real_array(np.float32(2)) == 2.0
    for odd in ([[1, 2], [3]], "12", [["1", "2"]], [1, "a"], [1j, 2], np.array([1 + 0j]), 1j, [object()]):
        assert real_array(odd) is None, odd
    with pytest.raises(CheckFailed, match="f は数の配列を返して.*ndarray") as info:
        as_float_array(np.array([1 + 2j]), "f")
    assert info.value.mistake == "not_numbers" and not recwarn.list  # numpy's ComplexWarning never shown


def test_a_string_from_score_cell_is_told_a_number_is_asked():
    """score_cell returns one number: a string back is told so, not asked for "an array"."""
    from helpers import checks
    with pytest.raises(CheckFailed) as info:
        checks.check_matmul_cell(lambda Q, K, i, j: "3.0")
    assert info.value.mistake == "not_numbers" and "score_cell は数を返して" in str(info.value)
    assert "配列" not in str(info.value)


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


def _typo_in_a_name(W_Q, x):
    return x @ W_q  # noqa: F821 (the typo under test)


def _typo_in_a_local(scores):
    weights = np.exp(scores)
    return wieghts / weights.sum()  # noqa: F821


def _typo_in_helpers(scores):
    import helpers
    return helpers.sofmax(scores)


def _typo_in_numpy(scores):
    return np.sqr(scores)


@pytest.mark.parametrize("fn, words", [
    (_typo_in_a_name, "名前 W_q が見つかりません(NameError)。W_Q の打ち間違い"),
    (_typo_in_a_local, "名前 wieghts が見つかりません(NameError)。weights の打ち間違い"),
    (_typo_in_helpers, "helpers に sofmax という名前はありません(AttributeError)。softmax の打ち間違い"),
    (_typo_in_numpy, "np に sqr という名前はありません(AttributeError)。sqrt の打ち間違い"),
])
def test_a_misspelt_name_gets_that_note_alone(fn, words):
    """A typo is the whole story: no advice about shapes or order after it."""
    with pytest.raises(CheckFailed) as info:
        call_learner(fn, np.ones((2, 2)), np.ones((1, 2)), what="f", call="f(...)",
                     on_error="形を print して確かめましょう。") if fn is _typo_in_a_name else \
            call_learner(fn, np.ones(3), what="f", call="f(...)", on_error="形を print して確かめましょう。")
    message = str(info.value)
    assert words in message and "形" not in message and "print" not in message


def test_counting_products_counts_what_the_learners_code_runs_however_the_arrays_were_made():
    import numpy as np

    from helpers.checks._base import counting_products
    X, W = np.ones((3, 2)), np.ones((2, 2))

    def copies_then_three(X, W):
        X = np.array(X)
        return X @ W, np.matmul(X, W), X.dot(W)

    def einsum_in_a_loop(X, W):
        return [np.einsum("ij,jk->ik", X, W) for _ in range(4)]

    def one(X, W):
        return X @ W

    def none(X, W):
        return (X[:, :, None] * W[None]).sum(axis=1)

    for fn, count in ((copies_then_three, 3), (einsum_in_a_loop, 4), (one, 1), (none, 0)):
        with counting_products(fn) as seen:
            fn(X, W)
        assert seen == [count], fn.__name__


def test_counting_loop_turns_sees_the_learners_loops_and_none_in_whole_array_code():
    import numpy as np

    from helpers.checks._base import counting_loop_turns
    A, B = np.ones((3, 2)), np.ones((2, 2))

    def pair(a, b):
        return a @ b

    def double_loop(A, B):
        return np.array([[pair(a, b) for b in B] for a in A])

    def plain_for(A, B):
        rows = []
        for a in A:
            rows.append(a @ B.T)
        return np.array(rows)

    def whole(A, B):
        return A @ B.T / np.outer(np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1))

    turns = {}
    for fn in (double_loop, plain_for, whole):
        with counting_loop_turns(fn) as seen:
            fn(A, B)
        turns[fn.__name__] = seen[0]
    assert turns["whole"] == 0  # numpy's own loops are not the learner's
    assert turns["plain_for"] >= 3 and turns["double_loop"] >= 3 * 2


def test_forbid_names_a_whole_module_and_ignores_helpers_own_calls():
    import numpy as np

    import helpers
    from helpers.checks._base import CheckFailed, call_learner
    S = np.zeros((3, 3))
    with pytest.raises(CheckFailed, match=r"helpers\.heads\.masked_softmax を使って") as info:
        call_learner(lambda S: helpers.heads.masked_softmax(S), S, what="f", forbid=("heads",))
    assert info.value.mistake == "forbidden_helper"
    # helpers.heads.masked_softmax calls softmax itself: only the learner's own calls count
    assert call_learner(lambda S: helpers.heads.causal_mask(3), S, what="f", forbid=("softmax",)).shape == (3, 3)
