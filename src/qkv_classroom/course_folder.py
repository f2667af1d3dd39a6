"""The course folder nbgrader works in: its config loaded, one nbgrader step run, its gradebook opened.

nbgrader runs in this process with the course's own config only; the user's ~/.jupyter is not read
or written. nbgrader's command-line tools need no `allow_root` (only a Jupyter *server* does).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from nbformat.warnings import MissingIDFieldWarning
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import capture_log
from sqlalchemy.exc import SAWarning
from traitlets.config.loader import PyFileConfigLoader

Log = Callable[[str], None]


class ClassroomError(RuntimeError):
    """A step of the classroom pipeline failed; the message says which and why (in Japanese)."""


@contextmanager
def _tools_on_path() -> Iterator[None]:
    """nbgrader's gradebook runs the `alembic` command: find it next to this Python.

    `.venv/bin/python -m qkv_classroom` works without an activated venv, so `.venv/bin` may
    be missing from PATH; it is added for the duration of the call only.
    """
    if shutil.which("alembic") is not None:
        yield
        return
    old = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), old])
    try:
        yield
    finally:
        os.environ["PATH"] = old


def course(root: Path):
    """(config, CourseDirectory) of the course folder `root`; fails if it has no nbgrader_config.py."""
    config_file = root / "nbgrader_config.py"
    if not config_file.exists():
        raise ClassroomError(
            f"{config_file} がありません。先に `python -m qkv_classroom build --root {root}` を"
            "実行してください。"
        )
    config = PyFileConfigLoader(config_file.name, path=str(root)).load_config()
    return config, CourseDirectory(config=config)


@contextmanager
def gradebook(root: Path) -> Iterator[Gradebook]:
    """nbgrader's gradebook of the course folder `root`, open for the `with` block."""
    _, coursedir = course(root)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        yield gb


def run_step(converter_class, root: Path, **attrs) -> str:
    """Run one nbgrader converter on the course in `root`; return its log, raise on failure."""
    config, coursedir = course(root)
    for key, value in attrs.items():
        setattr(coursedir, key, value)
    converter = converter_class(coursedir=coursedir, config=config)
    converter.force = True
    with _tools_on_path(), warnings.catch_warnings():
        # Noise from nbgrader's own code: its gradebook trips SQLAlchemy's autoflush warning, and
        # the test cells it puts back (OverwriteCells.add_missing_cells) have no cell id.
        warnings.simplefilter("ignore", SAWarning)
        warnings.simplefilter("ignore", MissingIDFieldWarning)
        result = capture_log(converter)
    if not result["success"]:
        raise ClassroomError(
            f"nbgrader の {converter_class.__name__} が失敗しました({attrs})。\n"
            f"{result.get('log', '')}\n{result.get('error', '')}"
        )
    return result.get("log", "")


def short_reason(text: str, limit: int = 300) -> str:
    """The last meaningful line of an error log, without the paths of this machine."""
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.strip().startswith("File ") and "Please see the" not in ln]
    raised = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Timeout)\w*: ", ln)]
    errors = raised or [ln for ln in lines if "Error" in ln or "エラー" in ln or "[ERROR]" in ln] or lines
    line = errors[-1] if errors else "理由が分かりません"
    line = re.sub(r"(/[^\s:'\"]+)+/", "", line)  # /home/…/classroom/submitted/s1/… → s1/…
    return line[:limit]
