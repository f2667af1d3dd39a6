import os

# pyproject.toml's pytest `pythonpath` puts tests/support/ (what tests share: `import reference`,
# `import explorables`, ...), tools/ (`import chapters`, the one list of chapters; `import chromium`)
# and lab/ (`import learner_lab`) on the path.

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

#: The training steps chapter 07 keeps a snapshot of (the explorable's slider stops): every step
#: up to 20, then every 10th.
SAVED_STEPS = [*range(20), *range(20, 201, 10)]


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
# notebook's nbval cells, which must run in order on one kernel) goes whole to one worker.
# Additions, so that both cores finish together and the browser tests see this session's book:
# - the heavy units are queued first (with --no-loadscope-reorder the queue keeps this order): the
#   classroom round trip (one worker, most of the run), then the book (its build, then the
#   browser tests), then JupyterLab's tests and the launch links' build (the other long files),
#   then the notebooks (nbval), then the quick test modules, and last the
#   reader's browser tests, which fill both cores at the end;
# - the book build joins the browser tests' unit, so the same worker builds the book, then reads it;
# - each of the reader's browser tests is a unit of its own, so both workers share them. Any
#   browser test waits until this session's build is done (test_book.book), or skips if it failed;
# - each of JupyterLab's browser tests (LAB_UNITS, each parameter) is a unit of its own, queued in
#   that order (the longest first) before the rest of its file; a worker starts one learner's Lab
#   for all of them (tests/test_lab.py's session-scoped `learner`), so the split costs no server start.

BOOK_BUILD, BOOK_TESTS, READER_TESTS = "test_book_build.py", "test_book.py", "test_book_reader.py"
#: Queued first, in this order; then the other long files (minutes each: JupyterLab in a browser,
#: a second book build), so that none of them starts late and runs on alone at the end.
HEAVY_FIRST = ("test_classroom.py", BOOK_BUILD, BOOK_TESTS, "test_lab.py", "test_launch_links.py")
#: JupyterLab's browser tests that are units of their own (by test name, each parameter alone), in
#: the order they are queued: the longest first.
LAB_FILE, LAB_UNITS = "test_lab.py", (
    "test_no_control_overlaps_another_in_lab_with_the_file_browser_open",
    "test_every_link_of_every_chapter_opens_in_lab", "test_explorables_in_a_real_lab",
    "test_teacher_lab_has_nbgrader")


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _lab_unit(nodeid: str) -> str | None:
    """The name of the LAB_UNITS test `nodeid` is (any parameter), or None."""
    test = nodeid.split("::", 1)[1].split("[", 1)[0] if "::" in nodeid else ""
    return test if _file_of(nodeid).endswith(LAB_FILE) and test in LAB_UNITS else None


def pytest_collection_modifyitems(items):
    def rank(item):
        name = _file_of(item.nodeid).rsplit("/", 1)[-1]
        if name in HEAVY_FIRST:
            unit = _lab_unit(item.nodeid)
            return HEAVY_FIRST.index(name), LAB_UNITS.index(unit) if unit else len(LAB_UNITS)
        if name == READER_TESTS:
            return len(HEAVY_FIRST) + 2, 0
        return len(HEAVY_FIRST) + (0 if name.endswith(".ipynb") else 1), 0

    items.sort(key=rank)  # stable: within a file, and within each rank, collection order


class _BookScheduling:
    """xdist scheduler plugin: loadfile, except that the book build joins the browser tests'
    unit, each of the reader's browser tests (each parameter) is a unit of its own, and so is each
    of JupyterLab's LAB_UNITS tests (each parameter)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class Scheduling(LoadFileScheduling):
            def _split_scope(self, nodeid):
                scope = super()._split_scope(nodeid)
                if scope.endswith(BOOK_BUILD):
                    return scope[: -len(BOOK_BUILD)] + BOOK_TESTS
                if scope.endswith(READER_TESTS):
                    return nodeid  # each test, each parameter: the workers end together
                if _lab_unit(nodeid):
                    return nodeid  # each test, each parameter
                return scope

        return Scheduling(config, log)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_BookScheduling(), "qkv-book-scheduling")
