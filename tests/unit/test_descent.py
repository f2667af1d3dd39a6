"""helpers.descent: the forward and backward passes, gradient checking, the loop of descent."""

import numpy as np
import pytest
import reference

import helpers
from helpers import descent, learning
from helpers._validate import HelpersError, HelpersTypeError


def test_forward_is_plain_attention(task, start):
    X = task.full_menu.X
    fwd = descent.forward(X, **start)
    Q, K, V = X @ start["W_Q"], X @ start["W_K"], X @ start["W_V"]
    A = reference.softmax(Q @ K.T / np.sqrt(2))
    np.testing.assert_allclose(fwd.weights, A)
    np.testing.assert_allclose(fwd.output, A @ V)
    np.testing.assert_allclose(fwd.Q, Q)


def test_backward_bad_inputs(task, start):
    X = task.full_menu.X
    fwd = descent.forward(X, **start)
    with pytest.raises(TypeError, match="forward"):
        descent.backward(X, {"Q": fwd.Q}, fwd.output)
    with pytest.raises(ValueError, match="出力と同じ"):
        descent.backward(X, fwd, np.ones((4, 3)))


def test_numerical_gradient_and_relative_error():
    grad = descent.numerical_gradient(lambda M: float(np.sum(M**3)), np.array([[1.0, -2.0]]))
    np.testing.assert_allclose(grad, [[3.0, 12.0]], rtol=1e-8)
    assert descent.relative_error([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert descent.relative_error([0.0], [0.0]) == 0.0
    assert descent.relative_error([1.0], [-1.0]) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="関数"):
        descent.numerical_gradient(3, np.eye(2))
    with pytest.raises(ValueError, match="eps"):
        descent.numerical_gradient(np.sum, np.eye(2), eps=0)
    with pytest.raises(ValueError, match="同じ形"):
        descent.relative_error(np.ones(2), np.ones(3))


def test_forward_broadcasts_over_batch_axes(task, start):
    X, _, _ = task.stacks[0]                                   # (4 menus, 2 foods, 2)
    Ws = {n: np.stack([start[n], 2 * start[n], -start[n]])[:, None] for n in descent.NAMES}
    fwd = descent.forward(X, Ws["W_Q"], Ws["W_K"], Ws["W_V"])  # (3 runs, 4 menus, ...)
    assert fwd.weights.shape == (3, 4, 2, 2) and fwd.output.shape == (3, 4, 2, 2)
    for b in range(3):
        for m in range(4):
            one = descent.forward(X[m], *(Ws[n][b, 0] for n in descent.NAMES))
            np.testing.assert_allclose(fwd.weights[b, m], one.weights, rtol=1e-13)
            np.testing.assert_allclose(fwd.output[b, m], one.output, rtol=1e-13)


def test_forward_is_softmax_of_scaled_scores(start):
    X = np.array([[2.0, 0.2], [1.0, 0.1], [0.3, 1.8]])
    fwd = descent.forward(X, **start)
    S = (X @ start["W_Q"]) @ (X @ start["W_K"]).T / np.sqrt(2)
    np.testing.assert_allclose(fwd.weights, helpers.softmax(S, axis=-1))
    np.testing.assert_allclose(fwd.output, fwd.weights @ (X @ start["W_V"]))


def test_backward_matches_central_differences_for_one_menu(task, start):
    """The chain rule, softmax step included, against central differences of ½‖O − O*‖²·2."""
    menu = task.full_menu
    fwd = descent.forward(menu.X, **start)
    grads = descent.backward(menu.X, fwd, 2 * (fwd.output - menu.targets))
    for name in descent.NAMES:
        def loss_of(M, name=name):
            out = descent.forward(menu.X, **{**start, name: M}).output
            return float(np.sum((out - menu.targets) ** 2))
        numeric = descent.numerical_gradient(loss_of, start[name])
        assert descent.relative_error(numeric, grads[name]) < 1e-7


def test_backward_with_batch_axes_gives_one_gradient_per_attention(task, start):
    X, T, _ = task.stacks[1]                                   # (4 menus, 3 foods, 2)
    fwd = descent.forward(X, start["W_Q"], start["W_K"], start["W_V"])
    grads = descent.backward(X, fwd, fwd.output - T)
    assert grads["W_Q"].shape == (4, 2, 2)
    for m in range(4):
        one = descent.forward(X[m], **start)
        want = descent.backward(X[m], one, one.output - T[m])
        for name in descent.NAMES:
            np.testing.assert_allclose(grads[name][m], want[name], rtol=1e-12, atol=1e-15)


def test_backward_refuses_an_X_that_is_not_the_forward_one(task, start):
    X = task.full_menu.X
    fwd = descent.forward(X, **start)
    with pytest.raises(ValueError, match="forward"):
        descent.backward(X[:3], fwd, fwd.output)
    with pytest.raises(ValueError, match="forward"):
        descent.backward(X + 1, fwd, fwd.output)


@pytest.mark.parametrize("args, match", [
    ((np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 2))), "W_Q の行数"),
    ((np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 2))), "d_k"),
    ((np.ones((4, 3, 2)), np.ones((5, 2, 2)), np.ones((2, 2)), np.ones((2, 2))), "束の軸"),
    ((np.ones(2), np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))), "2 次元"),
    ((np.ones((3, 2)), np.full((2, 2), np.inf), np.ones((2, 2)), np.ones((2, 2))), "inf"),
])
def test_forward_bad_inputs(args, match):
    with pytest.raises((TypeError, ValueError), match=match):
        descent.forward(*args)


