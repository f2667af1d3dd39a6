"""helpers.plotting.ch03_three_roles: chapter 03's figures (ax in, ax out)."""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Rectangle

from helpers.data import AXES
from helpers.plotting import COLORS, outline_heatmap, plot_faces, plot_heatmap


def arrows(ax):
    return [a for a in ax.texts if getattr(a, "arrow_patch", None) is not None]


def test_plot_faces_draws_three_coloured_arrows_with_labels():
    ax = plot_faces([[1.8, 0.26]], np.array([-0.36, 2.34]), [0.58, 1.6], title="ケン")
    drawn = arrows(ax)
    assert [a.xy for a in drawn] == [(1.8, 0.26), (-0.36, 2.34), (0.58, 1.6)]
    colours = [a.arrow_patch.get_edgecolor() for a in drawn]
    expected = [plt.matplotlib.colors.to_rgba(COLORS[c]) for c in "QKV"]
    np.testing.assert_allclose(colours, expected)
    labels = [t.get_text().strip() for t in ax.texts if t not in drawn]
    assert labels == ["Q", "K", "V"]
    assert ax.get_title() == "ケン"
    assert ax.get_xlabel() == AXES[0]
    lo, hi = ax.get_xlim()
    assert lo <= -0.36 and hi >= 2.34


def test_plot_faces_custom_labels_limits_and_given_axes():
    fig, ax0 = plt.subplots()
    ax = plot_faces([1, 0], [0, 1], [1, 1], ax=ax0, labels={"q": "探す"}, limits=(-1, 3))
    assert ax is ax0
    assert [t.get_text().strip() for t in ax.texts if t.get_text().strip()] == ["探す", "K", "V"]
    assert ax.get_xlim() == (-1, 3) and ax.get_ylim() == (-1, 3)


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        (([1, 2, 3], [0, 1], [1, 1]), {}, ValueError, "shape (3,)"),
        (([[1, 2], [3, 4]], [0, 1], [1, 1]), {}, ValueError, "横一列"),
        (([1, 0], "k", [1, 1]), {}, TypeError, "数の配列"),
        (([1, 0], [0, 1], [np.nan, 1]), {}, ValueError, "NaN"),
        (([1, 0], [0, 1], [1, 1]), {"labels": {"x": "好み"}}, ValueError, "labels"),
        (([1, 0], [0, 1], [1, 1]), {"labels": ["Q"]}, ValueError, "labels"),
    ],
)
def test_plot_faces_bad_inputs(args, kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        plot_faces(*args, **kwargs)


def test_outline_heatmap_frames_a_row_and_a_column():
    ax = plot_heatmap(np.zeros((3, 4)), list("abc"), list("wxyz"))
    ax = outline_heatmap(ax, row=2, col=1)
    rects = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(rects) == 2
    row, col = rects
    assert row.get_xy() == (-0.5, 1.5) and (row.get_width(), row.get_height()) == (4, 1)
    assert col.get_xy() == (0.5, -0.5) and (col.get_width(), col.get_height()) == (1, 3)
    np.testing.assert_allclose(row.get_edgecolor(), plt.matplotlib.colors.to_rgba(COLORS["Q"]))
    np.testing.assert_allclose(col.get_edgecolor(), plt.matplotlib.colors.to_rgba(COLORS["K"]))


def test_outline_heatmap_only_a_row():
    ax = outline_heatmap(plot_heatmap(np.zeros((2, 2)), ["a", "b"], ["c", "d"]), row=np.int64(0))
    assert len(ax.patches) == 1


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"row": 3}, ValueError, "0 から 2 の範囲"),
        ({"col": -1}, ValueError, "0 から 2 の範囲"),
        ({"row": 1.0}, TypeError, "整数"),
        ({"col": True}, TypeError, "整数"),
    ],
)
def test_outline_heatmap_bad_indices(kwargs, error, words):
    ax = plot_heatmap(np.zeros((3, 3)), list("abc"), list("abc"))
    with pytest.raises(error, match=words):
        outline_heatmap(ax, **kwargs)


def test_outline_heatmap_needs_a_heatmap():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="plot_heatmap"):
        outline_heatmap(ax, row=0)
    with pytest.raises(ValueError, match="plot_heatmap"):
        outline_heatmap(None, row=0)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"title": 5}, TypeError, "title は文字列か None"),
        ({"limits": (2, 1)}, ValueError, "下限 < 上限"),
        ({"limits": "wide"}, TypeError, "下限, 上限"),
        ({"axis_labels": ("x",)}, ValueError, "2 個にしてください"),
        ({"labels": {"q": 1}}, TypeError, "文字列で指定"),
        ({"ax": "ax"}, TypeError, "matplotlib の軸"),
    ],
)
def test_plot_faces_wrong_options_answer_in_japanese(kwargs, error, words):
    from helpers._validate import HelpersError, HelpersTypeError

    ours = HelpersTypeError if error is TypeError else HelpersError
    with pytest.raises(ours, match=words):
        plot_faces([1, 0], [0, 1], [1, 1], **kwargs)
    plt.close("all")


def test_outline_heatmap_refuses_a_bad_line_width():
    from helpers._validate import HelpersError, HelpersTypeError

    ax = plot_heatmap(np.eye(2), ["a", "b"], ["a", "b"])
    with pytest.raises(HelpersTypeError, match="線の太さ"):
        outline_heatmap(ax, row=0, lw="thick")
    with pytest.raises(HelpersError, match="正の数"):
        outline_heatmap(ax, row=0, lw=-1)
    assert not [p for p in ax.patches if isinstance(p, Rectangle)]  # nothing drawn
    plt.close("all")
