"""The classroom pipeline: an nbgrader course folder made from the chapter notebooks.

    python -m qkv_classroom build     [--root classroom]   # source/ and release/ (make assignments)
    python -m qkv_classroom autograde [--root classroom] [CHAPTER ...]
    python -m qkv_classroom feedback  [--root classroom] [CHAPTER ...]
    python -m qkv_classroom export    [--root classroom] [--to grades.csv]
    python -m qkv_classroom grade     [--root classroom]   # autograde + feedback + export

The exercises live once, in `notebooks/NN_*.ipynb`, with nbgrader cell metadata. `build` copies
every chapter that has exercises to `source/<chapter>/<chapter>.ipynb` (dropping the cells tagged
`reader-only`, the outputs, and the book-only "hide this cell" marks), then runs nbgrader's
`generate_assignment`, which removes the solutions and hidden tests, into
`release/<chapter>/<chapter>.ipynb`. The folder is an ordinary nbgrader course: its
`nbgrader_config.py` is written by `build`, so a teacher can also `cd classroom` and run the
`nbgrader` commands by hand (see book/teacher_guide.md). Nothing here writes to `notebooks/`.

nbgrader runs in this process with the course's own config only; the user's ~/.jupyter is not read
or written. nbgrader's command-line tools need no `allow_root` (only a Jupyter *server* does).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import csv
import os
import re
import shutil
import sys
import textwrap
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

try:
    import nbformat
    from nbconvert.preprocessors import (
        ClearOutputPreprocessor,
        Preprocessor,
        TagRemovePreprocessor,
    )
    from nbformat.warnings import MissingIDFieldWarning
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.plugins import CsvExportPlugin
    from nbgrader.preprocessors import ClearHiddenTests
    from nbgrader.utils import capture_log
    from sqlalchemy.exc import SAWarning
    from traitlets.config.loader import PyFileConfigLoader
except ImportError as err:  # pragma: no cover - only without the `classroom` extra
    raise ImportError(
        "授業用の機能には nbgrader が必要です。`pip install -e '.[classroom]'` で入れてください"
        f"(見つからなかったもの: {err.name})。"
    ) from err

from .tamper import scan_notebook  # noqa: E402 - after the friendly ImportError above

__all__ = [
    "COURSE_ID",
    "DEFAULT_TIMEOUT",
    "HIDDEN_TEST_MARKERS",
    "READER_ONLY_TAG",
    "SCORE_CALL",
    "SOLUTION_MARKERS",
    "ClassroomError",
    "FeedbackWithoutHiddenTests",
    "Outcome",
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
    "write_config",
]

COURSE_ID = "qkv"
#: Seconds one cell may run while autograding; an infinite loop is interrupted after this.
DEFAULT_TIMEOUT = 60
READER_ONLY_TAG = "reader-only"
#: Book-only marks that would fold the exercise cells away from a student.
BOOK_ONLY_TAGS = frozenset({"hide-input", "hide-cell", "hide-output"})
CHAPTER_GLOB = "[0-9][0-9]_*.ipynb"
SOLUTION_MARKERS = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TEST_MARKERS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
#: The last line of every grade cell in source/: its partial credit, which nbgrader reads.
SCORE_CALL = "helpers.checks.score({points:g})"
CODE_STUB = "# ここに答えを書きます\nraise NotImplementedError()"
TIMEOUT_MESSAGE = "このセルは {timeout} 秒たっても終わらなかったので、採点のときに止めました(この問題は 0 点)。"
TIMEOUT_ADVICE = "終わらないループ(while True など)がないか確かめましょう。"

Log = Callable[[str], None]


class ClassroomError(RuntimeError):
    """A step of the classroom pipeline failed; the message says which and why (in Japanese)."""


# --------------------------------------------------------------------------------------------
# Which notebooks, and what the teacher's copy looks like


def _nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def has_exercises(nb) -> bool:
    """True if any cell is an nbgrader solution or autograded test cell."""
    return any(_nbgrader_meta(c).get("solution") or _nbgrader_meta(c).get("grade") for c in nb.cells)


def chapter_notebooks(notebooks_dir: str | Path = "notebooks") -> list[Path]:
    """Every `NN_*.ipynb` in `notebooks_dir` that has nbgrader exercise cells, in chapter order."""
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        raise ClassroomError(f"ノートブックのフォルダ {folder} が見つかりません。")
    return [p for p in sorted(folder.glob(CHAPTER_GLOB)) if has_exercises(nbformat.read(p, 4))]


class ShowExerciseCells(Preprocessor):
    """Unfold the exercise cells: the book hides the solution cell, a student must see it."""

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        if _nbgrader_meta(cell):
            jupyter_meta = cell.metadata.get("jupyter", {})
            for key in ("source_hidden", "outputs_hidden"):
                jupyter_meta.pop(key, None)
            if "jupyter" in cell.metadata and not jupyter_meta:
                del cell.metadata["jupyter"]
            cell.metadata.pop("mystnb", None)  # the book's 「答えを見る」 toggle labels
            tags = [t for t in cell.metadata.get("tags", []) if t not in BOOK_ONLY_TAGS]
            if tags:
                cell.metadata["tags"] = tags
            else:
                cell.metadata.pop("tags", None)
        return cell, resources


class NameTheAnswers(Preprocessor):
    """Say which variable a solution cell must set, when only the solution itself said it.

    nbgrader replaces the whole solution region with the stub. For a function the signature
    stays (it is written outside the region), but a prediction cell such as
    `### BEGIN SOLUTION / prediction = "ケーキ" / ### END SOLUTION` would leave the student
    a stub without the name `prediction` that the test cell reads. This adds a comment line
    naming it, outside the region, unless the cell already mentions the name there.
    """

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not _nbgrader_meta(cell).get("solution"):
            return cell, resources
        regions = marked_regions(cell.source, SOLUTION_MARKERS)
        outside = cell.source
        for region in regions:
            outside = outside.replace(region, "")
        top_level = [r for r in regions if textwrap.dedent(r) == r]  # not inside a `def`
        names = [n for n in dict.fromkeys(_assigned_names("\n".join(top_level)))
                 if not re.search(rf"\b{re.escape(n)}\b", outside)]
        if names:
            cell.source = f"# 答えは変数 {', '.join(names)} に入れます。\n{cell.source}"
        return cell, resources


class ScoreGradeCells(Preprocessor):
    """End every code grade cell with its partial credit, in hidden tests (never in the release):
    `helpers.checks.score(points)` shows points × the mean credit of the cell's checks, which
    nbgrader takes as the cell's score (see `helpers.checks._base`)."""

    enabled = True

    def preprocess_cell(self, cell, resources, index):
        meta = _nbgrader_meta(cell)
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            begin, end = HIDDEN_TEST_MARKERS
            cell.source = (f"{cell.source.rstrip()}\n### {begin}\n"
                           f"{SCORE_CALL.format(points=float(meta['points']))}\n### {end}")
        return cell, resources


