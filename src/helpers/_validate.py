"""Input validation shared by every public helper.

Messages are Japanese because learners read them; each names what was expected and what came.
"""

from __future__ import annotations

import numpy as np


def as_matrix(a, name: str) -> np.ndarray:
    """Return `a` as a finite 2-D float array, or raise a Japanese ValueError/TypeError."""
    arr = as_array(a, name)
    if arr.ndim == 1:
        raise ValueError(
            f"{name} は 2 次元の配列(行列)で渡してください。1 次元の配列 shape {arr.shape} が来ました。"
            f"1 本のベクトルなら {name}.reshape(1, -1) で 1×{arr.shape[0]} の横一列にできます。"
        )
    if arr.ndim != 2:
        raise ValueError(
            f"{name} は 2 次元の配列(行列)であるべきですが、{arr.ndim} 次元 shape {arr.shape} が来ました。"
        )
    return arr


def as_array(a, name: str) -> np.ndarray:
    """Return `a` as a finite, non-empty float array of any dimension."""
    if isinstance(a, (str, bytes)) or a is None:
        raise TypeError(f"{name} には数の配列を渡してください。{type(a).__name__} が来ました。")
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{name} を数の配列に変換できません({type(a).__name__} が来ました)。"
            "数だけを並べたリストか numpy 配列を渡してください。"
        ) from err
    if arr.size == 0:
        raise ValueError(f"{name} が空です(shape {arr.shape})。少なくとも 1 つの数が必要です。")
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.any(np.isnan(arr)) else "inf(無限大)"
        raise ValueError(
            f"{name} に {bad} が含まれています。計算に混ざると結果全体が壊れるので、"
            "有限の数だけを渡してください。"
        )
    return arr


def require_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str,
                        dim: str = "次元") -> None:
    """The rows of `a` and of `b` must have the same length `dim` (to take their dot products)."""
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{name_a} と {name_b} の{dim}が違います: {name_a} は shape {a.shape}({dim} {a.shape[-1]})、"
            f"{name_b} は shape {b.shape}({dim} {b.shape[-1]})です。内積を取るには同じ{dim}が必要です。"
        )


def matmul_operands(
    a, b, names: tuple[str, str], inner: str = "d", inner_meaning: str = "", out: str = "m"
) -> tuple[np.ndarray, np.ndarray]:
    """`a` (n × inner) and `b` (inner × out) as finite matrices whose inner sizes agree.

    The message names both shapes and, with `inner_meaning`, what the shared size is.
    """
    na, nb = names
    a = as_matrix(a, na)
    b = as_matrix(b, nb)
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"{na} @ {nb} の形が合いません。{na} は shape {a.shape}({a.shape[1]} 列)ですが、"
            f"{nb} は shape {b.shape}({b.shape[0]} 行)です。{nb} の行数は {na} の列数 {inner}"
            f"{inner_meaning} と同じ {a.shape[1]} でなければなりません: "
            f"(n×{inner}) · ({inner}×{out}) → (n×{out})。"
        )
    return a, b


def integer(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """`value` as a plain int (bool refused), optionally within `lo` … `hi` inclusive."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} は整数で指定してください。{value!r}({type(value).__name__})が来ました。")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        where = (f"{lo} から {hi} の範囲" if lo is not None and hi is not None
                 else f"{lo} 以上" if lo is not None else f"{hi} 以下")
        raise ValueError(f"{name} は {where}の整数にしてください。{value} が来ました。")
    return value


def number(value, name: str, lo: float | None = None, hi: float | None = None,
           positive: bool = False) -> float:
    """`value` as a finite float (bool and strings refused), optionally within `lo` … `hi` or > 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} は数で指定してください。{value!r}({type(value).__name__})が来ました。")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} は有限の数にしてください。{value} が来ました。")
    if positive and value <= 0:
        raise ValueError(f"{name} は正の数にしてください。{value} が来ました。")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        where = (f"{lo:g} 以上 {hi:g} 以下" if lo is not None and hi is not None
                 else f"{lo:g} 以上" if lo is not None else f"{hi:g} 以下")
        raise ValueError(f"{name} は {where}にしてください。{value} が来ました。")
    return value