def test_backward_refuses_an_x_from_another_forward(rng):
    W = learning.initial_weights(rng)
    X = rng.normal(size=(3, 2))
    fwd = descent.forward(X, W["W_Q"], W["W_K"], W["W_V"])
    dO = np.ones_like(fwd.output)
    grads = descent.backward(X, fwd, dO)
    assert {k: g.shape for k, g in grads.items()} == {"W_Q": (2, 2), "W_K": (2, 2), "W_V": (2, 2)}
    for other in (X + 1.0, rng.normal(size=(3, 5)), X[:2]):
        with pytest.raises(HelpersError, match=r"forward\(\.\.\.\) に渡したものと同じ"):
            descent.backward(other, fwd, dO)


def test_numerical_gradient_eps_must_be_a_positive_number():
    with pytest.raises(HelpersTypeError, match="eps"):
        descent.numerical_gradient(lambda W: float(np.sum(W)), np.ones((2, 2)), eps="1e-5")


def test_a_run_keeps_only_its_own_small_records_and_maps_at_saved_steps(task, start):
    """Every step keeps its accuracy as a copy (nothing of the step's arrays stays alive through
    a view); the attention map only at saved steps: 200,000 steps would otherwise fill memory."""
    W = {n: M[None].copy() for n, M in start.items()}
    (run,) = descent.descend(lambda params: learning._palate_pass(task, params), W, 0.5, 30, [0, 10], 1e6)
    accuracy = run.records["accuracy"]
    assert set(run.records) == {"accuracy"} and accuracy.shape == (31,)
    assert accuracy.base.shape == (31, 1) and accuracy.base.base is None  # one table, made here
    assert [step for step, _, _ in run.saved] == [0, 10, 30]
    assert all(set(maps) == {"weights"} and maps["weights"].base is None for _, _, maps in run.saved)


def test_runs_trained_together_each_keep_their_own_steps_up_to_where_they_stopped(task, start):
    """A batch of runs records one table; each run reads its own column, as long as it ran."""
    scales = (1, 4, 8)  # at lr 0.5: runs to the end, stops after 5 steps, stops at the start
    together = {n: np.stack([k * M for k in scales]) for n, M in start.items()}
    runs = descent.descend(lambda params: learning._palate_pass(task, params), together, 0.5, 40, [0], 50.0)
    for b, run in enumerate(runs):
        alone = {n: scales[b] * M[None] for n, M in start.items()}
        (same,) = descent.descend(lambda params: learning._palate_pass(task, params), alone, 0.5, 40, [0], 50.0)
        assert run.diverged == same.diverged
        np.testing.assert_allclose(run.losses, same.losses)
        np.testing.assert_allclose(run.records["accuracy"], same.records["accuracy"])
        assert len(run.records["accuracy"]) == len(run.losses)
    assert [(run.diverged, len(run.losses)) for run in runs] == [(False, 41), (True, 5), (True, 0)]
