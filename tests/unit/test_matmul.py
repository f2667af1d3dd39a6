"""helpers.matmul: products taken apart, compared with plain numpy; bad inputs get Japanese messages."""

import numpy as np
import pytest

from helpers import matmul


@pytest.fixture
def XW(rng):
    return rng.normal(size=(5, 3)), rng.normal(size=(3, 4))


def test_one_cell_is_a_row_times_a_column(XW):
    X, W = XW
    for i in range(5):
        for j in range(4):
            assert matmul.matmul_cell(X, W, i, j) == pytest.approx((X @ W)[i, j])


def test_cellwise_in_any_order_is_the_same_matrix_bit_for_bit(XW, rng):
    X, W = XW
    plain = matmul.cellwise_matmul(X, W)
    np.testing.assert_allclose(plain, X @ W)
    for _ in range(3):
        assert np.array_equal(matmul.cellwise_matmul(X, W, rng.permutation(20)), plain)


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


def test_tiled_product_equals_numpy_in_any_tile_order(XW, rng):
    X, W = XW
    for tile in (1, 2, (2, 3), (5, 4), 10):
        n_tiles = len(matmul.tile_slices((5, 4), tile))
        np.testing.assert_allclose(matmul.tiled_matmul(X, W, tile), X @ W)
        np.testing.assert_allclose(
            matmul.tiled_matmul(X, W, tile, order=rng.permutation(n_tiles)), X @ W
        )
    Xi = rng.integers(-3, 4, size=(6, 4)).astype(float)
    Wi = rng.integers(-3, 4, size=(4, 8)).astype(float)
    assert np.array_equal(matmul.tiled_matmul(Xi, Wi, (3, 4), order=[3, 1, 0, 2]), Xi @ Wi)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: matmul.cellwise_matmul(np.ones((2, 3)), np.ones((2, 2))), ValueError, "形が合いません"),
        (lambda: matmul.cellwise_matmul(np.ones(3), np.ones((3, 2))), ValueError, "2 次元"),
        (lambda: matmul.cellwise_matmul([[np.nan]], [[1.0]]), ValueError, "NaN"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0, 1, 2]),
         ValueError, "並べ替え"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0, 0, 1, 2]),
         ValueError, "1 回ずつ"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0.0, 1, 2, 3]),
         TypeError, "整数"),
        (lambda: matmul.matmul_cell(np.ones((2, 2)), np.ones((2, 2)), 2, 0), ValueError, "範囲"),
        (lambda: matmul.matmul_cell(np.ones((2, 2)), np.ones((2, 2)), 0, 1.0), TypeError, "整数"),
        (lambda: matmul.tile_slices((4, 4), 0), ValueError, "1 以上"),
        (lambda: matmul.tile_slices((4, 4), (2, 2, 2)), TypeError, "行数, 列数"),
        (lambda: matmul.tile_slices((4, 4), 1.5), TypeError, "正の整数"),
        (lambda: matmul.tile_map((0, 4), 2), ValueError, "1 以上の整数"),
        (lambda: matmul.tiled_matmul(np.ones((2, 3)), np.ones((2, 2)), 1), ValueError, "形が合いません"),
        (lambda: matmul.tiled_matmul(np.ones((2, 2)), np.ones((2, 2)), 1, order=[1, 2]),
         ValueError, "並べ替え"),
    ],
)
def test_bad_inputs_get_japanese_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()
