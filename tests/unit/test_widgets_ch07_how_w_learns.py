"""helpers.widgets.ch07_how_w_learns: chapter 07's explorable, driven headlessly from Python."""

import json
import re

import numpy as np
import pytest
import reference

from helpers import learning
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.widgets import TrainingExplorer, training_explorer
from helpers.widgets.ch07_how_w_learns import CHAPTER_STEPS, MAX_SNAPSHOTS


@pytest.fixture
def explorer(history):
    return training_explorer(history)


def expected(task, history, step):
    """What the picture must show at `step`, from the history and an independent attention."""
    snap = next(s for s in history.snapshots if s.step == step)
    X = task.full_menu.X
    _, weights = reference.attention(X @ snap.params["W_Q"], X @ snap.params["W_K"], X @ snap.params["W_V"])
    return snap, weights


def test_the_chapter_saves_the_steps_the_tests_train_with(saved_steps):
    assert CHAPTER_STEPS == saved_steps
    assert len(CHAPTER_STEPS) == 39 <= MAX_SNAPSHOTS


def test_explorer_starts_at_the_first_saved_step(explorer, task, history):
    snap, weights = expected(task, history, 0)
    n = explorer.numbers()
    assert n["step"] == 0 and explorer.step == 0
    assert n["loss"] == history.losses[0] == snap.loss
    assert n["accuracy"] == history.accuracies[0] == pytest.approx(2 / 24)
    np.testing.assert_allclose(n["weights"], weights)
    for name in learning.NAMES:
        np.testing.assert_array_equal(n["params"][name], snap.params[name])
    assert n["partner"] == [2, 2, 0, 0]  # sweet foods → カレー, spicy foods → ケーキ


@pytest.mark.parametrize("step", [1, 5, 6, 19, 20, 100, 200])
def test_setting_the_step_from_python_moves_the_numbers(explorer, task, history, step):
    explorer.step = step
    snap, weights = expected(task, history, step)
    n = explorer.numbers()
    assert n["step"] == step
    assert n["loss"] == pytest.approx(history.losses[step], rel=1e-12)
    assert n["accuracy"] == history.accuracies[step]
    np.testing.assert_allclose(n["weights"], weights)
    np.testing.assert_allclose(n["params"]["W_V"], snap.params["W_V"])
    np.testing.assert_allclose(n["params"]["W_Q"], snap.params["W_Q"])
    assert explorer.get_state()["step"] == step  # what the browser receives says the same


def test_a_whole_number_given_as_a_float_is_the_saved_step(explorer):
    explorer.step = 35.0 - 15.0
    assert explorer.step == 20 and isinstance(explorer.step, int)
    explorer.step = np.int64(30)
    assert type(explorer.get_state()["step"]) is int and explorer.numbers()["step"] == 30


def test_what_the_chapter_asks_to_look_for(explorer, history):
    """The chapter's suggestions, as numbers."""
    def at(step):
        explorer.step = step
        n = explorer.numbers()
        return n, n["weights"][np.arange(4), n["partner"]]

    n0, _ = at(0)
    n1, _ = at(1)
    assert n0["accuracy"] < 0.1 and n1["accuracy"] == 1.0  # 0 → 1: all right at once
    assert at(6)[0]["loss"] > at(5)[0]["loss"]  # the one step where the loss goes up a little
    on_partner = [at(s)[1] for s in range(20, 201, 10)]  # from 20 on: the framed weights grow
    assert all(np.all(b > a) for a, b in zip(on_partner, on_partner[1:], strict=False))
    assert all(at(s)[0]["accuracy"] == 1.0 for s in range(20, 201, 10))
    # W_V swings to and fro for about 20 steps (its top-left up, down, up, ...), then settles near I
    corner = [at(s)[0]["params"]["W_V"][0, 0] for s in range(1, 20)]
    assert all(np.sign(b - a) != np.sign(c - b) for a, b, c in zip(corner, corner[1:], corner[2:],
                                                                   strict=False))
    assert np.abs(at(200)[0]["params"]["W_V"] - np.eye(2)).max() < 0.05


