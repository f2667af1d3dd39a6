"""Shared helpers for the textbook 「Q・K・V はどこから来るのか」.

Every notebook starts with (tests/test_notebooks.py holds each chapter to it)::

    try:
        import numpy as np
        import helpers
    except ModuleNotFoundError as missing:
        missing._render_traceback_ = lambda name=missing.name: [f"{name} パッケージが見つからないので、…"]
        raise

    rng = helpers.setup(needs="0.1.0")

so a reader without the package (or without numpy, e.g. after `pip install notebook` alone) sees
one Japanese line saying what to install, and a reader
with an older one (`needs` above `__version__`) one line saying what to upgrade.

The layers (CONTRIBUTING.md has the rule): maths and data at the bottom (`attention`, `data`,
`geometry`, `matmul`, `scaling`, `learning`, `heads`), then `plotting`, then `widgets` and `checks`.
`helpers.plotting`, `helpers.widgets`, `helpers.checks` and the topic modules are imported on
first use, so a chapter pays only for what its cells touch.
"""

from __future__ import annotations

import gc
import importlib
import re
import sys

import numpy as np

from . import _style, attention
from ._mode import STATIC_ENV_VAR, static_mode
from ._validate import HelpersError, HelpersVersionError, arg, integer, public
from .attention import *  # noqa: F403  (softmax, qkv, … are helpers.softmax, helpers.qkv, …)

#: The modules `helpers.<name>` finds on first use (PEP 562), without an import at start-up.
SUBMODULES = ("attention", "checks", "data", "descent", "geometry", "heads", "learning", "matmul",
              "plotting", "scaling", "widgets")

__all__ = ["setup", "static_mode", "STATIC_ENV_VAR", "__version__", *attention.__all__,
           *SUBMODULES]

#: The one version number: the wheel's (pyproject.toml reads it), the book's front page, CHANGELOG.md.
__version__ = "0.2.3"

#: What a reader runs to upgrade the package (a chapter's first cell says how to install it).
INSTALL = "%pip install -U ファイル名"  # the book's wheel is handed out as a file (README)

DEFAULT_SEED = 20261202


def __getattr__(name: str):
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    # name and obj as Python sets them for a plain module, so a check can name the close match
    raise AttributeError(f"module 'helpers' has no attribute {name!r}", name=name, obj=sys.modules[__name__])


def _configure_inline_figures() -> None:
    """In a Jupyter kernel: draw each figure only to make its picture, and free it once shown.

    Two things would draw it once more: the backend's default `bbox_inches="tight"` (our figures
    lay themselves out with constrained layout), and pyplot's post-execute hook, which redraws
    every figure after every cell just before the inline backend draws it again for its PNG.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: no inline backend to configure
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "kernel"):  # a Jupyter kernel with inline figures
        import matplotlib
        import matplotlib.pyplot as plt

        # Choosing the backend installs the hook; choose it now (pyplot would on the first
        # figure), then take the hook out. Pictures still appear: the inline backend shows them.
        plt.switch_backend(matplotlib.get_backend())
        plt.uninstall_repl_displayhook()
        if "inline" in matplotlib.get_backend():  # set directly: `%config` costs ~30 ms
            from matplotlib_inline.config import InlineBackend

            InlineBackend.instance(parent=shell).print_figure_kwargs = {"bbox_inches": None}
        _free_figures_once_shown(shell)


_cell_drew = False  # set before the inline backend draws the cell's figures, read after the cell


def _collect_before_drawing() -> None:
    """A cell that drew: free earlier figures' garbage before the new ones are drawn."""
    global _cell_drew
    import matplotlib.pyplot as plt

    if plt.get_fignums():
        gc.collect()
        _cell_drew = True


def _collect_if_cell_drew(result=None) -> None:
    global _cell_drew
    if _cell_drew:
        gc.collect()
    _cell_drew = False


def _free_figures_once_shown(shell) -> None:
    """Collect figure garbage around the drawing of a cell's figures, and make that cheap.

    A closed figure is a web of reference cycles: its memory came back only with Python's next
    full collection, often many cells later, so a chapter's peak memory carried several dead
    figures (about 7 MiB in chapters 03 and 08). So, in a cell that made figures, one collection
    before the inline backend draws them (a figure the cell replaced, `fig = …` again, is garbage
    by then, and its memory is reused for the drawing) and one after it has closed them. Our
    post-execute hook goes in front of the backend's (IPython has no API for order). What is
    alive when pyplot is first imported after setup() (numpy, matplotlib, helpers) is frozen out
    of the collector's view: a full collection then costs ~5 ms instead of ~50 ms.
    """
    callbacks = shell.events.callbacks["post_execute"]
    if _collect_before_drawing not in callbacks:  # setup() may run again
        gc.freeze()  # no collection first: at this point it finds a handful of objects (~45 ms)
        callbacks.insert(0, _collect_before_drawing)
        shell.events.register("post_run_cell", _collect_if_cell_drew)


#: "0.2", "0.2.0", "0.2.0.dev1", "0.2.0rc1": a pre-release counts as its release.
_VERSION = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.?(?:a|b|rc|dev|post)\d*)?")


def _release(version, name: str) -> tuple[int, ...]:
    """(0, 2, 0) for "0.2.0" (and for "0.2" and "0.2.0.dev1")."""
    found = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if found is None:
        raise HelpersError(f"{name} は \"0.1.0\" のような版の番号で書いてください。{version!r} が来ました。")
    return tuple(int(n or 0) for n in found.groups())


def _new_enough(a: dict) -> None:
    """Refuse, in one Japanese line, a helpers older than `needs` (what a chapter was written for)."""
    needs = a["needs"]
    if needs is not None and _release(needs, "needs") > _release(__version__, "helpers.__version__"):
        raise HelpersVersionError(
            f"この章には helpers {needs} 以上が要りますが、入っているのは {__version__} なので、"
            f"新しい版の wheel ファイルを `{INSTALL}` で入れてから、カーネルを再起動してください。"
        )


@public(_new_enough, seed=arg(integer, lo=0, optional=True), always=True)
def setup(seed: int = DEFAULT_SEED, *, needs: str | None = None) -> np.random.Generator:
    """Japanese figures, the book's plot style, fixed numpy printing; returns a seeded generator.

    `needs`: the oldest helpers the chapter runs with (its first cell says); an older one stops
    here with one Japanese line that says what to run.
    """
    # matplotlib is set up when it is first imported (now, if it already is): a kernel that
    # draws nothing never loads it. The style comes first, then the kernel's inline figures.
    _style.after_import("matplotlib", _style.apply_style)
    _style.after_import("matplotlib.pyplot", _configure_inline_figures)
    np.set_printoptions(precision=3, suppress=True, floatmode="fixed", linewidth=100)
    return np.random.default_rng(seed)
