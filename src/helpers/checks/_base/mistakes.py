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
                   "e / e.sum(axis=1) だと、形 (n,) の和が列の方向に並んで、マス (i, j) が "
                   "行 j の和で割られます。",
    "max_no_keepdims": "各行の最大値を引くところで keepdims が抜けています。S - S.max(axis=1) だと、"
                       "形 (n,) の最大値が列の方向に並んで、マス (i, j) から行 j の最大値が引かれます"
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




def _digits(w: float, g: float) -> int:
    """Decimals enough to show `w` and `g` as different numbers (3 at least, 12 at most)."""
    digits = 3
    while digits < 12 and f"{w:.{digits}f}" == f"{g:.{digits}f}":
        digits += 1
    return digits


def _of(name: str, particle: str) -> str:
    """「weights の」 with the book's space after a name in ASCII, 「答えの」 without."""
    if not name:
        return ""
    return f"{name} {particle}" if name[-1].isascii() else f"{name}{particle}"


def first_difference(want, got, name: str = "") -> str:
    """The first entry where `got` differs from `want` (same shape), with as many digits as show
    the difference, and its size when that is below the third decimal. Positions are numpy's
    indices from 0, with the count from 1 beside the row (chapter 05 says indices start at 0). A
    table's whole row is shown with the columns that differ: 「weights の行 1(2 行め)は
    [0.1609 0.2695] になるはずが、[0.1609 0.2696] でした(列 1 が違います。差 9.0e-05)」,
    「…(どの列も違います)」 when all do; a vector's or a number's entry alone."""
    want, got = np.asarray(want, dtype=float), np.asarray(got, dtype=float)
    bad = ~np.isclose(got, want, atol=1e-6, equal_nan=True)
    index = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else (0,) * want.ndim
    w, g = float(want[index]), float(got[index])
    digits = _digits(w, g)
    size = f"差 {abs(g - w):.1e}" if digits > 3 and np.isfinite(g - w) else ""
    of = _of(name, "の")
    if want.ndim == 2:
        row = index[0]

        def shown(values):
            return "[" + " ".join(f"{v:.{digits}f}" for v in values) + "]"
        columns = [int(c) for c in np.flatnonzero(bad[row])] or [index[1]]
        if want.shape[1] == 1:
            column = ""
        elif len(columns) == want.shape[1]:
            column = "どの列も違います"
        else:
            column = "列 " + " と ".join(str(c) for c in columns) + " が違います"
        note = "。".join(t for t in (column, size) if t)
        return (f"{of}行 {row}({row + 1} 行め)は {shown(want[row])} になるはずが、{shown(got[row])} でした"
                + (f"({note})" if note else ""))
    where = f"{of}成分 {index[0]}({index[0] + 1} 番め)は " if want.ndim == 1 else _of(name, "は ")
    return f"{where}{w:.{digits}f} になるはずが、{g:.{digits}f} でした" + (f"({size})" if size else "")


def rounded_to(got, want) -> int | None:
    """The number of decimals `got` is `want` rounded to (0 to 4), or None when it is not that.

    Not when the rounding would make every entry of a varied `want` the same number: such a
    `got` (e.g. row sums that are all 1 against column sums between 0.5 and 1.5) says nothing
    about rounding, and naming int(...) would send the learner the wrong way."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape or np.allclose(got, want, atol=1e-6, rtol=0):
        return None
    varied = want.size > 1 and np.ptp(want) > 1e-9
    for decimals in range(0 if np.abs(want).max(initial=0) >= 1 else 1, 5):  # weights: not to 0 or 1
        for rounded in (np.round(want, decimals), np.trunc(want)) if decimals == 0 else (np.round(want, decimals),):
            if np.allclose(got, rounded, atol=1e-9, rtol=0) and not (varied and np.ptp(rounded) == 0):
                return decimals
    return None


def fail_on_wrong_values(want, got, name: str, *, said: str = "") -> None:
    """The last word on a result of the right shape: values rounded (to how many decimals), or
    the first entry that differs (`first_difference`); `said` first."""
    if (decimals := rounded_to(got, want)) is not None:
        where = "整数に" if decimals == 0 else f"小数第 {decimals} 位で"
        fail(f"{said}{_of(name, 'の') + '値' if name else '返した値'}を{where}丸めています(int(...) や round(...)、np.round)。"
             "丸めずに、計算したままの値を返しましょう。", mistake="rounded")
    fail(f"{said}{first_difference(want, got, name)}。", mistake="wrong_values")


def fail_unless_right(got, variants: Mapping[str, np.ndarray], hints: Mapping[str, str], *,
                      wrong_shape: str, name: str, said: str = "", shape_mistake: str = "shape") -> None:
    """The verdict on a result against its exercise's variants: nothing when it is "right";
    otherwise its typical mistake's hint, else `wrong_shape` when the shape differs, else the
    first entry that differs (`fail_on_wrong_values`, `said` first)."""
    want = variants["right"]
    if same(got, want):
        return
    fail_on_typical_mistake(got, variants, hints)
    if np.shape(got) != want.shape:
        fail(wrong_shape, mistake=shape_mistake)
    fail_on_wrong_values(want, got, name, said=said)
