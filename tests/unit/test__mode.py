"""helpers._mode: which kind of page the notebooks run for."""

import pytest

import helpers
from helpers._mode import STATIC_ENV_VAR, static_mode


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
