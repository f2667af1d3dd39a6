"""helpers.attention against the plain-numpy references, and every bad-input case."""

import warnings

import numpy as np
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import helpers
from helpers import attention_scores, cosine_similarity, project, qkv, softmax
from helpers import scaled_dot_product_attention as sdpa
from helpers._validate import HelpersError, HelpersTypeError


def test_identical_keys_really_give_uniform_weights():
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(4, 3))
    K = np.tile(rng.normal(size=(1, 3)), (5, 1))
    V = rng.normal(size=(5, 2))
    out, w = helpers.scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(w, 1 / 5)
    np.testing.assert_allclose(out, np.tile(V.mean(axis=0), (4, 1)))


finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


class TestSoftmax:
    def test_matches_reference_per_row(self):
        s = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
        np.testing.assert_allclose(softmax(s), reference.softmax(s))
        np.testing.assert_allclose(softmax(s)[1], [1 / 3] * 3)

    def test_axis_zero_normalises_columns(self):
        s = np.array([[1.0, 5.0], [3.0, 2.0]])
        np.testing.assert_allclose(softmax(s, axis=0).sum(axis=0), [1, 1])
        assert not np.allclose(softmax(s, axis=0), softmax(s, axis=1))

    def test_large_scores_are_stable_and_silent(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(softmax([1000.0, 0.0]), [1.0, 0.0])
            np.testing.assert_allclose(softmax([5000.0, 5000.0]), [0.5, 0.5])

    def test_temperature_moves_between_argmax_and_uniform(self):
        s = np.array([1.0, 2.0, 4.0])
        assert softmax(s, temperature=0.01)[2] > 0.999
        np.testing.assert_allclose(softmax(s, temperature=1e6), [1 / 3] * 3, atol=1e-5)
        np.testing.assert_allclose(softmax(s, temperature=2.0), reference.softmax(s / 2))

    @given(arrays(float, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=finite))
    @settings(max_examples=50, deadline=None)
    def test_rows_are_distributions(self, s):
        p = softmax(s)
        assert np.all(p >= 0)
        np.testing.assert_allclose(p.sum(axis=-1), 1.0)
        np.testing.assert_allclose(p, reference.softmax(s), atol=1e-12)

    @pytest.mark.parametrize("bad", [[np.nan, 1.0], [np.inf, 0.0], []])
    def test_refuses_nan_inf_empty(self, bad):
        with pytest.raises(ValueError, match="NaN|inf|空"):
            softmax(bad)

    @pytest.mark.parametrize("t", [0.0, -1.0, np.inf])
    def test_refuses_bad_temperature(self, t):
        with pytest.raises(ValueError, match="temperature"):
            softmax([1.0, 2.0], temperature=t)

    def test_refuses_missing_axis(self):
        with pytest.raises(ValueError, match="axis=2"):
            softmax(np.ones((2, 2)), axis=2)

    def test_refuses_text(self):
        with pytest.raises(TypeError, match="数の配列"):
            softmax("abc")


class TestProject:
    def test_is_matrix_product(self, rng):
        x, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
        np.testing.assert_allclose(project(x, W), x @ W)
        assert project(x[:1], W).shape == (1, 2)

    def test_shape_mismatch_names_both_shapes_and_d_model(self):
        with pytest.raises(ValueError) as err:
            project(np.ones((1, 3)), np.ones((2, 2)), name="W_Q")
        msg = str(err.value)
        assert "(1, 3)" in msg and "(2, 2)" in msg and "d_model" in msg and "W_Q" in msg

    def test_one_dimensional_x_is_refused_with_reshape_hint(self):
        with pytest.raises(ValueError, match=r"reshape\(1, -1\)"):
            project(np.ones(3), np.ones((3, 2)))

    def test_three_dimensional_refused(self):
        with pytest.raises(ValueError, match="3 次元"):
            project(np.ones((1, 2, 3)), np.ones((3, 2)))

    @pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
    def test_non_finite_refused(self, bad):
        W = np.ones((2, 2))
        W[0, 1] = bad
        with pytest.raises(ValueError, match="W"):
            project(np.ones((1, 2)), W)

    def test_empty_refused(self):
        with pytest.raises(ValueError, match="空"):
            project(np.ones((0, 2)), np.ones((2, 2)))

    def test_ragged_lists_refused(self):
        with pytest.raises(TypeError, match="変換できません"):
            project([[1, 2], [3]], np.ones((2, 2)))


def test_qkv_uses_each_matrix(rng):
    X = rng.normal(size=(5, 4))
    Wq, Wk, Wv = (rng.normal(size=(4, d)) for d in (3, 3, 2))
    Q, K, V = qkv(X, Wq, Wk, Wv)
    np.testing.assert_allclose(Q, X @ Wq)
    np.testing.assert_allclose(K, X @ Wk)
    np.testing.assert_allclose(V, X @ Wv)
    with pytest.raises(ValueError, match="W_K"):
        qkv(X, Wq, np.ones((3, 3)), Wv)


class TestAttention:
    def test_scores_scaled_and_unscaled(self, rng):
        Q, K = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
        np.testing.assert_allclose(attention_scores(Q, K, scale=False), Q @ K.T)
        np.testing.assert_allclose(attention_scores(Q, K), Q @ K.T / 2.0)

    def test_sdpa_matches_reference(self, rng):
        Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
        out, w = sdpa(Q, K, V)
        ref_out, ref_w = reference.attention(Q, K, V)
        np.testing.assert_allclose(w, ref_w)
        np.testing.assert_allclose(w, reference.softmax(Q @ K.T / np.sqrt(4)))  # d_k = 4
        np.testing.assert_allclose(out, ref_out)
        assert out.shape == (3, 2) and w.shape == (3, 5)

    def test_one_hot_weights_pick_one_value(self):
        K = np.eye(3) * 100.0
        V = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
        out, w = sdpa(K[2:3], K, V)
        np.testing.assert_allclose(out, [[5.0, 5.0]], atol=1e-9)

    def test_mismatched_dk_and_lengths(self):
        with pytest.raises(ValueError, match="d_k"):
            attention_scores(np.ones((2, 3)), np.ones((2, 4)))
        with pytest.raises(ValueError, match="行数"):
            sdpa(np.ones((2, 3)), np.ones((4, 3)), np.ones((3, 2)))


class TestCosine:
    def test_direction_only(self):
        assert cosine_similarity([2.0, 0.2], [1.0, 0.1]) == pytest.approx(1.0)
        assert cosine_similarity([1.0, 0.0], [0.0, 3.0]) == pytest.approx(0.0)
        assert cosine_similarity([1.0, 1.0], [-2.0, -2.0]) == pytest.approx(-1.0)

    def test_matrix_form_matches_reference(self, rng):
        A, B = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
        np.testing.assert_allclose(cosine_similarity(A, B), reference.cosine(A, B))

    def test_zero_vector_and_mismatch_refused(self):
        with pytest.raises(ValueError, match="長さ 0"):
            cosine_similarity([0.0, 0.0], [1.0, 0.0])
        with pytest.raises(ValueError, match="次元"):
            cosine_similarity([1.0, 0.0, 0.0], [1.0, 0.0])


# Edges: overflow, underflow, masks, sizes, bad arguments (Japanese messages).


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


# ---------------------------------------------------------------- the masked softmax (chapter 08)


def test_masked_softmax_gives_zero_weight_to_minus_inf(rng):
    S = rng.normal(size=(5, 5))
    w = helpers.masked_softmax(S, np.triu(np.full((5, 5), -np.inf), k=1))
    assert np.all(w[np.triu_indices(5, k=1)] == 0)
    assert np.allclose(w.sum(axis=1), 1)
    assert w[0, 0] == 1
    # Row 3 sees words 0..3 only: a softmax over those four scores.
    assert np.allclose(w[3, :4], softmax(S[3, :4]))


def test_masked_softmax_without_mask_is_softmax(rng):
    S = rng.normal(size=(3, 4)) * 100
    assert np.allclose(helpers.masked_softmax(S), softmax(S))


def test_masked_softmax_refuses_a_row_with_nothing_to_look_at():
    mask = np.triu(np.full((3, 3), -np.inf), k=0)   # the diagonal hidden too: row 1 is empty
    with pytest.raises(ValueError, match=r"行 0\(1 行め\)はすべて -inf"):
        helpers.masked_softmax(np.zeros((3, 3)), mask)


@pytest.mark.parametrize("mask, words", [(np.zeros((2, 2)), "shape"),
                                         (np.full((3, 3), np.nan), "NaN"),
                                         (np.full((3, 3), np.inf), "マスクには -inf だけ")])
def test_masked_softmax_bad_masks(mask, words):
    with pytest.raises(ValueError, match=words):
        helpers.masked_softmax(np.zeros((3, 3)), mask)
