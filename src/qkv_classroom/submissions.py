"""Where the submissions are: submitted/<student>/<chapter>/<chapter>.ipynb, and whether one can be read."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

import nbformat
from nbformat.warnings import MissingIDFieldWarning

from .course_folder import ClassroomError, course, short_reason


def submission_path(root: str | Path, student: str, chapter: str) -> Path:
    """Where nbgrader expects a student's notebook: `submitted/<student>/<chapter>/<chapter>.ipynb`."""
    return Path(root) / "submitted" / student / chapter / f"{chapter}.ipynb"


def chapters_with(root: Path, step: str, chapters: Iterable[str] | None) -> list[str]:
    """The chapters (in order) that have at least one student folder under `root/step`."""
    course(root)  # fails first if this is not a course folder
    found = sorted({p.parent.name for p in (root / step).glob(f"*/*/{'[0-9]' * 2}_*.ipynb")
                    if p.stem == p.parent.name})
    if not found:
        raise ClassroomError(f"{root / step} に、<学生>/<章>/<章>.ipynb の形のノートブックがありません。")
    if chapters is None:
        return found
    chapters = list(chapters)
    missing = [c for c in chapters if c not in found]
    if missing:
        raise ClassroomError(f"{root / step} に {', '.join(missing)} のノートブックがありません。")
    return chapters


def students_of(root: Path, chapter: str) -> list[str]:
    """Every student with a folder for `chapter` in submitted/ (whatever its notebook is called)."""
    folder = root / "submitted"
    return sorted(p.name for p in folder.iterdir() if (p / chapter).is_dir()) if folder.is_dir() else []


def all_students(root: Path) -> list[str]:
    """Every student with a folder in submitted/."""
    folder = root / "submitted"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def unreadable(path: Path) -> str | None:
    """Why the submitted notebook cannot be graded before running it, or None."""
    if not path.exists():
        others = sorted(p.name for p in path.parent.glob("*") if p.is_file())
        found = f"(あったのは {', '.join(others)})" if others else "(フォルダは空でした)"
        return f"{path.name} がありません{found}。ファイル名を {path.name} にしてください。"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingIDFieldWarning)
            nb = nbformat.read(path, 4)
        nbformat.validate(nb)
    except Exception as err:  # truncated JSON, not a notebook, wrong format version...
        return f"ノートブックとして読めません({type(err).__name__}: {short_reason(str(err), 120)})。"
    return None
