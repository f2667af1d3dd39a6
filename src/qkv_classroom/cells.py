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

