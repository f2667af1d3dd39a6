"""Chapter 06's pictures: how the scores spread out as d_k grows (overlaid histograms)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validate import HelpersError, arg, as_array, integer, pair, public
from ._base import AX, OPTIONAL_TEXT, WORD_COLORS, axes_or_new, colors_of

__all__ = ["plot_histograms"]

#: The most bars one histogram may have: the book uses 40 or 60; more only slows the drawing.
MAX_BINS = 1000


def _samples(samples, name: str) -> dict[str, np.ndarray]:
    """{legend label: values}, at least one entry."""
    if not isinstance(samples, dict) or not samples:
        raise HelpersError(
            f"{name} は {{凡例の文字列: 値の配列}} の辞書で、1 つ以上の項目が必要です。"
            f"{type(samples).__name__} が来ました。"
        )
    return {str(label): as_array(v, f"{name}[{str(label)!r}]").reshape(-1) for label, v in samples.items()}


def _bars_of_a_width(a: dict) -> None:
    arrays, bins = a["samples"], a["bins"]
    colors = a["colors"]
    if colors is None:
        colors = [WORD_COLORS[i % len(WORD_COLORS)] for i in range(len(arrays))]
    a["colors"] = colors_of(colors, "colors(1 つのヒストグラムに 1 色)", len(arrays))
    value_range = a["value_range"]
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
    a["value_range"] = value_range


@public(_bars_of_a_width, samples=arg(_samples), bins=arg(integer, lo=1, hi=MAX_BINS), title=OPTIONAL_TEXT,
        xlabel=OPTIONAL_TEXT, value_range=arg(pair, optional=True), ax=AX, draws=True)
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
    arrays = samples
    ax = axes_or_new(ax)
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

