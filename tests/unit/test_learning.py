"""helpers.learning: many training runs as one batched computation, one checked entry each."""

import numpy as np
import pytest

import helpers
from helpers import learning

# Recorded from the implementation that trained one start after another in Python loops, so the
# batched computation is held to the same numbers (up to the order of additions).
SURVEY_BEFORE = {  # survey_starts(task, default_rng(0), n=4, steps=200)
    "final_losses": [
        [0.0023886088588379885, 0.0022053912147249506, 0.00222380499567792, 0.0021120954682837248],
        [0.24239145026004455, 0.0023304862239292077, 0.002619645111811789, 0.0021943169496742],
        [0.002255085634093493, 0.24439847466269654, 0.0021702125176599734, 0.24481035812395094],
    ],
    "solved": [[True] * 4, [False, True, True, True], [True, False, True, False]],
    "swapped": [[False] * 4, [True, False, False, False], [False, True, False, True]],
    "first_perfect": [[3, 2, 2, 1], [14, 19, 10], [30, 23]],
}
TRAIN_BEFORE = {  # train(task, start, 0.5, 200): losses at steps 0, 1, 5, 6, 50, 200; final W_Q
    "losses": [1.663277057524571, 0.9571419728997957, 0.15925355002035294, 0.16054294138830777,
               0.008116125726316953, 0.0021395822316260887],
    "W_Q": [[-1.6023062472355192, -0.031881855755925746],
            [1.9719401898523634, -0.3264949597183366]],
}


def test_survey_gives_the_numbers_of_one_run_after_another(task):
    surveys = learning.survey_starts(task, np.random.default_rng(0), n=4, steps=200)
    for k, sv in enumerate(surveys):
        np.testing.assert_allclose(sv.final_losses, SURVEY_BEFORE["final_losses"][k], rtol=1e-9)
        assert sv.solved.tolist() == SURVEY_BEFORE["solved"][k]
        assert sv.swapped.tolist() == SURVEY_BEFORE["swapped"][k]
        assert sv.first_perfect.tolist() == SURVEY_BEFORE["first_perfect"][k]
        assert not sv.diverged.any()


def test_train_gives_the_numbers_of_one_run_after_another(task, start):
    h = learning.train(task, start, 0.5, 200, save_at=[0])
    np.testing.assert_allclose(h.losses[[0, 1, 5, 6, 50, 200]], TRAIN_BEFORE["losses"], rtol=1e-9)
    np.testing.assert_allclose(h.final.W["W_Q"], TRAIN_BEFORE["W_Q"], rtol=1e-9)


def test_survey_runs_are_the_runs_trained_alone(task):
    """The batch of 2 × 3 runs ends exactly where each run, trained on its own, ends."""
    rng = np.random.default_rng(7)
    surveys = learning.survey_starts(task, rng, n=2, steps=40)
    again = np.random.default_rng(7)
    for sv in surveys:
        for b in range(2):
            h = learning.train(task, learning.start_weights(again, sv.kind), 0.5, 40)
            assert sv.final_losses[b] == pytest.approx(h.losses[-1], rel=1e-12)
            assert sv.solved[b] == (h.accuracies[-1] == 1.0)


def test_a_run_that_blows_up_stops_alone_in_the_batch(task, start):
    """In one batch, a run that blows up stops there; the run beside it is not disturbed."""
    wild_start = {n: 4 * M for n, M in start.items()}  # diverges at lr = 0.5 after 26 losses
    W = {n: np.stack([start[n], wild_start[n]]) for n in learning.NAMES}
    calm, wild = learning._descend(task, W, 0.5, 30, [0], 1e6)
    calm_alone = learning.train(task, start, 0.5, 30, save_at=[0])
    wild_alone = learning.train(task, wild_start, 0.5, 30, save_at=[0])
    assert wild.diverged and wild_alone.diverged and len(wild.losses) == len(wild_alone.losses) == 26
    assert not calm.diverged and len(calm.losses) == 31
    np.testing.assert_allclose(calm.losses, calm_alone.losses, rtol=1e-12)
    np.testing.assert_allclose(wild.losses, wild_alone.losses, rtol=1e-12)
    np.testing.assert_allclose(calm.final.W["W_Q"], calm_alone.final.W["W_Q"], rtol=1e-12)


