"""Pictures of matrices (chapters 04, 05, 07): the shapes of a product as boxes, a 2×2 W as a
map of the plane, and the tiles of a product as parallel hardware would take them.

Row-vector convention throughout: a point x of the plane goes to `x @ W`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from matplotlib import patheffects
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle

from .._validate import (
    HelpersError,
    HelpersTypeError,
    arg,
    as_matrix,
    flag,
    guard_size,
    integer,
    number,
    public,
    said,
)
from ..matmul import tile_slices
from ._base import (
    AX,
    AXIS_LABELS,
    COLORS,
    MAX_DRAWN,
    OPTIONAL_TEXT,
    TEXT_SIZE,
    axes_or_new,
    axis_limits,
    drawable_range,
    one_color,
    text,
    texts,
)
from .common import finish_plane

__all__ = ["plot_matmul_shapes", "plot_plane_transform", "plot_tiles"]



_GREY = COLORS["x"]


_WRONG = "#CC0000"


#: Boxes with more cells than this per side are drawn without the inner grid lines.
_MAX_GRID = 16


#: The longest side of a box (rows or columns of a matrix) drawn: the book's are at most 8.
_MAX_SIDE = 10_000


#: At most this many grid steps from the centre to the edge of the plane (extent / step).
_MAX_GRID_STEPS = 100


def _math_name(name: str) -> str:
    """'W_Q' → '$W_{Q}$', 'XW' → '$XW$'; anything else (already $…$, spaces, Japanese) stays."""
    m = re.fullmatch(r"([A-Za-z]+)(?:_([A-Za-z0-9]+))?", name)
    if not m:
        return name
    base, sub = m.groups()
    return f"${base}_{{{sub}}}$" if sub else f"${base}$"


def _shape_pair(shape, what: str) -> tuple[int, int]:
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise HelpersTypeError(f"{what} は (行数, 列数) の整数の組で指定してください。{said(shape)} が来ました。")
    return (integer(shape[0], f"{what} の行数", 1, _MAX_SIDE),
            integer(shape[1], f"{what} の列数", 1, _MAX_SIDE))


def _three(values, what: str, meaning: str, optional: bool = False) -> list:
    """Three texts (the names of three boxes, the symbols of three sides); None too if `optional`."""
    if not isinstance(values, (tuple, list)) or len(values) != 3:
        raise HelpersTypeError(f"{what} は {meaning}にしてください。{said(values)} が来ました。")
    return [text(v, f"{what} の要素", optional) for v in values]


def _side_symbols(dims, what: str) -> list:
    """`dims`: the symbols of the (rows, inner, cols) sides, each a text or None; None: none."""
    if dims is None:
        return [None, None, None]
    return _three(dims, what, "(行, 内側, 列) の 3 つの記号(または None)", optional=True)


def _cell_lines(ax, x0: float, rows: int, cols: int) -> None:
    """Thin white lines between the unit cells of a box (skipped for big boxes)."""
    if rows > _MAX_GRID or cols > _MAX_GRID:
        return
    top = rows / 2
    for r in range(1, rows):
        ax.plot([x0, x0 + cols], [top - r, top - r], color="white", lw=1, zorder=3)
    for c in range(1, cols):
        ax.plot([x0 + c, x0 + c], [-top, top], color="white", lw=1, zorder=3)


def _box(ax, x0: float, rows: int, cols: int, color: str, alpha: float = 0.35) -> None:
    """A rows × cols matrix drawn as a box of unit cells, left edge at x0, centred on y = 0."""
    top = rows / 2
    ax.add_patch(Rectangle((x0, -top), cols, rows, facecolor=color, alpha=alpha, edgecolor="none"))
    _cell_lines(ax, x0, rows, cols)
    ax.add_patch(Rectangle((x0, -top), cols, rows, fill=False, edgecolor=color, lw=2))


def _dim_text(value: int, symbol: str | None) -> str:
    return f"{symbol} = {value}" if symbol and symbol != str(value) else str(value)


def _label_box(ax, x0, rows, cols, name, row_sym, col_sym, color, row_color=None, col_color=None,
               size: float = 10):
    top = rows / 2
    row_text = _dim_text(rows, row_sym)
    # Turned along the side when it is a phrase ("n = 5"); a bare number stays upright (a 1
    # turned on its side reads as 一).
    ax.text(x0 - 0.12, 0, row_text, ha="right", va="center", fontsize=size,
            rotation=90 if len(row_text) > 2 else 0, color=row_color or "black")
    ax.text(x0 + cols / 2, top + 0.15, _dim_text(cols, col_sym), ha="center", va="bottom",
            fontsize=size, color=col_color or "black")
    ax.text(x0 + cols / 2, -top - 0.25, name, ha="center", va="top", fontsize=size + 3,
            color=color)


def _frame_boxes(ax, x_min: float, x_max: float, height: int, title: str | None):
    """Limits that fit a row of boxes centred on y = 0 (with room for labels), no axes."""
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(-height / 2 - 1.4, height / 2 + 0.9)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax


@public(left=arg(_shape_pair), right=arg(_shape_pair), names=arg(_three, meaning="(左, 右, 結果) の 3 つの文字列"),
        dims=arg(_side_symbols),
        color=arg(one_color), left_color=arg(one_color), title=OPTIONAL_TEXT, ax=AX, draws=True)
def plot_matmul_shapes(
    ax=None,
    left: tuple[int, int] = (1, 2),
    right: tuple[int, int] = (2, 2),
    names: Sequence[str] = ("x", "W_Q", "q"),
    color: str = COLORS["Q"],
    left_color: str = _GREY,
    dims: Sequence[str | None] | None = None,
    title: str | None = None,
):
    """Draw `left · right → result` as boxes whose sides are proportional to the shapes.

    Each side carries its size (and, with `dims=(rows, inner, cols)`, a symbol such as
    r"$d_{model}$"). When the inner sizes differ, they are drawn in red and no result is drawn:
    that product does not exist.
    """
    (n, d), (d2, m) = left, right
    row_sym, inner_sym, col_sym = dims
    fits = d == d2
    inner_color = None if fits else _WRONG
    ax = axes_or_new(ax)
    name_l, name_r, name_y = (_math_name(s) for s in names)

    gap = max(3.0, 0.12 * (d + m + m))
    x_left = 0.0
    x_right = x_left + d + gap
    _box(ax, x_left, n, d, left_color)
    _label_box(ax, x_left, n, d, name_l, row_sym, inner_sym, left_color, col_color=inner_color)
    ax.text(x_left + d + gap / 2, 0, r"$\cdot$", ha="center", va="center", fontsize=30)
    _box(ax, x_right, d2, m, color)
    _label_box(ax, x_right, d2, m, name_r, inner_sym, col_sym, color, row_color=inner_color)
    x_end = x_right + m + gap
    ax.text(x_right + m + gap / 2, 0, "→", ha="center", va="center", fontsize=16)
    if fits:
        _box(ax, x_end, n, m, color, alpha=0.7)
        _label_box(ax, x_end, n, m, name_y, row_sym, col_sym, color)
        x_max = x_end + m
    else:
        ax.text(x_end, 0, f"形が合いません\n{d} ≠ {d2}", ha="left", va="center", fontsize=12,
                color=_WRONG)
        x_max = x_end + 4
    return _frame_boxes(ax, -2.2, x_max + 0.6, max(n, d2), title)


def _halo(width: float = 3.0) -> list:
    """A white outline behind a text, so it stays readable on grid lines and points."""
    return [patheffects.withStroke(linewidth=width, foreground="white")]


def _text_align(direction: np.ndarray) -> tuple[str, str]:
    """(ha, va) that put a text on the side of its anchor that `direction` points to."""
    dx, dy = (float(v) for v in direction)
    size = float(np.hypot(dx, dy)) or 1.0
    ha = "center" if abs(dx) < 0.35 * size else ("left" if dx > 0 else "right")
    va = "center" if abs(dy) < 0.35 * size else ("bottom" if dy > 0 else "top")
    return ha, va


def _a_grid_that_can_be_drawn(a: dict) -> None:
    name = a["name"]
    W = a["W"] = as_matrix(a["W"], name)
    if W.shape != (2, 2):
        raise HelpersError(
            f"平面から平面への変換として描けるのは 2×2 の {name} だけです。shape {W.shape} が来ました。"
        )
    extent, step = a["extent"], a["step"]
    if step > extent:
        raise HelpersError(
            f"extent は正の数、step は 0 より大きく extent 以下にしてください。extent={extent}, step={step}。"
        )
    if extent / step > _MAX_GRID_STEPS:
        raise HelpersError(
            f"方眼の線が多すぎます: extent / step = {extent / step:g} ですが、{_MAX_GRID_STEPS} までにしてください。"
            "step を大きくするか extent を小さくしてください。"
        )
    pts = a["points"]
    if pts is not None:
        if pts.shape[1] != 2:
            raise HelpersError(f"points は n×2(平面の点)にしてください。shape {pts.shape} が来ました。")
        guard_size(pts.shape, "点(points)", limit=MAX_DRAWN)
    labels = a["labels"]
    if labels is not None and pts is not None and len(labels) != pts.shape[0]:
        raise HelpersError(f"ラベルが {len(labels)} 個、点が {pts.shape[0]} 個です。同じ数にしてください。")
    with np.errstate(over="ignore"):  # too far (inf) is refused just below, without a warning
        reach = [extent * float(np.abs(W).sum(axis=0).max()), extent]
        if pts is not None:
            reach.append(float(np.abs(np.vstack([pts, pts @ W])).max()))
    if a["limits"] is None:
        a["limits"] = (-1.1 * max(reach), 1.1 * max(reach))
        drawable_range(*a["limits"], f"{name} と extent{'、points' if pts is not None else ''} から決まる図の範囲")


@public(_a_grid_that_can_be_drawn, name=arg(text), ax=AX, color=arg(one_color),
        extent=arg(number, positive=True), step=arg(number, positive=True),
        points=arg(as_matrix, optional=True), labels=arg(texts, optional=True),
        show_original=arg(flag), key=arg(flag), title=OPTIONAL_TEXT, axis_labels=AXIS_LABELS,
        label_size=TEXT_SIZE, limits=arg(axis_limits, optional=True), draws=True)
def plot_plane_transform(
    W,
    ax=None,
    color: str = COLORS["Q"],
    name: str = "W",
    points=None,
    labels: Sequence[str] | None = None,
    extent: float = 2.0,
    step: float = 0.5,
    show_original: bool = True,
    limits: tuple[float, float] | None = None,
    title: str | None = None,
    axis_labels: Sequence[str] = ("1 成分め", "2 成分め"),
    key: bool = False,
    label_size: float = 10,
):
    """A 2×2 `W` as a map of the plane: the grid (grey) and its image under `x ↦ xW` (coloured).

    The arrows are where the two basis vectors go: (1, 0) ↦ row 1 of W, (0, 1) ↦ row 2 of W.
    The shaded shape is the image of the unit square. With `points` (n × 2), each point is drawn
    grey and its image `point @ W` coloured, labelled with `labels` (on the far side of the
    image from where its dotted line comes in). `key=True` adds a legend under the plane that
    says what grey/colour and solid/dashed mean. `label_size` is the font size of the arrows'
    labels (raise it when several planes share one wide figure).
    """
    pts = points
    moved = None if pts is None else pts @ W  # where x ↦ xW sends the points
    ax = axes_or_new(ax)
    ticks = np.arange(-extent, extent + step / 2, step)
    for c in ticks:
        # The image of lines of constant 1st coordinate is solid, of constant 2nd dashed: a turn
        # shows. The original grid is all solid, as the key's 「元の方眼」 draws it.
        for seg, ls in ((np.array([[c, -extent], [c, extent]]), "-"),
                        (np.array([[-extent, c], [extent, c]]), "--")):
            if show_original:
                ax.plot(seg[:, 0], seg[:, 1], color="#cccccc", lw=0.8, ls="-", zorder=1)
            img = seg @ W
            ax.plot(img[:, 0], img[:, 1], color=color, lw=0.9, ls=ls, alpha=0.5, zorder=2)
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    ax.add_patch(Polygon(square @ W, closed=True, facecolor=color, alpha=0.15, edgecolor="none",
                         zorder=2))
    for row, tex in ((0, r"$(1,0)\,$"), (1, r"$(0,1)\,$")):
        tip, other = W[row], W[1 - row]
        ax.annotate("", xy=tip, xytext=(0, 0), zorder=7,
                    arrowprops={"arrowstyle": "-|>", "color": color, "lw": 2.2,
                                "shrinkA": 0, "shrinkB": 0})
        # Label the middle of the arrow, on the side away from the other arrow (tips are
        # where the words' points tend to crowd).
        side = np.array([-tip[1], tip[0]])
        if side @ other > 0:
            side = -side
        length = float(np.hypot(*side))
        side = side / length * 0.05 * extent if length > 0 else np.zeros(2)
        ha, va = _text_align(side)
        ax.text(tip[0] / 2 + side[0], tip[1] / 2 + side[1], f"{tex}{_math_name(name)}",
                color=color, fontsize=label_size, zorder=8, ha=ha, va=va,
                bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none", "pad": 1})
    if pts is not None:
        ax.scatter(pts[:, 0], pts[:, 1], color=_GREY, s=18, zorder=5)
        ax.scatter(moved[:, 0], moved[:, 1], color=color, s=30, zorder=6, edgecolor="white")
        for k, (p, q) in enumerate(zip(pts, moved, strict=True)):
            ax.plot([p[0], q[0]], [p[1], q[1]], color=color, lw=0.8, ls=":", zorder=3)
            if labels is not None:
                away = q - p if np.hypot(*(q - p)) > 1e-9 else np.array([1.0, 0.0])
                ha, va = _text_align(away)
                ax.annotate(labels[k], xy=q, xytext=6 * away / np.hypot(*away),
                            textcoords="offset points", ha=ha, va=va, color=color, fontsize=10,
                            zorder=6, path_effects=_halo())
    ax.grid(False)
    finish_plane(ax, limits, axis_labels, title)
    if key:
        shown = _math_name(name).strip("$")
        handles = [Line2D([], [], color=color, lw=1.2, ls="-", label="元の縦線の行き先"),
                   Line2D([], [], color=color, lw=1.2, ls="--", label="元の横線の行き先")]
        if show_original:
            handles.insert(0, Line2D([], [], color="#cccccc", lw=1.2, label="元の方眼"))
        if pts is not None:
            handles += [Line2D([], [], color=_GREY, marker="o", ls="", label="元の $x$"),
                        Line2D([], [], color=color, marker="o", ls="", label=f"行き先 $x{shown}$")]
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2,
                  fontsize=10, frameon=False)
    return ax


#: Distinct, colour-blind-friendly fills for the tiles of a small product, none of them close to
#: the Q/K/V colours (blue, vermillion, green): orange, purple, grey, brown, yellow.
_TILE_COLORS = ("#E69F00", "#CC79A7", "#999999", "#8C6D31", "#F0E442")


def _tiles_of_a_product(a: dict) -> None:
    (n, d), (d2, m) = a["x_shape"], a["w_shape"]
    if d != d2:
        raise HelpersError(
            f"X の列数と W の行数が違います: x_shape {(n, d)}、w_shape {(d2, m)}。"
            "(n×d) · (d×m) の形にしてください。"
        )
    guard_size((n, m), "結果 Y(X · W)", limit=MAX_DRAWN)  # at most one tile (a number on it) per cell
    tiles = tile_slices((n, m), a["tile"])  # refuses a `tile` that cannot cut Y
    if a["highlight"] is not None:
        integer(a["highlight"], "highlight(タイル番号)", 0, len(tiles) - 1)


@public(_tiles_of_a_product, label_size=TEXT_SIZE, x_shape=arg(_shape_pair), w_shape=arg(_shape_pair),
        names=arg(_three, meaning="(X, W, Y) の 3 つの文字列"), title=OPTIONAL_TEXT, ax=AX, draws=True)
def plot_tiles(
    x_shape: tuple[int, int],
    w_shape: tuple[int, int],
    tile,
    ax=None,
    highlight: int | None = None,
    names: Sequence[str] = ("X", "W", "Y"),
    title: str | None = None,
    label_size: float = 10,
):
    """`X · W → Y` with Y cut into tiles; each tile is coloured and numbered.

    With `highlight=t`, the band of rows of X and the band of columns of W that tile t needs are
    coloured like tile t: that is all it reads, which is why tiles can be computed at the same time.
    `label_size` is the font size of the sizes beside the boxes (names and numbers scale with it).
    """
    (n, d), (_, m) = x_shape, w_shape
    tiles = tile_slices((n, m), tile)
    name_x, name_w, name_y = (_math_name(s) for s in names)
    ax = axes_or_new(ax)
    gap = 3.0
    x_w = d + gap
    x_y = x_w + m + gap
    for x0, rows, cols in ((0, n, d), (x_w, d, m)):
        ax.add_patch(Rectangle((x0, -rows / 2), cols, rows, facecolor="#eeeeee",
                               edgecolor=_GREY, lw=2))
    for x0, rows, cols, name in ((0, n, d, name_x), (x_w, d, m, name_w), (x_y, n, m, name_y)):
        _label_box(ax, x0, rows, cols, name, None, None, "black", size=label_size)
    ax.text(d + gap / 2, 0, r"$\cdot$", ha="center", va="center", fontsize=30)
    ax.text(x_w + m + gap / 2, 0, "→", ha="center", va="center", fontsize=16)
    for t, (rows, cols) in enumerate(tiles):
        c = _TILE_COLORS[t % len(_TILE_COLORS)]
        strong = highlight is None or t == highlight
        y_top = n / 2 - rows.start
        h = rows.stop - rows.start
        w = cols.stop - cols.start
        ax.add_patch(Rectangle((x_y + cols.start, y_top - h), w, h, facecolor=c,
                               alpha=0.85 if strong else 0.25, edgecolor="black", lw=1.5))
        ax.text(x_y + cols.start + w / 2, y_top - h / 2, str(t), ha="center", va="center",
                fontsize=label_size + (4 if t == highlight else 1), zorder=5,
                bbox={"boxstyle": "circle", "facecolor": "white", "edgecolor": "none",
                      "alpha": 0.9})
        if t == highlight:
            ax.add_patch(Rectangle((0, y_top - h), d, h, facecolor=c, alpha=0.85,
                                   edgecolor="black", lw=1.5))
            ax.add_patch(Rectangle((x_w + cols.start, -d / 2), w, d, facecolor=c, alpha=0.85,
                                   edgecolor="black", lw=1.5))
    for x0, rows, cols in ((0, n, d), (x_w, d, m), (x_y, n, m)):
        _cell_lines(ax, x0, rows, cols)
    return _frame_boxes(ax, -1.2, x_y + m + 0.4, max(n, d), title)
