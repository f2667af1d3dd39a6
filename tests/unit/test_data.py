"""The toy worlds accept lists and refuse wrong kinds with Japanese messages."""

import numpy as np
import pytest

from helpers import data
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError


def test_an_embedding_accepts_lists_and_stores_an_array():
    emb = data.Embedding(["a", "b"], [[1, 2], [3, 4]])
    assert emb.words == ("a", "b")
    assert isinstance(emb.vectors, np.ndarray) and emb.vectors.dtype == float
    np.testing.assert_array_equal(emb["b"], [[3.0, 4.0]])


@pytest.mark.parametrize("words, vectors, cls", [
    ("ab", [[1, 2], [3, 4]], HelpersTypeError),
    (("a", 1), [[1, 2], [3, 4]], HelpersTypeError),
    (("a", "b"), "vectors", HelpersTypeError),
    (("a", "b"), [[1, 2]], HelpersError),
    (("a", "b"), [[1, 2], [np.nan, 4]], HelpersError),
])
def test_an_embedding_refuses_bad_parts(words, vectors, cls):
    with pytest.raises(cls):
        data.Embedding(words, vectors)


def test_with_vector_checks_the_new_row():
    emb = data.foods()
    moved = emb.with_vector("ケーキ", [1.0, 1.0])
    np.testing.assert_array_equal(moved["ケーキ"], [[1.0, 1.0]])
    with pytest.raises(HelpersError, match="2 個の数"):
        emb.with_vector("ケーキ", [1.0, 1.0, 1.0])
    with pytest.raises(HelpersKeyError, match="すし"):
        emb.with_vector("すし", [1.0, 1.0])


def test_a_catalog_accepts_lists():
    cat = data.library_catalog()
    again = data.Catalog(list(cat.titles), list(cat.names), cat.keys.tolist(), cat.values.tolist())
    np.testing.assert_array_equal(again.keys, cat.keys)
    with pytest.raises(HelpersTypeError):
        data.Catalog(cat.titles, cat.names, "keys", cat.values)
