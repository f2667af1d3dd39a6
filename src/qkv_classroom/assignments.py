"""Making the assignments (`build`): config, source/ and release/ for every chapter with exercises.

The exercises live once, in `notebooks/NN_*.ipynb`, with nbgrader cell metadata. `build` copies
every chapter that has exercises to `source/<chapter>/<chapter>.ipynb` (dropping the cells tagged
`reader-only`, the outputs, and the book-only "hide this cell" marks), then runs nbgrader's
`generate_assignment`, which removes the solutions and hidden tests, into
`release/<chapter>/<chapter>.ipynb`. The folder is an ordinary nbgrader course: its
`nbgrader_config.py` is written by `build`, so a teacher can also `cd classroom` and run the
`nbgrader` commands by hand (see book/teacher_guide.md). Nothing here writes to `notebooks/`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbgrader.converters import GenerateAssignment

from .audit import release_problems
from .cells import chapter_notebooks, has_exercises
from .config import COURSE_ID, DEFAULT_TIMEOUT, write_config
from .course_folder import ClassroomError, Log, run_step
from .source import student_source


def build(root: str | Path = "classroom", notebooks_dir: str | Path = "notebooks", *,
          notebooks: Sequence[str | Path] | None = None, course_id: str = COURSE_ID,
          timeout: int = DEFAULT_TIMEOUT, log: Log = print) -> list[str]:
    """Make the course folder: config, `source/` and `release/` for every chapter with exercises.

    `notebooks` overrides the discovery in `notebooks_dir`. Safe to run again (everything is
    regenerated; submissions and grades already in the folder are kept). Returns the chapters.
    """
    root = Path(root).resolve()
    paths = [Path(p) for p in notebooks] if notebooks is not None else chapter_notebooks(notebooks_dir)
    if not paths:
        raise ClassroomError(f"{notebooks_dir} に練習問題(nbgrader のセル)のあるノートブックがありません。")
    write_config(root, course_id=course_id, timeout=timeout)
    log(f"コースフォルダ {root}(course_id={course_id}、1 セルの制限時間 {timeout} 秒)")
    chapters = []
    for i, path in enumerate(paths, 1):
        start = time.perf_counter()
        chapter = path.stem
        nb = nbformat.read(path, 4)
        if not has_exercises(nb):
            raise ClassroomError(f"{path} には練習問題(nbgrader のセル)がありません。")
        target = root / "source" / chapter / f"{chapter}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(student_source(nb), target)
        run_step(GenerateAssignment, root, assignment_id=chapter)
        problems = release_problems(root, chapter)
        if problems:
            raise ClassroomError(f"{chapter} の配布版に問題があります:\n" + "\n".join(problems))
        chapters.append(chapter)
        log(f"[{i}/{len(paths)}] {chapter}: release/{chapter}/{chapter}.ipynb を作りました"
            f"({time.perf_counter() - start:.1f} 秒)")
    return chapters

