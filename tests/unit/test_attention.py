"""Edges of the numerical core: overflow, underflow, masks, sizes, bad arguments."""

import numpy as np
import pytest

import helpers
from helpers._validate import HelpersError, HelpersTypeError


@pytest.mark.parametrize("temperature", [1e-310, 5e-324, 1e-300])
def test_softmax_with_a_tiny_temperature_is_the_argmax(temperature):
    w = helpers.softmax([[1.0, 2.0, 0.5], [3.0, -1.0, 3.0]], temperature=temperature)
    assert np.all(np.isfinite(w))
    np.testing.assert_array_equal(w, [[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])


def test_softmax_of_huge_scores_is_finite():
    w = helpers.softmax([1e308, -1e308, 0.0])
    np.testing.assert_array_equal(w, [1.0, 0.0, 0.0])


def test_minus_inf_is_a_mask_with_weight_zero():
    scores = np.array([[1.0, -np.inf, 2.0],
                       [-np.inf, 0.5, -np.inf]])
    w = helpers.softmax(scores)
    assert w[0, 1] == 0.0 and w[1, 0] == 0.0 and w[1, 2] == 0.0
    np.testing.assert_allclose(w[0, [0, 2]], helpers.softmax([1.0, 2.0]))
    assert w[1, 1] == 1.0


def test_the_textbook_causal_mask_works():
    scores = np.arange(9.0).reshape(3, 3)
    masked = np.where(np.triu(np.ones((3, 3), bool), k=1), -np.inf, scores)
    w = helpers.softmax(masked)
    np.testing.assert_array_equal(np.triu(w, k=1), 0.0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)


def test_a_row_that_is_all_masked_gets_a_clear_error():
    with pytest.raises(HelpersError, match="すべてが -inf"):
        helpers.softmax([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(HelpersError, match="すべてが -inf"):
        helpers.softmax([[0.0, -np.inf], [1.0, -np.inf]], axis=0)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_plus_inf_and_nan_are_still_refused(bad):
    with pytest.raises(HelpersError, match="scores"):
        helpers.softmax([0.0, bad])


@pytest.mark.parametrize("kwargs, cls, words", [
    ({"temperature": "1"}, HelpersTypeError, "temperature"),
    ({"temperature": 0.0}, HelpersError, "正の数"),
    ({"temperature": -1.0}, HelpersError, "正の数"),
    ({"temperature": True}, HelpersTypeError, "temperature"),
    ({"axis": None}, HelpersTypeError, "axis"),
    ({"axis": 1.0}, HelpersTypeError, "axis"),
    ({"axis": 2}, HelpersError, "axis=2"),
])
def test_softmax_bad_arguments_get_japanese_messages(kwargs, cls, words):
    with pytest.raises(cls, match=words):
        helpers.softmax([[1.0, 2.0]], **kwargs)


@pytest.mark.parametrize("scale", [1e154, 1e200, 1e300, 1e-170, 1e-300, 5e-320])
def test_cosine_is_scale_free_at_the_edges_of_float(scale):
    a = np.array([3.0, 4.0]) * scale
    b = np.array([4.0, 3.0]) * scale
    assert helpers.cosine_similarity(a, b) == pytest.approx(24 / 25, rel=1e-6 if scale < 1e-300 else 1e-12)
    assert helpers.cosine_similarity(a, a) == pytest.approx(1.0)


def test_cosine_still_refuses_a_zero_vector():
    with pytest.raises(HelpersError, match="長さ 0"):
        helpers.cosine_similarity([[1.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]])


def test_projections_refuse_a_result_that_would_not_fit():
    x = np.ones((100_000, 1))
    with pytest.raises(HelpersError, match="大きすぎます"):
        helpers.attention_scores(x, x)
    with pytest.raises(HelpersError, match="大きすぎます"):
        helpers.cosine_similarity(x, x)
    with pytest.raises(HelpersError, match="大きすぎます"):
        helpers.project(x, np.ones((1, 100_000)))


def test_an_overflowing_product_says_so():
    big = np.full((1, 2), 1e200)
    with pytest.raises(HelpersError, match="float の範囲"):
        helpers.attention_scores(big, big)
    with pytest.raises(HelpersError, match="float の範囲"):
        helpers.project(big, np.full((2, 2), 1e200))
