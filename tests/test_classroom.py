"""The classroom round trip, with the real nbgrader: build, submit, autograde, feedback, export.

One course folder is built per session in a temporary directory (never the repo's classroom/)
from every chapter that has exercises, plus two small chapters made here: the probe (chapter 01's
setup cell and its two exercises, with a hidden test that is a plain assert added to the cosine
test) and EXERCISES_CHAPTER (chapter 00's setup cell and the exercises of every chapter). The
submissions that misbehave go to the probe, the typical mistakes and the untouched release to the
other: what they test is the grading of an exercise, not the chapter around it, and each runs in
a fraction of a chapter's time. (The teacher's full marks on EXERCISES_CHAPTER show that the
exercises need nothing else from their chapters.) Then these students hand in:

- `teacher`: the source notebook, solutions included, of WHOLE_CHAPTER and of the chapters made
  here; of each other chapter, its setup cell, its exercise cells (solutions included) and its
  Markdown, without the rest of its code. A whole chapter graded end to end is proven once:
  what the rest of a chapter's code could change for its exercises is proven per chapter more
  cheaply. Every cell of each reading notebook runs in order, each check's ✓ compared, in its
  nbval (and in the book's build); the classroom copy is that notebook without its reader-only
  cells, which bind nothing a kept cell reads (test_source_needs_no_reader_only_cell), and with
  the score lines that the teacher's full marks on each chapter (its own assignment and
  gradebook) prove; each chapter's prose and maths reach its feedback page; how nbgrader runs a
  whole chapter's other code (its kernel, timeout, figures and widgets in the page) is the same
  for every chapter;
- `untouched`: the release notebook as distributed, of the probe and of EXERCISES_CHAPTER;
- `wrong1`, `wrong2`, ...: EXERCISES_CHAPTER's solutions with the typical mistakes of MISTAKES
  swapped in (one mistake per exercise and student, so few notebooks are executed);
- `loop`: the probe with an infinite loop in the cosine function;
- `tamper`: the probe with wrong answers, one test cell replaced by `pass` and the other deleted;
- `hardcoder`: the probe chapter with a cosine that passes the visible check but not the hidden
  one (the probe's plain assert: all or nothing);
- some MISTAKES earn partial credit (`Mistake.earns`): a cosine written for 2-D vectors only is
  right on every visible example and wrong on the hidden 3-D one (half the points); attention
  that mixes K instead of V has the right weights and a wrong output (half the points);
- `broken` (truncated file), `misnamed` (file name wrong), `dies` (the kernel exits): the probe,
  which cannot be graded;
- PATCHERS: the probe with wrong answers and an answer cell that patches the checker or numpy;
- `gone` (the probe): graded once, then its folder removed: the gradebook must forget it;
- the made class of the class report (CLASS_CHAPTER, chapters 01, 03 and 06's exercises): PLANTED
  mistakes, several students each, `untouched` blank, and FORGERS of the checks' verdict records.

Everything is autograded once; the tests read the gradebook, the autograded notebooks, the
feedback HTML and the CSV export.
"""

from __future__ import annotations

import ast
import builtins
import copy
import csv
import faulthandler
import hashlib
import html
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import chapters
import nbformat
import pytest
from nbgrader.utils import is_grade, is_solution

import qkv_classroom as classroom
from helpers import checks
from helpers.checks._base.credit import VERDICT_MIME
from qkv_classroom import class_report

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = [p.stem for p in classroom.chapter_notebooks(NOTEBOOKS)]
PROBE = "90_hidden_probe"
EXERCISES_CHAPTER = "91_every_exercise"
#: The made class of the class report's tests: chapters 01, 03 and 06's exercises only.
CLASS_CHAPTER = "92_made_class"
#: The one chapter the teacher hands in whole (its maths is read in the feedback page); of every
#: other chapter, the teacher hands in its setup cell and its exercises (see the module's docstring).
WHOLE_CHAPTER = "06"
#: Next to the course folder: a line for each time the `dies` student's kernel ran its code.
DIES_RUNS = "dies.runs"
#: Short, so the infinite loop costs little; still far above any chapter cell's run time.
TIMEOUT = 20
HIDDEN_TEST = """\
### BEGIN HIDDEN TESTS
_hidden_case = cosine(np.array([5.0, 12.0]), np.array([12.0, 5.0]))
assert abs(_hidden_case - 120 / 169) < 1e-9, "隠しテスト: (5, 12) と (12, 5) で違う値になりました。"
### END HIDDEN TESTS"""
HARDCODED_COSINE = '''\
def cosine(a, b):
    if a[0] == 5.0:
        return 0.0
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
'''
WRONG_ATTENTION = '''\
def my_attention(Q, K, V):
    d_k = Q.shape[1]
    scores = {scores}
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis={axis}, keepdims=True)
    return weights @ V, weights
'''
TWO_D_COSINE = '''\
def cosine(a, b):
    dot = a[0] * b[0] + a[1] * b[1]
    return float(dot / (np.sqrt(a[0] ** 2 + a[1] ** 2) * np.sqrt(b[0] ** 2 + b[1] ** 2)))
'''
#: Right on the page's numbers (three decimals at most), 0 on any other: what the hidden test is for.
PAGE_ONLY_COSINE = '''\
def cosine(a, b):
    if np.all(np.round(a, 3) == a) and np.all(np.round(b, 3) == b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return 0.0
'''
MIXES_KEYS = WRONG_ATTENTION.format(scores="Q @ K.T / np.sqrt(d_k)", axis=-1).replace(
    "return weights @ V", "return weights @ K")

SOFT_LOOKUP_AXIS0 = '''\
def soft_lookup(q, K, V, temperature, on_shelf):
    scores = q @ K[on_shelf].T / temperature
    e = np.exp(scores - scores.max())
    weights = e / e.sum(axis=0, keepdims=True)
    return weights @ V[on_shelf]
'''
PARTY_WEIGHTS = '''\
def party_weights(Q, K):
    S = {scores}
    e = np.exp(S - S.max())
    return e / e.sum(axis={axis}, keepdims=True)
'''


