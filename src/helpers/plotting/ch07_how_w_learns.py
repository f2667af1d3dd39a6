"""Chapter 07's pictures: learning curves, weight matrices, and each W as a map of the plane."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from .._validate import as_array, as_matrix, integer
from ._base import COLORS, axes_or_new, heatmap_axes_of
from .common import plot_heatmap
from .matrices import plot_plane_transform

__all__ = ["W_ROW_LABELS", "plot_learning_curve", "outline_cells", "plot_weight_matrix",
           "plane_limits", "PLANE_MARKERS", "plot_plane_map", "plane_map_legend"]


#: Rows of a 2×2 W are the components of the input x (甘さ, 辛さ); columns those of the output.
W_ROW_LABELS = ("甘さ", "辛さ")


def plot_learning_curve(
    values,
    ax=None,
    title: str | None = None,
    ylabel: str = "損失",
    log: bool = True,
    color: str = COLORS["x"],
    label: str | None = None,
    xlabel: str = "更新の回数(ステップ)",
):
    """One value per training step (step 0 = before any update), as a line.

    `log=True` puts the y axis on a log scale, where a loss that keeps shrinking by the same
    factor shows as a straight slope. Call it again on the same `ax` to compare runs.
    """
    v = as_array(values, "values")
    if v.ndim != 1:
        raise ValueError(f"values は 1 次元(ステップごとに 1 つの値)にしてください。shape {v.shape} が来ました。")
    if log and np.any(v <= 0):
        raise ValueError("log=True(対数目盛り)では、正の値しか描けません。log=False にしてください。")
    ax = axes_or_new(ax)
    ax.plot(np.arange(v.size), v, color=color, lw=2, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if label:
        ax.legend(fontsize=9)
    if title:
        ax.set_title(title)
    return ax


def outline_cells(ax, cols: Sequence[int], color: str = COLORS["K"], lw: float = 2.5,
                  animated: bool = False):
    """Frame cell (i, cols[i]) of every row i of a heatmap drawn on `ax` (e.g. the right key).

    `animated=True` is for widgets whose heatmap is redrawn on top of a saved background.
    """
    n_rows, n_cols = heatmap_axes_of(ax)
    cols = list(cols)
    if len(cols) != n_rows:
        raise ValueError(f"cols は行の数 {n_rows} 個(各行に 1 つ)にしてください。{len(cols)} 個が来ました。")
    for i, j in enumerate(cols):
        integer(j, f"cols[{i}](列の番号)", 0, n_cols - 1)
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec=color, lw=lw, zorder=3,
                               animated=animated))
    return ax


def plot_weight_matrix(
    W,
    name: str,
    ax=None,
    title: str | None = None,
    reach: float | None = None,
    colorbar: bool = True,
    row_labels: Sequence[str] = W_ROW_LABELS,
):
    """A weight matrix as a heatmap: red > 0, blue < 0, white 0, on a symmetric scale ±reach.

    Rows are the input components (x), columns the output components (q, k or v). The title is
    drawn in the colour of the role (`name` = "W_Q", "W_K" or "W_V").
    """
    M = np.round(as_array(W, name), 2) + 0.0  # + 0.0 turns -0.0 into 0.0 (no "-0.00")
    if M.ndim != 2:
        raise ValueError(f"{name} は 2 次元の行列で渡してください。shape {M.shape} が来ました。")
    if reach is None:
        reach = max(float(np.abs(M).max()), 1e-9)
    if not np.isfinite(reach) or reach <= 0:
        raise ValueError(f"reach は正の数にしてください。{reach} が来ました。")
    cols = [str(j + 1) for j in range(M.shape[1])]
    ax = plot_heatmap(M, row_labels, cols, ax=ax, title=title or f"${name}$",
                      row_title="入力の成分", col_title="出力の成分", cmap="RdBu_r",
                      vmin=-reach, vmax=reach, colorbar=colorbar)
    role = name[-1:] if name[-1:] in ("Q", "K", "V") else "x"
    ax.title.set_color(COLORS[role])
    return ax


def plane_limits(matrices, points, extent: float = 1.0, margin: float = 1.15) -> tuple[float, float]:
    """One symmetric range that fits, for every 2×2 W in `matrices`, the grid [−extent, extent]²
    mapped by W, the points, and the points mapped by W: the same axes for a row of panels."""
    pts = as_matrix(points, "points")
    reach = float(np.abs(pts).max())
    for k, W in enumerate(matrices):
        W = as_matrix(W, f"matrices[{k}]")
        if W.shape != (2, 2) or pts.shape[1] != 2:
            raise ValueError(f"matrices は 2×2、points は n×2 にしてください。W は shape {W.shape}、"
                             f"points は shape {pts.shape} です。")
        reach = max(reach, extent * float(np.abs(W).sum(axis=0).max()), float(np.abs(pts @ W).max()))
    return -margin * reach, margin * reach


#: One marker shape per word in `plot_plane_map`, so the panels need no text next to points.
PLANE_MARKERS = ("o", "s", "^", "D")


def plot_plane_map(
    W,
    name: str,
    ax=None,
    points=None,
    limits: tuple[float, float] | None = None,
    extent: float = 1.0,
    title: str | None = None,
):
    """`plot_plane_transform` for chapter 07, with no text inside the panel to collide.

    The grid and the two basis arrows come from `plot_plane_transform` (its arrow texts are left
    out). Point k is drawn with the marker PLANE_MARKERS[k]: grey where it is, and in the colour
    of `name` where `x ↦ xW` sends it, joined by a dotted line. `plane_map_legend` names the
    markers and explains the colours and arrows once for the whole figure.
    """
    color = COLORS[name[-1]] if name[-1:] in ("Q", "K", "V") else COLORS["x"]
    ax = plot_plane_transform(W, ax=ax, color=color, name=name, extent=extent, limits=limits,
                              title=title)
    for text in list(ax.texts):  # the arrow labels (the arrows themselves have no text)
        if text.get_text():
            text.remove()
    if points is None:
        return ax
    pts = as_matrix(points, "points")
    if pts.shape[1] != 2 or len(pts) > len(PLANE_MARKERS):
        raise ValueError(f"points は {len(PLANE_MARKERS)} 個までの n×2(平面の点)にしてください。"
                         f"shape {pts.shape} が来ました。")
    img = pts @ as_matrix(W, name)
    for p, q, marker in zip(pts, img, PLANE_MARKERS, strict=False):
        ax.plot([p[0], q[0]], [p[1], q[1]], color=color, lw=0.8, ls=":", zorder=3)
        # The grey marker is drawn larger: where W barely moves a point, a grey rim stays visible.
        ax.scatter([p[0]], [p[1]], color=COLORS["x"], marker=marker, s=90, zorder=5)
        ax.scatter([q[0]], [q[1]], color=color, marker=marker, s=55, zorder=6, edgecolor="white")
    return ax


def plane_map_legend(fig, labels: Sequence[str], loc: str = "outside lower center"):
    """One legend for a figure of `plot_plane_map` panels: which marker is which word, what the
    grey and coloured points and the arrows are."""
    if len(labels) > len(PLANE_MARKERS):
        raise ValueError(f"ラベルは {len(PLANE_MARKERS)} 個までです。{len(labels)} 個が来ました。")
    words = [Line2D([], [], ls="", marker=m, color="#333333", markerfacecolor="white")
             for m in PLANE_MARKERS[:len(labels)]]
    swatches = tuple(Patch(color=COLORS[r]) for r in ("Q", "K", "V"))
    arrows = tuple(Line2D([], [], color=COLORS[r], lw=2) for r in ("Q", "K", "V"))
    handles = [*words, Patch(color=COLORS["x"]), swatches, arrows]
    texts = [*labels, "灰色:元の埋め込み $x$", "色:行き先 $xW$(問い・見出し・中身)",
             "矢印:(1, 0) と (0, 1) の行き先"]
    return fig.legend(handles, texts, loc=loc, ncol=len(handles), fontsize=9, frameon=False,
                      handler_map={tuple: HandlerTuple(ndivide=None, pad=0.3)})
