"""Chapter 07's maths at its edges: divergence before the first snapshot, mismatched inputs."""

import numpy as np
import pytest

from helpers import learning
from helpers._validate import HelpersError, HelpersTypeError


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


def test_backward_refuses_an_x_from_another_forward(rng):
    W = learning.initial_weights(rng)
    X = rng.normal(size=(3, 2))
    fwd = learning.forward(X, W["W_Q"], W["W_K"], W["W_V"])
    dO = np.ones_like(fwd.output)
    grads = learning.backward(X, fwd, dO)
    assert {k: g.shape for k, g in grads.items()} == {"W_Q": (2, 2), "W_K": (2, 2), "W_V": (2, 2)}
    for other in (X + 1.0, rng.normal(size=(3, 5)), X[:2]):
        with pytest.raises(HelpersError, match="forward に渡したのと同じ"):
            learning.backward(other, fwd, dO)


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


def test_numerical_gradient_eps_must_be_a_positive_number():
    with pytest.raises(HelpersTypeError, match="eps"):
        learning.numerical_gradient(lambda W: float(np.sum(W)), np.ones((2, 2)), eps="1e-5")
