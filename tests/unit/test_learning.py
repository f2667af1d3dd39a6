"""helpers.learning: chapter 07's task, its loss and training, the survey of starts."""

import numpy as np
import pytest
import reference

import helpers
from helpers import descent, learning
from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Embedding


def plain_loss(task, W):
    """The loss written again in plain numpy, independent of the helpers."""
    total = 0.0
    for m in task.menus:
        out, _ = reference.attention(m.X @ W["W_Q"], m.X @ W["W_K"], m.X @ W["W_V"])
        total += np.sum((out - m.targets) ** 2)
    return total / task.n_rows


def test_task_has_nine_menus_and_24_questions(task):
    assert len(task.menus) == 9 and task.n_rows == 24
    assert task.full_menu.words == ("ケーキ", "プリン", "カレー", "キムチ")
    assert [task.full_menu.words[p] for p in task.full_menu.partner] == [
        "カレー", "カレー", "ケーキ", "ケーキ"]


def test_every_menu_follows_the_rule(task):
    for m in task.menus:
        sweet = m.X[:, 0] > m.X[:, 1]
        assert sweet.any() and not sweet.all()
        for i, p in enumerate(m.partner):
            column = 1 if sweet[i] else 0
            assert m.X[p, column] == m.X[:, column].max()
        np.testing.assert_array_equal(m.targets, m.X[m.partner])


def test_the_answer_depends_on_the_menu(task):
    cake = {m.words[m.partner[m.words.index("ケーキ")]] for m in task.menus if "ケーキ" in m.words}
    assert cake == {"カレー", "キムチ"}


def test_task_foods_keep_their_chapter01_vectors(task):
    f = helpers.data.foods()
    for word in task.embedding.words:
        np.testing.assert_allclose(task.embedding[word], f[word])


def test_find_partner_and_bad_inputs():
    X = np.array([[2.0, 0.2], [0.3, 1.8], [0.5, 1.3]])
    assert learning.find_partner(X, 0) == 1
    assert learning.find_partner(X, 2) == 0
    with pytest.raises(ValueError, match="0 から 2"):
        learning.find_partner(X, 3)
    with pytest.raises(TypeError, match="整数"):
        learning.find_partner(X, True)
    with pytest.raises(ValueError, match="n×2"):
        learning.find_partner(np.ones((3, 3)), 0)


def test_palate_task_bad_inputs():
    with pytest.raises(TypeError, match="Embedding"):
        learning.palate_task(np.eye(2))
    all_sweet = Embedding(("a", "b"), np.array([[2.0, 0.1], [1.0, 0.2]]))
    with pytest.raises(ValueError, match="少なくとも 1 つずつ"):
        learning.palate_task(all_sweet)
    tie = Embedding(("a", "b", "c"), np.array([[2.0, 0.1], [2.0, 0.2], [0.1, 1.0]]))
    with pytest.raises(ValueError, match="甘さが同じ"):
        learning.palate_task(tie)
    three_d = Embedding(("a", "b"), np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.0]]), ("x", "y", "z"))
    with pytest.raises(ValueError, match="2 次元"):
        learning.palate_task(three_d)


def test_initial_weights_are_deterministic_and_near_identity_for_v():
    a = learning.initial_weights(np.random.default_rng(1))
    b = learning.initial_weights(np.random.default_rng(1))
    for name in learning.NAMES:
        np.testing.assert_array_equal(a[name], b[name])
        assert a[name].shape == (2, 2)
    zero = learning.initial_weights(np.random.default_rng(1), scale=0.0)
    np.testing.assert_array_equal(zero["W_V"], np.eye(2))
    np.testing.assert_array_equal(zero["W_Q"], np.zeros((2, 2)))
    assert learning.initial_weights(np.random.default_rng(1), d_k=3)["W_Q"].shape == (2, 3)


def test_initial_weights_bad_inputs():
    with pytest.raises(TypeError, match="Generator"):
        learning.initial_weights(0)
    with pytest.raises(ValueError, match="d_k"):
        learning.initial_weights(np.random.default_rng(0), d_k=0)
    with pytest.raises(ValueError, match="scale"):
        learning.initial_weights(np.random.default_rng(0), scale=-1.0)


