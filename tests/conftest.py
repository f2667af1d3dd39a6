import os

# Never the static-book mode unless a test asks for it. (No MPLBACKEND here: nbval's kernels
# inherit this environment, and with Agg forced they would show no inline figures at all.)
os.environ.pop("QKV_STATIC_BOOK", None)

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import helpers  # noqa: E402

helpers.setup()


import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(scope="session")
def task():
    """Chapter 07's toy task: every menu of the palate task."""
    return helpers.learning.palate_task()


@pytest.fixture(scope="session")
def start():
    """Chapter 07's starting point: the first draw from the book's seeded generator."""
    return helpers.learning.initial_weights(np.random.default_rng(helpers.DEFAULT_SEED))
