"""helpers.checks._base.verdicts: how a check says its verdict."""


import pytest
from IPython.core.interactiveshell import InteractiveShell

from helpers.checks._base import (
    CheckFailed,
    fail,
    passed,
    verdicts,
)


def test_passed_and_fail_say_the_verdict(capsys):
    passed("よくできました。")
    assert capsys.readouterr().out == "✓ 正解です。よくできました。\n"
    with pytest.raises(AssertionError, match="^✗ 違います$"):
        fail("違います")


def test_check_failed_is_an_assertion_error_that_renders_as_its_hint_only():
    with pytest.raises(AssertionError) as info:
        verdicts.fail("ヒント")
    assert isinstance(info.value, CheckFailed)
    assert info.value._render_traceback_() == ["✗ ヒント"]


def test_ipython_shows_one_line_and_no_checker_code(capsys):
    shell = InteractiveShell.instance()
    shell.run_cell("from helpers.checks import check_pudding_prediction\n"
                   "check_pudding_prediction('プリン')")
    err = capsys.readouterr()
    shown = (err.out + err.err).strip().splitlines()
    assert len(shown) <= 3, shown
    assert shown[-1].startswith("✗ "), shown
    text = "\n".join(shown)
    assert "check_choice" not in text and ".py" not in text and "Traceback" not in text


def test_check_failed_shares_the_short_traceback_of_the_package_errors():
    from helpers._validate import HelpersError, _ShortTraceback

    assert issubclass(CheckFailed, _ShortTraceback) and issubclass(CheckFailed, AssertionError)
    assert CheckFailed._render_traceback_ is HelpersError._render_traceback_  # one mechanism
    assert HelpersError("x")._render_traceback_() == ["\x1b[0;31mValueError\x1b[0m: x"]
