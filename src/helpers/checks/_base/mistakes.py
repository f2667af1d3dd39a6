"""Typical mistakes: a wrong result matched to the wrong formula that gives it, and its hint."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .verdicts import fail


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape and equal values (to rounding); NaN where the other has NaN counts as equal,
    so a wrong formula's NaN (0/0 after an underflow) is recognised as that formula."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=1e-6, equal_nan=True))


def typical_mistake(got: np.ndarray, variants: Mapping[str, np.ndarray]) -> str | None:
    """The name of the first wrong variant (every key but "right") that `got` equals, or None.

    Several spellings of one mistake share its name: "no_keepdims:stable" is reported as
    "no_keepdims", so a hint table needs one entry per mistake.
    """
    for name, wrong in variants.items():
        if name != "right" and same(got, wrong):
            return name.split(":")[0]
    return None


#: The hints for `keepdims_slips`, shared by every chapter that asks for a row-wise softmax.
KEEPDIMS_HINTS = {
    "no_keepdims": "行の和で割るときに keepdims を忘れていませんか? "
                   "e / e.sum(axis=1) だと、形 (n,) の和が列の方向に並んで、i 行 j 列が "
                   "j 行めの和で割られます。",
    "max_no_keepdims": "各行の最大値を引くところで keepdims が抜けています。S - S.max(axis=1) だと、"
                       "形 (n,) の最大値が列の方向に並んで、i 行 j 列から j 行めの最大値が引かれます"
                       "(和で割るところも同じです)。",
}


def keepdims_slips(S: np.ndarray) -> dict[str, np.ndarray]:
    """What a row-wise softmax of the scores `S` gives when a row's sum or maximum loses
    `keepdims=True`: on a square table the (n,) result lines up with the columns instead of
    crashing. With and without the maximum subtracted; none for a table that is not square."""
    if S.shape[0] != S.shape[1]:
        return {}
    with np.errstate(over="ignore", invalid="ignore"):  # huge scores: the naive versions overflow
        raw = np.exp(S)
        stable = np.exp(S - S.max(axis=1, keepdims=True))
        shifted = np.exp(S - S.max(axis=1))
        return {
            "no_keepdims": raw / raw.sum(axis=1),
            "no_keepdims:stable": stable / stable.sum(axis=1),
            "max_no_keepdims": shifted / shifted.sum(axis=1, keepdims=True),
            "max_no_keepdims:both": shifted / shifted.sum(axis=1),
        }


def fail_on_typical_mistake(got: np.ndarray, variants: Mapping[str, np.ndarray],
                            hints: Mapping[str, str], *, said: str = "") -> None:
    """If `got` is one of the typical mistakes in `variants`, fail with its hint (`said` first)."""
    mistake = typical_mistake(got, variants)
    if mistake:
        fail(f"{said}{hints[mistake]}", mistake=mistake)


