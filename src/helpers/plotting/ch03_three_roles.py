"""Chapter 03's pictures: one guest's three faces as arrows, and a row or column of the
who-looks-for-whom table framed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.patches import Rectangle

from .._validate import HelpersError, arg, as_array, integer, number, pair, public, said
from ..data import AXES
from ._base import (
    AX,
    AXIS_LABELS,
    COLORS,
    OPTIONAL_TEXT,
    axes_or_new,
    heatmap_axes_of,
    text,
    with_heatmap,
)
from .common import plot_vectors

__all__ = ["FACE_LABELS", "plot_faces", "outline_heatmap"]


#: Chapter 03: the short tip labels of one person's three faces.
FACE_LABELS = {"q": "Q", "k": "K", "v": "V"}


def _face_vector(v, name: str) -> np.ndarray:
    arr = as_array(v, name)
    if arr.size != 2 or arr.ndim > 2 or (arr.ndim == 2 and arr.shape[0] != 1):
        raise HelpersError(
            f"{name} は平面の 1 本のベクトル(shape (2,) か 1×2 の横一列)で渡してください。"
            f"shape {arr.shape} が来ました。"
        )
    return arr.reshape(2)


def _face_labels(labels, name: str) -> dict[str, str]:
    """The tip labels: FACE_LABELS with the learner's own for some of q, k, v."""
    if labels is not None and (not isinstance(labels, dict) or not set(labels) <= set(FACE_LABELS)):
        raise HelpersError(
            f"{name} は {set(FACE_LABELS)} をキーにした辞書で渡してください(例:{{'q': '探す'}})。"
            f"{said(labels)} が来ました。"
        )
    return {**FACE_LABELS, **{key: text(value, f"{name}[{key!r}]") for key, value in (labels or {}).items()}}


@public(q=arg(_face_vector), k=arg(_face_vector), v=arg(_face_vector), ax=AX, title=OPTIONAL_TEXT,
        limits=arg(pair, optional=True), axis_labels=AXIS_LABELS, labels=arg(_face_labels), draws=True)
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
    names = labels
    faces = np.vstack([q, k, v])
    return plot_vectors(faces, [names[key] for key in ("q", "k", "v")], ax=axes_or_new(ax),
                        colors=[COLORS[key] for key in "QKV"], title=title,
                        axis_labels=axis_labels, limits=limits)


def _inside_the_heatmap(a: dict) -> None:
    n_rows, n_cols = heatmap_axes_of(a["ax"])
    for label, size in (("row", n_rows), ("col", n_cols)):
        a[label] = integer(a[label], label, 0, size - 1, optional=True)


@public(_inside_the_heatmap, ax=arg(with_heatmap), lw=arg(number, "lw(枠の線の太さ)", positive=True),
        draws=True)
def outline_heatmap(ax, row: int | None = None, col: int | None = None, lw: float = 3.0):
    """Frame one row (blue: what this person looks for) and/or one column (vermillion: who
    looks for this person) of a heatmap drawn by `plot_heatmap` on `ax` (chapter 03)."""
    n_rows, n_cols = heatmap_axes_of(ax)
    if row is not None:
        ax.add_patch(Rectangle((-0.5, row - 0.5), n_cols, 1, fill=False, ec=COLORS["Q"], lw=lw,
                               clip_on=False, zorder=3))
    if col is not None:
        ax.add_patch(Rectangle((col - 0.5, -0.5), 1, n_rows, fill=False, ec=COLORS["K"], lw=lw,
                               clip_on=False, zorder=3))
    return ax

