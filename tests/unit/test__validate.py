"""helpers._validate: every public helper's inputs pass through these, so their messages
are what a learner reads."""

import dataclasses

import numpy as np
import pytest

from helpers._validate import (
    MAX_CELLS,
    HelpersError,
    HelpersKeyError,
    HelpersTypeError,
    as_array,
    as_matrix,
    flag,
    guard_size,
    integer,
    matmul_operands,
    number,
    require_same_length,
    text,
)


@pytest.mark.parametrize("value", [3, np.int64(3), np.int32(3)])
def test_integer_gives_a_plain_int(value):
    got = integer(value, "n", lo=0, hi=5)
    assert got == 3 and type(got) is int


@pytest.mark.parametrize(
    "value, kwargs, error, words",
    [
        (True, {}, TypeError, "n は整数で.*True(bool)"),
        (2.0, {}, TypeError, "n は整数で.*float"),
        ("2", {}, TypeError, "n は整数で"),
        (6, {"lo": 0, "hi": 5}, ValueError, "0 から 5 の範囲の整数.*6"),
        (-1, {"lo": 0}, ValueError, "0 以上の整数"),
        (9, {"hi": 5}, ValueError, "5 以下の整数"),
    ],
)
def test_integer_refuses(value, kwargs, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        integer(value, "n", **kwargs)


@pytest.mark.parametrize("value", [2, 2.5, np.float32(2.5), np.int64(2)])
def test_number_gives_a_plain_float(value):
    got = number(value, "x", lo=0, hi=3)
    assert got == pytest.approx(float(value)) and type(got) is float


@pytest.mark.parametrize(
    "value, kwargs, error, words",
    [
        (True, {}, TypeError, "x は数で"),
        ("1", {}, TypeError, "x は数で"),
        (None, {}, TypeError, "x は数で"),
        (np.nan, {}, ValueError, "有限の数"),
        (-np.inf, {}, ValueError, "有限の数"),
        (0.0, {"positive": True}, ValueError, "正の数"),
        (3.5, {"lo": 0, "hi": 3}, ValueError, "0 以上 3 以下"),
        (-0.5, {"lo": 0}, ValueError, "0 以上に"),
        (4, {"hi": 3}, ValueError, "3 以下に"),
    ],
)
def test_number_refuses(value, kwargs, error, words):
    with pytest.raises(error, match=words):
        number(value, "x", **kwargs)


def test_as_array_and_as_matrix_accept_lists():
    np.testing.assert_array_equal(as_array([1, 2], "a"), [1.0, 2.0])
    assert as_matrix([[1, 2]], "a").dtype == float


@pytest.mark.parametrize(
    "value, error, words",
    [
        ("12", TypeError, "数の配列を渡して"),
        (None, TypeError, "数の配列を渡して"),
        ([[1, 2], [3]], TypeError, "変換できません"),
        ([], ValueError, "空です"),
        ([1.0, np.nan], ValueError, "NaN"),
        ([1.0, np.inf], ValueError, "inf"),
    ],
)
def test_as_array_refuses(value, error, words):
    with pytest.raises(error, match=words):
        as_array(value, "a")


def test_as_matrix_refuses_other_dimensions():
    with pytest.raises(ValueError, match=r"a.reshape\(1, -1\) で 1×3"):
        as_matrix([1, 2, 3], "a")
    with pytest.raises(ValueError, match="3 次元"):
        as_matrix(np.ones((1, 2, 3)), "a")


def test_require_same_length_names_both_shapes():
    require_same_length(np.ones((2, 3)), np.ones((4, 3)), "Q", "K")
    with pytest.raises(ValueError, match=r"Q と K の次元.*\(2, 3\).*\(4, 2\)"):
        require_same_length(np.ones((2, 3)), np.ones((4, 2)), "Q", "K")


def test_the_width_of_questions_and_keys_is_checked_once_for_every_caller():
    """Q/K in attention, W_Q/W_K in a party (data), a forward pass (descent) and learning's
    params: one check, one message, a space between a symbol and the particle after it."""
    import helpers

    message = ("W_Q と W_K の列数 d_k が違います: W_Q は shape (2, 3)(列数 d_k 3)、W_K は shape (2, 2)"
               "(列数 d_k 2)です。内積を取るには同じ列数 d_k が必要です。")
    W_Q, W_K, W_V, X = np.ones((2, 3)), np.ones((2, 2)), np.eye(2), np.ones((3, 2))
    task = helpers.learning.palate_task()
    party = helpers.data.party()  # its guests' d_model is 2, as X's
    for call in (lambda: require_same_length(W_Q, W_K, "W_Q", "W_K", dim="列数 d_k"),
                 lambda: helpers.learning.forward(X, W_Q, W_K, W_V),
                 lambda: helpers.learning.loss_and_gradients(task, {"W_Q": W_Q, "W_K": W_K, "W_V": W_V}),
                 lambda: dataclasses.replace(party, W_Q=W_Q, W_K=W_K)):
        with pytest.raises(HelpersError) as err:
            call()
        assert str(err.value) == message
    with pytest.raises(HelpersError, match="の列数 d_k が違います"):
        helpers.attention_scores(np.ones((2, 3)), np.ones((2, 2)))


def test_an_optional_text_says_none_with_a_space():
    with pytest.raises(HelpersTypeError, match="文字列か None で指定してください。"):
        text(3, "title", optional=True)
    with pytest.raises(HelpersTypeError, match="title は文字列で指定してください。"):
        text(3, "title")


def test_matmul_operands_checks_the_inner_size():
    a, b = matmul_operands([[1, 2]], [[1], [2]], ("x", "W"))
    assert a.shape == (1, 2) and b.shape == (2, 1)
    with pytest.raises(ValueError, match=r"x @ W の形が合いません.*\(1, 3\).*\(2, 2\)"):
        matmul_operands(np.ones((1, 3)), np.ones((2, 2)), ("x", "W"))


# Edges: overflow, underflow, masks, sizes, bad arguments (Japanese messages).


def test_errors_are_still_the_builtin_kinds():
    assert issubclass(HelpersError, ValueError)
    assert issubclass(HelpersTypeError, TypeError)
    assert issubclass(HelpersKeyError, KeyError)


@pytest.mark.parametrize("cls, kind", [(HelpersError, "ValueError"),
                                       (HelpersTypeError, "TypeError"),
                                       (HelpersKeyError, "KeyError")])
def test_ipython_shows_one_line_with_the_message(cls, kind):
    lines = cls("形が合いません。")._render_traceback_()
    assert len(lines) == 1
    assert kind in lines[0] and lines[0].endswith("形が合いません。")


def test_key_error_prints_without_quotes():
    assert str(HelpersKeyError("「すし」はこの語彙にありません。")) == "「すし」はこの語彙にありません。"


def test_ipython_renders_a_helpers_error_without_traceback(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    monkeypatch.setattr(shell, "_showtraceback", lambda etype, evalue, stb: shown.append(stb))
    shell.run_cell("import helpers; helpers.project([[1.0, 2.0, 3.0]], [[1.0], [2.0]])")
    assert len(shown) == 1 and len(shown[0]) == 1
    assert "x @ W の形が合いません" in shown[0][0]
    shell.run_cell("1 / 0")  # other errors keep their full traceback
    assert len(shown[1]) > 1


def test_guard_size_refuses_before_allocating():
    guard_size((MAX_CELLS,), "表")  # exactly the limit is fine
    with pytest.raises(HelpersError, match="100000 × 100000 = 10,000,000,000 個"):
        guard_size((100_000, 100_000), "結果")
    with pytest.raises(HelpersError, match="上限 5 個"):
        guard_size((2, 3), "表", limit=5)


def test_as_array_lets_minus_inf_through_only_for_masks():
    with pytest.raises(HelpersError, match="inf"):
        as_array([0.0, -np.inf], "scores")
    assert as_array([0.0, -np.inf], "scores", allow_neg_inf=True)[1] == -np.inf
    for bad in ([0.0, np.inf], [0.0, np.nan]):
        with pytest.raises(HelpersError):
            as_array(bad, "scores", allow_neg_inf=True)


@pytest.mark.parametrize("bad", ["1", {"a": 1}, {1, 2}, None, b"12", [[1, 2], [3]], [1j], 10**400])
def test_as_array_refuses_what_is_not_numbers(bad):
    with pytest.raises((HelpersTypeError, HelpersError), match="X"):
        as_array(bad, "X")


def test_number_refuses_a_huge_int_in_japanese():
    with pytest.raises(HelpersError, match="有限の数"):
        number(10**400, "lr")


@pytest.mark.parametrize("value, shown", [(10**6, "1000000"), (10**400, "約 401 桁の数"),
                                          (-(10**5000), "-約 5001 桁の数")],
                         ids=["7 digits", "401 digits", "5001 digits, negative"])
def test_integer_out_of_range_is_shown_by_its_size_when_huge(value, shown):
    """Python cannot even print an int of over 4,300 digits (its own error would be English)."""
    with pytest.raises(HelpersError, match="steps は 1 から 200000 の範囲の整数") as caught:
        integer(value, "steps", lo=1, hi=200_000)
    assert str(caught.value).endswith(f"{shown} が来ました。")


def test_what_came_is_shown_briefly_whatever_it_is():
    """Messages name what came: a huge int by its size, a long value cut (never Python's own
    error for printing an int of over 4,300 digits)."""
    with pytest.raises(HelpersError, match="x は有限の数にしてください。約 401 桁の数 が来ました"):
        number(10**400, "x")
    with pytest.raises(HelpersTypeError, match="約 5001 桁の数"):
        flag(10**5000, "scale")
    with pytest.raises(HelpersTypeError, match="約 5001 桁の数"):
        text(10**5000, "title")
    with pytest.raises(HelpersTypeError) as caught:
        text(list(range(1000)), "title")
    assert "…" in str(caught.value) and len(str(caught.value)) < 200


# The boundary: @public, masks, complex numbers (issue 25).

from helpers._validate import arg, mask, public, said  # noqa: E402


@public(lambda a: a.update(seen=True), x=arg(as_matrix), scale=arg(number, "scale(倍率)"))
def _scaled(x, scale=1.0):
    return x * scale


@public(x=arg(as_matrix))
def _outer(x):
    return _scaled(x, 1e300)  # inside: no second check, and the overflow names the outer x


def test_public_converts_each_argument_and_names_it():
    assert _scaled([[1, 2]], 2).tolist() == [[2.0, 4.0]]
    with pytest.raises(HelpersTypeError, match=r"scale\(倍率\) は数で"):
        _scaled([[1.0]], "2")
    with pytest.raises(HelpersError, match="x は 2 次元"):
        _scaled([1.0, 2.0])


def test_public_answers_overflow_naming_the_learners_arguments():
    with pytest.raises(HelpersError, match="_scaled の計算で数が大きくなりすぎ.*x, scale の値"):
        _scaled([[1e300]], 1e300)
    with pytest.raises(HelpersError, match="_outer の計算で.*x の値") as err:
        _outer([[1e300]])
    assert "scale" not in str(err.value)


def test_public_refuses_a_call_of_the_wrong_shape_in_japanese():
    with pytest.raises(HelpersTypeError, match=r"_scaled\(x, scale=1.0\) の形で呼んでください"):
        _scaled([[1.0]], 2, 3)


@pytest.mark.parametrize("value", [np.ones((2, 2)) + 1j, [[1, 2j]], 1j])
def test_complex_numbers_are_refused_not_cut_to_their_real_part(value):
    with pytest.raises(HelpersTypeError, match="X には実数の配列"):
        as_array(value, "X")


def test_a_mask_is_zero_or_minus_inf():
    np.testing.assert_array_equal(mask([[0.0, -np.inf]], "mask"), [[0.0, -np.inf]])
    assert mask(None, "mask", optional=True) is None
    with pytest.raises(HelpersTypeError, match=r"True/False の表.*np.where\(mask, 0, -np.inf\)"):
        mask(np.array([[True, False]]), "mask")
    with pytest.raises(HelpersError, match="0(見てよい)か -inf(隠す)だけ.*1 が入って".replace("(", r"\(").replace(")", r"\)")):
        mask(np.array([[0, 1]]), "mask")
    with pytest.raises(HelpersError, match="1e\\+308 が入って"):
        mask([[0.0, 1e308]], "mask")


def test_said_keeps_a_message_on_one_line():
    assert "\n" not in said(np.ones((3, 3)))
    assert said(10**400).startswith("約 401 桁")


def test_one_of_gives_back_the_option_or_names_every_one():
    from helpers._validate import HelpersKeyError, one_of

    assert one_of(np.int64(16), "d_k", [8, 16]) == 16 and type(one_of(np.int64(16), "d_k", [8, 16])) is int
    with pytest.raises(HelpersKeyError, match=r"^head は 0\(頭 1\)、1\(頭 2\) のどれかにしてください。2 が来ました。$"):
        one_of(2, "head", [0, 1], ["頭 1", "頭 2"])
    with pytest.raises(HelpersKeyError, match="True が来ました"):
        one_of(True, "head", [0, 1])  # True is not the option 1
    with pytest.raises(HelpersKeyError, match=r"array\(\[1, 2\]\) が来ました"):
        one_of(np.array([1, 2]), "head", [0, 1])
