"""numpy's English shape errors (a product's, a broadcast's) read back and said in Japanese."""

from __future__ import annotations

import re

_MATMUL_MISMATCH = re.compile(r"^matmul: Input operand 1 has a mismatch in its core dimension 0.*"
                              r"\(size (\d+) is different from (\d+)\)")
_NOT_BROADCAST = re.compile(r"^operands could not be broadcast together with shapes (\S+) (\S+)")
_DOT_NOT_ALIGNED = re.compile(r"^shapes \((\d+),(\d+)\) and \((\d+),(\d+)\) not aligned")


def matmul_sizes(err: Exception) -> tuple[int, int] | None:
    """(columns on the left, rows on the right) when `err` is numpy's product mismatch, from
    `@`/np.matmul or from np.dot."""
    if not isinstance(err, ValueError):
        return None
    if m := _MATMUL_MISMATCH.match(str(err)):
        return int(m.group(2)), int(m.group(1))
    if m := _DOT_NOT_ALIGNED.match(str(err)):
        return int(m.group(2)), int(m.group(3))
    return None


def broadcast_shapes(err: Exception) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The two shapes when `err` is numpy's "operands could not be broadcast together"."""
    m = _NOT_BROADCAST.match(str(err)) if isinstance(err, ValueError) else None
    if not m:
        return None
    return tuple(tuple(int(d) for d in re.findall(r"\d+", g)) for g in m.groups())


def crash_in_japanese(err: Exception) -> str:
    """numpy's commonest shape errors (a product's, a broadcast's) said in Japanese, with the
    sizes; any other error as it is, cut at 300 characters.

    numpy's English (e.g. "gufunc signature (n?,k),(k,m?)->(n?,m?)") means nothing to a learner
    who wrote `Q @ K` for `Q @ K.T`.
    """
    text = str(err)
    if sizes := matmul_sizes(err):
        left_cols, right_rows = sizes
        return (f"行列の積(@ や np.dot)の形が合いません: 左の列の数が {left_cols}、右の行の数が {right_rows} です。"
                "A @ B は、A の列の数と B の行の数がそろっているときだけ計算できます")
    if isinstance(err, ValueError) and (m := _NOT_BROADCAST.match(text)):
        return (f"形 {m.group(1)} と {m.group(2)} の配列は、成分ごとの計算(+ - * /)で組み合わせられません。"
                "どちらかの形が思っていたものと違います")
    return f"{type(err).__name__}: {text[:300]}"


