"""helpers.matmul: products taken apart, compared with plain numpy; bad inputs get Japanese messages."""

import numpy as np
import pytest

from helpers import matmul
from helpers._validate import HelpersError


def test_tiles_cover_every_cell_once_even_when_sizes_do_not_divide():
    for shape, tile in [((6, 8), (3, 4)), ((5, 7), 2), ((1, 1), 3), ((4, 4), (1, 4))]:
        ids = matmul.tile_map(shape, tile)
        counts = np.zeros(shape, dtype=int)
        for rows, cols in matmul.tile_slices(shape, tile):
            counts[rows, cols] += 1
        assert (counts == 1).all()
        assert ids.shape == shape
        assert set(np.unique(ids)) == set(range(len(matmul.tile_slices(shape, tile))))
    np.testing.assert_array_equal(matmul.tile_map((2, 4), (1, 2)), [[0, 0, 1, 1], [2, 2, 3, 3]])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: matmul.tile_slices((4, 4), 0), ValueError, "1 以上"),
        (lambda: matmul.tile_slices((4, 4), (2, 2, 2)), TypeError, "行数, 列数"),
        (lambda: matmul.tile_slices((4, 4), 1.5), TypeError, "正の整数"),
        (lambda: matmul.tile_map((0, 4), 2), ValueError, "1 以上の整数"),
    ],
)
def test_bad_inputs_get_japanese_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()


# Edges: overflow, underflow, masks, sizes, bad arguments (Japanese messages).


def test_ten_billion_tiles_are_refused_at_once():
    with pytest.raises(HelpersError, match="タイルの並び"):
        matmul.tile_slices((100_000, 100_000), 1)
    with pytest.raises(HelpersError, match="大きすぎます"):
        matmul.tile_map((100_000, 100_000), 1000)


def test_the_guard_leaves_normal_sizes_alone(monkeypatch):
    assert len(matmul.tile_slices((1000, 1000), 10)) == 10_000
    assert matmul.tile_map((3, 4), 2).max() == 3
    monkeypatch.setattr(matmul, "MAX_STEPS", 100)  # the boundary, without listing a million tiles
    assert len(matmul.tile_slices((10, 10), 1)) == 100
    with pytest.raises(HelpersError, match="タイルの並び"):
        matmul.tile_slices((10, 11), 1)