def _assigned_names(code: str) -> list[str]:
    """Names bound by top-level assignments in `code` (empty if it is not valid Python)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for target in targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names += [e.id for e in elts if isinstance(e, ast.Name)]
    return names


def student_source(nb):
    """The teacher's copy of a chapter for nbgrader's `source/`: a new notebook, input untouched.

    Drops the `reader-only` cells (the self-learner's stub: in the release, nbgrader turns the
    solution cell itself into the stub), all outputs and the explorables' saved state (no output
    shows them any more; a student's run makes them anew), the book-only folding of the exercise
    cells, and jupytext's pairing (a paired .md next to the source would be copied into the release);
    names the variable a prediction cell must set (NameTheAnswers); ends each grade cell with its
    score line in hidden tests (ScoreGradeCells). Solutions and hidden tests stay: removing them
    is nbgrader's job.
    """
    nb = copy.deepcopy(nb)
    resources: dict = {}
    steps = (
        TagRemovePreprocessor(remove_cell_tags={READER_ONLY_TAG}),
        ClearOutputPreprocessor(),
        ShowExerciseCells(),
        NameTheAnswers(),
        ScoreGradeCells(),
    )
    for step in steps:
        nb, resources = step.preprocess(nb, resources)
    nb.metadata.pop("jupytext", None)
    nb.metadata.pop("widgets", None)
    return nb


# --------------------------------------------------------------------------------------------
# The course folder's configuration

CONFIG_TEMPLATE = '''\
# nbgrader の設定:授業「Q・K・V はどこから来るのか」のコースフォルダ。
# `python -m qkv_classroom build`(make assignments)が毎回書き直します。
# 自分の設定(Exchange.root など)は、隣の nbgrader_config_local.py に書いてください。
import os

c = get_config()  # noqa: F821
_here = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = _here

# 解答欄(BEGIN/END SOLUTION の間)を消したあとに残す文。
c.ClearSolutions.code_stub = {{"python": {code_stub!r}}}
# 配布版の先頭に「課題版の使い方」を付ける。
c.IncludeHeaderFooter.header = os.path.join(_here, "header.ipynb")

# 採点のとき、一つのセルがこの秒数を超えたら止めて(0 点として)次へ進む。無限ループ対策。
c.ExecutePreprocessor.timeout = {timeout}
# 採点用カーネルの起動時の警告(TCP で通信している、など)を、学生ごとに端末へ出さない。
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]
# 学生が消してしまったテストセルも、採点のときに元に戻す。
c.OverwriteCells.add_missing_cells = True
c.OverwriteCells.missing_cell_notification = (
    "このセル(id:{{cell_id}})は提出物から消えていたので、採点のときに元に戻しました。\\n"
)
# フィードバックには、隠しテストのコードも、それが分かるトレースバックも載せない。
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "qkv_classroom.FeedbackWithoutHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]

if os.path.exists(os.path.join(_here, "nbgrader_config_local.py")):
    load_subconfig("nbgrader_config_local.py")  # noqa: F821

# 止めたときのメッセージには、実際に効いている秒数を書く(上の自分の設定で変えた場合も)。
_timeout = c.Execute.timeout if "timeout" in c.Execute else c.ExecutePreprocessor.timeout
_message = {timeout_message!r}.format(timeout=_timeout)
c.Execute.error_on_timeout = {{
    "ename": "CellTimeoutError",
    "evalue": _message + {timeout_advice!r},
    "traceback": ["CellTimeoutError: " + _message, {timeout_advice!r}],
}}
'''

HEADER_TEXT = """\
> **課題版の使い方**(この版は授業で配られたものです)
>
> - `# ここに答えを書きます` と `raise NotImplementedError()` の 2 行があるセルが、あなたの解答欄です。\
`raise NotImplementedError()` の行を消して、答えを書きます。関数の 1 行目(`def ...`)は残してください。
> - 解答欄のすぐ下の、編集できないセルが答え合わせです。実行すると、正しければ「✓ 正解です。」が、\
違っていれば何がおかしいかのヒントが出ます。
> - 本文にある「解答例は次のセルに隠してあります」「最後の行の `#` を外す」という案内は、自習用の版の\
ためのものです。この版では、解答欄に自分で書いて、その下のセルで確かめます。
> - 提出の前に、メニューの Kernel → Restart Kernel and Run All Cells で、上から順にすべて動くことを\
確かめてください。採点も上から順に実行します。一つのセルが {timeout} 秒を超えると、そこで止められます。
"""


def write_config(root: str | Path, *, course_id: str = COURSE_ID,
                 timeout: int = DEFAULT_TIMEOUT) -> Path:
    """Write `root/nbgrader_config.py` and the students' header notebook; return the config path."""
    if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
        raise ValueError(f"timeout は正の整数(秒)で指定してください。{timeout!r} が来ました。")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", course_id):
        raise ValueError(f"course_id は英数字・_・- だけで書いてください。{course_id!r} が来ました。")
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    header = nbformat.v4.new_notebook()
    header.cells.append(nbformat.v4.new_markdown_cell(HEADER_TEXT.format(timeout=timeout),
                                                      id="classroom-header"))  # same on rebuild
    nbformat.write(header, root / "header.ipynb")
    config = root / "nbgrader_config.py"
    config.write_text(
        CONFIG_TEMPLATE.format(
            course_id=course_id, code_stub=CODE_STUB, timeout=timeout,
            timeout_message=TIMEOUT_MESSAGE, timeout_advice=TIMEOUT_ADVICE,
        ),
        encoding="utf-8",
    )
    return config


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


