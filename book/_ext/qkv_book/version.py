"""The book's `release` is the helpers package's version, so the front page shows it ({sub-ref}`release`)."""

from __future__ import annotations

import ast
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

ROOT = Path(__file__).resolve().parents[3]
HELPERS_INIT = ROOT / "src" / "helpers" / "__init__.py"


def helpers_version(init: Path = HELPERS_INIT) -> str:
    """`__version__` as src/helpers/__init__.py writes it (read, not imported: the same number
    setuptools puts in the wheel, whatever helpers this Python happens to import)."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{init} に __version__ がありません")


def set_release(app: Sphinx, config: Config) -> None:
    config.version = config.release = helpers_version()


def setup(app: Sphinx) -> None:
    app.connect("config-inited", set_release)
