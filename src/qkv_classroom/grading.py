"""Autograding: each student × chapter graded alone, retried once (not if its own code ended the
kernel), tamper-flagged; chapters in parallel.

A submission that cannot be graded (unreadable, misnamed, a kernel that died, ...) gets 0 points
and its reason; one whose answer cells rebind or patch what the test cells rely on
(`tamper.scan_notebook`), or whose autograded notebook holds verdict records no check made
(`tamper.forged_records`), gets 0 points and is flagged.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import nbformat
from nbgrader.converters import Autograde

from .cells import points
from .class_report import write_class_report
from .course_folder import ClassroomError, Log, run_step, short_reason
from .gradebook import forget, forget_removed, no_marks, scores
from .reports import Outcome, Status, write_reports
from .submissions import chapters_with, students_of, submission_path, unreadable
from .tamper import forged_records, scan_notebook

#: nbclient's error when the kernel's process ended while it ran the notebook's cells: the
#: notebook's own code (os._exit, a crash in C) ended it, and would again; not tried once more.
KERNEL_ENDED_BY_ITS_CELLS = "DeadKernelError"


def grade_one(root: Path, student: str, chapter: str, max_score: float) -> Outcome:
    """Grade one student's notebook of one chapter; its outcome (0 points and why, if it failed)."""
    path = submission_path(root, student, chapter)
    problem = unreadable(path)
    if problem is None:
        for _attempt in (1, 2):  # once more: a busy machine can lose a kernel's connection
            try:
                run_step(Autograde, root, assignment_id=chapter, student_id=student)
                problem = None
                break
            except ClassroomError as err:
                problem = f"採点の途中で止まりました: {short_reason(str(err))}"
                if KERNEL_ENDED_BY_ITS_CELLS in str(err):
                    break
    if problem is not None:
        forget(root, chapter, student)
        return Outcome(student, chapter, Status.FAILED, 0.0, max_score, problem)
    findings = scan_notebook(nbformat.read(path, 4))
    graded = root / "autograded" / student / chapter / f"{chapter}.ipynb"
    if not findings and graded.exists():
        findings = forged_records(nbformat.read(graded, 4))
    if findings:
        no_marks(root, chapter, student)
        why = "; ".join(f"セル {f.cell}({f.grade_id}){f' {f.line} 行め' if f.line else ''}: {f.why}"
                        for f in findings)
        return Outcome(student, chapter, Status.FLAGGED, 0.0, max_score, why)
    got = scores(root, chapter).get(student, {})
    return Outcome(student, chapter, Status.GRADED, sum(got.values()), max_score)



def autograde(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
              only: Iterable[str] | None = None, jobs: int = 1, names: bool = False,
              log: Log = print) -> list[Outcome]:
    """Autograde every submission in `submitted/` (or only the given chapters), one student ×
    chapter at a time, so that one that cannot be graded never stops the others.

    A submission that cannot be graded (unreadable, misnamed, a kernel that died, ...) gets 0
    points and its reason; one whose answer cells rebind or patch what the test cells rely on
    (`tamper.scan_notebook`) gets 0 points and is flagged. Submissions whose folder was removed
    from `submitted/` are removed from the gradebook. Writes `reports/` (see `reports.write_reports`)
    and the class report (`class_report`, students named only with `names`).
    `only` limits grading to these students (the others' grades are kept as they are); `jobs`
    chapters are graded at the same time, in separate processes (e.g. 2 on a two-core machine).
    """
    root = Path(root).resolve()
    todo = chapters_with(root, "submitted", chapters)
    only = None if only is None else sorted(only)
    outcomes: list[Outcome] = []

    def report(i: int, chapter: str, done: list[Outcome], seconds: float) -> None:
        graded = [o for o in done if o.status == Status.GRADED]
        mean = sum(o.score for o in graded) / max(len(graded), 1)
        trouble = [o for o in done if o.status != Status.GRADED]
        note = f"、採点できなかった・0 点にしたもの {len(trouble)} 件(reports/report.md)" if trouble else ""
        max_score = points_of(root, chapter)
        log(f"[{i}/{len(todo)}] {chapter}: {len(graded)} 人を採点しました"
            f"(平均 {mean:.1f} / {max_score:g} 点、{seconds:.1f} 秒{note})")

    if jobs > 1 and len(todo) > 1:
        # One process per chapter at a time: the chapters share nothing but the gradebook.
        log(f"{len(todo)} 章を {jobs} つずつ同時に採点します(終わった章から 1 行ずつ表示します)")
        # The chapters with the most submissions start first, so that none of them is left
        # running alone at the end while the other processes have nothing to do.
        biggest_first = sorted(todo, key=lambda chapter: -len(students_of(root, chapter)))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork" if sys.platform == "linux" else "spawn")) as pool:
            futures = {pool.submit(_grade_chapter, root, chapter, only): chapter
                       for chapter in biggest_first}
            results = {}
            for i, future in enumerate(as_completed(futures), 1):  # as each chapter finishes
                chapter = futures[future]
                results[chapter] = future.result()
                report(i, chapter, *results[chapter])
        for chapter in todo:  # the reports list chapters in reading order
            outcomes += results[chapter][0]
    else:
        for i, chapter in enumerate(todo, 1):
            done, seconds = _grade_chapter(root, chapter, only)
            outcomes += done
            report(i, chapter, done, seconds)
    folder = write_reports(root, outcomes, todo)
    log(f"採点の一覧を {folder / 'grading.csv'}、学生ごとのまとめを {folder / 'summary.csv'}、"
        f"レポートを {folder / 'report.md'} に書きました。")
    write_class_report(root, names=names, log=log)
    return outcomes


def _grade_chapter(root: Path, chapter: str, only: list[str] | None) -> tuple[list[Outcome], float]:
    """Grade one chapter for every student (or `only` these), one at a time; (outcomes, seconds)."""
    start = time.perf_counter()
    students = students_of(root, chapter)
    forget_removed(root, chapter, students)
    if only is not None:
        students = [s for s in students if s in set(only)]
    max_score = points_of(root, chapter)
    done = [grade_one(root, student, chapter, max_score) for student in students]
    return done, time.perf_counter() - start


def points_of(root: Path, chapter: str) -> float:
    """The points of a chapter, from the teacher's source notebook."""
    return points(nbformat.read(Path(root) / "source" / chapter / f"{chapter}.ipynb", 4))

