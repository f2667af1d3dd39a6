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


def test_setup_accepts_a_chapter_written_for_this_version_or_an_older_one():
    major, minor, patch = (int(n) for n in helpers.__version__.split("."))
    for needs in (helpers.__version__, f"{major}.{minor}", "0.0.1", f"{major}.{minor}.{patch}.dev1"):
        helpers.setup(needs=needs)


@pytest.mark.parametrize("newer", ["99.0.0", "{major}.{next_minor}", "{major}.{minor}.{next_patch}"])
def test_setup_refuses_a_helpers_older_than_the_chapter_in_one_japanese_line(newer):
    major, minor, patch = (int(n) for n in helpers.__version__.split("."))
    needs = newer.format(major=major, minor=minor, next_minor=minor + 1, next_patch=patch + 1)
    with pytest.raises(ImportError) as refused:
        helpers.setup(needs=needs)
    [line] = refused.value._render_traceback_()  # what Jupyter shows: one line, no traceback
    assert f"helpers {needs} 以上が要ります" in line and f"入っているのは {helpers.__version__}" in line
    assert helpers.INSTALL in line and "再起動" in line


@pytest.mark.parametrize("seed, refused", [("abc", TypeError), (1.5, TypeError), (True, TypeError),
                                           (-1, ValueError)])
def test_setup_refuses_a_seed_that_is_no_count_in_one_japanese_line(seed, refused):
    with pytest.raises(refused, match="seed は.*整数") as error:
        helpers.setup(seed)
    assert len(error.value._render_traceback_()) == 1


@pytest.mark.parametrize("needs", ["latest", "", "1..2", 1.0])
def test_setup_refuses_a_needs_that_is_no_version(needs):
    with pytest.raises(ValueError, match="版の番号"):
        helpers.setup(needs=needs)


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
