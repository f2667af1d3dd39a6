"""helpers._mode: which kind of page the notebooks run for."""

import pytest

import helpers
from helpers._mode import STATIC_ENV_VAR, autograding, static_mode


def test_the_package_re_exports_the_mode():
    assert helpers.static_mode is static_mode and helpers.STATIC_ENV_VAR == STATIC_ENV_VAR


@pytest.mark.parametrize("value, static", [(None, False), ("", False), ("0", False),
                                           ("1", True), ("yes", True)])
def test_static_mode_reads_the_environment(monkeypatch, value, static):
    if value is None:
        monkeypatch.delenv(STATIC_ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(STATIC_ENV_VAR, value)
    assert static_mode() is static


@pytest.mark.parametrize("value, grading", [(None, False), ("validate", False), ("autograde", True)])
def test_autograding_is_nbgraders_autograde_run_only(monkeypatch, value, grading):
    if value is None:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    else:
        monkeypatch.setenv("NBGRADER_EXECUTION", value)
    assert autograding() is grading
