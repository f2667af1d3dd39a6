"""Feedback pages: one HTML page per graded submission, with no hidden test code in it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbgrader.converters import GenerateFeedback
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Bool

from helpers.checks._base.credit import VERDICT_MIME

from .cells import HIDDEN_TEST_MARKERS, marked_regions
from .course_folder import ClassroomError, Log, run_step, short_reason
from .submissions import chapters_with


def feedback(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
             log: Log = print) -> list[str]:
    """`nbgrader generate_feedback`: `feedback/<student>/<chapter>/<chapter>.html` per submission.

    A chapter's pages are made in one run (nbgrader compiles its page templates once per run:
    one run per student spent most of its time on that). A page that cannot be made is
    reported, with its reason, and the others are still made: nbgrader goes on past it and
    leaves no file for it; it is then tried once more alone, for the reason. (The pages of an
    earlier run are removed first, as nbgrader's --force would, so an old page never passes
    for a new one.)
    """
    root = Path(root).resolve()
    todo = chapters_with(root, "autograded", chapters)
    for i, chapter in enumerate(todo, 1):
        students = sorted(p.parent.parent.name
                          for p in (root / "autograded").glob(f"*/{chapter}/{chapter}.ipynb"))
        pages = {s: root / "feedback" / s / chapter / f"{chapter}.html" for s in students}
        for page in pages.values():
            page.unlink(missing_ok=True)
        with contextlib.suppress(ClassroomError):
            run_step(GenerateFeedback, root, assignment_id=chapter)
        failed = []
        for student in students:
            if not pages[student].exists():
                try:
                    run_step(GenerateFeedback, root, assignment_id=chapter, student_id=student)
                except ClassroomError as err:
                    failed.append(f"{student}: {short_reason(str(err))}")
        n = len(list((root / "feedback").glob(f"*/{chapter}/{chapter}.html")))
        log(f"[{i}/{len(todo)}] {chapter}: フィードバック {n} 人分 → feedback/<学生>/{chapter}/"
            + (f"(作れなかったもの: {'; '.join(failed)})" if failed else ""))
    return todo


class FeedbackWithoutHiddenTests(ClearHiddenTests):
    """For the feedback HTML: drop hidden-test code, and the tracebacks that would quote it.

    nbgrader puts the hidden tests back before grading and, by design, shows them in the feedback
    (jupyter/nbgrader#917). Here a test cell with hidden tests keeps only the last line of each
    error (`AssertionError: ✗ hint`), so the hint stays and the test code goes. The checks'
    verdict records (for the class report; nothing renders them) are dropped and the ✗ lines
    they separated joined again, so the page shows what a notebook without them would.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            kept = []
            for output in cell.get("outputs", []):
                if VERDICT_MIME in output.get("data", {}):
                    continue
                last = kept[-1] if kept else None
                if (last is not None and output.get("output_type") == last.get("output_type") == "stream"
                        and output.get("name") == last.get("name")):
                    last["text"] += output["text"]
                else:
                    kept.append(output)
            cell["outputs"] = kept
        if cell.cell_type == "code" and marked_regions(cell.source, HIDDEN_TEST_MARKERS):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    ename, evalue = output.get("ename", ""), output.get("evalue", "")
                    # a check's CheckFailed is its ✗ hint alone, as in JupyterLab
                    output["traceback"] = [evalue if ename == "CheckFailed" else f"{ename}: {evalue}"]
        return super().preprocess_cell(cell, resources, index)



#: The page's own rule, after nbconvert's: a ✗ line (one long line of Japanese) wraps inside its
#: box, as in JupyterLab, instead of running past the box's right edge, where its advice (the end
#: of the line) would be seen only by scrolling sideways.
WRAP_OUTPUT_CSS = "div.output_area pre { white-space: pre-wrap; overflow-wrap: anywhere; }"


class FeedbackStyle(Preprocessor):
    """For the feedback HTML, after nbconvert's CSSHTMLHeaderPreprocessor: `WRAP_OUTPUT_CSS`."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless enabled

    def preprocess(self, nb, resources):
        resources.setdefault("inlining", {}).setdefault("css", []).append(WRAP_OUTPUT_CSS)
        return nb, resources
