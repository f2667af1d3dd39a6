"""Plots that several chapters use: arrows on the plane, labelled heatmaps, bars.

Pure functions: `ax=None` in (a new figure), `ax` out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validate import as_matrix
from ..data import AXES
from ._base import (
    COL_TITLE,
    COLORS,
    ROW_TITLE,
    WORD_COLORS,
    axes_or_new,
    heatmap_axes,
    text_colors,
)

__all__ = ["plot_vectors", "finish_plane", "plot_heatmap", "plot_bars"]


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
    v = as_matrix(vectors, "vectors")
    if v.shape[1] != 2:
        raise ValueError(f"平面に描けるのは 2 次元のベクトルだけです。shape {v.shape} が来ました。")
    if len(labels) != v.shape[0]:
        raise ValueError(f"ラベルが {len(labels)} 個、ベクトルが {v.shape[0]} 本です。同じ数にしてください。")
    ax = axes_or_new(ax)
    if colors is None:
        colors = [WORD_COLORS[i % len(WORD_COLORS)] for i in range(len(labels))]
    elif isinstance(colors, str):
        colors = [colors] * len(labels)
    for (x, y), label, c in zip(v, labels, colors, strict=True):
        ax.annotate(
            "", xy=(x, y), xytext=(0, 0),
            arrowprops={"arrowstyle": "-|>", "color": c, "lw": 2, "shrinkA": 0, "shrinkB": 0},
        )
        ax.text(x, y, f" {label}", color=c, fontsize=11, va="bottom", ha="left")
    hi = limits[1] if limits else max(1.0, float(np.abs(v).max()) * 1.25)
    lo = limits[0] if limits else min(0.0, float(v.min()) * 1.25)
    return finish_plane(ax, (lo, hi), axis_labels, title)


def finish_plane(ax, limits: tuple[float, float], axis_labels: Sequence[str], title: str | None):
    """Square plane with equal scales, the two axes through the origin, labels and title."""
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
    """A labelled matrix: rows = who looks (queries), columns = who is looked at (keys)."""
    m = as_matrix(matrix, "matrix")
    if m.shape != (len(row_labels), len(col_labels)):
        raise ValueError(
            f"行列は shape {m.shape} ですが、行ラベル {len(row_labels)} 個・列ラベル {len(col_labels)} 個です。"
        )
    ax = axes_or_new(ax)
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    heatmap_axes(ax, row_labels, col_labels, row_title, col_title)
    colors = text_colors(im, m)
    for (i, j), val in np.ndenumerate(m):
        ax.text(j, i, fmt.format(val), ha="center", va="center", fontsize=9, color=colors[i, j])
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.8)
    if title:
        ax.set_title(title, pad=12)
    return ax


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
    vals = np.asarray(values, dtype=float).reshape(-1)
    if len(labels) != vals.size:
        raise ValueError(f"ラベルが {len(labels)} 個、値が {vals.size} 個です。同じ数にしてください。")
    ax = axes_or_new(ax)
    edge = ["black" if i == highlight else "none" for i in range(vals.size)]
    ax.bar(range(vals.size), vals, color=color, edgecolor=edge, linewidth=2)
    ax.set_xticks(range(vals.size), labels)
    for i, v in enumerate(vals):
        # 3 points clear of the bar's end, so the label never sits on the highlight's outline.
        ax.annotate(f"{v:.2f}", (i, v), xytext=(0, 3 if v >= 0 else -3), textcoords="offset points",
                    ha="center", va="bottom" if v >= 0 else "top", fontsize=9)
    if ylim:
        ax.set_ylim(*ylim)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax

