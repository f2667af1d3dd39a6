"""helpers.scaling: the √d_k experiment and its histograms, against plain numpy."""

import re

import numpy as np
import pytest
import reference

from helpers import scaling


def test_random_scores_match_plain_numpy():
    run = scaling.random_scores(16, np.random.default_rng(3), n_sentences=2, n_words=5)
    ref = np.random.default_rng(3)
    blocks = []
    for _ in range(2):
        Q = ref.standard_normal((5, 16))
        K = ref.standard_normal((5, 16))
        blocks.append(Q @ K.T)
    np.testing.assert_allclose(run.scores, np.vstack(blocks))
    assert run.d_k == 16 and run.scores.shape == (10, 5)
    np.testing.assert_allclose(run.scored(True), run.scores / 4.0)
    np.testing.assert_allclose(run.scored(False), run.scores)
    np.testing.assert_allclose(run.weights(True), reference.softmax(run.scores / 4.0))
    np.testing.assert_allclose(run.max_weights(False), reference.softmax(run.scores).max(axis=1))


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_variance_grows_like_d_k_and_scaling_brings_it_back(d_k):
    run = scaling.random_scores(d_k, np.random.default_rng(1), n_sentences=200)
    assert run.scores.var() == pytest.approx(d_k, rel=0.15)
    assert run.scored(True).var() == pytest.approx(1.0, rel=0.15)


def test_unscaled_softmax_saturates_and_scaled_does_not():
    small, big = scaling.scaling_experiment([1, 512], np.random.default_rng(2))
    assert big.max_weights(False).mean() > 0.9
    assert small.max_weights(False).mean() < 0.4
    assert big.max_weights(True).mean() < 0.45
    np.testing.assert_allclose(small.max_weights(True), small.max_weights(False))


def test_scaling_experiment_keeps_order():
    runs = scaling.scaling_experiment((4, 1, 8), np.random.default_rng(0), n_sentences=3)
    assert [r.d_k for r in runs] == [4, 1, 8]
    assert all(r.scores.shape == (24, 8) for r in runs)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"d_k": 0}, ValueError, "d_k は 1 以上"),
        ({"d_k": -3}, ValueError, "-3"),
        ({"d_k": 2.5}, TypeError, "d_k は整数で"),
        ({"d_k": True}, TypeError, "bool"),
        ({"d_k": 4, "n_words": 0}, ValueError, "n_words"),
        ({"d_k": 4, "n_sentences": "3"}, TypeError, "n_sentences"),
        ({"d_k": 4, "rng": 0}, TypeError, "np.random.Generator"),
    ],
)
def test_random_scores_bad_inputs(kwargs, error, words):
    kwargs = {"rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(error, match=re.escape(words)):
        scaling.random_scores(**kwargs)


def test_random_scores_accepts_numpy_integers():
    run = scaling.random_scores(np.int64(4), np.random.default_rng(0), n_sentences=1)
    assert run.d_k == 4 and isinstance(run.d_k, int)


@pytest.mark.parametrize(
    "d_ks, error, words",
    [([], ValueError, "空"), ("16", TypeError, "並び"), (16, TypeError, "並び"),
     ([4, 0], ValueError, "1 以上")],
)
def test_scaling_experiment_bad_inputs(d_ks, error, words):
    with pytest.raises(error, match=words):
        scaling.scaling_experiment(d_ks, np.random.default_rng(0))


def test_relative_histogram_matches_numpy():
    values = np.random.default_rng(4).normal(size=500)
    edges = np.linspace(-2, 2, 9)
    counts, _ = np.histogram(np.clip(values, -2, 2), bins=edges)
    got = scaling.relative_histogram(values, edges)
    np.testing.assert_allclose(got, counts / counts.max())
    assert got.max() == 1.0


def test_relative_histogram_keeps_values_outside_the_edges():
    """Values outside the edges land in the end bins: nothing is lost (numpy alone drops them)."""
    got = scaling.relative_histogram([-10.0, -9.0, -1.0, 1.0], [-2.0, 0.0, 2.0])
    np.testing.assert_allclose(got, [1.0, 1 / 3])


@pytest.mark.parametrize(
    "values, edges, error, words",
    [
        ([1.0, np.nan], [0, 1], ValueError, "NaN"),
        ([1.0], [0.0], ValueError, "2 つ以上"),
        ([1.0], [[0.0, 1.0]], ValueError, "1 次元"),
        ([1.0], [0.0, 1.0, 1.0], ValueError, "小さい順"),
        ("abc", [0.0, 1.0], TypeError, "values"),
        ([], [0.0, 1.0], ValueError, "空"),
    ],
)
def test_relative_histogram_bad_inputs(values, edges, error, words):
    with pytest.raises(error, match=words):
        scaling.relative_histogram(values, edges)


def test_typical_row_has_the_median_largest_weight():
    run = scaling.random_scores(64, np.random.default_rng(7), n_sentences=5)
    largest = reference.softmax(run.scores).max(axis=1)
    row = run.typical_row()
    assert np.sum(largest < largest[row]) == run.scores.shape[0] // 2