def test_forward_broadcasts_over_batch_axes(task, start):
    X, _, _ = task.stacks[0]                                   # (4 menus, 2 foods, 2)
    Ws = {n: np.stack([start[n], 2 * start[n], -start[n]])[:, None] for n in learning.NAMES}
    fwd = learning.forward(X, Ws["W_Q"], Ws["W_K"], Ws["W_V"])  # (3 runs, 4 menus, ...)
    assert fwd.weights.shape == (3, 4, 2, 2) and fwd.output.shape == (3, 4, 2, 2)
    for b in range(3):
        for m in range(4):
            one = learning.forward(X[m], *(Ws[n][b, 0] for n in learning.NAMES))
            np.testing.assert_allclose(fwd.weights[b, m], one.weights, rtol=1e-13)
            np.testing.assert_allclose(fwd.output[b, m], one.output, rtol=1e-13)


def test_forward_is_softmax_of_scaled_scores(start):
    X = np.array([[2.0, 0.2], [1.0, 0.1], [0.3, 1.8]])
    fwd = learning.forward(X, **start)
    S = (X @ start["W_Q"]) @ (X @ start["W_K"]).T / np.sqrt(2)
    np.testing.assert_allclose(fwd.weights, helpers.softmax(S, axis=-1))
    np.testing.assert_allclose(fwd.output, fwd.weights @ (X @ start["W_V"]))


def test_backward_matches_central_differences_for_one_menu(task, start):
    """The chain rule, softmax step included, against central differences of ½‖O − T‖²·2."""
    menu = task.full_menu
    fwd = learning.forward(menu.X, **start)
    grads = learning.backward(menu.X, fwd, 2 * (fwd.output - menu.targets))
    for name in learning.NAMES:
        def loss_of(M, name=name):
            out = learning.forward(menu.X, **{**start, name: M}).output
            return float(np.sum((out - menu.targets) ** 2))
        numeric = learning.numerical_gradient(loss_of, start[name])
        assert learning.relative_error(numeric, grads[name]) < 1e-7


def test_backward_with_batch_axes_gives_one_gradient_per_attention(task, start):
    X, T, _ = task.stacks[1]                                   # (4 menus, 3 foods, 2)
    fwd = learning.forward(X, start["W_Q"], start["W_K"], start["W_V"])
    grads = learning.backward(X, fwd, fwd.output - T)
    assert grads["W_Q"].shape == (4, 2, 2)
    for m in range(4):
        one = learning.forward(X[m], **start)
        want = learning.backward(X[m], one, one.output - T[m])
        for name in learning.NAMES:
            np.testing.assert_allclose(grads[name][m], want[name], rtol=1e-12, atol=1e-15)


def test_backward_refuses_an_X_that_is_not_the_forward_one(task, start):
    X = task.full_menu.X
    fwd = learning.forward(X, **start)
    with pytest.raises(ValueError, match="forward"):
        learning.backward(X[:3], fwd, fwd.output)
    with pytest.raises(ValueError, match="forward"):
        learning.backward(X + 1, fwd, fwd.output)


@pytest.mark.parametrize("args, match", [
    ((np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 2))), "W_Q の行数"),
    ((np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 2))), "d_k"),
    ((np.ones((4, 3, 2)), np.ones((5, 2, 2)), np.ones((2, 2)), np.ones((2, 2))), "束の軸"),
    ((np.ones(2), np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2))), "2 次元"),
    ((np.ones((3, 2)), np.full((2, 2), np.inf), np.ones((2, 2)), np.ones((2, 2))), "inf"),
])
def test_forward_bad_inputs(args, match):
    with pytest.raises((TypeError, ValueError), match=match):
        learning.forward(*args)


def test_stacks_hold_every_menu_once_in_order(task):
    rows = [(X, T, p) for X, T, p in task.stacks]
    menus = [(X[m], T[m], p[m]) for X, T, p in rows for m in range(len(X))]
    assert len(menus) == len(task.menus) == 9
    for (X, T, p), menu in zip(menus, task.menus, strict=True):
        np.testing.assert_array_equal(X, menu.X)
        np.testing.assert_array_equal(T, menu.targets)
        np.testing.assert_array_equal(p, menu.partner)


@pytest.mark.parametrize("kinds", [(), "Q = K = X", ("ぜんぶ 0",)])
def test_survey_kinds_bad_inputs(task, kinds):
    with pytest.raises(ValueError, match="kind"):
        learning.survey_starts(task, np.random.default_rng(0), n=1, steps=1, kinds=kinds)
