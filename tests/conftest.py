import os

# Never the static-book mode unless a test asks for it. (No MPLBACKEND here: nbval's kernels
# inherit this environment, and with Agg forced they would show no inline figures at all.)
os.environ.pop("QKV_STATIC_BOOK", None)

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import helpers  # noqa: E402

helpers.setup()


import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers import learning  # noqa: E402

#: The training steps chapter 07 keeps a snapshot of (the widget's frames).
SAVED_STEPS = [0, 1, 2, 3, 5, 8, 12, 20, 35, 60, 100, 200]


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _close_figures():
    """pyplot figures a test made are closed after it (widgets draw on figures of their own)."""
    yield
    plt.close("all")


# ---------------------------------------------------------------- chapter 07's training run


@pytest.fixture(scope="module")
def task():
    return learning.palate_task()


@pytest.fixture(scope="module")
def start():
    """The chapter's starting point: the first draw from the book's seeded generator."""
    return learning.initial_weights(np.random.default_rng(helpers.DEFAULT_SEED))


@pytest.fixture(scope="module")
def saved_steps():
    return list(SAVED_STEPS)


@pytest.fixture(scope="module")
def history(task, start, saved_steps):
    return learning.train(task, start, lr=0.5, steps=200, save_at=saved_steps)
