"""helpers.heads: masks, splitting into heads, multi-head attention, the two-lookups task."""

import numpy as np
import pytest

import helpers
from helpers import heads, learning, scaled_dot_product_attention
from helpers._validate import HelpersError


def test_causal_mask_hides_exactly_the_later_words():
    m = heads.causal_mask(4)
    assert m.shape == (4, 4)
    assert np.all(np.isneginf(m[np.triu_indices(4, k=1)]))
    assert np.all(m[np.tril_indices(4)] == 0)


@pytest.mark.parametrize("n", [0, -1, 2.5, "3"])
def test_causal_mask_bad_sizes(n):
    with pytest.raises((ValueError, TypeError), match="n"):
        heads.causal_mask(n)


def test_heads_masked_softmax_is_the_numerical_core_s():
    """Chapter 08 calls `helpers.heads.masked_softmax`: the one in attention, not a copy."""
    assert heads.masked_softmax is helpers.attention.masked_softmax


def test_split_heads_cuts_each_row_then_swaps_axes():
    M = np.arange(3 * 4).reshape(3, 4)           # 3 words, 2 heads of 2 columns
    H = heads.split_heads(M, 2)
    assert H.shape == (2, 3, 2)
    assert np.array_equal(H[0], M[:, :2]) and np.array_equal(H[1], M[:, 2:])
    assert not np.array_equal(H, M.reshape(2, 3, 2))  # the tempting reshape mixes words


def test_merge_heads_undoes_split_heads(rng):
    M = rng.normal(size=(5, 6))
    for h in (1, 2, 3, 6):
        assert np.array_equal(heads.merge_heads(heads.split_heads(M, h)), M)


def test_split_heads_bad_inputs():
    with pytest.raises(ValueError, match="割り切れません"):
        heads.split_heads(np.zeros((3, 5)), 2)
    with pytest.raises(ValueError, match="3 次元"):
        heads.merge_heads(np.zeros((3, 4)))


def test_multi_head_attention_matches_a_loop_over_heads(rng):
    X = rng.normal(size=(5, 3))
    W_Q, W_K, W_V = (rng.normal(size=(2, 3, 4)) for _ in range(3))
    W_O = rng.normal(size=(8, 3))
    out, w = heads.multi_head_attention(X, W_Q, W_K, W_V, W_O)
    loop = [scaled_dot_product_attention(X @ W_Q[i], X @ W_K[i], X @ W_V[i]) for i in range(2)]
    assert out.shape == (5, 3) and w.shape == (2, 5, 5)
    assert np.allclose(w, np.stack([a for _, a in loop]))
    assert np.allclose(out, np.hstack([o for o, _ in loop]) @ W_O)


def test_multi_head_attention_with_a_causal_mask(rng):
    X = rng.normal(size=(4, 2))
    W = rng.normal(size=(3, 2, 2))
    out, w = heads.multi_head_attention(X, W, W, W, np.eye(6), heads.causal_mask(4))
    assert np.all(w[:, 0, 0] == 1)
    assert np.all(np.triu(w[1], k=1) == 0)
    assert np.allclose(out[0], np.hstack([X[0] @ W[i] for i in range(3)]))  # row 1 sees itself


def test_multi_head_attention_bad_shapes(rng):
    X = rng.normal(size=(4, 3))
    W = rng.normal(size=(2, 3, 2))
    with pytest.raises(ValueError, match="W_O"):
        heads.multi_head_attention(X, W, W, W, np.eye(3))
    with pytest.raises(ValueError, match="d_model = 3"):
        heads.multi_head_attention(X, W[:, :2], W, W, np.eye(4))
    with pytest.raises(ValueError, match="mask は"):
        heads.multi_head_attention(X, W, W, W, np.eye(4), heads.causal_mask(3))


def test_two_lookups_task_targets():
    task = heads.two_lookups_task()
    assert len(task.menus) == 9 and task.n_rows == 24
    assert task.X.shape == (9, 4, 2) and task.targets.shape == (9, 4, 4)
    full = task.full
    assert task.menus[full] == ("ケーキ", "プリン", "カレー", "キムチ")
    E = task.embedding.vectors
    # ケーキ (sweet): same taste's best = ケーキ, other taste's best = カレー.
    assert np.array_equal(task.targets[full, 0], np.concatenate([E[0], E[2]]))
    # キムチ (spicy): カレー, then ケーキ.
    assert np.array_equal(task.targets[full, 3], np.concatenate([E[2], E[0]]))
    # A two-food menu: the two empty seats are hidden from every query.
    assert task.seats[0].tolist() == [1, 1, 0, 0]
    assert np.all(np.isneginf(task.key_mask[0, 0, :, 2:]))


def test_gradients_match_central_differences(rng):
    task = heads.two_lookups_task()
    W = heads.initial_heads(rng, h=2, d_k=2)
    _, grads = heads.lookups_loss_and_gradients(task, W)
    eps = 1e-6
    for name in W:
        idx = tuple(rng.integers(0, s) for s in W[name].shape)
        up = {**W, name: W[name].copy()}
        down = {**W, name: W[name].copy()}
        up[name][idx] += eps
        down[name][idx] -= eps
        numeric = (heads.lookups_loss_and_gradients(task, up)[0]
                   - heads.lookups_loss_and_gradients(task, down)[0]) / (2 * eps)
        assert numeric == pytest.approx(grads[name][idx], rel=1e-4, abs=1e-8), name


def test_one_head_learns_one_lookup_and_two_heads_learn_both():
    task = heads.two_lookups_task()
    rng = np.random.default_rng(3)
    one = heads.train_heads(task, heads.initial_heads(rng, h=1, d_k=4), lr=0.1, steps=600)
    two = heads.train_heads(task, heads.initial_heads(rng, h=2, d_k=2), lr=0.1, steps=600)
    assert one.losses[-1] > 0.2 and max(one.parts[-1]) > 0.2 and min(one.parts[-1]) < 0.05
    assert two.losses[-1] < 0.1
    assert one.losses[-1] > 3 * two.losses[-1]
    assert two.final_map.shape == (2, 4, 4) and one.saved == [0, 600]


def test_train_heads_bad_inputs(rng):
    task = heads.two_lookups_task()
    W = heads.initial_heads(rng, h=1, d_k=2)
    with pytest.raises(TypeError, match="two_lookups_task"):
        heads.train_heads(None, W, 0.1, 3)
    with pytest.raises(ValueError, match="W_O"):
        heads.train_heads(task, {"W_Q": W["W_Q"]}, 0.1, 3)
    with pytest.raises(HelpersError, match="学習率"):
        heads.train_heads(task, {k: v * 50 for k, v in W.items()}, 50.0, 50)


def test_save_at_none_keeps_twelve_maps_spread_as_chapter_07s_train_does(rng):
    """train_heads(save_at=None) has chapter 07's meaning: 12 steps spread evenly, the last too."""
    task = heads.two_lookups_task()
    run = heads.train_heads(task, heads.initial_heads(rng, h=2, d_k=2), 0.1, 30, save_at=None)
    chapter07 = learning.train(learning.palate_task(), learning.initial_weights(rng), 0.1, 30)
    assert run.saved == [s.step for s in chapter07.snapshots]
    assert len(run.saved) == 12 and run.saved[0] == 0 and run.saved[-1] == 30
    assert len(run.maps) == 12 and run.maps[-1].shape == (2, 4, 4)
    with pytest.raises(TypeError, match="save_at"):
        heads.train_heads(task, heads.initial_heads(rng, h=2, d_k=2), 0.1, 3, save_at="all")


def test_sizes_are_refused_before_allocating():
    with pytest.raises(HelpersError, match="大きすぎます"):
        heads.causal_mask(10**6)  # 10^12 cells: refused, not allocated
    with pytest.raises(HelpersError, match="大きすぎます"):
        heads.initial_heads(np.random.default_rng(0), h=10**4, d_k=10**4)
    task, W = heads.two_lookups_task(), heads.initial_heads(np.random.default_rng(0), h=2, d_k=2)
    with pytest.raises(HelpersError, match="steps"):
        heads.train_heads(task, W, lr=0.1, steps=heads.MAX_STEPS + 1)


@pytest.mark.parametrize("name, shape", [("W_O", (3, 4)), ("W_K", (2, 2, 3)), ("W_V", (2, 3, 2)),
                                         ("W_Q", (4, 2))])
def test_w_that_do_not_fit_the_task_get_the_shapes_in_japanese(name, shape):
    task = heads.two_lookups_task()
    W = {**heads.initial_heads(np.random.default_rng(0), h=2, d_k=2), name: np.ones(shape)}
    with pytest.raises(HelpersError, match="W の形が合いません"):
        heads.lookups_loss_and_gradients(task, W)
    with pytest.raises(HelpersError, match=r"initial_heads が作る形"):
        heads.train_heads(task, W, lr=0.1, steps=1)


@pytest.mark.parametrize("mask", [np.tril(np.ones((3, 3), bool)), np.tril(np.ones((3, 3), int))])
def test_true_false_or_one_zero_masks_are_refused_with_how_to_write_them(rng, mask):
    """PyTorch reads True as "may look" in one function and as "hidden" in another: the book
    takes numbers only, and says how to turn either table into them."""
    with pytest.raises((TypeError, ValueError), match=r"np.where\(mask, 0, -np.inf\)"):
        heads.masked_softmax(np.zeros((3, 3)), mask)
    W = rng.normal(size=(2, 2, 2))
    with pytest.raises((TypeError, ValueError), match=r"np.where\(mask, 0, -np.inf\)"):
        heads.multi_head_attention(rng.normal(size=(3, 2)), W, W, W, np.eye(4), mask)


def test_sizes_of_many_heads_and_words_are_refused_before_allocating():
    X = np.ones((5000, 2))
    W = np.ones((64, 2, 2))
    with pytest.raises(HelpersError, match="大きすぎます.*X の語の数"):
        heads.multi_head_attention(X, W, W, W, np.ones((128, 2)))


def test_multi_head_attention_is_chapter_07s_forward_per_head(rng):
    X, W = rng.normal(size=(4, 2)), rng.normal(size=(3, 2, 2))
    out, w = heads.multi_head_attention(X, W, W, W, np.eye(6), heads.causal_mask(4))
    for i in range(3):
        fwd = learning.forward(X, W[i], W[i], W[i], heads.causal_mask(4))
        np.testing.assert_allclose(w[i], fwd.weights, rtol=1e-12)
        np.testing.assert_allclose(out[:, 2 * i:2 * i + 2], fwd.output, rtol=1e-12)
