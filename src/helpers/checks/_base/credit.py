"""Partial credit for nbgrader: each `@exercise` notes a credit, `score(points)` adds them up.

Every public check is an `@exercise`, which notes a credit in [0, 1] for the cell it runs in (1
right, 0 wrong, or the `credit` a `fail` gives, e.g. ½ for attention weights that are right with a
wrong output). Only while nbgrader autogrades (NBGRADER_EXECUTION=autograde) does a wrong answer
print its ✗ line on stdout instead of raising, so that the cell runs on to its last line,
`score(points)`, which `qkv_classroom build` puts in the hidden tests of every grade cell: points ×
the mean credit of that cell's checks, the number nbgrader reads as the cell's partial credit.
Anywhere else nothing changes: a wrong answer raises.

Under autograding each verdict also leaves a record for the teacher's class report
(`qkv_classroom.class_report`): a display_data output whose only mimetype is `VERDICT_MIME`,
{check, credit, mistake, message}, which neither nbconvert's feedback page nor JupyterLab shows
(they have no renderer for it), so the student sees the same ✓/✗ lines. `mistake` is the
recognised mistake's stable id (`CheckFailed.mistake`, a hint table's key) or None. Only records
in a grade cell are read, and only as many as that cell calls checks (`qkv_classroom.tamper`).

The record lives in this module (one kernel grades one notebook, cell after cell); the classroom's
tamper scan flags an answer cell that reaches it (`_records`, `_note`, `_cell`, `_running`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

from ..._mode import autograding
from ..._validate import flag
from .verdicts import CheckFailed

#: The mimetype of a verdict record (nothing renders it: the student never sees it).
VERDICT_MIME = "application/vnd.qkv.verdict+json"

#: Credits noted by the checks of the cell that ran one last ({IPython execution count: [credit]}).
_records: dict[int | None, list[float]] = {}
_running = False  # a check is running: one called from inside it (the learner's code) notes nothing


def _cell() -> int | None:
    """The execution count of the running cell (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python
        return None
    shell = get_ipython()
    return None if shell is None else shell.execution_count


def _note(credit: float) -> None:
    cell = _cell()
    if cell not in _records:
        _records.clear()  # only the running cell's checks count
    _records.setdefault(cell, []).append(credit)


def _record(check: str, credit: float, mistake: str | None, message: str) -> None:
    """Under autograding: the verdict as a display_data output for the grader (see the top)."""
    if not autograding():
        return
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # plain Python: no notebook to leave it in
        return
    if get_ipython() is None:  # display() would print the dict instead
        return
    record = {"check": check, "credit": credit, "mistake": mistake, "message": message}
    display({VERDICT_MIME: record}, raw=True)


def exercise(check: Callable) -> Callable:
    """A public check: notes its credit for `score`; under autograding a wrong answer prints its
    ✗ line (stdout) and the cell goes on, anywhere else it raises `CheckFailed` as usual."""

    @functools.wraps(check)
    def run(*args, **kwargs):
        global _running
        if "hidden" in kwargs:  # "yes" or 1 would run the hidden cases as True does: refused
            kwargs["hidden"] = flag(kwargs["hidden"], "hidden(隠しテストの入力で調べるか)")
        if _running or threading.current_thread() is not threading.main_thread():
            return check(*args, **kwargs)  # from the learner's code: inside a check, or a thread
        _running = True
        try:
            check(*args, **kwargs)
        except CheckFailed as wrong:
            _note(wrong.credit)
            if not autograding():
                raise
            print(wrong)
            _record(check.__name__, wrong.credit, wrong.mistake, str(wrong).removeprefix("✗ "))
        else:
            _note(1.0)
            _record(check.__name__, 1.0, None, "")
        finally:
            _running = False

    return run


def score(points: float) -> float:
    """What a grade cell earns: `points` × the mean credit of the checks run in this cell (0 if
    none ran), to 0.01. The last line of every grade cell's hidden tests; nbgrader takes the
    number a grade cell outputs as its partial credit."""
    credits = _records.pop(_cell(), [])
    return round(points * sum(credits) / len(credits), 2) if credits else 0.0
