"""The teacher's classroom tools: an nbgrader course folder made from the chapter notebooks.

A package of its own, beside `helpers`, so that a learner's `import helpers` never imports
nbgrader. Run it as ``python -m qkv_classroom`` (see `cli` for the commands). One job per module,
in the order a course goes through them:

- `cells`: what nbgrader's marks in a chapter say (exercise cells, solution and hidden-test regions,
  the cells from a question to its answer);
- `config`: the course folder's nbgrader_config.py and the students' header, from templates;
- `source`: the teacher's copy of a chapter for source/ (nbconvert preprocessors);
- `audit`: what must not reach students, checked in release/;
- `assignments`: `build`, config + source/ + release/ for every chapter with exercises;
- `course_folder`: nbgrader's config, one nbgrader step and the gradebook of a course folder;
- `submissions`: where the submissions are, and whether one can be read;
- `tamper`: answer cells that try to change what grades them;
- `gradebook`: scores read, a submission forgotten or given no marks;
- `grading`: `autograde`, each student × chapter alone, retried once (not when its own code
  ended the kernel), flagged on tampering;
- `reports`: reports/ (grading.csv, summary.csv, report.md) from the outcomes;
- `class_report`: reports/class_report.html and .csv, what the class got wrong and where to re-teach;
- `feedback_pages`: `feedback`, the HTML pages without hidden test code, their maths as MathML;
- `grades_csv`: `export`, nbgrader's CSV with each row's status and reason;
- `cli`: the command line.
"""

try:
    import latex2mathml  # noqa: F401  - the feedback pages' maths
    import nbgrader  # noqa: F401  - every module below needs it
except ImportError as err:  # pragma: no cover - only without the `classroom` extra
    raise ImportError(
        "授業用の機能には nbgrader など(classroom の追加パッケージ)が必要です。`pip install -e '.[classroom]'` で入れてください"
        f"(見つからなかったもの: {err.name})。"
    ) from err

from .assignments import build  # noqa: E402 - after the friendly ImportError above
from .audit import release_problems  # noqa: E402
from .cells import (  # noqa: E402
    HIDDEN_TEST_MARKERS,
    READER_ONLY_TAG,
    SOLUTION_MARKERS,
    answer_spans,
    chapter_notebooks,
    has_exercises,
    marked_regions,
)
from .class_report import write_class_report  # noqa: E402
from .cli import main  # noqa: E402
from .config import COURSE_ID, DEFAULT_TIMEOUT, write_config  # noqa: E402
from .course_folder import ClassroomError  # noqa: E402
from .feedback_pages import FeedbackExporter, FeedbackStyle, FeedbackWithoutHiddenTests, feedback  # noqa: E402
from .gradebook import scores  # noqa: E402
from .grades_csv import export  # noqa: E402
from .grading import autograde  # noqa: E402
from .reports import Outcome, Status  # noqa: E402
from .source import SCORE_CALL, student_source  # noqa: E402
from .submissions import submission_path  # noqa: E402

__all__ = [
    "COURSE_ID",
    "DEFAULT_TIMEOUT",
    "HIDDEN_TEST_MARKERS",
    "READER_ONLY_TAG",
    "SCORE_CALL",
    "SOLUTION_MARKERS",
    "ClassroomError",
    "FeedbackExporter",
    "FeedbackStyle",
    "FeedbackWithoutHiddenTests",
    "Outcome",
    "Status",
    "answer_spans",
    "autograde",
    "build",
    "chapter_notebooks",
    "export",
    "feedback",
    "has_exercises",
    "main",
    "marked_regions",
    "release_problems",
    "scores",
    "student_source",
    "submission_path",
    "write_class_report",
    "write_config",
]
