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


def _fail_calls():
    """Every `fail(...)` call written in the checks package: (file, line, its mistake= node)."""
    import ast
    from pathlib import Path

    import helpers.checks
    root = Path(helpers.checks.__file__).parent
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "fail":
                mistake = next((k.value for k in node.keywords if k.arg == "mistake"), None)
                yield path.name, node.lineno, mistake


def test_every_fail_in_the_checks_names_its_mistake_with_a_stable_snake_case_id():
    """The teacher's class report counts students by `CheckFailed.mistake`: every ✗ a check says
    carries an id, a snake_case word that stays the same from release to release (a literal, or a
    f-string of snake_case pieces such as f"chose_{n}"); hint tables' keys are ids too."""
    import ast
    import re

    from helpers import checks
    snake = re.compile(r"^[a-z][A-Za-z0-9_]*$")  # no_W_O: a matrix keeps its name
    calls = list(_fail_calls())
    assert len(calls) > 60
    for name, line, mistake in calls:
        assert mistake is not None, f"{name}:{line}: fail(...) without mistake="
        if isinstance(mistake, ast.Constant):
            assert snake.match(mistake.value), f"{name}:{line}: {mistake.value!r}"
        elif isinstance(mistake, ast.JoinedStr):
            parts = [v.value for v in mistake.values if isinstance(v, ast.Constant)]
            assert parts and all(re.fullmatch(r"[a-z0-9_]+", p) for p in parts), f"{name}:{line}"
    tables = [v for k, v in vars(checks).items() if k.endswith("_HINTS") and isinstance(v, dict)]
    assert tables and all(snake.match(key) for table in tables for key in table)
