"""Tests of the package root, helpers (src/helpers/__init__.py): setup() and the lazy submodules."""

import numpy as np

import helpers


def test_setup_is_deterministic():
    a = helpers.setup().normal(size=3)
    b = helpers.setup().normal(size=3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, helpers.setup(seed=1).normal(size=3))
