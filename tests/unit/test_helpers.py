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


DRAW_COUNT_CELLS = [
    "import helpers\nhelpers.setup()",
    "import matplotlib.pyplot as plt\n"
    "draws = []\n"
    "fig, ax = plt.subplots()\n"
    "ax.set_title('一枚の図')\n"
    "ax.plot([1, 2, 3])\n"
    "fig.canvas.mpl_connect('draw_event', lambda event: draws.append(1))",
    "print(len(draws))",
]


def test_in_a_kernel_each_figure_is_drawn_only_for_its_picture():
    """Without setup() pyplot redraws every figure after each cell, before the inline backend
    draws it for its PNG (constrained layout's measuring pass + the picture): 3 draws, not 2."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in DRAW_COUNT_CELLS])
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    assert any(o.output_type == "display_data" and "image/png" in o.data
               for o in nb.cells[1].outputs), "図が表示されていません"
    assert nb.cells[2].outputs[0].text.strip() == "2"
