"""Shared helpers for the textbook 「Q・K・V はどこから来るのか」.

Every notebook starts with::

    import helpers
    rng = helpers.setup()

The layers (CONTRIBUTING.md has the rule): maths and data at the bottom (`attention`, `data`,
`geometry`, `matmul`, `scaling`, `learning`, `heads`), then `plotting`, then `widgets` and `checks`.
`helpers.plotting`, `helpers.widgets`, `helpers.checks` and the topic modules are imported on
first use, so a chapter pays only for what its cells touch.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np

from . import attention
from ._mode import STATIC_ENV_VAR, static_mode
from .attention import *  # noqa: F403  (softmax, qkv, … are helpers.softmax, helpers.qkv, …)

#: The modules `helpers.<name>` finds on first use (PEP 562), without an import at start-up.
SUBMODULES = ("attention", "checks", "data", "geometry", "heads", "learning", "matmul",
              "plotting", "scaling", "widgets")

__all__ = ["setup", "static_mode", "STATIC_ENV_VAR", *attention.__all__, *SUBMODULES]

DEFAULT_SEED = 20261202


def __getattr__(name: str):
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    # name and obj as Python sets them for a plain module, so a check can name the close match
    raise AttributeError(f"module 'helpers' has no attribute {name!r}", name=name, obj=sys.modules[__name__])


def _inline_figures_drawn_once() -> None:
    """In a Jupyter kernel, let the inline backend draw each figure only to make its picture.

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

        shell.run_line_magic("config", "InlineBackend.print_figure_kwargs = {'bbox_inches': None}")
        # Choosing the backend installs the hook; choose it now (pyplot would on the first
        # figure), then take the hook out. Pictures still appear: the inline backend shows them.
        plt.switch_backend(matplotlib.get_backend())
        plt.uninstall_repl_displayhook()


def setup(seed: int = DEFAULT_SEED) -> np.random.Generator:
    """Japanese figures, the book's plot style, fixed numpy printing; returns a seeded generator."""
    from .plotting import apply_style

    apply_style()
    _inline_figures_drawn_once()
    np.set_printoptions(precision=3, suppress=True, floatmode="fixed", linewidth=100)
    return np.random.default_rng(seed)
