"""helpers, the package root (src/helpers/__init__.py): setup(), the submodules loaded on first
use, and what the package facades (`__init__.py` files, which only re-export) promise."""

import importlib

import numpy as np
import pytest

import helpers


def test_setup_is_deterministic():
    a = helpers.setup().normal(size=3)
    b = helpers.setup().normal(size=3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, helpers.setup(seed=1).normal(size=3))


@pytest.mark.parametrize("name", helpers.SUBMODULES)
def test_submodules_load_on_first_use(name):
    assert getattr(helpers, name) is importlib.import_module(f"helpers.{name}")


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        helpers.nothing_here  # noqa: B018


@pytest.mark.parametrize("facade", ["helpers", "helpers.checks", "helpers.plotting",
                                    "helpers.widgets"])
def test_every_name_a_facade_exports_exists(facade):
    module = importlib.import_module(facade)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing, f"{facade}.__all__ names what it does not have: {missing}"
    assert len(set(module.__all__)) == len(module.__all__)
