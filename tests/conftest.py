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


# ------------------------------------------------------------------ one session on all cores
#
# `make test` runs pytest-xdist with `--dist loadfile`: every file (a test module, or one
# notebook's nbval cells, which must run in order on one kernel) goes whole to one worker. Two
# additions, so that both cores finish together and the browser tests see a fresh book:
# - the heavy units are queued first (with --no-loadscope-reorder the queue keeps this order): the
#   classroom round trip (one worker, most of the run), then the book (its build, then the
#   browser tests), then the notebooks (nbval), then the quick test modules, which fill the gaps;
# - the book build joins the browser tests' unit, so the same worker builds the book, then reads it.

BOOK_BUILD, BOOK_TESTS = "test_book_build.py", "test_book.py"
HEAVY_FIRST = ("test_classroom.py", BOOK_BUILD, BOOK_TESTS)


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items):
    def rank(item):
        name = _file_of(item.nodeid).rsplit("/", 1)[-1]
        if name in HEAVY_FIRST:
            return HEAVY_FIRST.index(name)
        return len(HEAVY_FIRST) + (0 if name.endswith(".ipynb") else 1)

    items.sort(key=rank)  # stable: within a file, and within each rank, collection order


class _BookWithItsBuild:
    """xdist scheduler plugin: loadfile, with the book build in the browser tests' unit."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class Scheduling(LoadFileScheduling):
            def _split_scope(self, nodeid):
                scope = super()._split_scope(nodeid)
                return scope[: -len(BOOK_BUILD)] + BOOK_TESTS if scope.endswith(BOOK_BUILD) else scope

        return Scheduling(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_BookWithItsBuild(), "qkv-book-with-its-build")


# A failed book build is one failure, not one more per browser test of a missing book.
_book_build_failed = False


def pytest_runtest_logreport(report):
    global _book_build_failed
    if report.failed and _file_of(report.nodeid).endswith(BOOK_BUILD):
        _book_build_failed = True


def pytest_runtest_setup(item):
    if _book_build_failed and _file_of(item.nodeid).endswith(BOOK_TESTS):
        pytest.skip(f"本の書き出しが失敗したので、ブラウザでの検査は行いません({BOOK_BUILD} を参照)")
