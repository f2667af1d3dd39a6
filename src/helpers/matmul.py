"""Matrix multiplication taken apart (chapters 04–05).

Every cell of `Y = X @ W` is `X[i, :] @ W[:, j]`: one row of X, one column of W, nothing else.
The functions here compute Y piece by piece, cell by cell or tile by tile, in any order, so a
notebook can show that the pieces never wait for each other. They are for seeing, not for speed:
`X @ W` is always the fast way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from ._validate import matmul_operands

__all__ = [
    "matmul_cell",
    "cellwise_matmul",
    "tile_slices",
    "tile_map",
    "tiled_matmul",
    "best_time",
]


def matmul_cell(X, W, i: int, j: int) -> float:
    """One cell of `X @ W`: the dot product of row i of X with column j of W."""
    X, W = matmul_operands(X, W, ("X", "W"))
    n, m = X.shape[0], W.shape[1]
    for value, size, what in ((i, n, "行番号 i"), (j, m, "列番号 j")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{what} は整数で指定してください。{type(value).__name__} が来ました。")
        if not 0 <= value < size:
            raise ValueError(f"{what} は 0 から {size - 1} の範囲です。{value} が来ました。")
    return float(X[i, :] @ W[:, j])


def _check_order(order, count: int, what: str) -> np.ndarray:
    """`order` must list 0 … count-1, each exactly once (a permutation)."""
    if order is None:
        return np.arange(count)
    try:
        arr = np.asarray(order)
    except (TypeError, ValueError) as err:  # pragma: no cover - numpy accepts nearly anything
        raise TypeError(f"order は整数の並びで渡してください({type(order).__name__} が来ました)。") from err
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"order は整数の 1 次元の並びで渡してください。shape {arr.shape}・型 {arr.dtype} が来ました。"
        )
    if arr.size != count or not np.array_equal(np.sort(arr), np.arange(count)):
        raise ValueError(
            f"order は 0 から {count - 1} までの {what}番号を 1 回ずつ並べたもの(並べ替え)にしてください。"
            f"長さ {arr.size} の並びが来ました。rng.permutation({count}) で作れます。"
        )
    return arr


def cellwise_matmul(X, W, order: Sequence[int] | None = None) -> np.ndarray:
    """`X @ W` computed one cell at a time, visiting the cells in `order`.

    Cells are numbered row by row: cell `c` is row `c // m`, column `c % m` (m = W's columns).
    `order=None` visits them in that plain order; any permutation gives the same matrix, bit for bit,
    because each cell reads only its own row and column and no cell reads another cell.
    """
    X, W = matmul_operands(X, W, ("X", "W"))
    n, m = X.shape[0], W.shape[1]
    Y = np.empty((n, m))
    for c in _check_order(order, n * m, "セル"):
        i, j = divmod(int(c), m)
        Y[i, j] = X[i, :] @ W[:, j]
    return Y


def _tile_size(tile) -> tuple[int, int]:
    if isinstance(tile, (int, np.integer)) and not isinstance(tile, bool):
        tile = (int(tile), int(tile))
    if (
        not isinstance(tile, (tuple, list))
        or len(tile) != 2
        or not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in tile)
    ):
        raise TypeError(
            f"tile は正の整数 1 つ(正方形のタイル)か、(行数, 列数) の組で指定してください。{tile!r} が来ました。"
        )
    if min(tile) < 1:
        raise ValueError(f"tile の大きさは 1 以上にしてください。{tuple(tile)} が来ました。")
    return int(tile[0]), int(tile[1])


def tile_slices(shape: tuple[int, int], tile) -> list[tuple[slice, slice]]:
    """The tiles that cover an `n × m` output, row by row: a list of (row slice, column slice).

    Tiles at the right and bottom edges are smaller when the sizes do not divide evenly.
    """
    if (
        not isinstance(shape, (tuple, list))
        or len(shape) != 2
        or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 1
                   for s in shape)
    ):
        raise ValueError(f"shape は (行数, 列数) の正の整数の組にしてください。{shape!r} が来ました。")
    tr, tc = _tile_size(tile)
    n, m = int(shape[0]), int(shape[1])
    return [
        (slice(r, min(r + tr, n)), slice(c, min(c + tc, m)))
        for r in range(0, n, tr)
        for c in range(0, m, tc)
    ]


def tile_map(shape: tuple[int, int], tile) -> np.ndarray:
    """An `n × m` integer array: the number of the tile that each output cell belongs to."""
    tiles = tile_slices(shape, tile)  # validates shape and tile
    ids = np.empty((int(shape[0]), int(shape[1])), dtype=int)
    for t, (rows, cols) in enumerate(tiles):
        ids[rows, cols] = t
    return ids


def tiled_matmul(X, W, tile, order: Sequence[int] | None = None) -> np.ndarray:
    """`X @ W` assembled from output tiles, each computed alone as `X[rows] @ W[:, cols]`.

    This is how parallel hardware splits the work: a tile needs only a band of rows of X and a
    band of columns of W, so different cores (or GPU thread blocks) can compute tiles at once.
    `order` (a permutation of the tile numbers of `tile_slices`) changes only the visiting order.
    """
    X, W = matmul_operands(X, W, ("X", "W"))
    tiles = tile_slices((X.shape[0], W.shape[1]), tile)
    Y = np.empty((X.shape[0], W.shape[1]))
    for t in _check_order(order, len(tiles), "タイル"):
        rows, cols = tiles[int(t)]
        Y[rows, cols] = X[rows, :] @ W[:, cols]
    return Y


def best_time(fn: Callable, *args, repeat: int = 3, number: int = 1) -> float:
    """The fastest of `repeat` measurements of `fn(*args)` (seconds per call, averaged over `number`).

    The minimum is the usual choice: slower runs are the same work plus interruptions.
    Timings differ from run to run and from machine to machine; never compare them as text.
    """
    if not callable(fn):
        raise TypeError(f"fn には関数を渡してください。{type(fn).__name__} が来ました。")
    for value, what in ((repeat, "repeat"), (number, "number")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{what} は 1 以上の整数にしてください。{value!r} が来ました。")
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / number)
    return best