def _course(root: Path):
    config_file = root / "nbgrader_config.py"
    if not config_file.exists():
        raise ClassroomError(
            f"{config_file} がありません。先に `python -m qkv_classroom build --root {root}` を"
            "実行してください。"
        )
    config = PyFileConfigLoader(config_file.name, path=str(root)).load_config()
    return config, CourseDirectory(config=config)


def _run(converter_class, root: Path, **attrs) -> str:
    """Run one nbgrader converter on the course in `root`; return its log, raise on failure."""
    config, coursedir = _course(root)
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


# --------------------------------------------------------------------------------------------
# Checks on what goes to students


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


def _secret_regions(nb) -> list[str]:
    return [
        region
        for cell in nb.cells
        for markers in (SOLUTION_MARKERS, HIDDEN_TEST_MARKERS)
        for region in marked_regions(cell.source, markers)
        if region.strip()
    ]


def release_problems(root: str | Path, chapter: str) -> list[str]:
    """What in `release/<chapter>/` must not reach students (empty list: nothing)."""
    root = Path(root)
    source = nbformat.read(root / "source" / chapter / f"{chapter}.ipynb", 4)
    secrets = _secret_regions(source)
    problems = []
    for path in sorted((root / "release" / chapter).rglob("*")):
        if not path.is_file():
            continue
        if path.suffix != ".ipynb":
            problems.append(f"{path.name}: ノートブック以外のファイルは配らない予定です")
            continue
        nb = nbformat.read(path, 4)
        text = "\n".join(cell.source for cell in nb.cells)
        problems += [f"{path.name}: 解答か隠しテストが残っています: {s[:60]!r}" for s in secrets
                     if s in text]
        for i, cell in enumerate(nb.cells):
            if READER_ONLY_TAG in cell.metadata.get("tags", []):
                problems.append(f"{path.name} セル {i}: reader-only のセルが残っています")
            if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
                problems.append(f"{path.name} セル {i}: 出力が残っています")
    return problems


