"""helpers.plotting.ch06_attention: chapter 06's figures (ax in, ax out)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

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
        ({"a": [1.0], "b": [2.0]}, {"colors": ["red"]}, ValueError, "色が 1 個"),
    ],
)
def test_plot_histograms_bad_inputs(samples, kwargs, error, words):
    with pytest.raises(error, match=words):
        plot_histograms(samples, **kwargs)
    plt.close("all")
