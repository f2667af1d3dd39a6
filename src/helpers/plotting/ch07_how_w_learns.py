"""Chapter 07's pictures: learning curves, weight matrices, and each W as a map of the plane."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import FigureBase
from matplotlib.legend import Legend
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.mathtext import MathTextParser
from matplotlib.patches import Patch, Rectangle

from .._validate import (
    HelpersError,
    HelpersTypeError,
    arg,
    as_array,
    as_matrix,
    flag,
    integer,
    number,
    pair,
    public,
    said,
)
from ._base import (
    AX,
    COLORS,
    OPTIONAL_TEXT,
    axes_or_new,
    heatmap_axes_of,
    one_color,
    text,
    texts,
    with_heatmap,
)
from .common import plot_heatmap
from .matrices import plot_plane_transform

__all__ = ["W_ROW_LABELS", "plot_learning_curve", "outline_cells", "plot_weight_matrix",
           "plane_limits", "PLANE_MARKERS", "plot_plane_map", "plane_map_legend"]


#: Rows of a 2×2 W are the components of the input x (甘さ, 辛さ); columns those of the output.
W_ROW_LABELS = ("甘さ", "辛さ")


def _drawable_on_its_scale(a: dict) -> None:
    v = a["values"]
    if v.ndim != 1:
        raise HelpersError(f"values は 1 次元(ステップごとに 1 つの値)にしてください。shape {v.shape} が来ました。")
    if a["log"] and np.any(v <= 0):
        raise HelpersError("log=True(対数目盛り)では、正の値しか描けません。log=False にしてください。")


@public(_drawable_on_its_scale, values=arg(as_array), log=arg(flag), color=arg(one_color), title=OPTIONAL_TEXT,
        ylabel=arg(text), label=OPTIONAL_TEXT, xlabel=arg(text), ax=AX, draws=True)
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
    v = values
    ax = axes_or_new(ax)
    ax.plot(np.arange(v.size), v, color=color, lw=2, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if label:
        ax.legend(fontsize=10)
    if title:
        ax.set_title(title)
    return ax


#: Line styles `outline_cells` draws: solid, dashed, dotted.
FRAME_STYLES = ("-", "--", ":")


def _a_column_per_row(a: dict) -> None:
    n_rows, n_cols = heatmap_axes_of(a["ax"])
    cols = a["cols"]
    if isinstance(cols, (str, bytes)) or not isinstance(cols, (list, tuple, np.ndarray)):
        raise HelpersTypeError(f"cols には列の番号のリスト(各行に 1 つ)を渡してください。{type(cols).__name__} が来ました。")
    a["cols"] = cols = [integer(j, f"cols[{i}](列の番号)", 0, n_cols - 1) for i, j in enumerate(cols)]
    if len(cols) != n_rows:
        raise HelpersError(f"cols は行の数 {n_rows} 個(各行に 1 つ)にしてください。{len(cols)} 個が来ました。")


def _frame_style(linestyle, name: str) -> str:
    if not isinstance(linestyle, str) or linestyle not in FRAME_STYLES:
        raise HelpersError(f"{name} は {'、'.join(repr(s) for s in FRAME_STYLES)} のどれかにしてください"
                           f"(実線・破線・点線)。{said(linestyle)} が来ました。")
    return linestyle


@public(_a_column_per_row, ax=arg(with_heatmap), color=arg(one_color),
        lw=arg(number, "lw(枠の線の太さ)", positive=True), animated=arg(flag),
        linestyle=arg(_frame_style), draws=True)
def outline_cells(ax, cols: Sequence[int], color: str = COLORS["K"], lw: float = 2.5,
                  animated: bool = False, linestyle: str = "-"):
    """Frame cell (i, cols[i]) of every row i of a heatmap drawn on `ax` (e.g. the right key).

    Two sets of frames on one map are told apart by `linestyle` as well as colour (a dashed
    frame stays recognisable where a colour sinks into a dark cell).
    `animated=True` is for widgets whose heatmap is redrawn on top of a saved background.
    """
    for i, j in enumerate(cols):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec=color, lw=lw, zorder=3,
                               animated=animated, linestyle=linestyle))
    return ax


def _a_matrix_named(a: dict) -> None:
    name = a["name"]
    M = as_matrix(a["W"], name)
    with np.errstate(over="ignore", invalid="ignore"):  # rounding 1e308 overflows: keep it as it is
        a["W"] = M = np.where(np.abs(M) < 1e300, np.round(M, 2), M) + 0.0  # + 0.0: no "-0.00"
    if not a["title"]:  # the title is ${name}$: it must read as maths
        try:
            MathTextParser("path").parse(f"${name}$")
        except ValueError as err:
            raise HelpersError(f"name {said(name)} は題名の数式 ${name}$ として読めません。"
                               "\"W_Q\" のような名前にするか、title を渡してください。") from err
    if a["reach"] is None:
        a["reach"] = max(float(np.abs(M).max()), 1e-9)
    a["row_labels"] = texts(a["row_labels"], "row_labels", count=M.shape[0])


@public(_a_matrix_named, name=arg(text), title=OPTIONAL_TEXT, reach=arg(number, positive=True, optional=True),
        colorbar=arg(flag), ax=AX, draws=True)
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
    M = W  # rounded to the two digits the cells show
    ax = axes_or_new(ax)
    cols = [str(j + 1) for j in range(M.shape[1])]
    ax = plot_heatmap(M, row_labels, cols, ax=ax, title=title or f"${name}$",
                      row_title="入力の成分", col_title="出力の成分", cmap="RdBu_r",
                      vmin=-reach, vmax=reach, colorbar=colorbar)
    role = name[-1:] if name[-1:] in ("Q", "K", "V") else "x"
    ax.title.set_color(COLORS[role])
    return ax


#: The farthest from the origin a plane of chapter 07 may reach (the book's planes reach about 4).
MAX_REACH = 1e100


def _plane_points(points, name: str = "points", most: int | None = None) -> np.ndarray:
    """`points` as an n × 2 matrix of points of the plane (at most `most` of them)."""
    pts = as_matrix(points, name)
    if pts.shape[1] != 2 or (most is not None and len(pts) > most):
        up_to = f"{most} 個までの" if most is not None else ""
        raise HelpersError(f"{name} は {up_to}n×2(平面の点を 1 行に 1 つ)にしてください。shape {pts.shape} が来ました。")
    return pts


def _plane_reach(W, name: str, pts, extent: float) -> float:
    """How far from the origin the grid [−extent, extent]² mapped by the 2×2 `W`, the points and
    their images reach; refused when that is too far for a picture (the numbers overflow)."""
    W = as_matrix(W, name)
    if W.shape != (2, 2):
        raise HelpersError(f"{name} は 2×2 の行列(平面から平面への変換)にしてください。shape {W.shape} が来ました。")
    with np.errstate(over="ignore", invalid="ignore"):
        reach = extent * float(np.abs(W).sum(axis=0).max())
        if pts is not None:
            reach = max(reach, float(np.abs(pts).max()), float(np.abs(pts @ W).max()))
    if not reach <= MAX_REACH:
        raise HelpersError(f"{name} や points の数が大きすぎて、平面の図の範囲が {MAX_REACH:g} を超えます"
                           f"(ここまで届きます: {reach:.3g})。もっと小さな数の行列と点を渡してください。")
    return reach


def _matrices(matrices, name: str):
    if isinstance(matrices, (str, bytes)) or not isinstance(matrices, (list, tuple, np.ndarray)):
        raise HelpersTypeError(f"{name} には 2×2 の行列のリストを渡してください。{type(matrices).__name__} が来ました。")
    return matrices


def _planes_reach(a: dict) -> None:
    for k, W in enumerate(a["matrices"]):
        _plane_reach(W, f"matrices[{k}]", a["points"], a["extent"])


@public(_planes_reach, matrices=arg(_matrices), points=arg(_plane_points), extent=arg(number, positive=True),
        margin=arg(number, hi=10.0, positive=True), draws=True)
def plane_limits(matrices, points, extent: float = 1.0, margin: float = 1.15) -> tuple[float, float]:
    """One symmetric range that fits, for every 2×2 W in `matrices`, the grid [−extent, extent]²
    mapped by W, the points, and the points mapped by W: the same axes for a row of panels."""
    pts = points
    reach = float(np.abs(pts).max())
    for k, W in enumerate(matrices):
        reach = max(reach, _plane_reach(W, f"matrices[{k}]", pts, extent))
    return -margin * reach, margin * reach


#: One marker shape per word in `plot_plane_map`, so the panels need no text next to points.
PLANE_MARKERS = ("o", "s", "^", "D")


def _points_under_w(a: dict) -> None:
    pts = a["points"]
    if pts is not None:
        a["points"] = pts = _plane_points(pts, "points", most=len(PLANE_MARKERS))
    _plane_reach(a["W"], a["name"], pts, a["extent"])
    a["W"] = as_matrix(a["W"], a["name"])


@public(_points_under_w, name=arg(text), title=OPTIONAL_TEXT,
        extent=arg(number, lo=0.5, hi=10.0),  # the grid's step is 0.5: 4·extent + 1 lines
        limits=arg(pair, optional=True), ax=AX, draws=True)
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
    pts = points
    ax = axes_or_new(ax)
    color = COLORS[name[-1]] if name[-1:] in ("Q", "K", "V") else COLORS["x"]
    ax = plot_plane_transform(W, ax=ax, color=color, name=name, extent=extent, limits=limits,
                              title=title)
    for label in list(ax.texts):  # the arrow labels (the arrows themselves have no text)
        if label.get_text():
            label.remove()
    if pts is None:
        return ax
    img = pts @ W
    for p, q, marker in zip(pts, img, PLANE_MARKERS, strict=False):
        ax.plot([p[0], q[0]], [p[1], q[1]], color=color, lw=0.8, ls=":", zorder=3)
        # The grey marker is drawn larger: where W barely moves a point, a grey rim stays visible.
        ax.scatter([p[0]], [p[1]], color=COLORS["x"], marker=marker, s=90, zorder=5)
        ax.scatter([q[0]], [q[1]], color=color, marker=marker, s=55, zorder=6, edgecolor="white")
    return ax


#: Where a figure legend can go: inside ("upper right", …) or outside the panels ("outside …").
#: "best" is for a legend inside one panel only.
LEGEND_PLACES = (*(p for p in Legend.codes if p != "best"),
                 *(f"outside {p}" for p in Legend.codes if p not in ("best", "center")),
                 "outside left upper", "outside left lower", "outside right upper", "outside right lower")


def _figure(fig, name: str):
    if not isinstance(fig, FigureBase):
        raise HelpersTypeError(f"{name} には matplotlib の図(例: fig, axes = plt.subplots(...) の fig)を渡してください。"
                               f"{type(fig).__name__} が来ました。")
    return fig


def _legend_place(loc, name: str) -> str:
    if text(loc, name) not in LEGEND_PLACES:
        raise HelpersError(f"{name} {loc!r} は凡例の置き場所として読めません。使えるもの: {'、'.join(LEGEND_PLACES)}")
    return loc


def _a_marker_per_label(a: dict) -> None:
    labels = a["labels"]
    if len(labels) > len(PLANE_MARKERS):
        raise HelpersError(f"ラベルは {len(PLANE_MARKERS)} 個までです。{len(labels)} 個が来ました。")


@public(_a_marker_per_label, fig=arg(_figure), labels=arg(texts), loc=arg(_legend_place), draws=True)
def plane_map_legend(fig, labels: Sequence[str], loc: str = "outside lower center"):
    """One legend for a figure of `plot_plane_map` panels: which marker is which word, what the
    grey and coloured points and the arrows are."""
    words = [Line2D([], [], ls="", marker=m, color="#333333", markerfacecolor="white")
             for m in PLANE_MARKERS[:len(labels)]]
    swatches = tuple(Patch(color=COLORS[r]) for r in ("Q", "K", "V"))
    arrows = tuple(Line2D([], [], color=COLORS[r], lw=2) for r in ("Q", "K", "V"))
    handles = [*words, Patch(color=COLORS["x"]), swatches, arrows]
    entries = [*labels, "灰色:元の埋め込み $x$", "色:行き先 $xW$(問い・見出し・中身)",
             "矢印:(1, 0) と (0, 1) の行き先"]
    # Two per row, read left to right (one row of five was wider than a 5.5-inch figure and was
    # cut off at both ends); matplotlib fills a legend column by column, hence the reordering.
    columns = 2
    order = [i for col in range(columns) for i in range(col, len(handles), columns)]
    return fig.legend([handles[i] for i in order], [entries[i] for i in order], loc=loc, ncol=columns,
                      fontsize=10, frameon=False, handler_map={tuple: HandlerTuple(ndivide=None, pad=0.3)})