# --------------------------------------------------------------------------------------------
# The pipeline


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
        _run(GenerateAssignment, root, assignment_id=chapter)
        problems = release_problems(root, chapter)
        if problems:
            raise ClassroomError(f"{chapter} の配布版に問題があります:\n" + "\n".join(problems))
        chapters.append(chapter)
        log(f"[{i}/{len(paths)}] {chapter}: release/{chapter}/{chapter}.ipynb を作りました"
            f"({time.perf_counter() - start:.1f} 秒)")
    return chapters


def submission_path(root: str | Path, student: str, chapter: str) -> Path:
    """Where nbgrader expects a student's notebook: `submitted/<student>/<chapter>/<chapter>.ipynb`."""
    return Path(root) / "submitted" / student / chapter / f"{chapter}.ipynb"


def _chapters_with(root: Path, step: str, chapters: Iterable[str] | None) -> list[str]:
    """The chapters (in order) that have at least one student folder under `root/step`."""
    _course(root)  # fails first if this is not a course folder
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


def scores(root: str | Path, chapter: str) -> dict[str, dict[str, float]]:
    """`{student: {grade_id: score}}` from the gradebook, for every graded submission of `chapter`."""
    _, coursedir = _course(Path(root).resolve())
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        return {
            sub.student.id: {grade.name: float(grade.score) for grade in sub.grades}
            for sub in gb.notebook_submissions(chapter, chapter)
        }


