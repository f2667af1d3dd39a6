"""helpers.plotting._base: colours of numbers on heatmaps, axis helpers, text sizes."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers._validate import HelpersError, HelpersTypeError
from helpers.plotting import plot_heatmap, plot_lines, plot_tiles, plot_vectors
from helpers.plotting._base import (
    COL_TITLE,
    ROW_TITLE,
    axes_or_new,
    heatmap_axes,
    heatmap_axes_of,
    text,
    text_colors,
    text_size,
    texts,
)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), True, "大"])
def test_text_sizes_must_be_positive_numbers(bad):
    with pytest.raises((TypeError, ValueError), match="label_size"):
        plot_tiles((6, 4), (4, 8), (3, 4), label_size=bad)
    with pytest.raises((TypeError, ValueError), match="legend_size"):
        plot_lines([1, 2], {"a": [1, 2]}, legend_size=bad)


def test_text_colors_follow_the_cell_luminance():
    fig, ax = plt.subplots()
    image = ax.imshow(np.array([[0.0, 1.0]]), cmap="Blues", vmin=0.0, vmax=1.0)
    np.testing.assert_array_equal(text_colors(image, [[0.0, 1.0]]), [["black", "white"]])
    grey = ax.imshow(np.zeros((1, 2)), cmap="gray", vmin=0.0, vmax=1.0)
    np.testing.assert_array_equal(text_colors(grey, [0.2, 0.8]), ["white", "black"])


def test_text_size_accepts_positive_numbers():
    assert text_size(12, "label_size") == 12.0
    assert text_size(9.5, "legend_size") == 9.5
    with pytest.raises(ValueError, match="legend_size"):
        text_size(-1, "legend_size")


def test_heatmap_axes_of_needs_an_image():
    ax = plot_heatmap(np.zeros((3, 4)), list("abc"), list("wxyz"))
    assert heatmap_axes_of(ax) == (3, 4)
    _, empty = plt.subplots()
    with pytest.raises(ValueError, match="plot_heatmap"):
        heatmap_axes_of(empty)


def test_axes_or_new():
    _, ax = plt.subplots()
    assert axes_or_new(ax) is ax
    assert axes_or_new(None) is not ax


def test_heatmap_axes_put_the_looked_at_on_top():
    _, ax = plt.subplots()
    heatmap_axes(ax, ["r1", "r2"], list("abcde"))
    assert ax.get_xlabel() == COL_TITLE and ax.get_ylabel() == ROW_TITLE
    assert ax.xaxis.get_label_position() == "top"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["r1", "r2"]
    assert ax.get_xticklabels()[0].get_rotation() == 0  # short labels fit under their columns


@pytest.mark.parametrize("labels, turned", [
    (["辛い", "カレー", "の", "後", "に", "甘い", "ケーキ"], False),  # chapter 06's phrase
    (["ケーキ", "プリン", "カレー", "キムチ", "照り焼き"], False),  # the five foods
    ([f"とても長い名前の語{i}" for i in range(8)], True),  # they would run into each other
    (["食べ物らしさ", "甘さ", "辛さ"], False),  # four columns or fewer always stay level
])
def test_heatmap_column_labels_turn_only_when_they_would_crowd(labels, turned):
    _, ax = plt.subplots(figsize=(5.5, 4.0))
    heatmap_axes(ax, ["r"], labels)
    assert (ax.get_xticklabels()[0].get_rotation() == 45) is turned
    plt.close("all")


def test_text_colors_of_one_number():
    _, ax = plt.subplots()
    image = ax.imshow(np.array([[0.0, 1.0]]), cmap="Blues")
    assert text_colors(image, 1.0).item() == "white"  # the darkest blue


@pytest.mark.parametrize(
    "call, error, word",
    [
        pytest.param(lambda image: text_colors("image", [1.0]), HelpersTypeError, "imshow", id="not-an-image"),
        pytest.param(lambda image: text_colors(image, "abc"), HelpersTypeError, "数の配列", id="values-text"),
        pytest.param(lambda image: text_colors(image, [np.nan]), HelpersError, "NaN", id="values-nan"),
        pytest.param(lambda image: (image.norm.__setattr__("vmin", 5.0), text_colors(image, [1.0])),
                     HelpersError, "逆さま", id="reversed-colour-range"),
        pytest.param(lambda image: heatmap_axes(None, [1], ["a"]), HelpersTypeError, "文字列",
                     id="label-number"),
        pytest.param(lambda image: heatmap_axes("ax", ["a"], ["b"]), HelpersTypeError, "軸", id="ax-text"),
        pytest.param(lambda image: heatmap_axes(None, ["a"] * 2000, ["b"]), HelpersError, "大きすぎます",
                     id="too-many-labels"),
        pytest.param(lambda image: heatmap_axes(None, ["a"], ["b"], row_title=3), HelpersTypeError, "文字列",
                     id="title-number"),
        pytest.param(lambda image: heatmap_axes_of("ax"), HelpersTypeError, "軸", id="heatmap-of-text"),
        pytest.param(lambda image: text_size(1e5, "label_size"), HelpersError, "以下", id="text-size-huge"),
    ],
)
def test_base_helpers_refuse_bad_input_in_japanese(call, error, word):
    _, ax = plt.subplots()
    image = ax.imshow(np.array([[0.0, 1.0]]), cmap="Blues", vmin=0.0, vmax=1.0)
    with pytest.raises(error, match=word):
        call(image)
    plt.close("all")


@pytest.mark.parametrize("good", ["重み $W_Q$ の図", r"$\sqrt{d_k}$ で割る", "$5 の本", r"\$5 と \$10", "ふつうの題名"])
def test_titles_with_drawable_maths_or_none_pass(good):
    assert text(good, "title") == good and texts([good], "labels") == [good]


@pytest.mark.parametrize("bad", [r"$\frac{a}$", "$W_{Q$", r"$\nosuchsymbol$", "$x^$ と $y$"])
def test_maths_that_matplotlib_cannot_draw_is_refused_at_the_call(bad):
    with pytest.raises(HelpersError, match="数式として読めません") as caught:
        text(bad, "title")
    assert bad in str(caught.value)
    with pytest.raises(HelpersError, match="labels の要素"):
        texts(["ケーキ", bad], "labels")
    # a plotting function says so before it draws (matplotlib itself would fail only when the
    # figure is shown, after the cell's code has run)
    with pytest.raises(HelpersError, match="title"):
        plot_heatmap(np.eye(2), ["a", "b"], ["c", "d"], title=bad)
    assert text(None, "title", optional=True) is None


def test_axis_labels_say_they_are_the_two_axis_names():
    with pytest.raises(HelpersError, match=r"axis_labels は 2 個にしてください\(横軸と縦軸の名前\)。3 個"):
        plot_vectors(np.eye(2), ["a", "b"], axis_labels=["x", "y", "z"])
    with pytest.raises(HelpersError, match=r"labels は 2 個にしてください\(図の行・列・点の数と同じ\)"):
        texts(["a"], "labels", count=2)
