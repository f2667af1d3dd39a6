"""Pure plotting functions: `ax=None` in, `ax` out. No global state besides `apply_style()`.

Colours (Okabe–Ito, colour-blind safe) are the same in every chapter:
Q blue, K vermillion, V green, the embedding x grey.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from ._validate import as_matrix
from .data import AXES

COLORS = {"Q": "#0072B2", "K": "#D55E00", "V": "#009E73", "x": "#666666"}
#: Extra colours for several words at once (Okabe–Ito without the Q/K/V ones).
WORD_COLORS = ("#E69F00", "#56B4E9", "#CC79A7", "#F0E442", "#000000", "#999999")

ROW_TITLE = "問い(見る側)"
COL_TITLE = "見出し(見られる側)"


def apply_style() -> None:
    """Japanese font (IPAexGothic from matplotlib-fontja) and the book's plot defaults."""
    import matplotlib_fontja  # noqa: F401  (importing it registers the font and selects it)

    matplotlib_fontja.japanize()
    matplotlib.rcParams.update(
        {
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "figure.figsize": (5.5, 4.0),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            # IPAexGothic draws U+2212 poorly at small sizes; the ASCII hyphen is always there.
            "axes.unicode_minus": False,
            "figure.constrained_layout.use": True,
        }
    )


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


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
    ax = _axes(ax)
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
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.axhline(0, color="#bbbbbb", lw=0.8)
    ax.axvline(0, color="#bbbbbb", lw=0.8)
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
    ax = _axes(ax)
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=45 if len(col_labels) > 4 else 0)
    ax.set_yticks(range(len(row_labels)), row_labels)
    ax.set_xlabel(col_title)
    ax.set_ylabel(row_title)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    lo, hi = im.get_clim()
    for (i, j), val in np.ndenumerate(m):
        dark = (val - lo) / (hi - lo + 1e-12) > 0.6
        ax.text(j, i, fmt.format(val), ha="center", va="center", fontsize=9,
                color="white" if dark else "black")
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
    ax = _axes(ax)
    edge = ["black" if i == highlight else "none" for i in range(vals.size)]
    ax.bar(range(vals.size), vals, color=color, edgecolor=edge, linewidth=2)
    ax.set_xticks(range(vals.size), labels)
    for i, v in enumerate(vals):
        ax.text(i, v, f"{v:.2f}", ha="center", va="bottom" if v >= 0 else "top", fontsize=9)
    if ylim:
        ax.set_ylim(*ylim)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax
