"""Matrix multiplication taken apart (chapters 04–05).

Every cell of `Y = X @ W` is `X[i, :] @ W[:, j]`: one row of X, one column of W, nothing else.
The functions here compute Y piece by piece, cell by cell or tile by tile, in any order, so a
notebook can show that the pieces never wait for each other. They are for seeing, not for speed:
`X @ W` is always the fast way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._validate import integer, matmul_operands

__all__ = [
    "matmul_cell",
    "cellwise_matmul",
    "tile_slices",
    "tile_map",
    "tiled_matmul",
]


def matmul_cell(X, W, i: int, j: int) -> float:
    """One cell of `X @ W`: the dot product of row i of X with column j of W."""
    X, W = matmul_operands(X, W, ("X", "W"))
    n, m = X.shape[0], W.shape[1]
    i, j = integer(i, "行番号 i", 0, n - 1), integer(j, "列番号 j", 0, m - 1)
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
        tile = (tile, tile)
    if not isinstance(tile, (tuple, list)) or len(tile) != 2:
        raise TypeError(
            f"tile は正の整数 1 つ(正方形のタイル)か、(行数, 列数) の組で指定してください。{tile!r} が来ました。"
        )
    return integer(tile[0], "tile の行数", lo=1), integer(tile[1], "tile の列数", lo=1)


def tile_slices(shape: tuple[int, int], tile) -> list[tuple[slice, slice]]:
    """The tiles that cover an `n × m` output, row by row: a list of (row slice, column slice).

    Tiles at the right and bottom edges are smaller when the sizes do not divide evenly.
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise ValueError(f"shape は (行数, 列数) の正の整数の組にしてください。{shape!r} が来ました。")
    n, m = integer(shape[0], "shape の行数", lo=1), integer(shape[1], "shape の列数", lo=1)
    tr, tc = _tile_size(tile)
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
