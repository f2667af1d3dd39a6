"""How a check says its verdict: a ✓ line for a right answer, a `CheckFailed` ✗ hint otherwise.

A check prints one line starting with ✓ when the answer is right, and otherwise raises
`CheckFailed` (an `AssertionError`) whose Japanese message names the likely mistake, so a learner
knows what to fix. IPython, and therefore JupyterLab, nbclient, nbval and nbgrader's feedback, asks
an exception for `_render_traceback_()` before printing a traceback: `CheckFailed` answers with its
hint alone, so a wrong answer is one ✗ line with no checker code and no path of the machine.
"""

from __future__ import annotations

from ..._validate import _ShortTraceback


class CheckFailed(_ShortTraceback, AssertionError):
    """A wrong answer, worth `credit` (0 to 1) of the exercise. IPython shows its ✗ hint only.

    `mistake` names the mistake the check recognised (a stable id such as "no_sqrt", the key of
    its hint), or None when the check saw only that the answer is wrong: the teacher's class
    report counts students by it; the learner never sees it."""

    def __init__(self, message: str, credit: float = 0.0, mistake: str | None = None) -> None:
        super().__init__(message)
        self.credit = credit
        self.mistake = mistake

    def _one_line(self) -> str:
        return str(self)  # the ✗ hint says it all: no exception name in front


def passed(message: str, *, quiet: bool = False) -> None:
    """Say ✓ (a hidden test, `quiet`, passes without a word: the visible check already spoke)."""
    if not quiet:
        print(f"✓ 正解です。{message}")


def fail(message: str, credit: float = 0.0, *, mistake: str | None = None) -> None:
    """Say ✗: raise `CheckFailed` with the hint, worth `credit` of the exercise; `mistake` is the
    recognised mistake's stable id (see `CheckFailed`)."""
    raise CheckFailed(f"✗ {message}", credit, mistake)
