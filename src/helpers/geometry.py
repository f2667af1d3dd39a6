"""The 2-D plane of the book's toy worlds: directions and the 2×2 maps that move it.

Row-vector convention, as everywhere in the book: a point x of the plane goes to `x @ W`.
"""

from __future__ import annotations

import numpy as np

from ._validate import arg, number, public

__all__ = ["rotation_scale_matrix", "question_vector"]


@public(angle_deg=arg(number, "angle_deg(角度)"), scale=arg(number, "scale(倍率)"))
def rotation_scale_matrix(angle_deg: float, scale: float = 1.0) -> np.ndarray:
    """The 2×2 W that turns the plane by `angle_deg` (counter-clockwise) and stretches it by `scale`.

    `[1, 0] @ W = scale · (cos θ, sin θ)`.
    """
    t = np.deg2rad(angle_deg)
    c, s = np.cos(t), np.sin(t)
    return scale * np.array([[c, s], [-s, c]])


@public(angle_deg=arg(number), length=arg(number, "問いの長さ length", positive=True))
def question_vector(angle_deg: float, length: float = 2.0) -> np.ndarray:
    """A 1 × 2 question on the 甘い/辛い plane: `angle_deg` from the 甘い axis, `length` long."""
    a = np.deg2rad(angle_deg)
    return length * np.array([[np.cos(a), np.sin(a)]])
