"""Chapter 05's pictures: timings of a loop and of `@` as lines."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validate import HelpersError, arg, as_array, flag, public
from ._base import AX, OPTIONAL_TEXT, TEXT_SIZE, WORD_COLORS, axes_or_new, colors_of

__all__ = ["plot_lines"]


def _lines(ys, name: str) -> dict[str, np.ndarray]:
    """{legend label: values at each x}, at least one line."""
    if not isinstance(ys, dict) or not ys:
        raise HelpersError(f"{name} は {{凡例の文字列: 値の並び}} の辞書で、1 つ以上の項目が必要です。"
                           f"{type(ys).__name__} が来ました。")
    return {str(k): as_array(v, f"{name}[{str(k)!r}]").reshape(-1) for k, v in ys.items()}


def _a_value_per_x(a: dict) -> None:
    xs, lines, logy, highlight = a["x"].reshape(-1), a["ys"], a["logy"], a["highlight"]
    for label, v in lines.items():
        if v.size != xs.size:
            raise HelpersError(f"「{label}」の値が {v.size} 個、x が {xs.size} 個です。同じ数にしてください。")
        if logy and np.any(v <= 0):
            raise HelpersError(f"対数目盛りの縦軸には正の値しか描けません。「{label}」に 0 以下の値があります。")
    if a["logx"] and np.any(xs <= 0):
        raise HelpersError("対数目盛りの横軸には正の値しか描けません。x に 0 以下の値があります。")
    if highlight is not None and highlight not in lines:
        raise HelpersError(f"highlight「{highlight}」は ys にありません。使えるもの: {'、'.join(lines)}")
    colors = a["colors"]
    if colors is None:  # word colours: never the Q/K/V ones
        colors = [WORD_COLORS[i % len(WORD_COLORS)] for i in range(len(lines))]
    a["colors"] = colors_of(colors, "colors(1 本の線に 1 色)", len(lines))
    a["x"] = xs


@public(_a_value_per_x, legend_size=TEXT_SIZE, title=OPTIONAL_TEXT, xlabel=OPTIONAL_TEXT, ylabel=OPTIONAL_TEXT, highlight=OPTIONAL_TEXT,
        logx=arg(flag), logy=arg(flag), x=arg(as_array), ys=arg(_lines), ax=AX, draws=True)
def plot_lines(
    x,
    ys: dict,
    ax=None,
    colors: Sequence[str] | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    logx: bool = False,
    logy: bool = False,
    highlight: str | None = None,
    legend_size: float = 10,
):
    """One line per entry of `ys` ({legend label: values at each x}), with markers and a legend.

    `highlight` draws that line thick; the others stay thin. Log scales need positive values.
    `legend_size` is the legend's font size.
    """
    xs, lines = x, ys
    ax = axes_or_new(ax)
    few = xs.size <= 20
    for (label, v), c in zip(lines.items(), colors, strict=True):
        lw = 3.0 if label == highlight else (1.5 if highlight else 2.0)
        ax.plot(xs, v, marker="o" if few else None, color=c, lw=lw, label=label)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.legend(fontsize=legend_size)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax
