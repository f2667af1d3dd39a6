"""helpers.widgets.ch07_how_w_learns: chapter 07's widget, driven headlessly."""

import numpy as np
import pytest
from static_frames import static_payload

from helpers import learning
from helpers.widgets import training_explorer


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


def test_training_widget_static_frames(explorer, monkeypatch, saved_steps):
    _, payload = static_payload(explorer, monkeypatch)
    assert len(payload["frames"]) == len(saved_steps)
    assert payload["labels"][0].startswith("0 回目")
    assert all(alt.startswith("学習の途中経過") for alt in payload["alts"])


def test_training_widget_bad_inputs(task, start):
    with pytest.raises(TypeError, match="train"):
        training_explorer({"losses": []})
    many = learning.train(task, start, 0.5, 20, save_at=list(range(14)))
    with pytest.raises(ValueError, match="12 個まで"):
        training_explorer(many)
