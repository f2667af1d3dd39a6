"""Chapter 08's pictures: attention maps with the masked half drawn as such, one map per head."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.patches import Rectangle

from .._validate import HelpersError, as_array
from ._base import axes_or_new, heatmap_axes_of
from .common import plot_heatmap

__all__ = ["MASKED_LOOK", "hidden_cells", "shade_masked", "plot_masked_heatmap", "plot_head_maps"]

#: How a hidden (masked) cell looks: light grey with diagonal hatching, over its number.
MASKED_LOOK = {"facecolor": "#e6e6e6", "edgecolor": "#8c8c8c", "hatch": "///", "lw": 0.0}


def hidden_cells(mask) -> np.ndarray:
    """True where `mask` hides a cell: a boolean mask as it is, an additive one where it is -inf."""
    m = np.asarray(mask)
    if m.ndim != 2:
        raise HelpersError(f"mask は 2 次元(問いの数 × 見出しの数)にしてください。shape {m.shape} が来ました。")
    return m.astype(bool) if m.dtype == bool else np.isneginf(m.astype(float))


def shade_masked(ax, mask, animated: bool = False) -> list[Rectangle]:
    """Cover every hidden cell of a heatmap drawn on `ax` with a hatched grey square.

    The square sits above the cell's number, so a masked cell reads as 「隠した」, not as 0.00.
    Returns the squares (a widget toggles their visibility).
    """
    n_rows, n_cols = heatmap_axes_of(ax)
    hidden = hidden_cells(mask)
    if hidden.shape != (n_rows, n_cols):
        raise HelpersError(f"mask の shape {hidden.shape} が、ヒートマップの shape {(n_rows, n_cols)} と違います。")
    squares = []
    for i, j in zip(*np.nonzero(hidden), strict=True):
        square = Rectangle((j - 0.5, i - 0.5), 1, 1, zorder=4, animated=animated, **MASKED_LOOK)
        ax.add_patch(square)
        squares.append(square)
    return squares


def plot_masked_heatmap(weights, row_labels: Sequence[str], col_labels: Sequence[str], mask,
                        ax=None, title: str | None = None, **heatmap_kw):
    """`plot_heatmap` of the weights, with the cells the mask hid hatched over."""
    ax = plot_heatmap(weights, row_labels, col_labels, ax=axes_or_new(ax), title=title,
                      vmin=heatmap_kw.pop("vmin", 0.0), vmax=heatmap_kw.pop("vmax", 1.0),
                      **heatmap_kw)
    shade_masked(ax, mask)
    return ax


def plot_head_maps(maps, row_labels: Sequence[str], col_labels: Sequence[str],
                   titles: Sequence[str], axes) -> list:
    """One attention map per head, side by side on `axes`, on the same 0‥1 colour scale.

    Only the last map gets a colour bar, so the maps keep the same size.
    """
    maps = as_array(maps, "maps")
    if maps.ndim != 3:
        raise HelpersError(f"maps は (頭の数, 問いの数, 見出しの数) の 3 次元にしてください。shape {maps.shape} が来ました。")
    axes = list(np.ravel(axes))
    if not len(maps) == len(titles) == len(axes):
        raise HelpersError(f"頭が {len(maps)} 個、題が {len(titles)} 個、軸が {len(axes)} 個です。同じ数にしてください。")
    for k, (m, title, ax) in enumerate(zip(maps, titles, axes, strict=True)):
        plot_heatmap(m, row_labels, col_labels, ax=ax, title=title, vmin=0, vmax=1,
                     colorbar=k == len(maps) - 1)
    return axes
