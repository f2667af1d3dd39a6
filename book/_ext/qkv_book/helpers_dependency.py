"""Chapters depend on src/helpers: a changed helper makes the next build execute the chapters again."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from .chapter_docs import is_chapter

ROOT = Path(__file__).resolve().parents[3]


def depend_on_helpers(app: Sphinx, doctree: nodes.document) -> None:
    """A chapter's outputs come from src/helpers too: when a helper changes, the next build
    executes the chapters again instead of keeping pictures drawn by the old code."""
    if is_chapter(app.env.docname):
        for path in sorted((ROOT / "src" / "helpers").rglob("*.py")):
            app.env.note_dependency(str(path))


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", depend_on_helpers)