GRADED, FLAGGED, FAILED, MISSING = "graded", "flagged", "failed", "missing"
REPORT_DIR = "reports"


@dataclass
class Outcome:
    """What grading did with one student's notebook of one chapter."""

    student: str
    chapter: str
    status: str  # GRADED, FLAGGED (tampering: no marks), FAILED (could not be graded), MISSING
    score: float
    max_score: float
    reason: str = ""


def _short(text: str, limit: int = 300) -> str:
    """The last meaningful line of an error log, without the paths of this machine."""
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.strip().startswith("File ") and "Please see the" not in ln]
    raised = [ln for ln in lines if re.match(r"^[\w.]*(Error|Exception|Timeout)\w*: ", ln)]
    errors = raised or [ln for ln in lines if "Error" in ln or "エラー" in ln or "[ERROR]" in ln] or lines
    line = errors[-1] if errors else "理由が分かりません"
    line = re.sub(r"(/[^\s:'\"]+)+/", "", line)  # /home/…/classroom/submitted/s1/… → s1/…
    return line[:limit]


def _students_of(root: Path, chapter: str) -> list[str]:
    """Every student with a folder for `chapter` in submitted/ (whatever its notebook is called)."""
    folder = root / "submitted"
    return sorted(p.name for p in folder.iterdir() if (p / chapter).is_dir()) if folder.is_dir() else []


def _readable(path: Path) -> str | None:
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
        return f"ノートブックとして読めません({type(err).__name__}: {_short(str(err), 120)})。"
    return None


def _forget(root: Path, chapter: str, student: str) -> None:
    """Remove a student's submission of `chapter` from the gradebook and autograded/."""
    _, coursedir = _course(root)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        try:
            gb.remove_submission(chapter, student)
        except Exception:  # noqa: BLE001 - nothing recorded for this student yet
            pass
    for step in ("autograded", "feedback"):
        shutil.rmtree(root / step / student / chapter, ignore_errors=True)
        if (root / step / student).is_dir() and not any((root / step / student).iterdir()):
            (root / step / student).rmdir()


def _forget_removed(root: Path, chapter: str, students: list[str]) -> None:
    """Submissions in the gradebook whose notebook folder is gone from submitted/ are forgotten."""
    stale = [s for s in scores(root, chapter) if s not in students]
    for student in stale:
        _forget(root, chapter, student)


def _no_marks(root: Path, chapter: str, student: str) -> None:
    """Give every graded cell of this submission 0 points (nbgrader's manual score overrides)."""
    _, coursedir = _course(root)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        submission = gb.find_submission_notebook(chapter, chapter, student)
        for grade in submission.grades:
            grade.manual_score = 0.0
        gb.db.commit()


def _grade_one(root: Path, student: str, chapter: str, max_score: float) -> Outcome:
    path = submission_path(root, student, chapter)
    problem = _readable(path)
    if problem is None:
        for _attempt in (1, 2):  # once more: a busy machine can lose a kernel's connection
            try:
                _run(Autograde, root, assignment_id=chapter, student_id=student)
                problem = None
                break
            except ClassroomError as err:
                problem = f"採点の途中で止まりました: {_short(str(err))}"
    if problem is not None:
        _forget(root, chapter, student)
        return Outcome(student, chapter, FAILED, 0.0, max_score, problem)
    findings = scan_notebook(nbformat.read(path, 4))
    if findings:
        _no_marks(root, chapter, student)
        why = "; ".join(f"セル {f.cell}({f.grade_id}){f.line} 行め: {f.why}" for f in findings)
        return Outcome(student, chapter, FLAGGED, 0.0, max_score, why)
    got = scores(root, chapter).get(student, {})
    return Outcome(student, chapter, GRADED, sum(got.values()), max_score)


