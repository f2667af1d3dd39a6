"""Shared helpers for the textbook 「Q・K・V はどこから来るのか」.

Every notebook starts with::

    import helpers
    rng = helpers.setup()
"""

from __future__ import annotations

import os

import numpy as np

from . import attention, checks, data, plotting
from .attention import (
    attention_scores,
    cosine_similarity,
    project,
    qkv,
    scaled_dot_product_attention,
    softmax,
)

__all__ = [
    "setup",
    "static_mode",
    "attention",
    "checks",
    "data",
    "plotting",
    "softmax",
    "project",
    "qkv",
    "attention_scores",
    "scaled_dot_product_attention",
    "cosine_similarity",
]

#: Set by `make book`: widgets become kernel-free frame sliders in the static HTML book.
STATIC_ENV_VAR = "QKV_STATIC_BOOK"

DEFAULT_SEED = 20261202


def static_mode() -> bool:
    """True while the static HTML book is being built (no kernel will be behind the page)."""
    return os.environ.get(STATIC_ENV_VAR, "") not in ("", "0")


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
    plotting.apply_style()
    _inline_figures_without_tight_bbox()
    np.set_printoptions(precision=3, suppress=True, floatmode="fixed", linewidth=100)
    return np.random.default_rng(seed)


# Imported last: widgets reads `static_mode` from this module.
from . import widgets  # noqa: E402

__all__ += ["widgets"]

# Chapter 06: the √d_k experiment with random vectors.
from . import scaling  # noqa: E402

__all__ += ["scaling"]

# Chapters 04–05: the three faces (rotation_scale_matrix) and matrix products taken apart.
from . import faces, matmul  # noqa: E402

__all__ += ["faces", "matmul"]

# Chapter 07: learning W_Q, W_K, W_V by gradient descent on a toy task.
from . import learning  # noqa: E402

__all__ += ["learning"]