def test_the_browser_gets_the_run_as_plain_lists(explorer, history, saved_steps):
    state = explorer.get_state()
    assert state["steps"] == saved_steps
    assert state["losses"] == history.losses.tolist()
    assert state["words"] == list(history.words)
    assert state["saved_params"][3]["W_K"] == history.snapshots[3].params["W_K"].tolist()
    assert state["saved_weights"][-1] == history.final.weights.tolist()
    assert state["saved_accuracies"] == [s.accuracy for s in history.snapshots]
    # a module the browser can load as it is: no static import left to a file it cannot reach
    assert "export default" in state["_esm"] and not re.search(r"^\s*import\b", state["_esm"], re.M)
    page = json.dumps(explorer.state_for_page())  # all of it is JSON, and light
    assert len(page) < 40_000


def test_another_run_works_too(task, start):
    """A learner's own run: W_V frozen at its start, the default saved steps."""
    h = learning.train(task, start, lr=0.5, steps=30, frozen=("W_V",))
    ex = training_explorer(h)
    assert ex.steps == [s.step for s in h.snapshots] and ex.step == 0
    ex.step = 30
    np.testing.assert_array_equal(ex.numbers()["params"]["W_V"], start["W_V"])
    assert ex.numbers()["loss"] == h.losses[30]


def test_a_wider_key_space_is_drawn(task, rng):
    """d_k = 3: W_Q and W_K are 2×3 and come through as such."""
    W = {"W_Q": rng.normal(0, 0.3, (2, 3)), "W_K": rng.normal(0, 0.3, (2, 3)), "W_V": np.eye(2)}
    ex = training_explorer(learning.train(task, W, lr=0.5, steps=3, save_at=[0, 3]))
    ex.step = 3
    assert ex.numbers()["params"]["W_Q"].shape == (2, 3)
    assert ex.numbers()["params"]["W_V"].shape == (2, 2)


def test_a_diverged_run_shows_the_losses_it_has(task, start):
    h = learning.train(task, start, lr=30.0, steps=50, save_at=[0, 1])
    ex = training_explorer(h)
    assert len(ex.losses) == len(h.losses) < 51
    assert ex.steps == [s.step for s in h.snapshots]


@pytest.mark.parametrize("value", [4.5, 21, 201, -1, "35", None, True, [5]])
def test_a_step_that_was_not_saved_is_refused_and_the_state_stays(explorer, value):
    explorer.step = 5
    with pytest.raises(HelpersKeyError, match=r"step\(更新の回数\) は 0、1、2.*200 のどれか"):
        explorer.step = value
    assert explorer.step == 5 and explorer.get_state()["step"] == 5
    assert explorer.numbers()["step"] == 5


def test_bad_inputs(task, start):
    with pytest.raises(TypeError, match="train"):
        training_explorer({"losses": []})
    with pytest.raises(HelpersTypeError, match="learning.train"):
        training_explorer(None)
    empty = learning.History(0.5, ("a", "b"), np.array([1, 0]), np.zeros(0), np.zeros(0))
    with pytest.raises(HelpersError, match="保存されたステップがありません"):
        training_explorer(empty)
    blown = learning.train(task, start, lr=1e6, steps=3, save_at=[3])  # diverged before step 3
    assert blown.snapshots == [] and len(blown.losses) == 1
    with pytest.raises(ValueError, match="save_at"):
        training_explorer(blown)
    many = learning.train(task, start, 0.5, 70, save_at=list(range(MAX_SNAPSHOTS)))  # and step 70
    with pytest.raises(ValueError, match=f"{MAX_SNAPSHOTS + 1} 個あります.*{MAX_SNAPSHOTS} 個まで"):
        training_explorer(many)
    most = learning.train(task, start, 0.5, 70, save_at=list(range(MAX_SNAPSHOTS - 1)))
    assert len(training_explorer(most).steps) == MAX_SNAPSHOTS  # 59 asked for, and step 70


def test_the_example_is_the_chapters_run(history):
    ex = TrainingExplorer.example()
    assert ex.steps == [s.step for s in history.snapshots]
    np.testing.assert_array_equal(ex.losses, history.losses)
