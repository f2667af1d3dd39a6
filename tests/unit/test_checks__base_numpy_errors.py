"""helpers.checks._base.numpy_errors: numpy's shape errors in Japanese."""

import re

import numpy as np
import pytest

from helpers.checks._base import CheckFailed, call_learner


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
