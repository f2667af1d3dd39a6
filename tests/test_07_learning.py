"""Chapter 07 helpers: the toy task, forward/backward, gradient descent, plots, widget, checks."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from static_frames import static_payload

import helpers
from helpers import checks, learning
from helpers.checks import GRADIENT_STEP_HINTS, gradient_step_variants
from helpers.data import Embedding
from helpers.plotting import outline_cells, plot_learning_curve, plot_weight_matrix
from helpers.widgets import training_explorer

SAVED = [0, 1, 2, 3, 5, 8, 12, 20, 35, 60, 100, 200]


@pytest.fixture(scope="module")
def task():
    return learning.palate_task()


@pytest.fixture(scope="module")
def start():
    """The chapter's starting point: the first draw from the book's seeded generator."""
    return learning.initial_weights(np.random.default_rng(helpers.DEFAULT_SEED))


@pytest.fixture(scope="module")
def history(task, start):
    return learning.train(task, start, lr=0.5, steps=200, save_at=SAVED)


def np_softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def plain_loss(task, W):
    """The loss written again in plain numpy, independent of the helpers."""
    total = 0.0
    for m in task.menus:
        Q, K, V = m.X @ W["W_Q"], m.X @ W["W_K"], m.X @ W["W_V"]
        A = np_softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
        total += np.sum((A @ V - m.targets) ** 2)
    return total / task.n_rows


# ---------------------------------------------------------------- the task


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


# ---------------------------------------------------------------- starting point


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


# ---------------------------------------------------------------- forward and backward


def test_forward_is_plain_attention(task, start):
    X = task.full_menu.X
    fwd = learning.forward(X, **start)
    Q, K, V = X @ start["W_Q"], X @ start["W_K"], X @ start["W_V"]
    A = np_softmax_rows(Q @ K.T / np.sqrt(2))
    np.testing.assert_allclose(fwd.weights, A)
    np.testing.assert_allclose(fwd.output, A @ V)
    np.testing.assert_allclose(fwd.Q, Q)


def test_softmax_backward_is_the_jacobian_row_by_row():
    rng = np.random.default_rng(3)
    A = np_softmax_rows(rng.normal(size=(3, 5)))
    dA = rng.normal(size=(3, 5))
    dS = learning.softmax_backward(A, dA)
    for a, da, ds in zip(A, dA, dS, strict=True):
        J = np.diag(a) - np.outer(a, a)
        np.testing.assert_allclose(ds, J @ da)
    np.testing.assert_allclose(dS.sum(axis=1), 0.0, atol=1e-12)  # softmax ignores a shift


def test_softmax_backward_bad_shapes():
    with pytest.raises(ValueError, match="同じ形"):
        learning.softmax_backward(np.ones((2, 3)) / 3, np.ones((3, 2)))


@pytest.mark.parametrize("name", learning.NAMES)
@pytest.mark.parametrize("where", ["start", "trained", "wide"])
def test_gradients_match_central_differences(task, start, history, name, where):
    W = {"start": start, "trained": history.final.W,
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


def test_backward_bad_inputs(task, start):
    X = task.full_menu.X
    fwd = learning.forward(X, **start)
    with pytest.raises(TypeError, match="forward"):
        learning.backward(X, {"Q": fwd.Q}, fwd.output)
    with pytest.raises(ValueError, match="出力と同じ"):
        learning.backward(X, fwd, np.ones((4, 3)))


def test_loss_and_gradients_bad_inputs(task, start):
    with pytest.raises(ValueError, match="キー"):
        learning.loss_and_gradients(task, {"W_Q": start["W_Q"]})
    with pytest.raises(TypeError, match="palate_task"):
        learning.loss_and_gradients("task", start)
    with pytest.raises(ValueError, match="NaN"):
        learning.loss_and_gradients(task, {**start, "W_K": np.full((2, 2), np.nan)})
    with pytest.raises(TypeError, match="palate_task"):
        learning.accuracy(None, start)


def test_numerical_gradient_and_relative_error():
    grad = learning.numerical_gradient(lambda M: float(np.sum(M**3)), np.array([[1.0, -2.0]]))
    np.testing.assert_allclose(grad, [[3.0, 12.0]], rtol=1e-8)
    assert learning.relative_error([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert learning.relative_error([0.0], [0.0]) == 0.0
    assert learning.relative_error([1.0], [-1.0]) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="関数"):
        learning.numerical_gradient(3, np.eye(2))
    with pytest.raises(ValueError, match="eps"):
        learning.numerical_gradient(np.sum, np.eye(2), eps=0)
    with pytest.raises(ValueError, match="同じ形"):
        learning.relative_error(np.ones(2), np.ones(3))


# ---------------------------------------------------------------- training


def test_training_lowers_the_loss(history):
    assert history.losses.shape == (201,) and history.accuracies.shape == (201,)
    # lr = 0.5 is close to the edge: one tiny step up (5 → 6), as the chapter says
    assert np.flatnonzero(np.diff(history.losses) > 0).tolist() == [5]
    assert history.losses[-1] < history.losses[0] / 700
    assert int(np.argmax(history.accuracies == 1.0)) == 1


def test_training_reaches_full_accuracy(task, history):
    assert history.accuracies[0] < 0.1
    assert history.accuracies[-1] == 1.0
    assert learning.accuracy(task, history.final.W) == 1.0
    assert not history.diverged
    # the learned W_V is close to the identity: the value is the food itself
    np.testing.assert_allclose(history.final.W["W_V"], np.eye(2), atol=0.05)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_other_starting_points_also_learn(task, seed):
    h = learning.train(task, learning.initial_weights(np.random.default_rng(seed)), 0.5, 200,
                       save_at=[0])
    assert h.accuracies[-1] == 1.0 and h.losses[-1] < 0.01


def test_snapshots_are_taken_where_asked(task, start, history):
    assert [s.step for s in history.snapshots] == SAVED
    snap = history.snapshots[4]
    assert snap.loss == history.losses[5] and snap.accuracy == history.accuracies[5]
    w = learning.forward(task.full_menu.X, **snap.W).weights
    np.testing.assert_allclose(snap.weights, w)
    np.testing.assert_array_equal(history.snapshots[0].W["W_Q"], start["W_Q"])
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
    np.testing.assert_allclose(h.final.W["W_V"], learning.SWAP, atol=0.15)
    on_partner, on_self = learning.weight_split(task, h.final.W)
    assert on_partner < 0.01 and on_self > 0.7  # it looks at itself and swaps the tastes


def test_identity_start_is_solved_when_w_v_may_not_cheat(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    h = learning.train(task, I, lr=0.5, steps=200, save_at=[0], frozen=("W_V",))
    np.testing.assert_array_equal(h.final.W["W_V"], np.eye(2))
    assert h.accuracies[-1] == 1.0 and h.losses[-1] < 0.01
    assert not np.allclose(h.final.W["W_Q"], np.eye(2))


def test_frozen_bad_inputs(task, start):
    for frozen in ("W_V", ("W_X",)):
        with pytest.raises(ValueError, match="frozen"):
            learning.train(task, start, 0.5, 1, frozen=frozen)


def test_weight_split_by_hand(task):
    I = {n: np.eye(2) for n in learning.NAMES}
    on_partner = on_self = 0.0
    for m in task.menus:
        A = np_softmax_rows(m.X @ m.X.T / np.sqrt(2))
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


def test_training_forward_is_the_checked_forward(task, start):
    for m in task.menus:
        fast = learning._forward(m.X, start["W_Q"], start["W_K"], start["W_V"])
        slow = learning.forward(m.X, **start)
        for field in ("Q", "K", "V", "weights", "output"):
            np.testing.assert_allclose(getattr(fast, field), getattr(slow, field))


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


# ---------------------------------------------------------------- plots


def test_plot_learning_curve(history):
    ax = plot_learning_curve(history.losses, title="損失")
    assert ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_ydata(), history.losses)
    ax = plot_learning_curve([1.0, -1.0], log=False, label="a")
    assert ax.get_yscale() == "linear" and ax.get_legend() is not None
    plt.close("all")


def test_plot_learning_curve_bad_inputs():
    with pytest.raises(ValueError, match="正の値"):
        plot_learning_curve([1.0, 0.0])
    with pytest.raises(ValueError, match="1 次元"):
        plot_learning_curve(np.ones((2, 2)))
    plt.close("all")


def test_outline_cells_frames_one_cell_per_row():
    ax = helpers.plotting.plot_heatmap(np.eye(3), list("abc"), list("abc"))
    outline_cells(ax, [2, 0, 1])
    frames = [p for p in ax.patches if not p.get_fill()]
    assert sorted((p.get_x() + 0.5, p.get_y() + 0.5) for p in frames) == [
        (0.0, 1.0), (1.0, 2.0), (2.0, 0.0)]
    with pytest.raises(ValueError, match="行の数"):
        outline_cells(ax, [0, 1])
    with pytest.raises(ValueError, match="列の番号"):
        outline_cells(ax, [0, 1, 3])
    _, empty = plt.subplots()
    with pytest.raises(ValueError, match="ヒートマップ"):
        outline_cells(empty, [0])
    plt.close("all")


def test_plot_weight_matrix_reads_well():
    ax = plot_weight_matrix(np.array([[-2.0, -0.001], [0.3, 2.0]]), "W_K", reach=2.0)
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["-2.00", "0.00", "0.30", "2.00"]  # no "-0.00"
    colors = [t.get_color() for t in ax.texts]
    assert colors[0] == colors[3] == "white" and colors[1] == colors[2] == "black"
    assert ax.title.get_color() == helpers.plotting.COLORS["K"]
    with pytest.raises(ValueError, match="reach"):
        plot_weight_matrix(np.eye(2), "W_Q", reach=0.0)
    with pytest.raises(ValueError, match="2 次元"):
        plot_weight_matrix(np.ones(3), "W_Q")
    plt.close("all")


def test_plane_limits_fit_everything():
    W = np.array([[2.0, 0.0], [0.0, 0.5]])
    lo, hi = helpers.plotting.plane_limits([W, np.eye(2)], [[1.0, 3.0]], margin=1.0)
    assert (lo, hi) == (-3.0, 3.0)  # the point itself; its image is (2, 1.5)
    lo, hi = helpers.plotting.plane_limits([np.diag([5.0, 1.0])], [[1.0, 1.0]], margin=1.0)
    assert hi == 5.0
    with pytest.raises(ValueError, match="2×2"):
        helpers.plotting.plane_limits([np.eye(3)], [[1.0, 1.0]])


def test_plot_plane_map_has_no_text_in_the_panel():
    W = np.array([[-1.6, 0.0], [2.0, -0.3]])
    pts = np.array([[2.0, 0.2], [0.3, 1.8]])
    ax = helpers.plotting.plot_plane_map(W, "W_Q", points=pts, limits=(-4, 4), title="t")
    assert [t.get_text() for t in ax.texts if t.get_text()] == []
    assert len([t for t in ax.texts if not t.get_text()]) == 2  # the two basis arrows stay
    offsets = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 1])
    np.testing.assert_allclose(offsets, [pts[0], pts[0] @ W, pts[1], pts[1] @ W])
    assert ax.get_xlim() == (-4, 4) and ax.get_ylim() == (-4, 4)
    legend = helpers.plotting.plane_map_legend(ax.figure, ["ケーキ", "カレー"])
    assert [t.get_text() for t in legend.get_texts()][:2] == ["ケーキ", "カレー"]
    with pytest.raises(ValueError, match="n×2"):
        helpers.plotting.plot_plane_map(W, "W_Q", points=np.ones((5, 2)))
    with pytest.raises(ValueError, match="ラベル"):
        helpers.plotting.plane_map_legend(ax.figure, list("abcde"))
    plt.close("all")


# ---------------------------------------------------------------- widget


@pytest.fixture(scope="module")
def explorer(history):
    return training_explorer(history)


def test_slider_shows_the_saved_step(explorer, history):
    before = explorer.image.value
    explorer.controls["step"].value = 35
    snap = next(s for s in history.snapshots if s.step == 35)
    assert explorer.state["step"] == 35
    assert explorer.state["loss"] == pytest.approx(history.losses[35])
    assert explorer.state["accuracy"] == history.accuracies[35]
    np.testing.assert_allclose(explorer.state["weights"], snap.weights)
    np.testing.assert_allclose(explorer.state["W"]["W_Q"], snap.W["W_Q"])
    assert explorer.state["partner"] == [2, 2, 0, 0]
    assert explorer.image.value != before
    explorer.controls["step"].value = 0
    assert explorer.image.value == before  # the same step gives the same picture


def test_training_widget_static_frames(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert len(payload["frames"]) == len(SAVED)
    assert payload["labels"][0].startswith("0 回目")
    assert all(alt.startswith("学習の途中経過") for alt in payload["alts"])


def test_training_widget_bad_inputs(task, start):
    with pytest.raises(TypeError, match="train"):
        training_explorer({"losses": []})
    many = learning.train(task, start, 0.5, 20, save_at=list(range(14)))
    with pytest.raises(ValueError, match="12 個まで"):
        training_explorer(many)


# ---------------------------------------------------------------- checks


def right_update(W_Q, X, dQ, lr):
    return W_Q - lr * X.T @ dQ


def test_check_gradient_step_accepts_the_right_answer(capsys):
    checks.check_gradient_step(right_update)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_gradient_step_accepts_in_place_update(capsys):
    def in_place(W_Q, X, dQ, lr):
        W_Q -= lr * (X.T @ dQ)
        return W_Q

    checks.check_gradient_step(in_place)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("fn, hint", [
    (lambda W, X, dQ, lr: W + lr * X.T @ dQ, "sign"),
    (lambda W, X, dQ, lr: W - X.T @ dQ, "no_lr"),
    (lambda W, X, dQ, lr: W + X.T @ dQ, "sign_no_lr"),
    (lambda W, X, dQ, lr: W - X.T @ dQ / lr, "by_lr"),
    (lambda W, X, dQ, lr: W - lr * dQ.T @ X, "transposed"),
    (lambda W, X, dQ, lr: -lr * X.T @ dQ, "step_only"),
    (lambda W, X, dQ, lr: X.T @ dQ, "step_only"),
])
def test_check_gradient_step_names_each_mistake(fn, hint):
    with pytest.raises(AssertionError) as err:
        checks.check_gradient_step(fn)
    assert GRADIENT_STEP_HINTS[hint] in str(err.value)


def test_each_mistake_differs_from_the_right_answer():
    rng = np.random.default_rng(7)
    W, X, dQ = rng.normal(size=(2, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    variants = gradient_step_variants(W, X, dQ, 0.5)
    right = variants.pop("right")
    for name, wrong in variants.items():
        assert not np.allclose(wrong, right), name


def test_check_gradient_step_other_failures():
    with pytest.raises(AssertionError, match="形を print"):
        checks.check_gradient_step(lambda W, X, dQ, lr: W - lr * X @ dQ)  # shapes do not fit
    with pytest.raises(AssertionError, match="NotImplementedError"):
        def stub(W, X, dQ, lr):
            raise NotImplementedError
        checks.check_gradient_step(stub)
    with pytest.raises(AssertionError, match="数の配列"):
        checks.check_gradient_step(lambda W, X, dQ, lr: "W")
    with pytest.raises(AssertionError, match="同じ shape"):
        checks.check_gradient_step(lambda W, X, dQ, lr: np.zeros(3))
    with pytest.raises(AssertionError, match="1 行目"):
        checks.check_gradient_step(lambda W, X, dQ, lr: W - 0.3 * X.T @ dQ)


def test_check_learning_rate_prediction(capsys):
    checks.check_learning_rate_prediction("壊れる")
    assert capsys.readouterr().out.startswith("✓ 正解です。")
    for wrong, phrase in (("速くなる", "飛び越えて"), ("変わらない", "2 倍")):
        with pytest.raises(AssertionError, match=phrase):
            checks.check_learning_rate_prediction(wrong)
    with pytest.raises(AssertionError, match="まだ答え"):
        checks.check_learning_rate_prediction("")
    with pytest.raises(AssertionError, match="選択肢"):
        checks.check_learning_rate_prediction("遅くなる")
