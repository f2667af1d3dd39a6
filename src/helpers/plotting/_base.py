"""What every plotting module shares: the book's colours and small axis helpers (the style:
helpers._style).

Colours (Okabe–Ito, colour-blind safe) are the same in every chapter:
Q blue, K vermillion, V green, the embedding x grey.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import cbook
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.mathtext import MathTextParser

from .. import _validate
from .._validate import (
    HelpersError,
    HelpersTypeError,
    arg,
    as_array,
    guard_size,
    number,
    public,
    said,
)

COLORS = {"Q": "#0072B2", "K": "#D55E00", "V": "#009E73", "x": "#666666"}


#: Extra colours for several words at once: Okabe–Ito without the Q/K/V ones and without
#: yellow (unreadable as text on white), plus a brown.
WORD_COLORS = ("#E69F00", "#56B4E9", "#CC79A7", "#000000", "#8C6D31", "#999999")


ROW_TITLE = "問い(見る側)"


COL_TITLE = "見出し(見られる側)"


#: The most numbers one figure writes or draws (heatmap cells, bars, arrows, tiles): each is a
#: text on the figure, and a thousand of them already take about a second to draw.
MAX_DRAWN = 1_000

#: The gid of a heatmap's cells, so that later figures find them on the axes.
HEATMAP_GID = "qkv-heatmap"


def text(value, name: str, optional: bool = False) -> str | None:
    """`_validate.text` for what a figure draws: a `$…$` part must be maths matplotlib can draw.

    matplotlib reads the maths only when it draws, after the call has returned: its error would
    end the cell with a traceback through IPython's display code instead of a Japanese message.
    """
    value = _validate.text(value, name, optional)
    if value is not None:
        _check_maths(value, name)
    return value


def texts(values, name: str, count: int | None = None,
          counted: str = _validate.FIGURE_COUNT, optional: bool = False) -> list[str] | None:
    """`_validate.texts` for labels a figure draws, each checked as `text` checks a title; None
    passes too when `optional`."""
    if values is None and optional:
        return None
    values = _validate.texts(values, name, count, counted)
    for value in values:
        _check_maths(value, f"{name} の要素")
    return values


#: What `axis_labels` (the names of the x and y axes) are counted by, for `texts(..., counted=)`.
AXIS_NAMES = "横軸と縦軸の名前"
#: The spec of an `axis_labels` argument: the names of the two axes.
AXIS_LABELS = arg(texts, count=2, counted=AXIS_NAMES)


_MATHS = MathTextParser("path")


def _check_maths(value: str, name: str) -> None:
    if not cbook.is_math_text(value):  # no pair of unescaped $: drawn as plain text
        return
    try:
        _MATHS.parse(value)
    except ValueError as err:
        raise HelpersError(
            f"{name} の「{value}」は、$ で囲んだ部分が matplotlib の数式として読めません"
            "(例: $W_Q$、$\\sqrt{d_k}$)。数式の書き方を見直すか、ドル記号そのものは \\$ と書いてください。"
        ) from err


def axes(value, name: str):
    """An `ax` argument: the matplotlib axes to draw on, or None (a new figure when drawing)."""
    if value is not None and not isinstance(value, Axes):
        raise HelpersTypeError(
            f"{name} には matplotlib の軸(例: fig, ax = plt.subplots() の ax)か None を渡してください。"
            f"{type(value).__name__} が来ました。"
        )
    return value


def axes_or_new(ax):
    """The axes to draw on: `ax` itself, or a new figure's axes when `ax` is None."""
    if axes(ax, "ax") is None:
        _, ax = plt.subplots()
    return ax


#: The specs of the arguments many figures take (`@public(..., draws=True)`, in `_validate`).
AX = arg(axes)
OPTIONAL_TEXT = arg(text, optional=True)  # a title, an axis label, a legend entry: drawn when given


def colors_of(values, name: str, count: int) -> list:
    """`count` matplotlib colours (names such as "tab:blue" or "#0072B2", or RGB tuples)."""
    if isinstance(values, (str, bytes, dict, set)) or not isinstance(values, (list, tuple)):
        raise HelpersTypeError(f"{name} には色のリスト(例: [\"#0072B2\", \"#D55E00\"])を渡してください。"
                               f"{type(values).__name__} が来ました。")
    if len(values) != count:
        raise HelpersError(f"{name} は {count} 個にしてください。{len(values)} 個が来ました。")
    odd = [v for v in values if not matplotlib.colors.is_color_like(v)]
    if odd:
        raise HelpersError(f"{name} の {said(odd[0])} は色として読めません。\"#0072B2\" や \"tab:blue\" のように書いてください。")
    return list(values)


#: Axis limits and colour ranges stay within ± this: near 1e308 matplotlib's ticks overflow
#: when the figure is drawn.
MAX_LIMIT = 1e300


