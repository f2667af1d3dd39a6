"""Chapter 08's figures: masked cells are hatched over, one map per head on a shared scale."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers import heads
from helpers.plotting import (
    MASKED_LOOK,
    hidden_cells,
    plot_head_maps,
    plot_heatmap,
    plot_masked_heatmap,
    shade_masked,
)
from helpers.plotting._base import heatmap_of


def hatched(ax):
    return [p for p in ax.patches if p.get_hatch() == MASKED_LOOK["hatch"]]


def test_masked_heatmap_hatches_exactly_the_hidden_cells():
    n = 4
    w = heads.masked_softmax(np.zeros((n, n)), heads.causal_mask(n))
    ax = plot_masked_heatmap(w, list("abcd"), list("abcd"), heads.causal_mask(n), title="t")
    squares = hatched(ax)
    assert len(squares) == n * (n - 1) // 2
    corners = {(round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in squares}
    assert corners == {(j, i) for i in range(n) for j in range(i + 1, n)}  # (column, row)
    assert all(p.get_zorder() > 3 for p in squares)  # above the cell's number
    assert heatmap_of(ax).get_clim() == (0.0, 1.0)
    plt.close(ax.figure)


def test_hidden_cells_reads_boolean_and_additive_masks():
    assert hidden_cells(np.array([[False, True]])).tolist() == [[False, True]]
    assert hidden_cells(np.array([[0.0, -np.inf]])).tolist() == [[False, True]]
    with pytest.raises(ValueError, match="2 次元"):
        hidden_cells(np.zeros(3))


def test_shade_masked_needs_a_heatmap_of_the_same_shape():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="ヒートマップ"):
        shade_masked(ax, heads.causal_mask(2))
    plot_heatmap(np.zeros((2, 2)), ["a", "b"], ["a", "b"], ax=ax)
    with pytest.raises(ValueError, match="shape"):
        shade_masked(ax, heads.causal_mask(3))
    plt.close(fig)


def test_head_maps_one_per_head_one_colour_bar():
    maps = np.stack([np.eye(3), np.full((3, 3), 1 / 3)])
    fig, axes = plt.subplots(1, 2)
    axes = plot_head_maps(maps, list("xyz"), list("xyz"), ["頭 1", "頭 2"], axes)
    assert [ax.get_title() for ax in axes] == ["頭 1", "頭 2"]
    assert np.allclose(heatmap_of(axes[0]).get_array(), np.eye(3))
    assert all(heatmap_of(ax).get_clim() == (0, 1) for ax in axes)
    assert len(fig.axes) == 3  # two maps and one colour bar
    with pytest.raises(ValueError, match="同じ数"):
        plot_head_maps(maps, list("xyz"), list("xyz"), ["頭 1"], axes)
    with pytest.raises(ValueError, match="3 次元"):
        plot_head_maps(np.eye(3), list("xyz"), list("xyz"), ["頭 1"], axes[:1])
    plt.close(fig)


def test_chapter_08_plots_answer_bad_inputs_in_japanese():
    from helpers._validate import HelpersError, HelpersTypeError

    words = ["a", "b"]
    cases = [
        (lambda: hidden_cells([[1], [2, 3]]), HelpersTypeError, "数の配列に変換できません"),
        (lambda: hidden_cells([["a", "b"]]), HelpersTypeError, "数の配列に変換できません"),
        (lambda: hidden_cells([[np.nan, 0.0]]), HelpersError, "NaN"),
        (lambda: hidden_cells(None), HelpersTypeError, "数の配列"),
        (lambda: plot_masked_heatmap(np.eye(2), None, words, np.zeros((2, 2))), HelpersTypeError,
         "文字列のリスト"),
        (lambda: plot_masked_heatmap(np.eye(2), words, words, np.zeros((3, 3))), HelpersError,
         "ヒートマップの shape"),
        (lambda: plot_masked_heatmap(np.eye(2), words, words, np.zeros((2, 2)), colour="red"),
         HelpersTypeError, "という引数はありません"),
        (lambda: plot_head_maps(np.ones((1, 2, 2)), words, words, ["t"], None), HelpersTypeError,
         "軸の並び"),
        (lambda: plot_head_maps(np.ones((1, 2, 2)), words, words, ["t"], [1]), HelpersTypeError,
         "matplotlib の軸"),
        (lambda: plot_head_maps(np.ones((1, 2, 2)), words, words, 3, plt.subplots()[1]),
         HelpersTypeError, "titles"),
    ]
    for call, error, text in cases:
        with pytest.raises(error, match=text):
            call()
    ax = plot_heatmap(np.eye(2), words, words)
    with pytest.raises(HelpersTypeError, match="True か False"):
        shade_masked(ax, np.zeros((2, 2), bool), animated="yes")
    plt.close("all")


def test_plot_masked_heatmap_checks_the_mask_before_drawing():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="shape"):
        plot_masked_heatmap(np.eye(2), ["a", "b"], ["a", "b"], np.zeros((3, 3)), ax=ax)
    assert not ax.collections  # the heatmap was not drawn
    plt.close("all")
