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
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def _inline_figures_without_tight_bbox() -> None:
    """Our figures lay themselves out (constrained layout), so the inline backend's default
    `bbox_inches="tight"`, which draws every figure twice, only costs time."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: no inline backend to configure
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "kernel"):  # a Jupyter kernel with inline figures
        shell.run_line_magic("config", "InlineBackend.print_figure_kwargs = {'bbox_inches': None}")


def setup(seed: int = DEFAULT_SEED) -> np.random.Generator:
    """Japanese figures, the book's plot style, fixed numpy printing; returns a seeded generator."""
    from .plotting import apply_style

    apply_style()
    _inline_figures_without_tight_bbox()
    np.set_printoptions(precision=3, suppress=True, floatmode="fixed", linewidth=100)
    return np.random.default_rng(seed)
