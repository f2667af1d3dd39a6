"""A cell's printed text on its page exactly as the kernel wrote it, however the kernel split it.

A kernel sends what a cell prints in pieces, cut wherever its output thread happened to flush
(more often on a busy machine), and `print` writes its text and its newline separately, so a cut
can fall between them. The book merges a cell's pieces into one box (`nb_merge_streams` in
book/_config.yml), but myst-nb's merge (`myst_nb.core.render.coalesce_streams`, 1.4) strips each
piece's end and adds one newline: ``"一\\n二"`` + ``"\\n三\\n"`` became ``"一\\n二\\n\\n三\\n"``,
a blank line the cell never printed, and a blank line it did print was lost at a cut.

So the build first joins each run of pieces of one stream as they are, with nbconvert's
CoalesceStreamsPreprocessor, the join `make sync` saves the notebooks with
(tools/execute_notebooks.py), and only then hands the cell's outputs to myst-nb's merge, which
now sees what an uncut run would have given it. myst-nb offers no hook between a notebook's
execution and its rendering, so this replaces the function its renderer calls.
"""

from __future__ import annotations

import myst_nb.core.render
from nbconvert.preprocessors import CoalesceStreamsPreprocessor
from nbformat import NotebookNode
from sphinx.application import Sphinx

#: myst-nb's own merge, run after the join (its trimming and stdout-before-stderr order).
MYST_MERGE = myst_nb.core.render.coalesce_streams
_JOIN = CoalesceStreamsPreprocessor()


def merged_streams(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """A cell's outputs as myst-nb's merge gives them, the same whatever cuts its streams had.

    The outputs are copied first: both merges change the ones they are given, and the notebook
    the build keeps (book/_build/jupyter_execute/) stays as the kernel sent it.
    """
    cell = NotebookNode(outputs=[NotebookNode(output) for output in outputs or []])
    return MYST_MERGE(_JOIN.preprocess_cell(cell, {}, 0)[0].outputs)


def setup(app: Sphinx) -> None:
    myst_nb.core.render.coalesce_streams = merged_streams
