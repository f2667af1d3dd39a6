"""Chapter 06's pictures: how the scores spread out as d_k grows (overlaid histograms)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validate import HelpersError, as_array, integer, pair
from ._base import WORD_COLORS, axes_or_new, colors_of, text

__all__ = ["plot_histograms"]

#: The most bars one histogram may have: the book uses 40 or 60; more only slows the drawing.
MAX_BINS = 1000


def plot_histograms(
    samples: dict,
    ax=None,
    bins: int = 40,
    value_range: tuple[float, float] | None = None,
    colors: Sequence[str] | None = None,
    title: str | None = None,
    xlabel: str | None = None,
):
    """Overlaid outline histograms, one per entry of `samples` ({legend label: values}).

    Heights are densities (area 1), so samples of different sizes and spreads compare fairly.
    """
    if not isinstance(samples, dict) or not samples:
        raise HelpersError(
            "samples は {凡例の文字列: 値の配列} の辞書で、1 つ以上の項目が必要です。"
            f"{type(samples).__name__} が来ました。"
        )
    integer(bins, "bins", 1, MAX_BINS)
    text(title, "title", optional=True)
    text(xlabel, "xlabel", optional=True)
    if value_range is not None:
        value_range = pair(value_range, "value_range")
    arrays = {
        str(label): as_array(v, f"samples[{label!r}]").reshape(-1) for label, v in samples.items()
    }
    if colors is None:
        colors = [WORD_COLORS[i % len(WORD_COLORS)] for i in range(len(arrays))]
    colors = colors_of(colors, "colors(1 つのヒストグラムに 1 色)", len(arrays))
    if value_range is None:
        lo = min(float(v.min()) for v in arrays.values())
        hi = max(float(v.max()) for v in arrays.values())
        value_range = (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)
    with np.errstate(over="ignore", invalid="ignore"):
        widths = np.diff(np.linspace(*value_range, bins + 1))
    if not np.all(np.isfinite(widths) & (widths > 0)):
        raise HelpersError(
            f"値の範囲 {value_range} を {bins} 本の棒に分けられません。範囲が広すぎて幅が数として表せないか、"
            "値の大きさに比べて狭すぎます。value_range に、値がおさまるふつうの大きさの範囲を渡してください。"
        )
    ax = axes_or_new(ax)
    for (label, v), c in zip(arrays.items(), colors, strict=True):
        ax.hist(v, bins=bins, range=value_range, density=True, histtype="step", lw=2,
                color=c, label=label)
    ax.set_xlim(*value_range)
    ax.set_ylabel("密度")
    ax.legend(fontsize=10)
    if xlabel:
        ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    return ax

