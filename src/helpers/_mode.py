"""Who the notebooks are being run for: a learner in JupyterLab, the static book, or the grader."""

from __future__ import annotations

import os

#: Set by `make book`: widgets become kernel-free frame sliders in the static HTML book.
STATIC_ENV_VAR = "QKV_STATIC_BOOK"


def static_mode() -> bool:
    """True while the static HTML book is being built (no kernel will be behind the page)."""
    return os.environ.get(STATIC_ENV_VAR, "") not in ("", "0")


def autograding() -> bool:
    """True while `nbgrader autograde` runs the notebook (not while it validates one)."""
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"
