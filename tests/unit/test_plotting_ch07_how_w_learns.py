"""helpers.plotting.ch07_how_w_learns: chapter 07's figures (ax in, ax out)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import helpers
from helpers.plotting import outline_cells, plot_learning_curve, plot_weight_matrix


def test_plot_learning_curve(history):
    ax = plot_learning_curve(history.losses, title="損失")
    assert ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), history.losses)
    ax = plot_learning_curve([1.0, -1.0], log=False, label="a")
    assert ax.get_yscale() == "linear" and ax.get_legend() is not None
    plt.close("all")


def test_plot_learning_curve_bad_inputs():
    with pytest.raises(ValueError, match="正の値"):
        plot_learning_curve([1.0, 0.0])
    with pytest.raises(ValueError, match="1 次元"):
        plot_learning_curve(np.ones((2, 2)))
    plt.close("all")


def test_outline_cells_frames_one_cell_per_row():
    ax = helpers.plotting.plot_heatmap(np.eye(3), list("abc"), list("abc"))
    outline_cells(ax, [2, 0, 1])
    frames = [p for p in ax.patches if not p.get_fill()]
    assert sorted((p.get_x() + 0.5, p.get_y() + 0.5) for p in frames) == [
        (0.0, 1.0), (1.0, 2.0), (2.0, 0.0)]
    with pytest.raises(ValueError, match="行の数"):
        outline_cells(ax, [0, 1])
    with pytest.raises(ValueError, match="列の番号"):
        outline_cells(ax, [0, 1, 3])
    _, empty = plt.subplots()
    with pytest.raises(ValueError, match="ヒートマップ"):
        outline_cells(empty, [0])
    plt.close("all")


def test_outline_cells_tells_two_sets_apart_by_line_style():
    ax = helpers.plotting.plot_heatmap(np.eye(2), list("ab"), list("ab"))
    outline_cells(ax, [0, 1])
    outline_cells(ax, [1, 0], linestyle="--")
    styles = [p.get_linestyle() for p in ax.patches if not p.get_fill()]
    assert styles == ["-", "-", "--", "--"]
    with pytest.raises(ValueError, match="実線・破線・点線"):
        outline_cells(ax, [0, 1], linestyle="dashdot")
    plt.close("all")


def test_plot_weight_matrix_reads_well():
    ax = plot_weight_matrix(np.array([[-2.0, -0.001], [0.3, 2.0]]), "W_K", reach=2.0)
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["-2.00", "0.00", "0.30", "2.00"]  # no "-0.00"
    colors = [t.get_color() for t in ax.texts]
    assert colors[0] == colors[3] == "white" and colors[1] == colors[2] == "black"
    assert ax.title.get_color() == helpers.plotting.COLORS["K"]
    with pytest.raises(ValueError, match="reach"):
        plot_weight_matrix(np.eye(2), "W_Q", reach=0.0)
    with pytest.raises(ValueError, match="2 次元"):
        plot_weight_matrix(np.ones(3), "W_Q")
    plt.close("all")


def test_plane_limits_fit_everything():
    W = np.array([[2.0, 0.0], [0.0, 0.5]])
    lo, hi = helpers.plotting.plane_limits([W, np.eye(2)], [[1.0, 3.0]], margin=1.0)
    assert (lo, hi) == (-3.0, 3.0)  # the point itself; its image is (2, 1.5)
    lo, hi = helpers.plotting.plane_limits([np.diag([5.0, 1.0])], [[1.0, 1.0]], margin=1.0)
    assert hi == 5.0
    with pytest.raises(ValueError, match="2×2"):
        helpers.plotting.plane_limits([np.eye(3)], [[1.0, 1.0]])


def test_plot_plane_map_has_no_text_in_the_panel():
    W = np.array([[-1.6, 0.0], [2.0, -0.3]])
    pts = np.array([[2.0, 0.2], [0.3, 1.8]])
    ax = helpers.plotting.plot_plane_map(W, "W_Q", points=pts, limits=(-4, 4), title="t")
    assert [t.get_text() for t in ax.texts if t.get_text()] == []
    assert len([t for t in ax.texts if not t.get_text()]) == 2  # the two basis arrows stay
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 1])
    np.testing.assert_allclose(offsets, [pts[0], pts[0] @ W, pts[1], pts[1] @ W])
    assert ax.get_xlim() == (-4, 4) and ax.get_ylim() == (-4, 4)
    legend = helpers.plotting.plane_map_legend(ax.figure, ["ケーキ", "カレー"])
    assert [t.get_text() for t in legend.get_texts()][::3] == ["ケーキ", "カレー"]  # one row
    with pytest.raises(ValueError, match="n×2"):
        helpers.plotting.plot_plane_map(W, "W_Q", points=np.ones((5, 2)))
    with pytest.raises(ValueError, match="ラベル"):
        helpers.plotting.plane_map_legend(ax.figure, list("abcde"))
    plt.close("all")


def test_chapter_07_plots_answer_bad_inputs_in_japanese():
    from helpers._validate import HelpersError, HelpersTypeError
    from helpers.plotting import plane_limits, plane_map_legend, plot_plane_map

    cases = [
        (lambda: plot_learning_curve([1.0, 2.0], color="どの色でもない"), HelpersError, "色として読めません"),
        (lambda: plot_learning_curve([1.0, 2.0], log="yes"), HelpersTypeError, "True か False"),
        (lambda: plot_weight_matrix(np.eye(2), None), HelpersTypeError, "name は文字列"),
        (lambda: plot_weight_matrix(np.eye(2), "W_Q", colorbar=np.ones(2)), HelpersTypeError, "True か False"),
        (lambda: plot_weight_matrix(np.ones((3, 2)), "W_Q"), HelpersError, "row_labels は 3 個"),
        (lambda: plot_weight_matrix(np.eye(2), "W_Q", reach="big"), HelpersTypeError, "reach は数"),
        (lambda: plot_weight_matrix(np.eye(2), "W_"), HelpersError, "数式"),
        (lambda: plot_weight_matrix(np.eye(2), ""), HelpersError, "数式"),
        (lambda: plane_limits(None, [[1.0, 1.0]]), HelpersTypeError, "行列のリスト"),
        (lambda: plane_limits([np.eye(2)], [[1.0, 2.0, 3.0]]), HelpersError, "n×2"),
        (lambda: plane_limits([np.full((2, 2), 1e200)], [[1e200, 1.0]]), HelpersError, "大きすぎて"),
        (lambda: plane_limits([np.eye(2)], [[1.0, 1.0]], margin=1e308), HelpersError, "margin"),
        (lambda: plot_plane_map(np.eye(2), "W_Q", extent=1e308), HelpersError, "extent は 0.5 以上 10 以下"),
        (lambda: plot_plane_map(np.eye(2), "W_Q", limits=(1, 1)), HelpersError, "下限 < 上限"),
        (lambda: plot_plane_map(np.eye(3), "W_Q"), HelpersError, "2×2"),
        (lambda: plot_plane_map(np.eye(2), None), HelpersTypeError, "name は文字列"),
        (lambda: plane_map_legend(None, ["a"]), HelpersTypeError, "matplotlib の図"),
        (lambda: plane_map_legend(plt.figure(), "ab"), HelpersTypeError, "文字列のリスト"),
        (lambda: plane_map_legend(plt.figure(), ["a"], loc="best"), HelpersError, "置き場所"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()
    plt.close("all")


def test_outline_cells_checks_every_column_before_drawing():
    from helpers._validate import HelpersError, HelpersTypeError

    ax = helpers.plotting.plot_heatmap(np.eye(2), list("ab"), list("ab"))
    with pytest.raises(HelpersError, match="列の番号"):
        outline_cells(ax, [0, 5])
    with pytest.raises(HelpersTypeError, match="列の番号のリスト"):
        outline_cells(ax, 3)
    with pytest.raises(HelpersTypeError, match="True か False"):
        outline_cells(ax, [0, 1], animated="no")
    assert not [p for p in ax.patches if not p.get_fill()]  # no frame was left half-drawn
    plt.close("all")


@pytest.mark.parametrize("words", [["ケーキ", "カレー"], ["ケーキ", "プリン", "カレー", "キムチ"]])
def test_the_plane_map_legend_stays_inside_chapter_07s_figure(words):
    """Chapter 07's 3 × 2 panels at the book's 5.5 inches: every entry of the legend is on the
    picture (a row of five entries was cut off at both ends)."""
    from helpers.plotting import plane_map_legend, plot_plane_map

    fig, axes = plt.subplots(3, 2, figsize=(5.5, 8.8))
    for ax in axes.flat:
        plot_plane_map(np.eye(2), "W_K", ax=ax, points=np.eye(2), limits=(-4, 4), title="t")
    legend = plane_map_legend(fig, words)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    picture = fig.bbox
    for text in legend.get_texts():
        box = text.get_window_extent(renderer)
        assert picture.x0 <= box.x0 and box.x1 <= picture.x1 and picture.y0 <= box.y0, text.get_text()
    plt.close(fig)
