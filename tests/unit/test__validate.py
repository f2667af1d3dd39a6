"""The shared validators: short Japanese errors, the size guard, masks."""

import numpy as np
import pytest

from helpers._validate import (
    MAX_CELLS,
    HelpersError,
    HelpersKeyError,
    HelpersTypeError,
    as_array,
    guard_size,
    number,
)


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


def test_ipython_renders_a_helpers_error_without_traceback():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shown = []
    shell._showtraceback = lambda etype, evalue, stb: shown.append(stb)
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
