"""What nbgrader's marks in a chapter say: which cells are exercises, and the marked regions of a cell."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbgrader.utils import is_grade, is_solution

from .course_folder import ClassroomError

READER_ONLY_TAG = "reader-only"
CHAPTER_GLOB = "[0-9][0-9]_*.ipynb"
SOLUTION_MARKERS = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TEST_MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


def has_exercises(nb) -> bool:
    """True if any cell is an nbgrader solution or autograded test cell."""
    return any(is_solution(c) or is_grade(c) for c in nb.cells)


def points(nb) -> float:
    """The points of a chapter: the sum over its grade cells."""
    return sum(float(c.metadata.nbgrader.get("points", 0)) for c in nb.cells if is_grade(c))


def chapter_notebooks(notebooks_dir: str | Path = "notebooks") -> list[Path]:
    """Every `NN_*.ipynb` in `notebooks_dir` that has nbgrader exercise cells, in chapter order."""
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        raise ClassroomError(f"ノートブックのフォルダ {folder} が見つかりません。")
    return [p for p in sorted(folder.glob(CHAPTER_GLOB)) if has_exercises(nbformat.read(p, 4))]



def marked_regions(source: str, markers: tuple[str, str]) -> list[str]:
    """The texts between nbgrader's begin/end marker lines (e.g. BEGIN/END SOLUTION) in `source`."""
    begin, end = markers
    regions, current = [], None
    for line in source.splitlines():
        if begin in line:
            current = []
        elif end in line and current is not None:
            regions.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return regions



def _is_heading(cell) -> bool:
    return cell.cell_type == "markdown" and any(line.startswith("#") for line in cell.source.splitlines())


def answer_spans(cells) -> list[tuple[str, range]]:
    """For each exercise (grade id of its test cell), the cells a learner meets from its question to
    their own answer and the cells that reveal it: back from the test cell to the question's
    heading, and on past the test cell through a one-paragraph lead-in (「答え合わせ:実際に…」) and
    the code cells that follow it, up to the next prose. None of these may show an output before
    the learner has run it: it would answer the question on the same screen."""
    spans = []
    for g, cell in enumerate(cells):
        if cell.cell_type != "code" or not is_grade(cell) or is_solution(cell):
            continue
        start = g
        while start > 0 and not _is_heading(cells[start]):
            start -= 1
        end = g + 1
        if (end + 1 < len(cells) and cells[end].cell_type == "markdown" and not _is_heading(cells[end])
                and cells[end + 1].cell_type == "code"):
            end += 1
        while end < len(cells) and cells[end].cell_type == "code":
            end += 1
        spans.append((cell.metadata.nbgrader.grade_id, range(start, end)))
    return spans
