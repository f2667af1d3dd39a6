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
import copy
import os
import re
import shutil
import sys
import textwrap
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
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

__all__ = [
    "COURSE_ID",
    "DEFAULT_TIMEOUT",
    "HIDDEN_TEST_MARKERS",
    "READER_ONLY_TAG",
    "SOLUTION_MARKERS",
    "ClassroomError",
    "FeedbackWithoutHiddenTests",
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
    solution cell itself into the stub), all outputs, the book-only folding of the exercise cells,
    and jupytext's pairing (a paired .md next to the source would be copied into the release);
    names the variable a prediction cell must set (NameTheAnswers). Solutions stay: removing them
    is nbgrader's job.
    """
    nb = copy.deepcopy(nb)
    resources: dict = {}
    steps = (
        TagRemovePreprocessor(remove_cell_tags={READER_ONLY_TAG}),
        ClearOutputPreprocessor(),
        ShowExerciseCells(),
        NameTheAnswers(),
    )
    for step in steps:
        nb, resources = step.preprocess(nb, resources)
    nb.metadata.pop("jupytext", None)
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
c.Execute.error_on_timeout = {{
    "ename": "CellTimeoutError",
    "evalue": {timeout_message!r},
    "traceback": {timeout_traceback!r},
}}
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
            timeout_message=TIMEOUT_MESSAGE.format(timeout=timeout) + TIMEOUT_ADVICE,
            timeout_traceback=["CellTimeoutError: " + TIMEOUT_MESSAGE.format(timeout=timeout),
                               TIMEOUT_ADVICE],
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


def _max_score(root: Path, chapter: str) -> float:
    _, coursedir = _course(root)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        return float(gb.find_notebook(chapter, chapter).max_score)


def autograde(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
              log: Log = print) -> list[str]:
    """`nbgrader autograde` every submission in `submitted/` (or only the given chapters)."""
    root = Path(root).resolve()
    todo = _chapters_with(root, "submitted", chapters)
    for i, chapter in enumerate(todo, 1):
        start = time.perf_counter()
        _run(Autograde, root, assignment_id=chapter)
        graded = scores(root, chapter)
        max_score = _max_score(root, chapter)
        mean = sum(sum(s.values()) for s in graded.values()) / max(len(graded), 1)
        log(f"[{i}/{len(todo)}] {chapter}: {len(graded)} 人を採点しました"
            f"(平均 {mean:.1f} / {max_score:g} 点、{time.perf_counter() - start:.1f} 秒)")
    return todo


def feedback(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
             log: Log = print) -> list[str]:
    """`nbgrader generate_feedback`: `feedback/<student>/<chapter>/<chapter>.html` per submission."""
    root = Path(root).resolve()
    todo = _chapters_with(root, "autograded", chapters)
    for i, chapter in enumerate(todo, 1):
        _run(GenerateFeedback, root, assignment_id=chapter)
        n = len(list((root / "feedback").glob(f"*/{chapter}/{chapter}.html")))
        log(f"[{i}/{len(todo)}] {chapter}: フィードバック {n} 人分 → feedback/<学生>/{chapter}/")
    return todo


def export(root: str | Path = "classroom", to: str | Path | None = None, *,
           log: Log = print) -> Path:
    """`nbgrader export`: every student's score per chapter as CSV (default `root/grades.csv`)."""
    root = Path(root).resolve()
    dest = Path(to).resolve() if to is not None else root / "grades.csv"
    config, coursedir = _course(root)
    plugin = CsvExportPlugin(config=config)
    plugin.to = str(dest)
    with _tools_on_path(), Gradebook(coursedir.db_url, coursedir.course_id) as gb:
        plugin.export(gb)
    log(f"成績を {dest} に書き出しました。")
    return dest


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
                    output["traceback"] = [f"{output.get('ename', '')}: {output.get('evalue', '')}"]
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
    command("autograde", "submitted/ の提出物を自動採点する", chapters=True)
    command("feedback", "採点済みの提出物からフィードバック HTML を作る", chapters=True)
    p = command("export", "成績を CSV に書き出す")
    p.add_argument("--to", default=None, help="CSV の書き出し先(既定: <root>/grades.csv)")
    command("grade", "autograde・feedback・export を続けて行う", chapters=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    chapters = getattr(args, "chapters", None) or None
    try:
        if args.command == "build":
            build(args.root, args.notebooks, course_id=args.course_id, timeout=args.timeout)
        if args.command in ("autograde", "grade"):
            autograde(args.root, chapters)
        if args.command in ("feedback", "grade"):
            feedback(args.root, chapters)
        if args.command in ("export", "grade"):
            export(args.root, getattr(args, "to", None))
    except (ClassroomError, ValueError) as err:
        print(f"エラー: {err}", file=sys.stderr)
        return 1
    return 0

