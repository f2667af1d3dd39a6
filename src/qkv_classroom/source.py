"""The teacher's copy of a chapter for source/: the book's reader cells and folds gone, a score line added."""

from __future__ import annotations

import ast
import copy
import re
import textwrap

from nbconvert.preprocessors import ClearOutputPreprocessor, Preprocessor, TagRemovePreprocessor
from nbgrader.utils import is_grade, is_solution

from .cells import HIDDEN_TEST_MARKERS, READER_ONLY_TAG, SOLUTION_MARKERS, marked_regions

#: Book-only marks that would fold the exercise cells away from a student.
BOOK_ONLY_TAGS = frozenset({"hide-input", "hide-cell", "hide-output"})
#: The last line of every grade cell in source/: its partial credit, which nbgrader reads.
SCORE_CALL = "helpers.checks.score({points:g})"


class ShowExerciseCells(Preprocessor):
    """Unfold the exercise cells: the book hides the solution cell, a student must see it."""

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        if cell.metadata.get("nbgrader"):
            jupyter_meta = cell.metadata.get("jupyter", {})
            for key in ("source_hidden", "outputs_hidden"):
                jupyter_meta.pop(key, None)
            if "jupyter" in cell.metadata and not jupyter_meta:
                del cell.metadata["jupyter"]
            cell.metadata.pop("mystnb", None)  # the book's 「答えを見る」 toggle labels
            tags = [t for t in cell.metadata.get("tags", []) if t not in BOOK_ONLY_TAGS]
            if tags:
                cell.metadata["tags"] = tags
            else:
                cell.metadata.pop("tags", None)
        return cell, resources


class NameTheAnswers(Preprocessor):
    """Say which variable a solution cell must set, when only the solution itself said it.

    nbgrader replaces the whole solution region with the stub. For a function the signature
    stays (it is written outside the region), but a prediction cell such as
    `### BEGIN SOLUTION / prediction = "ケーキ" / ### END SOLUTION` would leave the student
    a stub without the name `prediction` that the test cell reads. This adds a comment line
    naming it, outside the region, unless the cell already mentions the name there.
    """

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not is_solution(cell):
            return cell, resources
        regions = marked_regions(cell.source, SOLUTION_MARKERS)
        outside = cell.source
        for region in regions:
            outside = outside.replace(region, "")
        top_level = [r for r in regions if textwrap.dedent(r) == r]  # not inside a `def`
        names = [n for n in dict.fromkeys(_assigned_names("\n".join(top_level)))
                 if not re.search(rf"\b{re.escape(n)}\b", outside)]
        if names:
            cell.source = f"# 答えは変数 {', '.join(names)} に入れます。\n{cell.source}"
        return cell, resources


class ScoreGradeCells(Preprocessor):
    """End every code grade cell with its partial credit, in hidden tests (never in the release):
    `helpers.checks.score(points)` shows points × the mean credit of the cell's checks, which
    nbgrader takes as the cell's score (see `helpers.checks._base`)."""

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and is_grade(cell) and not is_solution(cell):
            begin, end = HIDDEN_TEST_MARKERS
            cell.source = (f"{cell.source.rstrip()}\n### {begin}\n"
                           f"{SCORE_CALL.format(points=float(cell.metadata.nbgrader['points']))}\n### {end}")
        return cell, resources


def _assigned_names(code: str) -> list[str]:
    """Names bound by top-level assignments in `code` (empty if it is not valid Python)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for target in targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names += [e.id for e in elts if isinstance(e, ast.Name)]
    return names


def student_source(nb):
    """The teacher's copy of a chapter for nbgrader's `source/`: a new notebook, input untouched.

    Drops the `reader-only` cells (the self-learner's stub: in the release, nbgrader turns the
    solution cell itself into the stub), all outputs and the explorables' saved state (no output
    shows them any more; a student's run makes them anew), the book-only folding of the exercise
    cells, and jupytext's pairing (a paired .md next to the source would be copied into the release);
    names the variable a prediction cell must set (NameTheAnswers); ends each grade cell with its
    score line in hidden tests (ScoreGradeCells). Solutions and hidden tests stay: removing them
    is nbgrader's job.
    """
    nb = copy.deepcopy(nb)
    resources: dict = {}
    steps = (
        TagRemovePreprocessor(remove_cell_tags={READER_ONLY_TAG}),
        ClearOutputPreprocessor(),
        ShowExerciseCells(),
        NameTheAnswers(),
        ScoreGradeCells(),
    )
    for step in steps:
        nb, resources = step.preprocess(nb, resources)
    nb.metadata.pop("jupytext", None)
    nb.metadata.pop("widgets", None)
    return nb


