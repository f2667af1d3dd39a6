"""Plots that several chapters use: arrows on the plane, labelled heatmaps, bars.

Pure functions: `ax=None` in (a new figure), `ax` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.colors import Colormap

from .. import _validate
from .._validate import HelpersError, arg, as_array, as_matrix, number, public
from ..data import AXES
from ._base import (
    AX,
    AXIS_LABELS,
    COL_TITLE,
    COLORS,
    HEATMAP_GID,
    MAX_DRAWN,
    OPTIONAL_TEXT,
    ROW_TITLE,
    WORD_COLORS,
    axes_or_new,
    axis_limits,
    colors_of,
    drawable_range,
    heatmap_axes,
    one_color,
    text,
    text_colors,
    texts,
)

__all__ = ["plot_vectors", "finish_plane", "plot_heatmap", "plot_bars"]


def _n_colours(colors, name: str, n: int) -> list:
    """`colors` for n things: None → the word colours, one colour → all, else a list of n."""
    if colors is None:
        return [WORD_COLORS[i % len(WORD_COLORS)] for i in range(n)]
    if isinstance(colors, str):
        return [one_color(colors, name)] * n
    return colors_of(colors, name, n)


def _an_arrow_per_label(a: dict) -> None:
    v, labels = a["vectors"], a["labels"]
    if v.shape[1] != 2:
        raise HelpersError(f"平面に描けるのは 2 次元のベクトルだけです。shape {v.shape} が来ました。")
    _validate.guard_size(v.shape, "矢印(vectors)", limit=MAX_DRAWN)
    if len(labels) != v.shape[0]:
        raise HelpersError(f"ラベルが {len(labels)} 個、ベクトルが {v.shape[0]} 本です。同じ数にしてください。")
    a["colors"] = _n_colours(a["colors"], "colors", len(labels))
    if a["limits"] is None:
        lo, hi = min(0.0, float(v.min()) * 1.25), max(1.0, float(np.abs(v).max()) * 1.25)
        drawable_range(lo, hi, "vectors から決まる図の範囲")
        a["limits"] = (lo, hi)


@public(_an_arrow_per_label, vectors=arg(as_matrix), labels=arg(texts), ax=AX, title=OPTIONAL_TEXT,
        axis_labels=AXIS_LABELS, limits=arg(axis_limits, optional=True), draws=True)
def plot_vectors(
    vectors,
    labels: Sequence[str],
    ax=None,
    colors: Sequence[str] | str | None = None,
    title: str | None = None,
    axis_labels: Sequence[str] = AXES,
    limits: tuple[float, float] | None = None,
):
    """Draw each row of `vectors` (n × 2) as an arrow from the origin, labelled at its tip."""
    ax = axes_or_new(ax)
    for (x, y), label, c in zip(vectors, labels, colors, strict=True):
        ax.annotate(
            "", xy=(x, y), xytext=(0, 0),
            arrowprops={"arrowstyle": "-|>", "color": c, "lw": 2, "shrinkA": 0, "shrinkB": 0},
        )
        # 5 points above the tip: a word on the same ray as a longer one (プリン on ケーキ's
        # arrow) would otherwise sit on that arrow's line
        ax.annotate(f" {label}", xy=(x, y), xytext=(0, 5), textcoords="offset points", color=c,
                    fontsize=11, va="bottom", ha="left")
    return finish_plane(ax, limits, axis_labels, title)


@public(ax=AX, limits=arg(axis_limits), axis_labels=AXIS_LABELS, title=OPTIONAL_TEXT, draws=True)
def finish_plane(ax, limits: tuple[float, float], axis_labels: Sequence[str], title: str | None):
    """Square plane with equal scales, the two axes through the origin, labels and title."""
    ax = axes_or_new(ax)
    ax.set_xlim(*limits)
    ax.set_ylim(*limits)
    ax.set_aspect("equal")
    ax.axhline(0, color="#aaaaaa", lw=0.8, zorder=1)
    ax.axvline(0, color="#aaaaaa", lw=0.8, zorder=1)
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    if title:
        ax.set_title(title)
    return ax


def _a_label_per_row_and_column(a: dict) -> None:
    m, row_labels, col_labels = a["matrix"], a["row_labels"], a["col_labels"]
    _validate.guard_size(m.shape, "ヒートマップ(matrix)", limit=MAX_DRAWN)
    if m.shape != (len(row_labels), len(col_labels)):
        raise HelpersError(
            f"行列は shape {m.shape} ですが、行ラベル {len(row_labels)} 個・列ラベル {len(col_labels)} 個です。"
        )
    _cell_texts(m, a["fmt"])  # a format that cannot write these numbers is refused here
    lo = float(m.min()) if a["vmin"] is None else a["vmin"]
    hi = float(m.max()) if a["vmax"] is None else a["vmax"]
    if lo > hi:
        raise HelpersError(
            f"vmin は vmax 以下にしてください(指定しない方は matrix の最小・最大になります)。"
            f"vmin = {lo:g}、vmax = {hi:g} です。"
        )
    drawable_range(lo, hi, "色の範囲 (vmin, vmax)")


def _colormap(cmap, name: str):
    """A matplotlib colour map, or the name of one ("Blues", "RdBu_r")."""
    if not isinstance(cmap, Colormap) and text(cmap, name) not in matplotlib.colormaps:
        raise HelpersError(
            f"{name} {cmap!r} という色の並びはありません。\"Blues\" や \"RdBu_r\" のような "
            "matplotlib の名前にしてください。"
        )
    return cmap


@public(_a_label_per_row_and_column, matrix=arg(as_matrix), row_labels=arg(texts), col_labels=arg(texts),
        ax=AX, title=OPTIONAL_TEXT, row_title=arg(text), col_title=arg(text), cmap=arg(_colormap),
        fmt=arg(text), colorbar=arg(_validate.flag), vmin=arg(number, optional=True),
        vmax=arg(number, optional=True), draws=True)
def plot_heatmap(
    matrix,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    ax=None,
    title: str | None = None,
    row_title: str = ROW_TITLE,
    col_title: str = COL_TITLE,
    cmap: str = "Blues",
    fmt: str = "{:.2f}",
    colorbar: bool = True,
    vmin: float | None = None,
    vmax: float | None = None,
):
    """A labelled matrix: rows = who looks (queries), columns = who is looked at (keys).

    `fmt` writes each number on its cell ("{:.2f}"); `vmin`, `vmax` fix the colour range.
    """
    m, numbers = matrix, _cell_texts(matrix, fmt)
    ax = axes_or_new(ax)
    # Cells as vector quads, not an image: an image is resampled to the axes' pixels on every
    # draw (several float copies of the whole axes, ~7 MiB at the book's size); quads cost nothing
    # and stay sharp when printed. Edges at ±0.5 and the y axis downwards, like a table.
    im = ax.pcolormesh(np.arange(m.shape[1] + 1) - 0.5, np.arange(m.shape[0] + 1) - 0.5, m,
                       cmap=cmap, vmin=vmin, vmax=vmax, gid=HEATMAP_GID)
    ax.invert_yaxis()
    heatmap_axes(ax, row_labels, col_labels, row_title, col_title)
    colors = text_colors(im, m)
    for i, row in enumerate(numbers):
        for j, written in enumerate(row):
            ax.text(j, i, written, ha="center", va="center", fontsize=10, color=colors[i, j])
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    if title:
        ax.set_title(title, pad=12)
    return ax


def _cell_texts(m: np.ndarray, fmt: str) -> list[list[str]]:
    """The numbers of a heatmap written with `fmt` (a format such as "{:.2f}")."""
    try:
        return [[fmt.format(val) for val in row] for row in m]
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
        raise HelpersError(
            f"fmt {fmt!r} では数を書けません。\"{{:.2f}}\" のように、数を 1 つ書く書式にしてください。"
        ) from err


def _a_label_per_bar(a: dict) -> None:
    vals, labels = a["values"].reshape(-1), a["labels"]
    _validate.guard_size(vals.shape, "棒グラフ(values)", limit=MAX_DRAWN)
    if len(labels) != vals.size:
        raise HelpersError(f"ラベルが {len(labels)} 個、値が {vals.size} 個です。同じ数にしてください。")
    if a["highlight"] is not None:
        _validate.integer(a["highlight"], "highlight(目立たせる棒の番号)", 0, vals.size - 1)
    a["values"] = vals


@public(_a_label_per_bar, values=arg(as_array), labels=arg(texts), ax=AX, color=arg(one_color),
        title=OPTIONAL_TEXT, ylabel=OPTIONAL_TEXT, ylim=arg(axis_limits, optional=True), draws=True)
def plot_bars(
    values,
    labels: Sequence[str],
    ax=None,
    color: str = COLORS["x"],
    title: str | None = None,
    ylabel: str | None = None,
    highlight: int | None = None,
    ylim: tuple[float, float] | None = None,
):
    """Bars with their values printed on top; `highlight` marks one bar (e.g. the argmax)."""
    vals = values
    ax = axes_or_new(ax)
    edge = ["black" if i == highlight else "none" for i in range(vals.size)]
    ax.bar(range(vals.size), vals, color=color, edgecolor=edge, linewidth=2)
    ax.set_xticks(range(vals.size), labels)
    for i, v in enumerate(vals):
        # 3 points clear of the bar's end, so the label never sits on the highlight's outline.
        ax.annotate(f"{v:.2f}", (i, v), xytext=(0, 3 if v >= 0 else -3), textcoords="offset points",
                    ha="center", va="bottom" if v >= 0 else "top", fontsize=10)
    if ylim:
        ax.set_ylim(*ylim)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax

