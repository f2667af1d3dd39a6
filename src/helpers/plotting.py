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
#: Extra colours for several words at once: Okabe–Ito without the Q/K/V ones and without
#: yellow (unreadable as text on white), plus a brown.
WORD_COLORS = ("#E69F00", "#56B4E9", "#CC79A7", "#000000", "#8C6D31", "#999999")

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
    ax = _axes(ax)
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=45 if len(col_labels) > 4 else 0)
    ax.set_yticks(range(len(row_labels)), row_labels)
    ax.set_xlabel(col_title, labelpad=8)
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
    from ._validate import as_array

    if not isinstance(samples, dict) or not samples:
        raise ValueError(
            "samples は {凡例の文字列: 値の配列} の辞書で、1 つ以上の項目が必要です。"
            f"{type(samples).__name__} が来ました。"
        )
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins は 1 以上の整数にしてください。{bins!r} が来ました。")
    arrays = {
        str(label): as_array(v, f"samples[{label!r}]").reshape(-1) for label, v in samples.items()
    }
    if colors is None:
        colors = [WORD_COLORS[i % len(WORD_COLORS)] for i in range(len(arrays))]
    if len(colors) != len(arrays):
        raise ValueError(
            f"色が {len(colors)} 個、ヒストグラムが {len(arrays)} 個です。同じ数にしてください。"
        )
    if value_range is None:
        lo = min(float(v.min()) for v in arrays.values())
        hi = max(float(v.max()) for v in arrays.values())
        value_range = (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)
    ax = _axes(ax)
    for (label, v), c in zip(arrays.items(), colors, strict=True):
        ax.hist(v, bins=bins, range=value_range, density=True, histtype="step", lw=2,
                color=c, label=label)
    ax.set_xlim(*value_range)
    ax.set_ylabel("密度")
    ax.legend(fontsize=9)
    if xlabel:
        ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    return ax


# Chapters 04–05: matrix shapes as boxes, a 2×2 W as a map of the plane, tiles of a product.
from .matrix_plots import (  # noqa: E402, F401
    plot_lines,
    plot_matmul_shapes,
    plot_plane_transform,
    plot_tiles,
)

#: Chapter 03: the short tip labels of one person's three faces.
FACE_LABELS = {"q": "Q", "k": "K", "v": "V"}


def _face_vector(v, name: str) -> np.ndarray:
    from ._validate import as_array

    arr = as_array(v, name)
    if arr.size != 2 or arr.ndim > 2 or (arr.ndim == 2 and arr.shape[0] != 1):
        raise ValueError(
            f"{name} は平面の 1 本のベクトル(shape (2,) か 1×2 の横一列)で渡してください。"
            f"shape {arr.shape} が来ました。"
        )
    return arr.reshape(2)


def plot_faces(
    q,
    k,
    v,
    ax=None,
    title: str | None = None,
    limits: tuple[float, float] | None = None,
    axis_labels: Sequence[str] = AXES,
    labels: dict[str, str] | None = None,
):
    """One person's three faces on the plane: Q blue, K vermillion, V green arrows from the
    origin, each labelled at its tip (chapter 03).

    Each of q, k, v is one 2-D vector: shape (2,) or a 1 × 2 row.
    """
    if labels is not None and (not isinstance(labels, dict) or not set(labels) <= set(FACE_LABELS)):
        raise ValueError(
            f"labels は {set(FACE_LABELS)} をキーにした辞書で渡してください(例:{{'q': '探す'}})。"
            f"{labels!r} が来ました。"
        )
    names = {**FACE_LABELS, **(labels or {})}
    faces = np.vstack([_face_vector(q, "q"), _face_vector(k, "k"), _face_vector(v, "v")])
    return plot_vectors(faces, [names[key] for key in ("q", "k", "v")], ax=ax,
                        colors=[COLORS[key] for key in "QKV"], title=title,
                        axis_labels=axis_labels, limits=limits)


def outline_heatmap(ax, row: int | None = None, col: int | None = None, lw: float = 3.0):
    """Frame one row (blue: what this person looks for) and/or one column (vermillion: who
    looks for this person) of a heatmap drawn by `plot_heatmap` on `ax` (chapter 03)."""
    if ax is None or not getattr(ax, "images", None):
        raise ValueError("ax には plot_heatmap でヒートマップを描いた軸を渡してください(画像がありません)。")
    n_rows, n_cols = ax.images[-1].get_array().shape[:2]
    from matplotlib.patches import Rectangle

    for label, index, size in (("row", row, n_rows), ("col", col, n_cols)):
        if index is None:
            continue
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"{label} には整数の番号を渡してください。{type(index).__name__} が来ました。")
        if not 0 <= index < size:
            raise ValueError(f"{label}={index} は範囲外です。0 から {size - 1} の番号を指定してください。")
    if row is not None:
        ax.add_patch(Rectangle((-0.5, row - 0.5), n_cols, 1, fill=False, ec=COLORS["Q"], lw=lw,
                               clip_on=False, zorder=3))
    if col is not None:
        ax.add_patch(Rectangle((col - 0.5, -0.5), 1, n_rows, fill=False, ec=COLORS["K"], lw=lw,
                               clip_on=False, zorder=3))
    return ax


# Chapter 07: a learning curve, the right cell of each row framed, a weight matrix as a heatmap.
from .learning_plots import (  # noqa: E402, F401
    outline_cells,
    plane_limits,
    plane_map_legend,
    plot_learning_curve,
    plot_plane_map,
    plot_weight_matrix,
)
