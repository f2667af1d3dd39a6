"""Size guards of the piece-by-piece products."""

import numpy as np
import pytest

from helpers import matmul
from helpers._validate import HelpersError


def test_ten_billion_tiles_are_refused_at_once():
    with pytest.raises(HelpersError, match="タイルの並び"):
        matmul.tile_slices((100_000, 100_000), 1)
    with pytest.raises(HelpersError, match="大きすぎます"):
        matmul.tile_map((100_000, 100_000), 1000)


def test_a_huge_cellwise_product_is_refused_before_looping():
    X = np.ones((2_000, 1))
    W = np.ones((1, 2_000))
    with pytest.raises(HelpersError, match="1 セルずつ"):
        matmul.cellwise_matmul(X, W)
    with pytest.raises(HelpersError, match="タイルの並び"):
        matmul.tiled_matmul(X, W, 1)


def test_the_guard_leaves_normal_sizes_alone():
    assert len(matmul.tile_slices((1000, 1000), 1)) == 1_000_000
    assert matmul.tile_map((3, 4), 2).max() == 3
