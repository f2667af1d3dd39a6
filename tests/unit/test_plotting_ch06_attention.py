"""helpers.plotting.ch06_attention: chapter 06's figures (ax in, ax out)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers._validate import HelpersError, HelpersTypeError
from helpers.plotting import plot_histograms


def test_plot_histograms_draws_one_outline_per_sample():
    rng = np.random.default_rng(0)
    samples = {"d_k = 4": rng.normal(0, 2, 300), "d_k = 64": rng.normal(0, 8, 300)}
    ax = plot_histograms(samples, bins=20, value_range=(-30, 30), title="得点の分布", xlabel="q·k")
    assert ax.get_title() == "得点の分布"
    assert ax.get_xlim() == (-30, 30)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(samples)
    assert len(ax.patches) == 2
    plt.close(ax.figure)


def test_plot_histograms_default_range_covers_every_sample():
    ax = plot_histograms({"a": [1.0, 2.0], "b": [-5.0, 0.0]})
    assert ax.get_xlim() == (-5.0, 2.0)
    plt.close(ax.figure)
    ax = plot_histograms({"同じ値": [3.0, 3.0]})
    assert ax.get_xlim() == (2.5, 3.5)
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "samples, kwargs, error, words",
    [
        ({}, {}, ValueError, "1 つ以上"),
        ([1.0, 2.0], {}, ValueError, "辞書"),
        ({"a": [1.0, np.inf]}, {}, ValueError, "inf"),
        ({"a": [1.0]}, {"bins": 0}, ValueError, "bins"),
        ({"a": [1.0], "b": [2.0]}, {"colors": ["red"]}, HelpersError, "1 つのヒストグラムに 1 色"),
        ({"a": [1.0]}, {"bins": 10**400}, HelpersError, "1 から 1000 の範囲"),
        ({"a": [1.0]}, {"bins": 2.5}, HelpersTypeError, "整数"),
        ({"a": [1.0]}, {"value_range": 3}, HelpersTypeError, "下限, 上限"),
        ({"a": [1.0]}, {"value_range": (2, 1)}, HelpersError, "下限 < 上限"),
        ({"a": [1.0]}, {"value_range": (-1e308, 1e308)}, HelpersError, "棒に分けられません"),
        ({"a": [1e200, 1e200]}, {}, HelpersError, "棒に分けられません"),
        ({"a": [1.0]}, {"title": 1}, HelpersTypeError, "文字列か None"),
        ({"a": [1.0]}, {"ax": 1}, HelpersTypeError, "matplotlib の軸"),
    ],
)
def test_plot_histograms_bad_inputs(samples, kwargs, error, words):
    with pytest.raises(error, match=words):
        plot_histograms(samples, **kwargs)
    plt.close("all")
