"""Find answer cells that try to change what grades them.

The test cells call `helpers.checks.check_*` in the student's own kernel, after the student's
cells have run, so an answer cell could rebind a checker (`helpers.checks.check_attention = …`),
patch numpy (`np.allclose = …`), or reach into IPython before the locked cell runs. nbgrader puts
the test cells back, but it cannot undo what ran earlier in the same kernel. This module reads the
code of every answer cell (it never runs it) and names each such statement; grading then gives
the submission no marks and lists it in the teacher's report (see book/teacher_guide.md).

What counts: assigning to or deleting an attribute of a module the grading relies on (or of any
name bound from it), binding one of those names to something else, `setattr`/`delattr`/`exec`/
`eval`/`compile`/`__import__`/`globals()`/`vars()`, `importlib.reload`, touching `sys.modules`,
`builtins`, `__builtins__` or `get_ipython()`, IPython magics or shell escapes, and reaching the
grade cells' partial-credit record (`helpers.checks.score`, `_records`, `_base`): calling `score`
or filling its record from an answer cell. Ordinary answers never need any of these.

The checks' verdict records (`helpers.checks.VERDICT_MIME`, read by the class
report) are trusted only where a check makes them: in a grade cell (whose source nbgrader has put
back to the teacher's), at most as many per check as the cell calls it, and adding up to the score
the cell output. A record anywhere else is never read; one too many in a grade cell (a learner's
function that displays one while a check runs it), or records that disagree with the score, flag
the submission (`forged_records`, run on the autograded notebook).
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass

from nbgrader.utils import is_grade, is_solution

from helpers.checks import VERDICT_MIME

#: Module names the test cells rely on; binding a name to one of them makes the name protected.
PROTECTED_MODULES = ("helpers", "numpy", "IPython", "builtins", "sys", "importlib", "math")
#: Names that must keep meaning what the chapter's first cell made them mean.
PROTECTED_NAMES = frozenset({"helpers", "np", "numpy", "get_ipython", "IPython", "checks",
                             "__builtins__", "builtins", "sys", "importlib", "print", "float",
                             "isinstance", "abs", "len", "AssertionError", "Exception"})
FORBIDDEN_CALLS = frozenset({"setattr", "delattr", "exec", "eval", "compile", "__import__",
                             "globals", "vars", "get_ipython", "reload", "breakpoint"})
FORBIDDEN_ATTRIBUTES = frozenset({"modules", "__dict__", "__code__", "__globals__", "__builtins__",
                                  "__class__", "__setattr__", "run_line_magic", "run_cell_magic",
                                  "user_ns", "events"})
#: The partial-credit record of `helpers.checks` and what reads it: the grade cells' business only.
GRADING_RECORD = frozenset({"score", "_records", "_base", "_note", "_cell", "_running"})


@dataclass(frozen=True)
class Finding:
    cell: int       # index of the cell in the submitted notebook
    grade_id: str   # the nbgrader id of that answer cell
    line: int       # line in the cell
    why: str        # in Japanese, for the teacher


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _protected_alias(name: str, module: str) -> bool:
    return module.split(".")[0] in PROTECTED_MODULES and name in PROTECTED_NAMES | {module}


def _chain_root(node: ast.AST) -> str | None:
    """`a` for a bare name or attribute chain such as `a.b.c`; None for anything else."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Scan(ast.NodeVisitor):
    """One pass over the answer cells in order; `protected` grows with aliases (`c = helpers.checks`)."""

    def __init__(self, protected: set[str]) -> None:
        self.found: list[tuple[int, str]] = []
        self.protected = protected

    def flag(self, node: ast.AST, why: str) -> None:
        self.found.append((getattr(node, "lineno", 0), why))

    def _target(self, target: ast.AST, verb: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._target(elt, verb)
        elif isinstance(target, ast.Starred):
            self._target(target.value, verb)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            root = _root_name(target)
            if root in self.protected or root is None:
                self.flag(target, f"{ast.unparse(target)} を{verb}ています(採点が使うものの書き換え)")
        elif isinstance(target, ast.Name) and target.id in self.protected:
            self.flag(target, f"名前 {target.id} を{verb}ています(採点が使う名前の置き換え)")

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._target(target, "書き換え")
        if _chain_root(node.value) in self.protected:  # an alias: c = helpers.checks
            self.protected |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, "書き換え")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target, "書き換え")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, "消し")
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._target(node.target, "書き換え")
        self.generic_visit(node)

    def _binding(self, node: ast.AST, name: str) -> None:
        if name in self.protected:
            self.flag(node, f"名前 {name} を定義し直しています(採点が使う名前の置き換え)")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._binding(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._binding(node, node.name)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self._binding(node, name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if bound in self.protected and not _protected_alias(bound, alias.name):
                self.flag(node, f"import で名前 {bound} を {alias.name} に置き換えています")
            if alias.name.split(".")[0] in PROTECTED_MODULES:
                self.protected.add(bound)
            if alias.name.split(".")[0] in {"builtins", "importlib", "ctypes", "gc", "inspect"}:
                self.flag(node, f"{alias.name} を import しています(採点の仕組みに手が届くモジュール)")
            if GRADING_RECORD & set(alias.name.split(".")):
                self.flag(node, f"{alias.name} を import しています(部分点の記録は採点のセルだけが使います)")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            bound = alias.asname or alias.name
            if bound in self.protected and module.split(".")[0] not in PROTECTED_MODULES:
                self.flag(node, f"from {module} import で名前 {bound} を置き換えています")
            if module.split(".")[0] in PROTECTED_MODULES:
                self.protected.add(bound)
        if module.split(".")[0] in {"builtins", "importlib", "ctypes", "gc", "inspect"}:
            self.flag(node, f"{module} から import しています(採点の仕組みに手が届くモジュール)")
        if module.split(".")[0] in PROTECTED_MODULES and (
                GRADING_RECORD & ({a.name for a in node.names} | set(module.split(".")))):
            self.flag(node, f"from {module} import で部分点の記録に触れています(採点のセルだけが使います)")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else (
            node.func.attr if isinstance(node.func, ast.Attribute) else None)
        if name in FORBIDDEN_CALLS:
            self.flag(node, f"{name}(...) を呼んでいます(採点が使うものを書き換えられる関数)")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FORBIDDEN_ATTRIBUTES:
            self.flag(node, f"{ast.unparse(node)} に触れています(採点の仕組みの内側)")
        elif node.attr in GRADING_RECORD and _root_name(node) in self.protected:
            self.flag(node, f"{ast.unparse(node)} に触れています(部分点の記録は採点のセルだけが使います)")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in {"__builtins__", "get_ipython"} and isinstance(node.ctx, ast.Load):
            self.flag(node, f"{node.id} に触れています(採点の仕組みの内側)")
        self.generic_visit(node)


def _magic_line(source: str) -> int | None:
    for i, line in enumerate(source.splitlines(), 1):
        if line.lstrip().startswith(("%", "!")):
            return i
    return None


def _scan(source: str, protected: set[str]) -> list[tuple[int, str]]:
    line = _magic_line(source)
    if line is not None:
        return [(line, "IPython のマジック(% や !)を使っています")]
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # it fails on its own when graded
    scan = _Scan(protected)
    scan.visit(tree)
    return sorted(set(scan.found))


def scan_source(source: str) -> list[tuple[int, str]]:
    """(line, why) for each statement of `source` that could change how it is graded."""
    return _scan(source, set(PROTECTED_NAMES))


def scan_notebook(nb) -> list[Finding]:
    """Every tampering statement in the answer (nbgrader solution) cells of a submitted notebook."""
    findings = []
    protected = set(PROTECTED_NAMES)  # aliases made in one answer cell count in the next
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not is_solution(cell):
            continue
        for line, why in _scan(cell.source, protected):
            findings.append(Finding(index, cell.metadata.nbgrader.get("grade_id", "?"), line, why))
    return findings


def verdicts(cell) -> list[dict]:
    """The verdict records among a cell's outputs, in order."""
    return [out["data"][VERDICT_MIME] for out in cell.get("outputs", [])
            if out.get("output_type") == "display_data" and VERDICT_MIME in out.get("data", {})]


def _checks_called(source: str) -> Counter:
    """How many times a grade cell's source calls each `check_*` (by name)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return Counter()
    names = (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
             for n in ast.walk(tree) if isinstance(n, ast.Call))
    return Counter(name for name in names if name.startswith("check_"))


def _cell_score(cell) -> float | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "execute_result":
            try:
                return float(out["data"]["text/plain"])
            except (KeyError, ValueError):
                return None
    return None


def forged_records(nb) -> list[Finding]:
    """Every grade cell of an autograded notebook with verdict records no check of its own made.

    Records outside grade cells are never read (the class report reads grade cells only), so
    they are left alone: chapter 00 shows a check at work in a plain cell."""
    findings = []
    for index, cell in enumerate(nb.cells):
        records = verdicts(cell)
        if not records:
            continue
        if not is_grade(cell):
            continue  # never read (a chapter may show a check at work in a plain cell)
        grade_id = cell.metadata["nbgrader"].get("grade_id", "?")
        made = Counter(r.get("check") for r in records)
        extra = made - _checks_called(cell.source)
        if extra:
            findings.append(Finding(index, grade_id, 0, "採点のセルの答え合わせより多くの採点の記録が"
                                    f"出ています({', '.join(sorted(map(str, extra)))}。記録の偽造)"))
            continue
        score, points = _cell_score(cell), cell.metadata["nbgrader"].get("points", 0)
        credits = [r.get("credit") for r in records]
        if not all(isinstance(c, (int, float)) for c in credits) or (
                score is not None and abs(round(points * sum(credits) / len(credits), 2) - score) > 0.005):
            findings.append(Finding(index, grade_id, 0, "採点の記録がセルの点数と合いません(記録の偽造)"))
    return findings
