"""nbgrader's gradebook read and corrected: the scores, a submission forgotten, a flagged one given no marks."""

from __future__ import annotations

import shutil
from pathlib import Path

from .course_folder import gradebook


def scores(root: str | Path, chapter: str) -> dict[str, dict[str, float]]:
    """`{student: {grade_id: score}}` from the gradebook, for every graded submission of `chapter`."""
    with gradebook(Path(root).resolve()) as gb:
        return {
            sub.student.id: {grade.name: float(grade.score) for grade in sub.grades}
            for sub in gb.notebook_submissions(chapter, chapter)
        }


def forget(root: Path, chapter: str, student: str) -> None:
    """Remove a student's submission of `chapter` from the gradebook and autograded/."""
    with gradebook(root) as gb:
        try:
            gb.remove_submission(chapter, student)
        except Exception:  # noqa: BLE001 - nothing recorded for this student yet
            pass
    for step in ("autograded", "feedback"):
        shutil.rmtree(root / step / student / chapter, ignore_errors=True)
        if (root / step / student).is_dir() and not any((root / step / student).iterdir()):
            (root / step / student).rmdir()


def forget_removed(root: Path, chapter: str, students: list[str]) -> None:
    """Submissions in the gradebook whose notebook folder is gone from submitted/ are forgotten."""
    stale = [s for s in scores(root, chapter) if s not in students]
    for student in stale:
        forget(root, chapter, student)


def no_marks(root: Path, chapter: str, student: str) -> None:
    """Give every graded cell of this submission 0 points (nbgrader's manual score overrides)."""
    with gradebook(root) as gb:
        submission = gb.find_submission_notebook(chapter, chapter, student)
        for grade in submission.grades:
            grade.manual_score = 0.0
        gb.db.commit()
