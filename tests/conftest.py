import os

# Headless: no display, and never the static-book mode unless a test asks for it.
os.environ.setdefault("MPLBACKEND", "Agg")
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
