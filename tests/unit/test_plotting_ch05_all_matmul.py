"""helpers.plotting.ch05_all_matmul: chapter 05's figures (ax in, ax out)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from helpers._validate import HelpersError, HelpersTypeError
from helpers.plotting import plot_lines


def test_plot_lines_draws_one_line_per_entry_on_log_axes():
    ax = plot_lines([4, 8, 16], {"遅い": [1e-3, 8e-3, 6e-2], "速い": [1e-6, 2e-6, 3e-6]},
                    logx=True, logy=True, title="時間", highlight="速い")
    assert len(ax.lines) == 2 and ax.get_yscale() == "log" and ax.get_xscale() == "log"
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [1e-6, 2e-6, 3e-6])
    assert ax.lines[1].get_linewidth() > ax.lines[0].get_linewidth()


@pytest.mark.parametrize(
    "x, ys, kwargs, message",
    [([1, 2], {"a": [1, 2, 3]}, {}, "同じ数"), ([1, 2], {}, {}, "1 つ以上"),
     ([1, 2], {"a": [0, 1]}, {"logy": True}, "正の値"), ([0, 2], {"a": [1, 1]}, {"logx": True}, "正の値"),
     ([1, 2], {"a": [1, 1]}, {"highlight": "b"}, "ありません"),
     ([1, 2], {"a": [1, 1]}, {"colors": ["r", "g"]}, "1 本の線に 1 色"),
     ([1, 2], {"a": [1, 1]}, {"colors": ["どの色でもない"]}, "色として読めません")],
)
def test_plot_lines_rejects_bad_input(x, ys, kwargs, message):
    with pytest.raises(HelpersError, match=message):
        plot_lines(x, ys, **kwargs)
    plt.close("all")


@pytest.mark.parametrize(
    "kwargs, message",
    [({"title": 3}, "title は文字列か None"), ({"logy": "yes"}, "True か False"),
     ({"highlight": ["a"]}, "highlight は文字列か None"), ({"colors": "red"}, "色のリスト"),
     ({"ax": "ax"}, "matplotlib の軸"), ({"legend_size": "big"}, "数で指定")],
)
def test_plot_lines_rejects_wrong_kinds(kwargs, message):
    with pytest.raises(HelpersTypeError, match=message):
        plot_lines([1, 2], {"a": [1, 1]}, **kwargs)
    plt.close("all")


def test_plot_lines_takes_the_requested_legend_size():
    ax = plot_lines([1, 2], {"a": [1, 2]}, legend_size=12)
    assert ax.get_legend().get_texts()[0].get_fontsize() == 12
