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