def test_fixed_identity_solves_nothing(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    assert learning.accuracy(task, I) == 0.0


@pytest.mark.parametrize("name", learning.NAMES)
@pytest.mark.parametrize("where", ["start", "trained", "wide"])
def test_gradients_match_central_differences(task, start, history, name, where):
    W = {"start": start, "trained": history.final.params,
         "wide": {**learning.initial_weights(np.random.default_rng(5), d_k=3)}}[where]
    _, grads = learning.loss_and_gradients(task, W)

    def loss_of(M):
        return learning.loss_and_gradients(task, {**W, name: M})[0]

    numeric = learning.numerical_gradient(loss_of, W[name])
    assert grads[name].shape == W[name].shape
    assert learning.relative_error(numeric, grads[name]) < 1e-6


def test_loss_matches_plain_numpy(task, start):
    loss, _ = learning.loss_and_gradients(task, start)
    assert loss == pytest.approx(plain_loss(task, start))


def test_loss_and_gradients_bad_inputs(task, start):
    with pytest.raises(ValueError, match="キー"):
        learning.loss_and_gradients(task, {"W_Q": start["W_Q"]})
    with pytest.raises(TypeError, match="palate_task"):
        learning.loss_and_gradients("task", start)
    with pytest.raises(ValueError, match="NaN"):
        learning.loss_and_gradients(task, {**start, "W_K": np.full((2, 2), np.nan)})
    with pytest.raises(TypeError, match="palate_task"):
        learning.accuracy(None, start)


def test_training_lowers_the_loss(history):
    assert history.losses.shape == (201,) and history.accuracies.shape == (201,)
    # lr = 0.5 is close to the edge: one tiny step up (5 → 6), as the chapter says
    assert np.flatnonzero(np.diff(history.losses) > 0).tolist() == [5]
    assert history.losses[-1] < history.losses[0] / 700
    assert int(np.argmax(history.accuracies == 1.0)) == 1


def test_training_reaches_full_accuracy(task, history):
    assert history.accuracies[0] < 0.1
    assert history.accuracies[-1] == 1.0
    assert learning.accuracy(task, history.final.params) == 1.0
    assert not history.diverged
    # the learned W_V is close to the identity: the value is the food itself
    np.testing.assert_allclose(history.final.params["W_V"], np.eye(2), atol=0.05)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_other_starting_points_also_learn(task, seed):
    h = learning.train(task, learning.initial_weights(np.random.default_rng(seed)), 0.5, 200,
                       save_at=[0])
    assert h.accuracies[-1] == 1.0 and h.losses[-1] < 0.01


def test_snapshots_are_taken_where_asked(task, start, history, saved_steps):
    assert [s.step for s in history.snapshots] == saved_steps
    snap = history.snapshots[saved_steps.index(5)]
    assert snap.step == 5 and snap.loss == history.losses[5] and snap.accuracy == history.accuracies[5]
    w = learning.forward(task.full_menu.X, **snap.params).weights
    np.testing.assert_allclose(snap.weights, w)
    np.testing.assert_array_equal(history.snapshots[0].params["W_Q"], start["W_Q"])
    assert history.words == task.full_menu.words
    np.testing.assert_array_equal(history.partner, task.full_menu.partner)


def test_train_leaves_the_start_untouched(task):
    W = learning.initial_weights(np.random.default_rng(9))
    before = {n: m.copy() for n, m in W.items()}
    learning.train(task, W, 0.5, 3)
    for n in learning.NAMES:
        np.testing.assert_array_equal(W[n], before[n])


def test_default_snapshots_are_twelve_at_most(task, start):
    h = learning.train(task, start, 0.5, 30)
    steps = [s.step for s in h.snapshots]
    assert len(steps) <= 12 and steps[0] == 0 and steps[-1] == 30


def test_too_large_a_learning_rate_blows_up(task, start):
    h = learning.train(task, start, lr=1.0, steps=200, save_at=[0])
    assert h.diverged
    assert len(h.losses) == 7 and h.losses[-1] > 6e5
    assert np.all(np.isfinite(h.losses))


def test_a_huge_learning_rate_stops_quietly(task, start, recwarn):
    h = learning.train(task, start, lr=1e12, steps=50, save_at=[0], blowup=1e300)
    assert h.diverged and 0 < len(h.losses) < 51
    assert np.all(np.isfinite(h.losses))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with pytest.raises(TypeError, match="palate_task"):
        learning.train("task", start, 0.5, 1)


def test_starting_from_the_identity_falls_into_the_swap_valley(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    h = learning.train(task, I, lr=0.5, steps=200, save_at=[0])
    assert h.accuracies[-1] == 0.0
    assert 0.2 < h.losses[-1] < 0.3
    np.testing.assert_allclose(h.final.params["W_V"], learning.SWAP, atol=0.15)
    on_partner, on_self = learning.weight_split(task, h.final.params)
    assert on_partner < 0.01 and on_self > 0.7  # it looks at itself and swaps the tastes


def test_identity_start_is_solved_when_w_v_may_not_cheat(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    h = learning.train(task, I, lr=0.5, steps=200, save_at=[0], frozen=("W_V",))
    np.testing.assert_array_equal(h.final.params["W_V"], np.eye(2))
    assert h.accuracies[-1] == 1.0 and h.losses[-1] < 0.01
    assert not np.allclose(h.final.params["W_Q"], np.eye(2))


def test_frozen_bad_inputs(task, start):
    for frozen in ("W_V", ("W_X",)):
        with pytest.raises(ValueError, match="frozen"):
            learning.train(task, start, 0.5, 1, frozen=frozen)


def test_weight_split_by_hand(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    on_partner = on_self = 0.0
    for m in task.menus:
        A = reference.softmax(m.X @ m.X.T / np.sqrt(2))
        on_partner += A[np.arange(len(m.words)), m.partner].sum()
        on_self += np.trace(A)
    got = learning.weight_split(task, I)
    assert got == pytest.approx((on_partner / 24, on_self / 24))
    with pytest.raises(TypeError, match="palate_task"):
        learning.weight_split(None, I)


def test_best_value_matrix_is_the_least_squares_w_v(task, start):
    I = np.eye(2)
    W_V, loss = learning.best_value_matrix(task, I, I)
    assert loss == pytest.approx(learning.loss_and_gradients(
        task, {"W_Q": I, "W_K": I, "W_V": W_V})[0])
    np.testing.assert_allclose(W_V, learning.SWAP, atol=0.25)  # looking at itself: swap
    # no other W_V does better: the gradient with respect to W_V vanishes there
    _, grads = learning.loss_and_gradients(task, {"W_Q": I, "W_K": I, "W_V": W_V})
    np.testing.assert_allclose(grads["W_V"], 0.0, atol=1e-10)
    _, loss_even = learning.best_value_matrix(task, start["W_Q"], start["W_K"])
    assert loss_even > 1.5 * loss  # with an almost even attention W_V alone helps much less
    with pytest.raises(ValueError, match="NaN"):
        learning.best_value_matrix(task, np.full((2, 2), np.nan), I)


def test_start_weights_kinds():
    rng = np.random.default_rng(0)
    ours = learning.start_weights(np.random.default_rng(3), "この章の出発点")
    ref = learning.initial_weights(np.random.default_rng(3))
    for n in learning.NAMES:
        np.testing.assert_array_equal(ours[n], ref[n])
    no_I = learning.start_weights(np.random.default_rng(3), "W_V も乱数だけ")
    np.testing.assert_allclose(no_I["W_V"], ref["W_V"] - np.eye(2))
    qk = learning.start_weights(rng, "Q = K = X")
    np.testing.assert_array_equal(qk["W_Q"], np.eye(2))
    np.testing.assert_array_equal(qk["W_K"], np.eye(2))
    with pytest.raises(ValueError, match="kind"):
        learning.start_weights(rng, "ぜんぶ 0")


def test_survey_starts_counts_where_runs_end(task):
    surveys = learning.survey_starts(task, np.random.default_rng(0), n=4, steps=200)
    assert [s.kind for s in surveys] == list(learning.START_KINDS)
    for s in surveys:
        assert s.n == 4
        assert s.solved.sum() + s.swapped.sum() + s.diverged.sum() <= 4
        assert len(s.first_perfect) == s.solved.sum()
        assert np.all(s.final_losses[s.solved] < 0.01)
        assert np.all(s.final_losses[s.swapped] > 0.2)
    assert surveys[0].solved.all()
    assert surveys[2].swapped.any()  # starting from Q = K = X can end in the swap
    with pytest.raises(ValueError, match="n"):
        learning.survey_starts(task, np.random.default_rng(0), n=0)
    with pytest.raises(TypeError, match="Generator"):
        learning.survey_starts(task, 0)


@pytest.mark.parametrize("kwargs, match", [
    ({"lr": 0.0}, "lr"),
    ({"lr": np.nan}, "lr"),
    ({"lr": True}, "lr"),
    ({"steps": -1}, "steps"),
    ({"steps": 2.5}, "steps"),
    ({"save_at": [0, 500]}, "save_at"),
    ({"blowup": 0.0}, "blowup"),
])
def test_train_bad_inputs(task, start, kwargs, match):
    args = {"lr": 0.5, "steps": 10, **kwargs}
    with pytest.raises((TypeError, ValueError), match=match):
        learning.train(task, start, **args)


# ---------------------------------------------------------------- batched training

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
    np.testing.assert_allclose(h.final.params["W_Q"], TRAIN_BEFORE["W_Q"], rtol=1e-9)


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
    runs = descent.descend(lambda params: learning._palate_pass(task, params), W, 0.5, 30, [0], 1e6)
    calm, wild = learning._histories(task, runs, 0.5)
    calm_alone = learning.train(task, start, 0.5, 30, save_at=[0])
    wild_alone = learning.train(task, wild_start, 0.5, 30, save_at=[0])
    assert wild.diverged and wild_alone.diverged and len(wild.losses) == len(wild_alone.losses) == 26
    assert not calm.diverged and len(calm.losses) == 31
    np.testing.assert_allclose(calm.losses, calm_alone.losses, rtol=1e-12)
    np.testing.assert_allclose(wild.losses, wild_alone.losses, rtol=1e-12)
    np.testing.assert_allclose(calm.final.params["W_Q"], calm_alone.final.params["W_Q"], rtol=1e-12)


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


# Edges: overflow, underflow, masks, sizes, bad arguments (Japanese messages).


@pytest.fixture(scope="module")
def task():
    return learning.palate_task()


def test_divergence_before_the_first_saved_step_has_no_final(task, rng):
    W = learning.initial_weights(rng, scale=1e4)  # the loss is huge from step 0
    h = learning.train(task, W, lr=0.5, steps=5, blowup=1.0)
    assert h.diverged and h.snapshots == [] and len(h.losses) == 0
    with pytest.raises(HelpersError, match="発散"):
        _ = h.final


def test_survey_counts_runs_that_diverge_at_once(task, rng):
    (survey,) = learning.survey_starts(task, rng, n=2, steps=3, lr=0.5,
                                       kinds=("この章の出発点",), scale=1e6)
    assert survey.diverged.all() and not survey.solved.any() and not survey.swapped.any()
    assert np.all(np.isinf(survey.final_losses))


def test_survey_marks_the_one_start_that_diverges_at_step_0(task):
    """In a batch where one start is beyond the blow-up bound before any update, that start is
    marked diverged (inf, never NaN, as its final loss) and the others run as they would alone."""
    (survey,) = learning.survey_starts(task, np.random.default_rng(3), n=4, steps=5, scale=300.0,
                                       kinds=("この章の出発点",))
    assert not np.isnan(survey.final_losses).any()
    assert survey.diverged.tolist() == [True, False, True, True]
    assert np.isinf(survey.final_losses[0]) and np.isfinite(survey.final_losses[1:]).all()
    assert not survey.solved[0] and not survey.swapped[0]
    again = np.random.default_rng(3)
    starts = [learning.start_weights(again, "この章の出発点", 300.0) for _ in range(4)]
    at_once = learning.train(task, starts[0], 0.5, 5)
    assert at_once.diverged and len(at_once.losses) == 0
    alone = learning.train(task, starts[1], 0.5, 5)
    assert survey.final_losses[1] == pytest.approx(alone.losses[-1], rel=1e-12)


@pytest.mark.parametrize("name, shape, words", [
    ("W_Q", (3, 2), "d_model = 2"),
    ("W_K", (2, 3), "d_k"),
    ("W_V", (2, 3), "W_V は shape"),
    ("W_V", (3, 2), "d_model = 2"),
])
def test_mismatched_weights_get_japanese_messages(task, rng, name, shape, words):
    W = learning.initial_weights(rng)
    W[name] = np.ones(shape)
    with pytest.raises(HelpersError, match=words):
        learning.loss_and_gradients(task, W)
    with pytest.raises(HelpersError, match=words):
        learning.train(task, W, lr=0.1, steps=1)


@pytest.mark.parametrize("kwargs, cls", [
    ({"save_at": 5}, HelpersTypeError),
    ({"save_at": [99]}, HelpersError),
    ({"frozen": 5}, HelpersError),
    ({"lr": "0.1"}, HelpersTypeError),
])
def test_train_bad_arguments(task, rng, kwargs, cls):
    args = {"lr": 0.1, "steps": 2, **kwargs}
    with pytest.raises(cls):
        learning.train(task, learning.initial_weights(rng), **args)


