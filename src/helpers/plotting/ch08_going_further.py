"""Chapter 08's pictures: attention maps with the masked half drawn as such, one map per head."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from .._validate import HelpersError, HelpersTypeError, arg, as_array, as_matrix, flag, public, said
from ._base import AX, OPTIONAL_TEXT, axes_or_new, heatmap_axes_of, texts, with_heatmap
from .common import plot_heatmap

__all__ = ["MASKED_LOOK", "hidden_cells", "shade_masked", "plot_masked_heatmap", "plot_head_maps"]

#: How a hidden (masked) cell looks: light grey with diagonal hatching, over its number.
MASKED_LOOK = {"facecolor": "#e6e6e6", "edgecolor": "#8c8c8c", "hatch": "///", "lw": 0.0}


def _two_axes(mask, name: str) -> np.ndarray:
    """A mask of numbers (True/False too), finite or -inf, with two axes (queries × keys)."""
    m = as_array(mask, name, allow_neg_inf=True)
    if m.ndim != 2:
        raise HelpersError(f"{name} は 2 次元(問いの数 × 見出しの数)にしてください。shape {m.shape} が来ました。")
    return mask


@public(mask=arg(_two_axes), draws=True)
def hidden_cells(mask) -> np.ndarray:
    """True where `mask` hides a cell: a boolean mask as it is, an additive one where it is -inf."""
    raw = np.asarray(mask)
    return raw.astype(bool) if raw.dtype == bool else np.isneginf(np.asarray(mask, dtype=float))


def _hidden_of(mask, shape: tuple[int, int]) -> np.ndarray:
    """`hidden_cells(mask)`, which must have the heatmap's `shape`."""
    hidden = hidden_cells(mask)
    if hidden.shape != tuple(shape):
        raise HelpersError(f"mask の shape {hidden.shape} が、ヒートマップの shape {tuple(shape)} と違います。")
    return hidden


def _shade(ax, hidden: np.ndarray, animated: bool) -> list[Rectangle]:
    """One hatched square (MASKED_LOOK) over each True cell of `hidden`."""
    squares = []
    for i, j in zip(*np.nonzero(hidden), strict=True):
        square = Rectangle((j - 0.5, i - 0.5), 1, 1, zorder=4, animated=animated, **MASKED_LOOK)
        ax.add_patch(square)
        squares.append(square)
    return squares


def _a_mask_of_the_heatmap(a: dict) -> None:
    _hidden_of(a["mask"], heatmap_axes_of(a["ax"]))


@public(_a_mask_of_the_heatmap, ax=arg(with_heatmap), animated=arg(flag), draws=True)
def shade_masked(ax, mask, animated: bool = False) -> list[Rectangle]:
    """Cover every hidden cell of a heatmap drawn on `ax` with a hatched grey square.

    The square sits above the cell's number, so a masked cell reads as 「隠した」, not as 0.00.
    Returns the squares (a widget toggles their visibility).
    """
    return _shade(ax, hidden_cells(mask), animated)


#: What `plot_masked_heatmap` passes on to `plot_heatmap` besides the weights, labels and title.
_HEATMAP_OPTIONS = ("row_title", "col_title", "cmap", "fmt", "colorbar", "vmin", "vmax")


def _labels_and_mask_fit_the_weights(a: dict) -> None:
    m = a["weights"]
    a["row_labels"] = texts(a["row_labels"], "row_labels", count=m.shape[0])
    a["col_labels"] = texts(a["col_labels"], "col_labels", count=m.shape[1])
    _hidden_of(a["mask"], m.shape)
    odd = [key for key in a["heatmap_kw"] if key not in _HEATMAP_OPTIONS]
    if odd:
        raise HelpersTypeError(f"plot_masked_heatmap に {said(odd[0])} という引数はありません。"
                               f"使えるもの: {', '.join(_HEATMAP_OPTIONS)}")


@public(_labels_and_mask_fit_the_weights, weights=arg(as_matrix), title=OPTIONAL_TEXT, ax=AX, draws=True)
def plot_masked_heatmap(weights, row_labels: Sequence[str], col_labels: Sequence[str], mask,
                        ax=None, title: str | None = None, **heatmap_kw):
    """`plot_heatmap` of the weights, with the cells the mask hid hatched over."""
    m, hidden = weights, hidden_cells(mask)
    ax = plot_heatmap(m, row_labels, col_labels, ax=axes_or_new(ax), title=title,
                      vmin=heatmap_kw.pop("vmin", 0.0), vmax=heatmap_kw.pop("vmax", 1.0),
                      **heatmap_kw)
    _shade(ax, hidden, animated=False)
    return ax


def _three_axes(maps, name: str) -> np.ndarray:
    maps = as_array(maps, name)
    if maps.ndim != 3:
        raise HelpersError(f"{name} は (頭の数, 問いの数, 見出しの数) の 3 次元にしてください。shape {maps.shape} が来ました。")
    return maps


def _panels(axes, name: str) -> list:
    """Axes to draw on, one per map: a list, a grid of them, or one."""
    if isinstance(axes, Axes):
        axes = [axes]
    if not isinstance(axes, (list, tuple, np.ndarray)):
        raise HelpersTypeError(f"{name} には軸の並び(例: fig, axes = plt.subplots(1, 2) の axes)を渡してください。"
                               f"{type(axes).__name__} が来ました。")
    axes = list(np.ravel(np.array(axes, dtype=object)))
    if not all(isinstance(ax, Axes) for ax in axes):
        odd = next(ax for ax in axes if not isinstance(ax, Axes))
        raise HelpersTypeError(f"{name} の要素はすべて matplotlib の軸にしてください。{type(odd).__name__} が入っています。")
    return axes


def _a_panel_and_title_per_head(a: dict) -> None:
    maps, titles, axes = a["maps"], a["titles"], a["axes"]
    a["row_labels"] = texts(a["row_labels"], "row_labels", count=maps.shape[1])
    a["col_labels"] = texts(a["col_labels"], "col_labels", count=maps.shape[2])
    if not len(maps) == len(titles) == len(axes):
        raise HelpersError(f"頭が {len(maps)} 個、題が {len(titles)} 個、軸が {len(axes)} 個です。同じ数にしてください。")


@public(_a_panel_and_title_per_head, maps=arg(_three_axes), titles=arg(texts), axes=arg(_panels), draws=True)
def plot_head_maps(maps, row_labels: Sequence[str], col_labels: Sequence[str],
                   titles: Sequence[str], axes) -> list:
    """One attention map per head, side by side on `axes`, on the same 0‥1 colour scale.

    Only the last map gets a colour bar, so the maps keep the same size.
    """
    for k, (m, title, ax) in enumerate(zip(maps, titles, axes, strict=True)):
        plot_heatmap(m, row_labels, col_labels, ax=ax, title=title, vmin=0, vmax=1,
                     colorbar=k == len(maps) - 1)
    return axes
