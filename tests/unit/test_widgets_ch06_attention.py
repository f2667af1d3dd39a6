"""helpers.widgets.ch06_attention: chapter 06's widget, driven headlessly."""


import numpy as np
import pytest
import reference
from static_frames import static_payload

from helpers import scaling
from helpers._validate import HelpersError, HelpersTypeError
from helpers.widgets import scaling_explorer


@pytest.fixture(scope="module")
def explorer():
    return scaling_explorer(np.random.default_rng(0))


def test_explorer_controls_and_frames(explorer):
    assert list(explorer.controls["d_k"].options) == list(scaling.DK_CHOICES)
    assert len(explorer.static_frames) <= 12
    assert {f["scaled"] for f in explorer.static_frames} == {False, True}


@pytest.mark.parametrize("d_k", [1, 64, 512])
def test_explorer_unscaled_variance_is_about_d_k(explorer, d_k):
    explorer.controls["scaled"].value = False
    before = explorer.image.value
    explorer.controls["d_k"].value = d_k
    state = explorer.state
    assert state["d_k"] == d_k and state["scaled"] is False
    assert state["expected_variance"] == d_k
    assert state["variance"] == pytest.approx(d_k, rel=0.2)
    if d_k != 1:  # d_k = 1 may already be showing
        assert explorer.image.value != before


def test_explorer_scaled_variance_is_about_one_and_weights_are_softmax(explorer):
    explorer.controls["d_k"].value = 256
    explorer.controls["scaled"].value = False
    unscaled = explorer.state
    before = explorer.image.value
    explorer.controls["scaled"].value = True
    scaled = explorer.state
    assert explorer.image.value != before
    assert scaled["variance"] == pytest.approx(1.0, rel=0.2)
    assert scaled["row"] == unscaled["row"]  # the same row, with and without scaling
    assert unscaled["max_weight"] > scaled["max_weight"]
    assert unscaled["mean_max_weight"] > 0.85 > 0.5 > scaled["mean_max_weight"]
    np.testing.assert_allclose(scaled["weights"].sum(), 1.0)
    assert scaled["max_weight"] == pytest.approx(scaled["weights"].max())


def test_explorer_weights_match_a_fresh_experiment():
    e = scaling_explorer(np.random.default_rng(5))
    e.controls["d_k"].value = 8
    e.controls["scaled"].value = True
    runs = scaling.scaling_experiment(scaling.DK_CHOICES, np.random.default_rng(5))
    run = runs[scaling.DK_CHOICES.index(8)]
    ref = reference.softmax(run.scores / np.sqrt(8))
    np.testing.assert_allclose(e.state["weights"], ref[e.state["row"]])
    assert e.state["mean_max_weight"] == pytest.approx(ref.max(axis=1).mean())


def test_explorer_static_frames_are_distinct(explorer, monkeypatch):
    html, payload = static_payload(explorer, monkeypatch)
    frames, labels = payload["frames"], payload["labels"]
    assert len(set(frames)) == len(frames) == len(explorer.static_frames) == 12
    assert labels[0] == "d_k = 1・割らない"
    assert labels[-1] == "d_k = 512・d_k の平方根で割る"
    assert len(html) < 1_500_000


@pytest.mark.parametrize(
    "kwargs, error, words",
    [({"rng": 42}, HelpersTypeError, "np.random.Generator"),
     ({"n_words": 0}, HelpersError, "n_words"),
     ({"n_words": 13}, HelpersError, "1 から 12 の範囲"),
     ({"n_words": 10**6}, HelpersError, "1 から 12 の範囲"),
     ({"n_words": 2.5}, HelpersTypeError, "整数")],
)
def test_scaling_explorer_bad_inputs(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaling_explorer(**kwargs)
