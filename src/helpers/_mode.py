"""Which kind of page the notebooks are being run for: a live JupyterLab, or the static book."""

from __future__ import annotations

import os

#: Set by `make book`: widgets become kernel-free frame sliders in the static HTML book.
STATIC_ENV_VAR = "QKV_STATIC_BOOK"


def static_mode() -> bool:
    """True while the static HTML book is being built (no kernel will be behind the page)."""
    return os.environ.get(STATIC_ENV_VAR, "") not in ("", "0")