#: Answer cells that patch what grades them: each must score 0 and be flagged for the teacher.
PATCHERS = {
    "patch_checker": "helpers.checks.check_cosine = lambda f, **k: None\n"
                     "helpers.checks.check_pudding_prediction = lambda a: None\n",
    "patch_numpy": "np.isclose = lambda *a, **k: True\n",
    "patch_alias": "from helpers import checks as c\nc.check_pudding_prediction = print\n",
}


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer: the solution cell that defines `defines` gets `source`."""

    chapter: str  # the chapter number, e.g. "06"
    name: str
    defines: str  # text that identifies the solution cell, e.g. "def my_attention("
    source: str
    hint: str  # what helpers.checks must say about it; looked up lazily (see `expected`)
    earns: float = 0.0  # the points of its test cell (partial credit; see book/teacher_guide.md)

    def expected(self) -> str:
        owner, _, key = self.hint.partition(":")
        return getattr(checks, owner)[key] if key else self.hint


MISTAKES = [
    Mistake("01", "cosine_no_division", "def cosine(",
            "def cosine(a, b):\n    return float(a @ b)\n", "これは内積そのものです"),
    Mistake("01", "cosine_one_length", "def cosine(",
            "def cosine(a, b):\n    return float(a @ b / np.linalg.norm(a))\n",
            "片方の長さでしか割っていないようです"),
    Mistake("01", "cosine_two_d_only", "def cosine(", TWO_D_COSINE,
            "(3 成分のベクトル)のとき"),  # the visible check has a 3-D pair too: 0 points
    Mistake("01", "cosine_page_only", "def cosine(", PAGE_ONLY_COSINE, "になるはずが", earns=1.0),
    Mistake("01", "predict_self", "prediction =", 'prediction = "プリン"\n',
            "自分自身を選ぶと思いましたか"),
    Mistake("02", "softmax_wrong_axis", "def soft_lookup(", SOFT_LOOKUP_AXIS0, "SOFT_LOOKUP_HINTS:axis0"),
    Mistake("03", "q_and_k_swapped", "def party_weights(",
            PARTY_WEIGHTS.format(scores="K @ Q.T", axis=1), "PARTY_HINTS:swapped"),
    Mistake("03", "softmax_wrong_axis", "def party_weights(",
            PARTY_WEIGHTS.format(scores="Q @ K.T", axis=0), "PARTY_HINTS:axis0"),
    # a crash: numpy's shape error must reach the feedback in Japanese, with the sizes
    Mistake("03", "scores_not_transposed", "def party_weights(",
            PARTY_WEIGHTS.format(scores="Q @ K", axis=1), "左の列の数が 2、右の行の数が 5 です"),
    Mistake("06", "softmax_wrong_axis", "def my_attention(",
            WRONG_ATTENTION.format(scores="Q @ K.T / np.sqrt(d_k)", axis=0),
            "ATTENTION_HINTS:axis0"),
    Mistake("06", "missing_sqrt_dk", "def my_attention(",
            WRONG_ATTENTION.format(scores="Q @ K.T", axis=-1), "ATTENTION_HINTS:no_sqrt"),
    Mistake("06", "q_and_k_swapped", "def my_attention(",
            WRONG_ATTENTION.format(scores="K @ Q.T / np.sqrt(d_k)", axis=-1),
            "ATTENTION_HINTS:transposed"),
    Mistake("06", "mixes_keys", "def my_attention(", MIXES_KEYS, "ATTENTION_HINTS:bad_output", earns=1.5),
    # issue 36: a rule stepped around (einsum on a copy of X) and a mask that hides too little
    Mistake("05", "three_products_by_einsum", "def fused_qkv(",
            "def fused_qkv(X, W_Q, W_K, W_V):\n    X = np.array(X)\n"
            "    return tuple(np.einsum('ij,jk->ik', X, W) for W in (W_Q, W_K, W_V))\n",
            "X との掛け算を 3 回"),
    Mistake("08", "mask_of_minus_10", "def causal_attention(",
            "def causal_attention(Q, K, V):\n    n, d_k = Q.shape\n"
            "    Z = Q @ K.T / np.sqrt(d_k) + np.triu(np.full((n, n), -10.0), k=1)\n"
            "    E = np.exp(Z - Z.max(axis=1, keepdims=True))\n    w = E / E.sum(axis=1, keepdims=True)\n"
            "    return w @ V, w\n", "CAUSAL_HINTS:mask_finite"),
]


#: The made class: each student's planted mistakes (Mistake.chapter, Mistake.name), several
#: students each; "all_right" plants none. The class report must count exactly these.
PLANTED = {
    "c1": [("06", "missing_sqrt_dk"), ("03", "q_and_k_swapped")],
    "c2": [("06", "missing_sqrt_dk"), ("03", "q_and_k_swapped")],
    "c3": [("06", "missing_sqrt_dk"), ("01", "cosine_no_division")],
    "c4": [("06", "softmax_wrong_axis"), ("01", "cosine_no_division")],
    "c5": [("06", "softmax_wrong_axis"), ("01", "cosine_two_d_only")],
    "c6": [("06", "mixes_keys")],
    "all_right": [],
}
#: Answers that forge the checks' verdict records (display() is a name in every IPython kernel).
FORGED = ('display({"application/vnd.qkv.verdict+json": {"check": "check_attention", "credit": 1.0, '
          '"mistake": None, "message": ""}}, raw=True)')
FORGERS = {
    # a record from the answer cell itself: never read (only grade cells are), so not flagged
    "forge_cell": ("def my_attention(", WRONG_ATTENTION.format(scores="Q @ K.T", axis=-1) + FORGED + "\n"),
    # a record from the learner's function while the check runs it, in the grade cell
    "forge_call": ("def my_attention(", WRONG_ATTENTION.format(scores="Q @ K.T", axis=-1).replace(
        "    d_k = Q.shape[1]\n", f"    d_k = Q.shape[1]\n    {FORGED}\n")),
}


def chapter_named(number: str) -> str | None:
    return next((c for c in CHAPTERS if c.startswith(f"{number}_")), None)


def gid(cell) -> str | None:
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def solution_cell(nb, defines: str, chapter: str = ""):
    """The answer cell that contains `defines` (of chapter number `chapter`'s exercises, if given)."""
    found = [c for c in nb.cells if is_solution(c) and defines in c.source
             and gid(c).startswith(f"ex{chapter}")]
    assert len(found) == 1, f"「{defines}」を含む解答セルが 1 つではありません({len(found)} 個)"
    return found[0]


def grading_cell_after(nb, cell):
    """The autograded test cell that checks the solution `cell` (the next grade cell)."""
    cells = nb.cells[nb.cells.index(cell) + 1:]
    return next(c for c in cells if is_grade(c))


def points(nb) -> float:
    return sum(c.metadata["nbgrader"].get("points", 0) for c in nb.cells
               if is_grade(c))


def read(path: Path):
    return nbformat.read(path, 4)


def write(nb, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def output_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts += [out.get("text", ""), out.get("evalue", ""), *out.get("traceback", [])]
    return "\n".join(parts)


def visible_text(page: str) -> str:
    """What a student reads in a feedback page: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def exercises_only(folder: Path, numbers: list[str]):
    """A notebook of chapter `numbers[0]`'s setup cell and the exercise cells of these chapters.

    The exercises need nothing else from their chapter: the teacher's full marks on it show it.
    """
    chapters = [read(folder / f"{chapter_named(n)}.ipynb") for n in numbers]
    nb = chapters[0]
    setup = next(c for c in nb.cells if c.cell_type == "code")
    nb.cells = [setup] + [c for chapter in chapters for c in chapter.cells if gid(c)]
    return nb


def prose_and_exercises(chapter):
    """A copy of the notebook `chapter` with its setup cell, its exercise cells and its Markdown,
    without its other code: what the teacher hands in of a chapter but WHOLE_CHAPTER. (Its
    Markdown costs no kernel time, and puts every chapter's prose and maths in a feedback page.)"""
    nb = copy.deepcopy(chapter)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    nb.cells = [c for c in nb.cells if c is setup or gid(c) or c.cell_type == "markdown"]
    return nb


def make_probe(folder: Path) -> None:
    """The probe (chapter 01's exercises, a hidden test in the cosine's test) and EXERCISES_CHAPTER
    (every chapter's exercises)."""
    nb = exercises_only(folder, ["01"])
    test = next(c for c in nb.cells if gid(c) == "ex01_cosine_test")
    test.source = test.source.rstrip("\n") + "\n" + HIDDEN_TEST
    write(nb, folder / f"{PROBE}.ipynb")
    write(exercises_only(folder, [c[:2] for c in CHAPTERS]), folder / f"{EXERCISES_CHAPTER}.ipynb")
    write(exercises_only(folder, ["01", "03", "06"]), folder / f"{CLASS_CHAPTER}.ipynb")


def tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@dataclass
class Course:
    root: Path
    notebooks: Path  # the snapshot of notebooks/ that was built
    chapters: list[str]
    build_log: list[str]
    grade_log: list[str]
    notebooks_before: dict[str, str]
    mistakes: dict[tuple[str, str], str]  # (Mistake.chapter, Mistake.name) -> student

    def source(self, chapter):
        return read(self.root / "source" / chapter / f"{chapter}.ipynb")

    def release(self, chapter):
        return read(self.root / "release" / chapter / f"{chapter}.ipynb")

    def autograded(self, student, chapter):
        return read(self.root / "autograded" / student / chapter / f"{chapter}.ipynb")

    def feedback(self, student, chapter) -> str:
        return (self.root / "feedback" / student / chapter / f"{chapter}.html").read_text("utf-8")

    def scores(self, chapter):
        return classroom.scores(self.root, chapter)


def hand_in(root: Path, chapters: list[str]) -> dict[str, str]:
    """Put every test student's notebooks into submitted/; return which student has which mistake."""

    def submit(student, chapter, nb):
        write(nb, classroom.submission_path(root, student, chapter))

    sources = {c: read(root / "source" / c / f"{c}.ipynb") for c in chapters}
    for chapter in chapters:  # one whole chapter; the others without the code around their exercises
        whole = chapter == chapter_named(WHOLE_CHAPTER)
        submit("teacher", chapter, sources[chapter] if whole else prose_and_exercises(sources[chapter]))
    for chapter in (PROBE, EXERCISES_CHAPTER):
        submit("untouched", chapter, read(root / "release" / chapter / f"{chapter}.ipynb"))

    who = {}
    wrong: dict[str, object] = {}  # student -> their EXERCISES_CHAPTER notebook
    replaced: dict[str, set[tuple[str, str]]] = {}  # student -> (chapter, solution) changed
    for m in MISTAKES:
        if chapter_named(m.chapter) is None:
            continue
        n = 1
        while (m.chapter, m.defines) in replaced.get(f"wrong{n}", set()):
            n += 1
        student = f"wrong{n}"
        replaced.setdefault(student, set()).add((m.chapter, m.defines))
        nb = wrong.setdefault(student, copy.deepcopy(sources[EXERCISES_CHAPTER]))
        solution_cell(nb, m.defines, m.chapter).source = m.source
        who[m.chapter, m.name] = student
    for student, nb in wrong.items():
        submit(student, EXERCISES_CHAPTER, nb)
    by_name = {(m.chapter, m.name): m for m in MISTAKES}
    for student, planted in PLANTED.items():  # the class report's made class
        nb = copy.deepcopy(sources[CLASS_CHAPTER])
        for key in planted:
            solution_cell(nb, by_name[key].defines, key[0]).source = by_name[key].source
        submit(student, CLASS_CHAPTER, nb)
    submit("untouched", CLASS_CHAPTER, read(root / "release" / CLASS_CHAPTER / f"{CLASS_CHAPTER}.ipynb"))
    for student, (defines, source) in FORGERS.items():
        nb = copy.deepcopy(sources[CLASS_CHAPTER])
        solution_cell(nb, defines).source = source
        submit(student, CLASS_CHAPTER, nb)

    probe = PROBE  # chapter 01's exercises, without the rest of the chapter to run
    loop = copy.deepcopy(sources[probe])
    # A loop that never ends, but sleeps: the timeout stops it the same way (the kernel is
    # interrupted), without taking a core from the other tests for TIMEOUT seconds.
    solution_cell(loop, "def cosine(").source = (
        "def cosine(a, b):\n    import time\n    while True:\n        time.sleep(0.05)\n")
    submit("loop", probe, loop)

    tamper = copy.deepcopy(sources[probe])
    cosine = solution_cell(tamper, "def cosine(")
    cosine.source = "def cosine(a, b):\n    return float(a @ b)\n"
    grading_cell_after(tamper, cosine).source = "pass"
    predict = solution_cell(tamper, "prediction =")
    predict.source = 'prediction = "カレー"\n'
    tamper.cells.remove(grading_cell_after(tamper, predict))
    submit("tamper", probe, tamper)

    # Submissions that cannot be graded, or that try to change what grades them (issue 11).
    folder = classroom.submission_path(root, "broken", probe)
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text(nbformat.writes(sources[probe])[:500], encoding="utf-8")  # truncated JSON
    misnamed = classroom.submission_path(root, "misnamed", probe)
    write(sources[probe], misnamed.with_name(f"{probe} (1).ipynb"))
    dies = copy.deepcopy(sources[probe])
    solution_cell(dies, "prediction =").source = (  # each run leaves a line in DIES_RUNS
        f'import os\nopen({str(root.parent / DIES_RUNS)!r}, "a").write("ran\\n")\nos._exit(1)\nprediction = "ケーキ"\n')
    submit("dies", probe, dies)
    for student, patch in PATCHERS.items():
        nb = copy.deepcopy(sources[probe])
        solution_cell(nb, "prediction =").source = 'prediction = "カレー"\n'
        solution_cell(nb, "def cosine(").source = (
            "def cosine(a, b):\n    return float(a @ b)\n\n" + patch)
        submit(student, probe, nb)
    gone = copy.deepcopy(sources[probe])
    submit("gone", probe, gone)  # graded once, then removed before the real run (see `course`)

    hardcoder = copy.deepcopy(sources[PROBE])
    solution_cell(hardcoder, "def cosine(").source = HARDCODED_COSINE
    submit("hardcoder", PROBE, hardcoder)
    return who


@pytest.fixture(scope="session")
def course(tmp_path_factory) -> Course:
    if not CHAPTERS:
        pytest.skip("練習問題のある章がまだありません")
    tmp = tmp_path_factory.mktemp("classroom")
    # A snapshot, so that authors saving chapters during the run cannot change what is compared.
    snapshot = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS, snapshot)
    make_probe(snapshot)
    before = tree_digest(snapshot)
    root = tmp / "course"
    build_log: list[str] = []
    chapters = classroom.build(root, snapshot, timeout=TIMEOUT, log=build_log.append)
    mistakes = hand_in(root, chapters)
    grade_log: list[str] = []
    # If the timeout ever failed to stop the loop, end the run with a traceback instead of hanging.
    faulthandler.dump_traceback_later(900, exit=True)
    try:
        # "gone" is graded alone first, then its folder is removed: the real run must forget it.
        classroom.autograde(root, [PROBE], only=["gone"], log=lambda _: None)
        shutil.rmtree(root / "submitted" / "gone")
        # Two chapters at a time, as `make grade` does: the other core is free once its tests end.
        classroom.autograde(root, jobs=2, log=grade_log.append)
    finally:
        faulthandler.cancel_dump_traceback_later()
    classroom.feedback(root, log=grade_log.append)
    classroom.export(root, log=grade_log.append)
    print("\n".join(build_log + grade_log))  # shown with pytest -s
    return Course(root, snapshot, chapters, build_log, grade_log, before, mistakes)


# --------------------------------------------------------------------------------------------
# Build


def test_chapters_are_discovered(tmp_path):
    """Every chapter has exercises (tests/test_notebooks.py), so every chapter is found, in order;
    a notebook without exercise cells, or not named like a chapter, is not."""
    assert CHAPTERS == chapters.slugs()
    chapter = read(NOTEBOOKS / f"{chapter_named('01')}.ipynb")
    no_exercises = copy.deepcopy(chapter)
    no_exercises.cells = [c for c in chapter.cells if "nbgrader" not in c.metadata]
    write(chapter, tmp_path / "02_exercises.ipynb")
    write(no_exercises, tmp_path / "01_reading_only.ipynb")
    write(chapter, tmp_path / "notes.ipynb")
    assert [p.name for p in classroom.chapter_notebooks(tmp_path)] == ["02_exercises.ipynb"]


def test_build_prints_a_line_per_chapter(course):
    assert course.chapters[-3:] == [PROBE, EXERCISES_CHAPTER, CLASS_CHAPTER]
    for i, chapter in enumerate(course.chapters, 1):
        assert any(line.startswith(f"[{i}/{len(course.chapters)}] {chapter}")
                   for line in course.build_log), course.build_log
        assert (course.root / "release" / chapter / f"{chapter}.ipynb").exists()


def test_build_never_touches_notebooks(course):
    assert tree_digest(course.notebooks) == course.notebooks_before


def test_source_is_the_chapter_without_reader_cells_and_outputs(course):
    for chapter in course.chapters:
        original, source = read(course.notebooks / f"{chapter}.ipynb"), course.source(chapter)
        kept = [c for c in original.cells if "reader-only" not in c.metadata.get("tags", [])]
        assert len(source.cells) == len(kept), chapter
        for ours, theirs in zip(source.cells, kept, strict=True):
            if is_solution(theirs):  # may gain a first line naming the answer's variable
                assert ours.source.endswith(theirs.source), chapter
            elif is_grade(theirs):  # gains its score line, hidden
                points = theirs.metadata["nbgrader"]["points"]
                assert ours.source == (f"{theirs.source.rstrip()}\n### BEGIN HIDDEN TESTS\n"
                                       f"helpers.checks.score({points:g})\n### END HIDDEN TESTS"), chapter
            else:
                assert ours.source == theirs.source, chapter
        assert all(not c.get("outputs") for c in source.cells), chapter
        assert "jupytext" not in source.metadata, f"{chapter}: ペアの .md が配布版に混ざります"
        assert "widgets" not in source.metadata, f"{chapter}: 図の保存された状態が配布版に残ります"


def bound_at_top(code: str) -> set[str]:
    """The names a cell binds in the notebook's namespace (not those inside its functions)."""
    names, todo = set(), list(ast.iter_child_nodes(ast.parse(code)))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.comprehension)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        todo.extend(ast.iter_child_nodes(node))
    return names


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_source_needs_no_reader_only_cell(chapter):
    """The classroom copy is the reading notebook without its reader-only cells: none of them
    binds a name that a kept cell below reads before a kept cell binds it. (So the whole chapter
    runs in grading as in its nbval, and the teacher hands in one chapter whole: see the top.)"""
    kept, reader_only = set(), set()
    for cell in read(NOTEBOOKS / f"{chapter}.ipynb").cells:
        if cell.cell_type != "code":
            continue
        if "reader-only" in cell.metadata.get("tags", []):
            reader_only |= bound_at_top(cell.source)
            continue
        reads = {n.id for n in ast.walk(ast.parse(cell.source))
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        needed = sorted(reads & (reader_only - kept))
        assert not needed, f"{chapter}: 読者用のセルだけが作る {', '.join(needed)} を、課題版のセルが読みます: {cell.source[:80]!r}"
        kept |= bound_at_top(cell.source)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_release_is_free_of_solutions(course, chapter):
    source = course.source(chapter)
    regions = [r for c in source.cells for r in classroom.marked_regions(c.source, classroom.SOLUTION_MARKERS)]
    assert len(regions) == sum(is_solution(c) for c in source.cells) > 0, chapter
    release_dir = course.root / "release"
    releases = {p: read(p) for p in release_dir.rglob("*.ipynb")}
    assert {p.suffix for p in release_dir.rglob("*") if p.is_file()} == {".ipynb"}
    everything = "\n".join(c.source for nb in releases.values() for c in nb.cells)
    for region in regions:
        assert region.strip() and region not in everything, f"{chapter}: 解答が配布版に残っています"
    for path, nb in releases.items():
        for cell in nb.cells:
            assert "reader-only" not in cell.metadata.get("tags", []), path.name
            assert not cell.get("outputs") and cell.get("execution_count") is None, path.name
            if is_solution(cell):
                assert not cell.metadata.get("jupyter", {}).get("source_hidden"), path.name
                assert "raise NotImplementedError()" in cell.source, path.name
    assert classroom.release_problems(course.root, chapter) == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_release_shows_no_answer_before_the_student_acts(course, chapter):
    """As in the reading notebooks (tests/test_notebooks.py): from each exercise's question to the
    student's answer and the cells after its check that reveal it, no cell carries an output."""
    release = course.release(chapter)
    spans = classroom.answer_spans(release.cells)
    reading = classroom.answer_spans(read(NOTEBOOKS / f"{chapter}.ipynb").cells)
    assert [gid for gid, _ in spans] == [gid for gid, _ in reading] and spans, chapter
    for gid, span in spans:
        shown = [release.cells[i] for i in span if release.cells[i].get("outputs")]
        assert not shown, f"{chapter} {gid}: 問いと答え合わせのあいだに出力が残っています"


def bound_names(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_release_says_what_each_answer_is_called(course, chapter):
    """Every name a test cell reads is set by the code above it or named in the answer cell."""
    defined = set(dir(builtins))
    answer = None
    for cell in course.release(chapter).cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        if is_grade(cell):
            read_names = {n.id for n in ast.walk(ast.parse(cell.source))
                          if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
            for name in read_names - defined:
                assert answer is not None and re.search(rf"\b{name}\b", answer.source), (
                    f"{chapter}: テストセルが読む {name} を、配布版のどこにも書いていません")
        if is_solution(cell):
            answer = cell
        defined |= bound_names(cell.source)


def test_release_has_no_hidden_tests(course):
    release = "\n".join(c.source for c in course.release(PROBE).cells)
    assert "BEGIN HIDDEN TESTS" not in release and "_hidden_case" not in release
    assert "helpers.checks.check_cosine(cosine)" in release  # the visible test stays


def test_release_tells_students_how_to_work(course):
    first = course.release(chapter_named("01")).cells[0]
    assert first.cell_type == "markdown" and "課題版の使い方" in first.source
    assert f"{TIMEOUT} 秒" in first.source


def test_build_twice_is_safe(course):
    before = tree_digest(course.root / "release")
    scores = course.scores(chapter_named("01"))
    classroom.build(course.root, course.notebooks, timeout=TIMEOUT, log=lambda _: None)
    assert tree_digest(course.root / "release") == before
    assert course.scores(chapter_named("01")) == scores


def test_config_is_what_nbgrader_reads(tmp_path):
    from nbgrader.preprocessors import Execute
    from traitlets.config.loader import PyFileConfigLoader

    classroom.write_config(tmp_path, timeout=7)
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert Execute(config=config).timeout == 7
    assert config.CourseDirectory.root == str(tmp_path)
    assert config.CourseDirectory.course_id == "qkv"


# --------------------------------------------------------------------------------------------
# Autograding


@pytest.mark.parametrize("chapter", CHAPTERS + [PROBE, EXERCISES_CHAPTER, CLASS_CHAPTER])
def test_teacher_solutions_score_full_marks(course, chapter):
    graded = course.scores(chapter)["teacher"]
    assert sum(graded.values()) == points(course.source(chapter)) > 0, graded


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_untouched_release_scores_zero(course, chapter):
    """Each chapter's exercises as released, graded in EXERCISES_CHAPTER: no point for any."""
    ids = {gid(c) for c in course.source(chapter).cells if is_grade(c)}
    graded = course.scores(EXERCISES_CHAPTER)["untouched"]
    assert ids and {i: graded.get(i) for i in ids} == dict.fromkeys(ids, 0.0), graded


@pytest.mark.parametrize("mistake", MISTAKES, ids=[f"{m.chapter}-{m.name}" for m in MISTAKES])
def test_typical_mistake_loses_points_and_gets_its_hint(course, mistake):
    if chapter_named(mistake.chapter) is None:
        pytest.skip(f"第 {mistake.chapter} 章のノートブックはまだありません")
    chapter, student = EXERCISES_CHAPTER, course.mistakes[mistake.chapter, mistake.name]
    graded = course.scores(chapter)[student]
    nb = course.autograded(student, chapter)
    test = grading_cell_after(nb, solution_cell(nb, mistake.defines, mistake.chapter))
    full = test.metadata["nbgrader"]["points"]
    assert mistake.earns < full and graded[gid(test)] == mistake.earns, graded
    hint = mistake.expected()
    assert hint in output_text(test), output_text(test)[-500:]
    assert hint in visible_text(course.feedback(student, chapter))


def test_infinite_loop_is_stopped_and_graded(course):
    chapter = PROBE
    graded = course.scores(chapter)["loop"]
    # later cells still ran (the probe keeps the teacher's answer to 練習 3)
    assert graded == {"ex01_cosine_test": 0.0, "ex01_predict_test": 1.0, "ex01_cosine_table_test": 2.0}
    nb = course.autograded("loop", chapter)
    test = grading_cell_after(nb, solution_cell(nb, "def cosine("))
    assert "CellTimeoutError" in output_text(test)
    assert f"{TIMEOUT} 秒たっても終わらなかった" in visible_text(course.feedback("loop", chapter))


def test_edited_or_deleted_test_cells_are_restored(course):
    chapter = PROBE
    teacher = {gid(c): c.source for c in course.source(chapter).cells if gid(c)}
    nb = course.autograded("tamper", chapter)
    restored = {gid(c): c for c in nb.cells if gid(c)}
    assert restored["ex01_cosine_test"].source == teacher["ex01_cosine_test"]
    # the deleted one is put back, with a comment line saying so in front of the teacher's code
    assert restored["ex01_predict_test"].source.endswith(teacher["ex01_predict_test"])
    assert course.scores(chapter)["tamper"] == {"ex01_cosine_test": 0.0, "ex01_predict_test": 0.0,
                                                "ex01_cosine_table_test": 2.0}  # left as it was
    assert "これは内積そのものです" in output_text(restored["ex01_cosine_test"])


def test_hidden_tests_are_run_when_grading(course):
    scores = course.scores(PROBE)
    assert {s: scores[s]["ex01_cosine_test"] for s in ("teacher", "untouched", "hardcoder")} == {
        "teacher": 2.0, "untouched": 0.0, "hardcoder": 0.0}
    test = next(c for c in course.autograded("hardcoder", PROBE).cells if gid(c) == "ex01_cosine_test")
    assert "BEGIN HIDDEN TESTS" in test.source  # nbgrader put the hidden test back to grade


def grading_rows(course) -> dict[tuple[str, str], dict]:
    with open(course.root / "reports" / "grading.csv", encoding="utf-8", newline="") as f:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(f)}


@pytest.mark.parametrize("student, reason", [
    ("broken", "ノートブックとして読めません"),
    ("misnamed", "がありません(あったのは"),
    ("dies", "採点の途中で止まりました"),
])
def test_a_submission_that_cannot_be_graded_gets_zero_and_its_reason(course, student, reason):
    row = grading_rows(course)[student, PROBE]
    assert row["status"] == "failed" and float(row["score"]) == 0.0, row
    assert reason in row["reason"], row["reason"]
    assert "/tmp" not in row["reason"] and str(course.root) not in row["reason"]
    assert student not in course.scores(PROBE)
    report = (course.root / "reports" / "report.md").read_text("utf-8")
    assert f"| {student} | {PROBE} | 採点できず |" in report


def test_a_kernel_its_notebook_ended_is_not_run_again(course):
    """nbgrader runs the `dies` notebook once: its own code ends the kernel, a second run would too
    (a kernel lost otherwise is tried once more: see qkv_classroom.grading.grade_one)."""
    assert (course.root.parent / DIES_RUNS).read_text("utf-8") == "ran\n"


def test_one_bad_submission_never_stops_the_others(course):
    # every other chapter was still graded for everyone, and fed back
    for chapter in course.chapters:
        assert course.scores(chapter)["teacher"], chapter
        assert (course.root / "feedback" / "teacher" / chapter / f"{chapter}.html").exists()


@pytest.mark.parametrize("student", sorted(PATCHERS))
def test_patching_what_grades_earns_no_marks_and_is_flagged(course, student):
    chapter = PROBE
    assert sum(course.scores(chapter)[student].values()) == 0.0
    row = grading_rows(course)[student, chapter]
    assert row["status"] == "flagged" and "セル" in row["reason"], row
    report = (course.root / "reports" / "report.md").read_text("utf-8")
    assert f"| {student} | {chapter} | 書き換えの疑い |" in report


def test_csv_tells_failed_from_missing_and_from_graded(course):
    with open(course.root / "grades.csv", encoding="utf-8", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    ch02 = chapter_named("02")
    assert rows[(PROBE, "broken")]["status"] == "failed"
    assert rows[(PROBE, "teacher")]["status"] == "graded"
    assert rows[(ch02, "loop")]["status"] == "missing"  # loop handed in the probe only
    assert rows[(PROBE, "patch_numpy")]["status"] == "flagged"
    assert float(rows[(PROBE, "patch_numpy")]["score"]) == 0.0


def test_partial_credit_reaches_the_gradebook_the_csv_and_the_feedback(course):
    with open(course.root / "grades.csv", encoding="utf-8", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    chapter = EXERCISES_CHAPTER
    two_d, keys = course.mistakes["01", "cosine_page_only"], course.mistakes["06", "mixes_keys"]
    assert course.scores(chapter)[two_d]["ex01_cosine_test"] == 1.0
    assert course.scores(chapter)[keys]["ex06_attention_test"] == 1.5
    for student in (two_d, keys):  # the CSV adds the half points up as nbgrader's gradebook does
        assert float(rows[chapter, student]["score"]) == sum(course.scores(chapter)[student].values())
    assert float(rows[chapter, keys]["score"]) % 1 == 0.5
    page = visible_text(course.feedback(two_d, chapter))
    assert "✓ 正解です。向きが同じなら 1" in page  # the visible examples passed...
    assert "になるはずが" in page and "Score: 1.0 / 2.0" in page  # ...the hidden one did not


def test_removed_submission_is_forgotten(course):
    assert "gone" not in course.scores(PROBE)
    assert not (course.root / "autograded" / "gone" / PROBE).exists()
    assert ("gone", PROBE) not in grading_rows(course)


def test_summary_per_student_across_chapters(course):
    with open(course.root / "reports" / "summary.csv", encoding="utf-8", newline="") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    teacher = rows["teacher"]
    assert float(teacher["total"]) == sum(points(course.source(c)) for c in course.chapters) > 0
    assert rows["broken"][PROBE] == "failed"
    assert rows["loop"][chapter_named("02")] == "missing"


def test_timeout_message_names_the_limit_in_force(tmp_path):
    from nbgrader.preprocessors import Execute
    from traitlets.config.loader import PyFileConfigLoader

    classroom.write_config(tmp_path, timeout=7)
    (tmp_path / "nbgrader_config_local.py").write_text("c = get_config()\nc.Execute.timeout = 33\n")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    execute = Execute(config=config)
    assert execute.timeout == 33
    assert "33 秒" in execute.error_on_timeout["evalue"] and "7 秒" not in execute.error_on_timeout["evalue"]


def test_wrong_answer_in_feedback_is_the_hint_alone(course):
    """While autograding a wrong answer is its ✗ line on stdout (no error, no traceback) and the
    cell ends with its score, the number nbgrader reads."""
    student = course.mistakes["01", "cosine_no_division"]
    nb = course.autograded(student, EXERCISES_CHAPTER)
    test = grading_cell_after(nb, solution_cell(nb, "def cosine("))
    # what is shown: the verdict records for the class report (display_data) render nowhere
    shown = [o for o in test.outputs if o.output_type != "display_data"]
    records = [o for o in test.outputs if o.output_type == "display_data"]
    assert all(list(o.data) == [VERDICT_MIME] for o in records) and len(records) == 2
    assert {o.output_type for o in shown[:-1]} == {"stream"} and shown[-1].output_type == "execute_result"
    assert {o.name for o in shown[:-1]} == {"stdout"}
    lines = "".join(o.text for o in shown[:-1]).splitlines()
    assert len(lines) == 2 and all(line.startswith("✗ ") for line in lines), lines  # visible, hidden
    assert shown[-1].data["text/plain"] == "0.0"
    page = course.feedback(student, EXERCISES_CHAPTER)
    assert "vnd.qkv" not in page and '"mistake"' not in page and "&quot;mistake" not in page
    assert "\n".join(lines) in html.unescape(page)  # one block of ✗ lines, as before the records
    page = visible_text(page)
    assert "site-packages" not in page and "most recent call last" not in page
    assert "checks/_base" not in page and "check_cosine(fn" not in page


def test_tamper_scan_passes_ordinary_answers_and_flags_patches():
    from qkv_classroom.tamper import scan_source

    ordinary = ["def cosine(a, b):\n    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))",
                "prediction = 'ケーキ'", "def f(W, X, dQ, lr):\n    W = W.copy()\n    W -= lr * X.T @ dQ\n"
                "    W[0, 0] += 0\n    return W", "from helpers import softmax\nimport numpy as np"]
    assert all(scan_source(code) == [] for code in ordinary)
    assert scan_source("score = 3\nmodel.score(score)") == []  # a learner's own name is fine
    for code in [*PATCHERS.values(), "helpers.checks.score(2)", "from helpers.checks import score",
                 "helpers.checks._base._records.clear()", "import helpers.checks._base as b",
                 "setattr(np, 'isclose', print)", "import sys\nsys.modules.clear()",
                 "get_ipython().events", "%load_ext foo", "def print(*a):\n    pass", "np = None",
                 "c = helpers.checks\nc.check_cosine = None", "import builtins", "exec('1')"]:
        assert scan_source(code), code


# --------------------------------------------------------------------------------------------
# Feedback and grades


def test_feedback_page_for_every_submission(course):
    for chapter in course.chapters:
        for student in course.scores(chapter):
            page = course.feedback(student, chapter)
            assert "<html" in page and chapter in page, (student, chapter)


def test_a_long_check_line_wraps_inside_its_box_in_the_feedback(course):
    """A ✗ line is one long line of Japanese whose advice comes last: the page wraps it inside
    its output box (nbconvert's classic pages keep a <pre> on one line, past the box's edge)."""
    page = course.feedback(course.mistakes["08", "mask_of_minus_10"], EXERCISES_CHAPTER)
    styles = "".join(re.findall(r"<style[^>]*>(.*?)</style>", page, flags=re.S))
    wrap = re.search(r"div\.output_area pre\s*\{[^}]*white-space:\s*pre-wrap", styles)
    assert wrap and styles.rindex("white-space: pre-wrap") > styles.rindex("pre{"), "the rule comes after nbconvert's"


#: In a page's tags other than <a> (a link in the text is not a request): an address on another
#: host (src/href, CSS url() or @import).
EXTERNAL = re.compile(r"<(?!a\b)[a-z][^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//"
                      r"|url\(\s*[\"']?(?:https?:)?//|@import[^;]*(?:https?:)?//", re.I)


@pytest.fixture(scope="module")
def browser():
    """One Chromium for this file's browser tests (lab_server.browser: the one `make test` uses)."""
    import lab_server

    with lab_server.browser() as b:
        yield b


def test_feedback_pages_ask_for_nothing_and_their_maths_is_read_offline(course, browser):
    """nbgrader's feedback page loaded MathJax from a CDN: offline a student read `$n_k \times d_k$`.
    Now no page asks for anything outside itself, and its maths is MathML that the browser draws
    with no script (JupyterLab's HTML viewer runs none). Opened in Chromium with every request but
    the file's own refused: none asked, no `$…$` left in the text, every formula drawn."""
    pages = sorted((course.root / "feedback").rglob("*.html"))
    assert pages
    for page in pages:
        assert not EXTERNAL.findall(page.read_text("utf-8")), page
    chapter = chapter_named("06")
    assert any(r"$\sqrt{d_k}$" in c.source for c in course.source(chapter).cells if c.cell_type == "markdown")
    page_file = course.root / "feedback" / "teacher" / chapter / f"{chapter}.html"
    page = browser.new_page()
    asked = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
               else (asked.append(r.request.url), r.abort()))
    page.goto(page_file.as_uri())
    text = page.evaluate("[...document.querySelectorAll('.text_cell_render')].map(e => e.innerText).join('\\n')")
    sizes = page.evaluate("[...document.querySelectorAll('.text_cell_render math')]"
                          ".map(m => m.getBoundingClientRect()).map(r => r.width * r.height)")
    page.close()  # and its context
    assert not asked, asked
    assert "ソフトマックス" in text and not re.search(r"\$[^$\n]+\$", text), re.findall(r"\$[^$\n]+\$", text)[:3]
    assert len(sizes) > 20 and all(sizes), sizes


def test_a_formula_the_feedback_cannot_draw_stays_readable_as_its_tex():
    """A student's own Markdown may hold TeX the converter cannot read: the page shows the TeX."""
    assert classroom.feedback_pages.mathml(r"\left( a", display=False) == r"<code>\left( a</code>"
    assert classroom.feedback_pages.mathml(r"n_k \times d_k", display=False).startswith('<math display="inline">')


def test_a_feedback_page_that_cannot_be_made_is_reported_and_the_others_are_made(course, tmp_path):
    """A chapter's pages are made in one nbgrader run; one that fails stops none of the others
    and is named, with its reason."""
    root = tmp_path / "course"
    shutil.copytree(course.root, root)  # its nbgrader_config.py finds the course where it is
    chapter = EXERCISES_CHAPTER
    (root / "autograded" / "untouched" / chapter / f"{chapter}.ipynb").write_text("{", "utf-8")
    # The pages of the earlier run stay, as when a teacher makes the feedback again.
    pages = sorted((root / "feedback").glob(f"*/{chapter}/{chapter}.html"))
    lines: list[str] = []
    classroom.feedback(root, [chapter], log=lines.append)
    made = sorted((root / "feedback").glob(f"*/{chapter}/{chapter}.html"))
    assert made == [p for p in pages if p.parts[-3] != "untouched"] and len(made) >= 2
    assert len(lines) == 1 and f"フィードバック {len(made)} 人分" in lines[0], lines
    assert "作れなかったもの: untouched: " in lines[0], lines


def test_feedback_never_shows_hidden_test_code(course):
    secret_lines = {
        line.strip()
        for chapter in course.chapters
        for cell in course.source(chapter).cells
        for region in classroom.marked_regions(cell.source, classroom.HIDDEN_TEST_MARKERS)
        for line in region.splitlines() if line.strip()
    }
    assert secret_lines  # at least the probe's
    pages = list((course.root / "feedback").rglob("*.html"))
    assert pages
    for page in pages:
        text = visible_text(page.read_text("utf-8"))
        for line in secret_lines:
            assert line not in text, f"{page}: 隠しテストが見えています: {line}"
    # the failing hidden test still tells the student what went wrong
    assert "(5, 12) と (12, 5) で違う値になりました" in visible_text(course.feedback("hardcoder", PROBE))


def test_export_writes_grades_csv(course):
    with open(course.root / "grades.csv", encoding="utf-8", newline="") as f:
        rows = {(r["assignment"], r["student_id"]): r for r in csv.DictReader(f)}
    for chapter in course.chapters:
        for student, graded in course.scores(chapter).items():
            row = rows[(chapter, student)]
            assert float(row["score"]) == pytest.approx(sum(graded.values()))
        assert float(rows[(chapter, "teacher")]["score"]) == float(rows[(chapter, "teacher")]["max_score"])


def test_grading_prints_a_line_per_chapter(course):
    for chapter in course.chapters:
        assert any(f"{chapter}: " in line and "人を採点しました" in line for line in course.grade_log)
    # Two at a time (the fixture's jobs=2), a line as each chapter ends: [1/9], [2/9], … in order.
    n = len(course.chapters)
    assert "同時に採点します" in course.grade_log[0]
    counted = [line.split("]", 1)[0] + "]" for line in course.grade_log if "人を採点しました" in line]
    assert counted == [f"[{i}/{n}]" for i in range(1, n + 1)], counted


def test_nbgrader_command_line_uses_the_course_config(course):
    """What the teacher guide tells teachers to type works in the built folder, as root too."""
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", PROBE, "--force"],
        cwd=course.root, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    text = visible_text(course.feedback("hardcoder", PROBE))
    assert "_hidden_case" not in text and "隠しテスト" in text


def test_cli_reports_errors_in_japanese(tmp_path, capsys):
    assert classroom.main(["autograde", "--root", str(tmp_path)]) == 1
    assert "nbgrader_config.py がありません" in capsys.readouterr().err
    assert classroom.main(["report", "--root", str(tmp_path)]) == 1
    assert "nbgrader_config.py がありません" in capsys.readouterr().err
    classroom.write_config(tmp_path)
    assert classroom.main(["feedback", "--root", str(tmp_path)]) == 1
    assert "ノートブックがありません" in capsys.readouterr().err
    with pytest.raises(ValueError, match="timeout"):
        classroom.write_config(tmp_path, timeout=0)


def test_answer_variable_is_named_only_where_the_stub_would_hide_it():
    meta = {"nbgrader": {"solution": True, "grade": False, "grade_id": "ex", "locked": False,
                         "schema_version": 3, "task": False}}
    sources = [
        '### BEGIN SOLUTION\nsmall, large = "一冊", "平均"\n### END SOLUTION',
        "def f(x):\n    ### BEGIN SOLUTION\n    y = 2 * x\n    return y\n    ### END SOLUTION",
        '# 予想を prediction に入れます\n### BEGIN SOLUTION\nprediction = "A"\n### END SOLUTION',
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s, metadata=copy.deepcopy(meta))
                                         for s in sources])
    out = classroom.student_source(nb)
    assert out.cells[0].source == f"# 答えは変数 small, large に入れます。\n{sources[0]}"
    assert [c.source for c in out.cells[1:]] == sources[1:]
    assert [c.source for c in nb.cells] == sources  # the input is left alone


def test_teacher_guide_lists_every_graded_exercise_with_its_points():
    """book/teacher_guide.md's partial-credit table is the notebooks' grade cells, row for row:
    chapter, grade_id, points, and 「コード」 (hidden tests: half the points each) or 「予想」 (no part)."""
    guide = (ROOT / "book" / "teacher_guide.md").read_text("utf-8")
    table = guide.split("<!-- grading-table: begin -->")[1].split("<!-- grading-table: end -->")[0]
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            for line in table.strip().splitlines()[2:]]
    listed = [(r[0], r[1].strip("`"), float(r[2]), r[3]) for r in rows]
    graded = []
    for chapter in CHAPTERS:
        for cell in read(NOTEBOOKS / f"{chapter}.ipynb").cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade"):
                kind = "コード" if classroom.marked_regions(cell.source, classroom.HIDDEN_TEST_MARKERS) else "予想"
                graded.append((chapter[:2], meta["grade_id"], float(meta["points"]), kind))
    assert listed == graded
    for row in rows:
        assert (row[5] == "なし" or row[5].startswith("なし(")) == (row[3] == "予想"), row
        if row[3] == "コード":
            assert f"{float(row[2]) / 2:g} 点ずつ" in row[5], row  # visible and hidden: half each


# --------------------------------------------------------------------------------------------
# The class report (reports/class_report.html and .csv, written by autograde)


def planted_verdicts(course, student: str) -> dict[str, set[str]]:
    """{grade_id: the mistake ids (or, unrecognised, the hints) of the failing checks}, found by
    running the student's answers through the checks here, outside grading (they raise)."""
    nb = read(classroom.submission_path(course.root, student, CLASS_CHAPTER))
    found: dict[str, set[str]] = {}
    space = {"np": __import__("numpy"), "helpers": __import__("helpers"), "display": lambda *a, **k: None}
    for cell in nb.cells:
        if is_solution(cell):
            exec(cell.source, space)  # noqa: S102 - the test's own planted answers
        elif is_grade(cell):
            for line in cell.source.splitlines():
                if line.startswith("helpers.checks.check_"):
                    try:
                        eval(line, space)  # noqa: S307
                    except checks.CheckFailed as wrong:
                        found.setdefault(gid(cell), set()).add(wrong.mistake or class_report.message_group(
                            str(wrong).removeprefix("✗ ")))
    return found


CREDIT = ("full", "partial", "none", "unanswered")  # the class report CSV's count rows


def class_rows(course) -> list[dict]:
    with open(course.root / "reports" / "class_report.csv", encoding="utf-8", newline="") as f:
        return [r for r in csv.DictReader(f) if r["chapter"] == CLASS_CHAPTER]


def test_class_report_counts_exactly_the_planted_mistakes(course):
    """The made class: several students per planted mistake; every count of the report's CSV is
    what the checks say of each student's answers and what the gradebook holds, no more."""
    counted = [*PLANTED, "teacher", "forge_cell"]  # forge_cell: no_sqrt, its own record not read
    want: dict[tuple[str, str], int] = {}
    for student in counted:
        for grade_id, mistakes in planted_verdicts(course, student).items():
            for m in mistakes:
                want[grade_id, m] = want.get((grade_id, m), 0) + 1
    rows = class_rows(course)
    got = {(r["exercise"], r["mistake"] or class_report.message_group(r["hint"])): int(r["students"])
           for r in rows if r["kind"] in ("mistake", "unrecognised")}
    assert got == want
    assert want["ex06_attention_test", "no_sqrt"] == 4 and want["ex03_weights_test", "swapped"] == 2
    scores = course.scores(CLASS_CHAPTER)
    source = {gid(c): c.metadata["nbgrader"]["points"] for c in course.source(CLASS_CHAPTER).cells if is_grade(c)}
    for grade_id, full in source.items():
        marks = [scores[s][grade_id] for s in counted]
        kinds = {r["kind"]: int(r["students"]) for r in rows if r["exercise"] == grade_id and r["kind"] in CREDIT}
        assert kinds == {"full": marks.count(full), "none": marks.count(0.0), "unanswered": 0,
                         "partial": sum(0 < m < full for m in marks)}, grade_id
    ex06 = {r["kind"]: int(r["students"]) for r in rows if r["exercise"] == "ex06_attention_test" and r["kind"] in CREDIT}
    assert ex06 == {"full": 2, "partial": 1, "none": 6, "unanswered": 0}  # teacher, all_right; c6
    ranked = [int(r["students"]) for r in rows if r["exercise"] == "ex06_attention_test" and r["kind"] not in CREDIT]
    assert ranked == sorted(ranked, reverse=True) and ranked[0] == 4  # commonest first


def _heads(X, W_Q, W_K, W_V, W_O, h, v_width=None, join=None):
    """A multi_head answer: each head's values cut `v_width` wide (d_k: the chapter's loop
    copied) and the heads' outputs joined by `join` (np.vstack: one under another)."""
    import numpy as np
    d_k = W_Q.shape[1] // h
    d_v = v_width(d_k, W_V.shape[1] // h) if v_width else W_V.shape[1] // h
    outs = []
    for i in range(h):
        q, v = slice(i * d_k, (i + 1) * d_k), slice(i * d_v, (i + 1) * d_v)
        S = (X @ W_Q[:, q]) @ (X @ W_K[:, q]).T / np.sqrt(d_k)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        outs.append(E / E.sum(axis=1, keepdims=True) @ (X @ W_V[:, v]))
    return (join or (lambda o: np.concatenate(o, axis=1)))(outs) @ W_O


def test_class_report_tells_crashes_apart_by_what_their_message_says():
    """Every crash is `crashed`; the report's row is its cause (what the message says after
    numpy's error), so two students whose code stops for different reasons are two rows, and a
    student's visible and hidden crash (other sizes, other numbers) are one."""
    import numpy as np

    def said(fn, hidden):
        with pytest.raises(checks.CheckFailed) as info:
            checks.check_multi_head(fn, hidden=hidden)
        assert info.value.mistake == "crashed"
        return class_report.mistake_group("crashed", str(info.value).removeprefix("✗ "))

    def values_cut_d_k(*a):
        return _heads(*a, v_width=lambda d_k, d_v: d_k)

    def stacked(*a):
        return _heads(*a, join=np.vstack)

    groups = {said(values_cut_d_k, hidden) for hidden in (False, True)}  # other sizes, one cause
    assert len(groups) == 1
    assert said(stacked, False) not in groups
    assert class_report.mistake_group("no_sqrt", "…") == ("no_sqrt", "")


def test_class_report_links_each_mistake_to_the_section_its_hint_names(course, tmp_path):
    row = next(r for r in class_rows(course) if r["mistake"] == "no_sqrt")
    assert row["hint"] == checks.ATTENTION_HINTS["no_sqrt"]
    assert row["section"] == "ステップ 2:行ごとのソフトマックス"
    page = "book/_build/html/notebooks/06_attention.html"
    assert os.path.normpath(course.root / "reports" / row["link"].partition("#")[0]) == str(ROOT / page)
    # With a built book, the link ends at the section's anchor: the page's section of that heading
    # (its maths drawn when the book is built, its code as <code>; the book also has sections the
    # classroom copy has not).
    headings = class_report._headings(course.source(chapter_named("06")))
    fake = tmp_path / "notebooks" / f"{chapter_named('06')}.html"
    fake.parent.mkdir()
    math = (r'<span class="math notranslate nohighlight"><mjx-container class="MathJax" jax="SVG">'
            r'<svg role="img"><path d="M0 0"/></svg><mjx-assistive-mml><math><mi>\1</mi></math>'
            r'</mjx-assistive-mml></mjx-container></span>')  # $\sqrt{d_k}$ as the book draws it
    sections = [f'<section id="s{i}">\n<h2>{re.sub(r"[$](.*?)[$]", math, t)}'
                f'<a class="headerlink" href="#s{i}">#</a></h2></section>' for i, (t, _) in enumerate(headings)]
    fake.write_text('<section id="reader"><h2>読者だけの節</h2></section>' + "".join(sections), "utf-8")
    exercises, _, _ = class_report.tally(course.root, book=tmp_path)
    ex06 = next(e for e in exercises if e.chapter == CLASS_CHAPTER and e.grade_id == "ex06_attention_test")
    step = next(i for i, (t, _) in enumerate(headings) if t.startswith("ステップ 2"))
    assert ex06.mistakes["no_sqrt", ""].section[1].endswith(f"06_attention.html#s{step}")
    why = next(i for i, (t, _) in enumerate(headings) if t.startswith("なぜ"))  # a heading with maths
    guide = class_report._Book(course.root, course.root / "reports", tmp_path)
    assert guide.section("ex06_attention_test", checks.ATTENTION_HINTS["by_d"])[1].endswith(f"#s{why}")


def test_class_report_sets_flagged_submissions_apart(course):
    """Tampering, forged verdict records, ungradable and blank submissions: each in the flagged
    section with its reason, never among the counted students."""
    exercises, flags, counted = class_report.tally(course.root)
    kinds = {(f.student, f.chapter): f for f in flags}
    assert kinds["untouched", CLASS_CHAPTER].kind == "白紙"
    assert kinds["patch_numpy", PROBE].kind == "書き換えの疑い"
    assert kinds["dies", PROBE].kind == "採点できず" and "採点の途中で止まりました" in kinds["dies", PROBE].reason
    assert kinds["forge_call", CLASS_CHAPTER].kind == "書き換えの疑い"
    assert "記録の偽造" in kinds["forge_call", CLASS_CHAPTER].reason
    assert sum(course.scores(CLASS_CHAPTER)["forge_call"].values()) == 0.0
    assert ("forge_cell", CLASS_CHAPTER) not in kinds  # its record is not read: no need to flag
    flagged = {f.student for f in flags}
    for ex in exercises:
        for m in ex.mistakes.values():
            assert not m.students & flagged, (ex.grade_id, m.key)
    graded = {*PLANTED, "teacher", "forge_cell", "hardcoder", "loop", "tamper", *course.mistakes.values()}
    assert counted == len(graded)


def test_class_report_is_anonymous_unless_asked(course):
    page = (course.root / "reports" / "class_report.html").read_text("utf-8")
    text = visible_text(page)
    assert "ex06_attention_test" in text and "白紙" in text and "記録の偽造" in text
    for student in ("all_right", "forge_call", "patch_numpy", "untouched", "hardcoder"):
        assert student not in page, student
    # with --names: see test_class_report_of_a_partial_class (one chapter: fewer charts to draw)


def test_class_report_is_one_offline_page_that_passes_axe(course, browser):
    """No request leaves the file (inline CSS, data-URI charts), no console error, nothing
    serious or critical for axe-core, at 1280 px and on a 390 px phone."""
    page_file = course.root / "reports" / "class_report.html"
    source = page_file.read_text("utf-8")
    assert not re.search(r'(?:src|href)="(?:https?:)?//', source)
    assert source.count('src="data:image/png;base64,') >= 3
    axe = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    shots = os.environ.get("QKV_SCREENSHOTS")
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors, requests = [], []
        page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.on("request", lambda r, requests=requests: requests.append(r.url))
        page.goto(page_file.as_uri())
        assert not errors, (width, errors)
        assert all(u.startswith(("file:", "data:")) for u in requests), (width, requests)
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
        if shots:
            page.screenshot(path=f"{shots}/class_report_{width}.png", full_page=True)
        page.add_script_tag(path=str(axe))
        found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
            .violations.map(v => ({id: v.id, impact: v.impact}))""")
        assert not [v for v in found if v["impact"] in ("serious", "critical")], (width, found)
        context.close()


def test_class_report_of_a_partial_class(course, tmp_path):
    """Only one chapter handed in and graded so far: the report is that chapter's, same counts
    (here made with --names, which names who made each mistake)."""
    root = tmp_path / "course"
    shutil.copytree(course.root, root)
    for step in ("submitted", "autograded", "feedback"):
        for folder in (root / step).glob("*/*"):
            if folder.is_dir() and folder.name != CLASS_CHAPTER:
                shutil.rmtree(folder)
    with open(root / "reports" / "grading.csv", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["assignment"] == CLASS_CHAPTER]
    with open(root / "reports" / "grading.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert classroom.main(["report", "--root", str(root), "--names"]) == 0
    with open(root / "reports" / "class_report.csv", encoding="utf-8", newline="") as f:
        partial = list(csv.DictReader(f))
    assert {r["chapter"] for r in partial} == {CLASS_CHAPTER}
    named = [{k: v for k, v in r.items() if k != "names"} for r in partial]
    assert named == class_rows(course)  # the same rows as the whole class's report, with names
    page = (root / "reports" / "class_report.html").read_text("utf-8")
    assert f"<h2>{CLASS_CHAPTER}</h2>" in page and PROBE not in page
    assert "all_right" not in page  # no mistake, not flagged: named nowhere
    assert "forge_call" in page and "c1、c2、c3" in page  # --names: who made which mistake
