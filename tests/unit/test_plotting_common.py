"""helpers.plotting.common: the figures every chapter uses (Japanese without missing glyphs)."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers import plotting
from helpers.data import AXES, foods


@pytest.fixture
def no_glyph_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*[Gg]lyph.*")
        yield
    plt.close("all")


def render(ax):
    ax.figure.canvas.draw()
    return ax


def test_plot_vectors_draws_one_labelled_arrow_per_row(no_glyph_warnings):
    emb = foods()
    ax = render(plotting.plot_vectors(emb.vectors, emb.words, title="食べ物"))
    labels = [t.get_text().strip() for t in ax.texts if t.get_text().strip()]
    assert labels == list(emb.words)
    arrows = [t for t in ax.texts if t.__class__.__name__ == "Annotation"]
    assert [a.xy for a in arrows] == [tuple(v) for v in emb.vectors]
    assert ax.get_xlabel() == AXES[0] and ax.get_title() == "食べ物"


def test_plot_heatmap_labels_rows_as_queries(no_glyph_warnings):
    m = np.arange(6.0).reshape(2, 3)
    ax = render(plotting.plot_heatmap(m, ["a", "b"], ["x", "y", "z"], title=r"$QK^{\top}$"))
    assert ax.get_ylabel() == plotting.ROW_TITLE and ax.get_xlabel() == plotting.COL_TITLE
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in m.ravel()]
    assert len(ax.figure.axes) == 2  # the colour bar


def test_plotting_refuses_mismatched_labels():
    with pytest.raises(ValueError, match="ラベル"):
        plotting.plot_vectors(np.ones((2, 2)), ["a"])
    with pytest.raises(ValueError, match="2 次元"):
        plotting.plot_vectors(np.ones((2, 3)), ["a", "b"])
    with pytest.raises(ValueError, match="行ラベル"):
        plotting.plot_heatmap(np.ones((2, 2)), ["a"], ["x", "y"])
    with pytest.raises(ValueError, match="ラベル"):
        plotting.plot_bars([1, 2], ["a"])
    plt.close("all")


def test_plot_bars_highlights_one_bar(no_glyph_warnings):
    ax = render(plotting.plot_bars([1.0, 3.0, 2.0], ["甘", "辛", "酸"], highlight=1))
    widths = [p.get_linewidth() for p in ax.patches]
    edges = [p.get_edgecolor() for p in ax.patches]
    assert widths[1] == 2 and edges[1][:3] == (0.0, 0.0, 0.0) and edges[0][3] == 0.0