def _all_students(root: Path) -> list[str]:
    folder = root / "submitted"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _earlier_outcomes(root: Path) -> list[Outcome]:
    """The outcomes of the last grading run, from reports/grading.csv (none if there is none)."""
    path = root / REPORT_DIR / "grading.csv"
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as f:
        return [Outcome(r["student_id"], r["assignment"], r["status"], float(r["score"]),
                        float(r["max_score"]), r["reason"])
                for r in csv.DictReader(f) if r["status"] != MISSING]


def _write_reports(root: Path, outcomes: list[Outcome], chapters: list[str]) -> Path:
    """reports/grading.csv (one row per student × chapter), summary.csv, report.md; returns the folder."""
    folder = root / REPORT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    by_key = {(o.student, o.chapter): o for o in _earlier_outcomes(root)
              if (root / "submitted" / o.student / o.chapter).is_dir()}  # not graded this time
    by_key.update({(o.student, o.chapter): o for o in outcomes})
    outcomes = list(by_key.values())
    chapters = sorted(set(chapters) | {o.chapter for o in outcomes})
    max_scores = {o.chapter: o.max_score for o in outcomes}
    students = sorted({o.student for o in outcomes} | set(_all_students(root)))
    rows = []
    for student in students:
        for chapter in chapters:
            o = by_key.get((student, chapter)) or Outcome(student, chapter, MISSING, 0.0,
                                                          max_scores.get(chapter, 0.0), "提出なし")
            rows.append(o)
    with open(folder / "grading.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "assignment", "status", "score", "max_score", "reason"])
        for o in rows:
            writer.writerow([o.student, o.chapter, o.status, f"{o.score:g}", f"{o.max_score:g}", o.reason])
    with open(folder / "summary.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", *chapters, "total", "max_total", "graded", "failed", "flagged",
                         "missing"])
        for student in students:
            mine = [o for o in rows if o.student == student]
            cells = [f"{o.score:g}" if o.status == GRADED else o.status for o in mine]
            count = {s: sum(o.status == s for o in mine) for s in (GRADED, FAILED, FLAGGED, MISSING)}
            writer.writerow([student, *cells, f"{sum(o.score for o in mine):g}",
                             f"{sum(o.max_score for o in mine):g}", *count.values()])
    problems = [o for o in rows if o.status in (FAILED, FLAGGED)]
    lines = ["# 採点レポート", "",
             f"学生 {len(students)} 人 × 章 {len(chapters)} 個。"
             f"採点できたもの {sum(o.status == GRADED for o in rows)}、"
             f"採点できなかったもの(0 点){sum(o.status == FAILED for o in rows)}、"
             f"採点を書き換えようとしたもの(0 点){sum(o.status == FLAGGED for o in rows)}、"
             f"未提出 {sum(o.status == MISSING for o in rows)}。", ""]
    if problems:
        lines += ["| 学生 | 章 | 状態 | 理由 |", "| --- | --- | --- | --- |"]
        lines += [f"| {o.student} | {o.chapter} | "
                  f"{'採点できず' if o.status == FAILED else '書き換えの疑い'} | "
                  f"{o.reason.replace('|', '/')} |" for o in problems]
    else:
        lines.append("採点できなかった提出物、書き換えの疑いのある提出物はありません。")
    (folder / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def autograde(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
              only: Iterable[str] | None = None, jobs: int = 1, log: Log = print) -> list[Outcome]:
    """Autograde every submission in `submitted/` (or only the given chapters), one student ×
    chapter at a time, so that one that cannot be graded never stops the others.

    A submission that cannot be graded (unreadable, misnamed, a kernel that died, ...) gets 0
    points and its reason; one whose answer cells rebind or patch what the test cells rely on
    (`tamper.scan_notebook`) gets 0 points and is flagged. Submissions whose folder was removed
    from `submitted/` are removed from the gradebook. Writes `reports/` (see `_write_reports`).
    `only` limits grading to these students (the others' grades are kept as they are); `jobs`
    chapters are graded at the same time, in separate processes (e.g. 2 on a two-core machine).
    """
    root = Path(root).resolve()
    todo = _chapters_with(root, "submitted", chapters)
    only = None if only is None else sorted(only)
    outcomes: list[Outcome] = []

    def report(i: int, chapter: str, done: list[Outcome], seconds: float) -> None:
        graded = [o for o in done if o.status == GRADED]
        mean = sum(o.score for o in graded) / max(len(graded), 1)
        trouble = [o for o in done if o.status != GRADED]
        note = f"、採点できなかった・0 点にしたもの {len(trouble)} 件(reports/report.md)" if trouble else ""
        max_score = points_of(root, chapter)
        log(f"[{i}/{len(todo)}] {chapter}: {len(graded)} 人を採点しました"
            f"(平均 {mean:.1f} / {max_score:g} 点、{seconds:.1f} 秒{note})")

    if jobs > 1 and len(todo) > 1:
        # One process per chapter at a time: the chapters share nothing but the gradebook.
        log(f"{len(todo)} 章を {jobs} つずつ同時に採点します(終わった章から 1 行ずつ表示します)")
        # The chapters with the most submissions start first, so that none of them is left
        # running alone at the end while the other processes have nothing to do.
        biggest_first = sorted(todo, key=lambda chapter: -len(_students_of(root, chapter)))
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
    folder = _write_reports(root, outcomes, todo)
    log(f"採点の一覧を {folder / 'grading.csv'}、学生ごとのまとめを {folder / 'summary.csv'}、"
        f"レポートを {folder / 'report.md'} に書きました。")
    return outcomes


def _grade_chapter(root: Path, chapter: str, only: list[str] | None) -> tuple[list[Outcome], float]:
    """Grade one chapter for every student (or `only` these), one at a time; (outcomes, seconds)."""
    start = time.perf_counter()
    students = _students_of(root, chapter)
    _forget_removed(root, chapter, students)
    if only is not None:
        students = [s for s in students if s in set(only)]
    max_score = points_of(root, chapter)
    done = [_grade_one(root, student, chapter, max_score) for student in students]
    return done, time.perf_counter() - start


def points_of(root: Path, chapter: str) -> float:
    """The points of a chapter, from the teacher's source notebook."""
    nb = nbformat.read(Path(root) / "source" / chapter / f"{chapter}.ipynb", 4)
    return sum(float(_nbgrader_meta(c).get("points", 0)) for c in nb.cells if _nbgrader_meta(c).get("grade"))


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
    todo = _chapters_with(root, "autograded", chapters)
    for i, chapter in enumerate(todo, 1):
        students = sorted(p.parent.parent.name
                          for p in (root / "autograded").glob(f"*/{chapter}/{chapter}.ipynb"))
        pages = {s: root / "feedback" / s / chapter / f"{chapter}.html" for s in students}
        for page in pages.values():
            page.unlink(missing_ok=True)
        with contextlib.suppress(ClassroomError):
            _run(GenerateFeedback, root, assignment_id=chapter)
        failed = []
        for student in students:
            if not pages[student].exists():
                try:
                    _run(GenerateFeedback, root, assignment_id=chapter, student_id=student)
                except ClassroomError as err:
                    failed.append(f"{student}: {_short(str(err))}")
        n = len(list((root / "feedback").glob(f"*/{chapter}/{chapter}.html")))
        log(f"[{i}/{len(todo)}] {chapter}: フィードバック {n} 人分 → feedback/<学生>/{chapter}/"
            + (f"(作れなかったもの: {'; '.join(failed)})" if failed else ""))
    return todo


def export(root: str | Path = "classroom", to: str | Path | None = None, *,
           log: Log = print) -> Path:
    """`nbgrader export`: every student's score per chapter as CSV (default `root/grades.csv`),
    with a `status` column (graded, flagged, failed, missing) and its `reason` from the last grading."""
    root = Path(root).resolve()
    dest = Path(to).resolve() if to is not None else root / "grades.csv"
    config, coursedir = _course(root)
    plugin = CsvExportPlugin(config=config)
    plugin.to = str(dest)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        plugin.export(gb)
    _add_status(root, dest)
    log(f"成績を {dest} に書き出しました。")
    return dest


def _add_status(root: Path, dest: Path) -> None:
    """Tell "could not be graded" from "not submitted" in nbgrader's CSV (it says 0 for both)."""
    known: dict[tuple[str, str], tuple[str, str, str]] = {}
    report = root / REPORT_DIR / "grading.csv"
    if report.exists():
        with open(report, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                known[r["assignment"], r["student_id"]] = (r["status"], r["reason"], r["max_score"])
    with open(dest, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys()) if rows else ["assignment", "student_id", "score", "max_score"]
    seen = set()
    for r in rows:
        key = (r["assignment"], r["student_id"])
        seen.add(key)
        graded = (root / "autograded" / key[1] / key[0]).is_dir()
        status, reason, _ = known.get(key, (GRADED if graded else MISSING, "", ""))
        r["status"], r["reason"] = status, reason
        if status in (FAILED, FLAGGED):
            r["score"] = "0.0"
    for (chapter, student), (status, reason, max_score) in known.items():
        if (chapter, student) not in seen and status != MISSING:  # not in nbgrader's database
            rows.append({**{k: "" for k in fields}, "assignment": chapter, "student_id": student,
                         "score": "0.0", "max_score": max_score, "status": status, "reason": reason})
    with open(dest, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[*fields, "status", "reason"])
        writer.writeheader()
        writer.writerows(rows)


class FeedbackWithoutHiddenTests(ClearHiddenTests):
    """For the feedback HTML: drop hidden-test code, and the tracebacks that would quote it.

    nbgrader puts the hidden tests back before grading and, by design, shows them in the feedback
    (jupyter/nbgrader#917). Here a test cell with hidden tests keeps only the last line of each
    error (`AssertionError: ✗ hint`), so the hint stays and the test code goes.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and marked_regions(cell.source, HIDDEN_TEST_MARKERS):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    ename, evalue = output.get("ename", ""), output.get("evalue", "")
                    # a check's CheckFailed is its ✗ hint alone, as in JupyterLab
                    output["traceback"] = [evalue if ename == "CheckFailed" else f"{ename}: {evalue}"]
        return super().preprocess_cell(cell, resources, index)


# --------------------------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m qkv_classroom",
        description="授業用の nbgrader コースフォルダを作り、提出物を採点します。",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help_text: str, chapters: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--root", default="classroom", help="コースフォルダ(既定: classroom)")
        if chapters:
            p.add_argument("chapters", nargs="*", help="章の名前(例: 01_one_vector)。省略ですべて")
        return p

    p = command("build", "notebooks/ から source/ と配布版 release/ を作る")
    p.add_argument("--notebooks", default="notebooks", help="章のノートブックのフォルダ")
    p.add_argument("--course-id", default=COURSE_ID)
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="採点時の 1 セルの制限時間(秒)")
    p = command("autograde", "submitted/ の提出物を自動採点する", chapters=True)
    p.add_argument("--jobs", type=int, default=1, help="同時に採点する章の数(2 コアなら 2)")
    command("feedback", "採点済みの提出物からフィードバック HTML を作る", chapters=True)
    p = command("export", "成績を CSV に書き出す")
    p.add_argument("--to", default=None, help="CSV の書き出し先(既定: <root>/grades.csv)")
    p = command("grade", "autograde・feedback・export を続けて行う", chapters=True)
    p.add_argument("--jobs", type=int, default=1, help="同時に採点する章の数(2 コアなら 2)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    chapters = getattr(args, "chapters", None) or None
    try:
        if args.command == "build":
            build(args.root, args.notebooks, course_id=args.course_id, timeout=args.timeout)
        if args.command in ("autograde", "grade"):
            autograde(args.root, chapters, jobs=args.jobs)
        if args.command in ("feedback", "grade"):
            feedback(args.root, chapters)
        if args.command in ("export", "grade"):
            export(args.root, getattr(args, "to", None))
    except (ClassroomError, ValueError) as err:
        print(f"エラー: {err}", file=sys.stderr)
        return 1
    return 0