def drawable_range(lo: float, hi: float, what: str) -> None:
    """Refuse a range (axis limits, colours) too wide for matplotlib to put ticks on."""
    if not max(abs(lo), abs(hi)) <= MAX_LIMIT:
        raise HelpersError(
            f"{what}が ({lo:g}, {hi:g}) になり、大きすぎて図に描けません(絶対値 {MAX_LIMIT:g} まで)。"
            "もっと小さな値にしてください。"
        )


def axis_limits(values, name: str, optional: bool = False) -> tuple[float, float] | None:
    """Axis limits (lo, hi) given by the learner: two numbers, lo < hi, that can be drawn (None
    too when `optional`)."""
    if values is None and optional:
        return None
    lo, hi = _validate.pair(values, name)
    drawable_range(lo, hi, name)
    return lo, hi


def one_color(value, name: str):
    """One matplotlib colour (a name such as "tab:blue", "#0072B2", or an RGB tuple)."""
    return colors_of([value], name, 1)[0]


def _colour_mapped(image, name: str):
    if not isinstance(image, ScalarMappable):
        raise HelpersTypeError(
            f"{name} には色の付いた図(ax.pcolormesh(...) や ax.imshow(...) が返すもの)を渡してください。"
            f"{type(image).__name__} が来ました。"
        )
    vmin, vmax = image.norm.vmin, image.norm.vmax
    if vmin is not None and vmax is not None and vmin > vmax:
        raise HelpersError(
            f"{name} の色の範囲が逆さまです(vmin={vmin:g}、vmax={vmax:g})。vmin は vmax 以下にしてください。"
        )
    return image


@public(image=arg(_colour_mapped), values=arg(as_array), draws=True)
def text_colors(image, values) -> np.ndarray:
    """For numbers written on the cells of `image` (a heatmap's cells, or any colour-mapped
    artist): white on dark, black on light.

    One rule for every heatmap of the book, static or live: the cell colour's luminance.
    """
    rgba = np.asarray(image.cmap(image.norm(values)))  # a tuple for one number
    luminance = rgba[..., :3] @ np.array([0.299, 0.587, 0.114])
    return np.where(luminance < 0.5, "white", "black")


def _labels_crowd(ax, labels: Sequence[str]) -> bool:
    """Whether the widest of `labels` would not fit under its column, written level (then they
    are turned 45°). Estimated before layout: the axes keep about 90 % of their grid width, and a
    full-width character is one em of the tick font, a half-width one half an em."""
    em = matplotlib.font_manager.FontProperties(size=matplotlib.rcParams["xtick.labelsize"])
    em_inches = em.get_size_in_points() / 72
    widest = max((sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.5 for c in label)
                  for label in labels), default=0.0)
    axes_inches = ax.bbox.width / ax.get_figure(root=True).dpi  # subfigures included
    column = axes_inches * 0.9 / max(len(labels), 1)
    return widest * em_inches > 0.85 * column


@public(lambda a: guard_size((len(a["row_labels"]), len(a["col_labels"])), "ヒートマップの表", limit=MAX_DRAWN),
        ax=AX, row_labels=arg(texts), col_labels=arg(texts), row_title=arg(text), col_title=arg(text),
        draws=True)
def heatmap_axes(ax, row_labels: Sequence[str], col_labels: Sequence[str],
                 row_title: str = ROW_TITLE, col_title: str = COL_TITLE):
    """Ticks and titles of a heatmap: rows = who looks (left), columns = who is looked at (top).

    Returns `ax` (a new figure's axes when `ax` is None).
    """
    ax = axes_or_new(ax)
    ax.grid(False)
    ax.set_xticks(range(len(col_labels)), col_labels,
                  rotation=45 if len(col_labels) > 4 and _labels_crowd(ax, col_labels) else 0)
    ax.set_yticks(range(len(row_labels)), row_labels)
    ax.set_xlabel(col_title, labelpad=8)
    ax.set_ylabel(row_title)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    return ax


def heatmap_of(ax):
    """The cells of the heatmap that plot_heatmap drew on `ax` (a QuadMesh), after checking."""
    cells = [c for c in axes_or_new(ax).collections if c.get_gid() == HEATMAP_GID] if ax is not None else []
    if not cells:  # axes_or_new refuses what is not an Axes
        raise HelpersError("ax には plot_heatmap でヒートマップを描いた軸を渡してください(ヒートマップがありません)。")
    return cells[-1]


def with_heatmap(ax, name: str):
    """A spec: axes on which `plot_heatmap` drew (later figures frame or shade its cells)."""
    heatmap_of(ax)
    return ax


def heatmap_axes_of(ax):
    """`ax` after checking that a heatmap was drawn on it; its (rows, cols)."""
    return heatmap_of(ax).get_array().shape[:2]


def text_size(size, name: str) -> float:
    """A font size: a positive finite number, at most 100 points (FreeType refuses sizes far
    beyond it when the figure is drawn)."""
    return number(size, f"{name}(文字の大きさ)", positive=True, hi=100)


#: The spec of a font size argument (`label_size`, `legend_size`).
TEXT_SIZE = arg(text_size)
