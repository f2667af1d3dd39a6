"""The tiles of a matrix product (chapter 05).

Every cell of `Y = X @ W` is `X[i, :] @ W[:, j]`, and a tile of Y is `X[rows, :] @ W[:, cols]`:
chapter 05 writes both loops in its own cells. This module only cuts an output into tiles, for
those loops and for the figure of which bands of X and W a tile reads (`plotting.plot_tiles`).
"""

from __future__ import annotations

import numpy as np

from ._validate import HelpersError, HelpersTypeError, arg, guard_size, integer, public, said

#: At most this many tiles are listed one by one in Python (about a second).
MAX_STEPS = 1_000_000

__all__ = [
    "tile_slices",
    "tile_map",
]


def _tile_size(tile, name: str) -> tuple[int, int]:
    if isinstance(tile, (int, np.integer)) and not isinstance(tile, bool):
        tile = (tile, tile)
    if not isinstance(tile, (tuple, list)) or len(tile) != 2:
        raise HelpersTypeError(
            f"{name} は正の整数 1 つ(正方形のタイル)か、(行数, 列数) の組で指定してください。{said(tile)} が来ました。"
        )
    return integer(tile[0], f"{name} の行数", lo=1), integer(tile[1], f"{name} の列数", lo=1)


def _output_shape(shape, name: str) -> tuple[int, int]:
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise HelpersError(f"{name} は (行数, 列数) の正の整数の組にしてください。{said(shape)} が来ました。")
    return integer(shape[0], f"{name} の行数", lo=1), integer(shape[1], f"{name} の列数", lo=1)


def _few_tiles(a: dict) -> None:
    (n, m), (tr, tc) = a["shape"], a["tile"]
    guard_size((-(-n // tr), -(-m // tc)), "タイルの並び", limit=MAX_STEPS, by="shape か tile")


@public(_few_tiles, shape=arg(_output_shape), tile=arg(_tile_size))
def tile_slices(shape: tuple[int, int], tile) -> list[tuple[slice, slice]]:
    """The tiles that cover an `n × m` output, row by row: a list of (row slice, column slice).

    Tiles at the right and bottom edges are smaller when the sizes do not divide evenly.
    """
    (n, m), (tr, tc) = shape, tile
    return [
        (slice(r, min(r + tr, n)), slice(c, min(c + tc, m)))
        for r in range(0, n, tr)
        for c in range(0, m, tc)
    ]


@public(_few_tiles, lambda a: guard_size(a["shape"], "タイル番号の表", by="shape"),
        shape=arg(_output_shape), tile=arg(_tile_size))
def tile_map(shape: tuple[int, int], tile) -> np.ndarray:
    """An `n × m` integer array: the number of the tile that each output cell belongs to."""
    tiles = tile_slices(shape, tile)
    ids = np.empty(shape, dtype=int)
    for t, (rows, cols) in enumerate(tiles):
        ids[rows, cols] = t
    return ids
