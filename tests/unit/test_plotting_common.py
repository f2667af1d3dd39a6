"""helpers.plotting.common: the figures every chapter uses (Japanese without missing glyphs)."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers import plotting
from helpers._validate import HelpersError, HelpersTypeError
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
    arrows = [t for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert [a.xy for a in arrows] == [tuple(v) for v in emb.vectors]
    assert ax.get_xlabel() == AXES[0] and ax.get_title() == "食べ物"


def test_a_label_on_a_longer_arrows_ray_sits_clear_of_that_arrow(no_glyph_warnings):
    """プリン (1, 0.1) lies on ケーキ's arrow to (2, 0.2): its label must not sit on that line."""
    emb = foods()
    ax = render(plotting.plot_vectors(emb.vectors, emb.words))
    label = next(t for t in ax.texts if t.get_text().strip() == "プリン")
    box = label.get_window_extent().transformed(ax.transData.inverted())
    cake_x, cake_y = emb["ケーキ"][0]
    line_at_right_end = cake_y / cake_x * box.x1  # the cake arrow's height under the label
    assert box.y0 > line_at_right_end, (box, line_at_right_end)


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


@pytest.mark.parametrize(
    "call, error, word",
    [
        pytest.param(lambda: plotting.plot_vectors([[1, 0]], [1]), HelpersTypeError, "文字列", id="label-not-text"),
        pytest.param(lambda: plotting.plot_vectors([[1, 0]], ["a"], colors=["red", "blue"]), HelpersError, "1 個",
                     id="colors-count"),
        pytest.param(lambda: plotting.plot_vectors([[1, 0]], ["a"], colors="nope"), HelpersError, "色",
                     id="colors-unknown"),
        pytest.param(lambda: plotting.plot_vectors([[1e300, 0]], ["a"]), HelpersError, "大きすぎて",
                     id="vectors-beyond-the-plane"),
        pytest.param(lambda: plotting.plot_vectors(np.ones((600, 2)), ["a"] * 600), HelpersError, "大きすぎます",
                     id="too-many-arrows"),
        pytest.param(lambda: plotting.plot_vectors([[1, 0]], ["a"], limits=(2, 1)), HelpersError, "下限",
                     id="limits-reversed"),
        pytest.param(lambda: plotting.plot_vectors([[1, 0]], ["a"], title=5), HelpersTypeError, "文字列",
                     id="title-number"),
        pytest.param(lambda: plotting.finish_plane(None, (-1e308, 1e308), AXES, None), HelpersError, "大きすぎて",
                     id="plane-too-wide"),
        pytest.param(lambda: plotting.finish_plane("ax", (-1, 1), AXES, None), HelpersTypeError, "軸",
                     id="plane-ax-not-axes"),
        pytest.param(lambda: plotting.finish_plane(None, (-1, 1), ("x",), None), HelpersError, "2 個",
                     id="plane-one-axis-label"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((1, 2)), ["a"], ["b", "c"], fmt="{:d}"),
                     HelpersError, "書式", id="heatmap-fmt"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((1, 2)), ["a"], ["b", "c"], cmap="Bluez"),
                     HelpersError, "色の並び", id="heatmap-cmap"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((1, 2)), ["a"], ["b", "c"], vmin=7), HelpersError,
                     "以下", id="heatmap-vmin-above-the-values"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((1, 2)), ["a"], ["b", "c"], colorbar="yes"),
                     HelpersTypeError, "True か False", id="heatmap-colorbar"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((40, 40)), ["a"] * 40, ["b"] * 40), HelpersError,
                     "大きすぎます", id="heatmap-too-many-cells"),
        pytest.param(lambda: plotting.plot_heatmap(np.ones((1, 2)), [1], ["b", "c"]), HelpersTypeError, "文字列",
                     id="heatmap-label-number"),
        pytest.param(lambda: plotting.plot_bars("abc", ["a"]), HelpersTypeError, "数の配列", id="bars-text"),
        pytest.param(lambda: plotting.plot_bars([np.nan, 1.0], ["a", "b"]), HelpersError, "有限",
                     id="bars-nan"),
        pytest.param(lambda: plotting.plot_bars([1, 2], ["a", "b"], highlight=5), HelpersError, "範囲",
                     id="bars-highlight-out-of-range"),
        pytest.param(lambda: plotting.plot_bars([1, 2], ["a", "b"], ylim=(0, np.inf)), HelpersError, "有限",
                     id="bars-ylim-inf"),
        pytest.param(lambda: plotting.plot_bars([1, 2], ["a", "b"], color=None), HelpersError, "色",
                     id="bars-color-none"),
        pytest.param(lambda: plotting.plot_bars(np.ones(5000), ["a"] * 5000), HelpersError, "大きすぎます",
                     id="too-many-bars"),
    ],
)
def test_common_plots_refuse_bad_input_in_japanese(call, error, word):
    figures = plt.get_fignums()
    with pytest.raises(error, match=word):
        call()
    assert plt.get_fignums() == figures  # refused before a figure was made
