"""Rules every source file of the project keeps, read from the files (nothing runs):

- no module reaches into another package's private module or another module's private name
  (`_base`, `_palate_pass`): what a package shares with the outside it says by a public name;
- no Python changes `sys.path`: the tests find their modules through pytest's `pythonpath`, the
  scripts through `make`'s PYTHONPATH;
- every file a comment or a docstring names exists.

Each rule's finder is also run on a made-up source that breaks it, so a finder that finds
nothing cannot pass.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import re
import tokenize
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Our packages: a name of theirs starting with one underscore (not a dunder) is private.
PACKAGES = ("helpers", "qkv_classroom", "qkv_hub")
#: Where the project's code lives, each the root its modules are named from.
CODE_ROOTS = ("src", "book/_ext", "tools", "lab")


def ignored_folders() -> list[Path]:
    """What .gitignore leaves out by folder (the venv, node_modules, builds, the learner's work/)."""
    lines = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    return [ROOT / line.strip("/") for line in lines
            if line and not line.startswith("#") and not any(c in line for c in "*?[")]


IGNORED = ignored_folders()


@functools.cache
def parsed(source: str) -> ast.Module:
    """The source's syntax tree, parsed once for all the rules below (none changes a tree)."""
    return ast.parse(source)


def project_files(*suffixes: str) -> list[Path]:
    """The repository's own files with these suffixes (not what .gitignore leaves out)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        here = Path(folder)
        subfolders[:] = [d for d in subfolders if d not in (".git", "__pycache__") and here / d not in IGNORED]
        found += [here / name for name in files if Path(name).suffix in suffixes]
    return sorted(found)


def chapter_code(ipynb: Path) -> str:
    """A chapter's code cells (the .ipynb of its pair) as one Python text, IPython's % and !
    lines left out."""
    cells = [cell["source"] for cell in json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
             if cell["cell_type"] == "code"]
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for cell in cells for line in "".join(cell).splitlines())


# ------------------------------------------------------------------ private names


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_reaches(source: str, module: str | None, is_package: bool = False) -> list[str]:
    """Each place where code of `module` (None: outside every package) names a private module
    of another package, or a private name of another module, of our packages: by import or by
    attribute (`helpers.learning._palate_pass`). A private module belongs to the package that
    holds it (its modules and subpackages may import it); a private name to its module."""
    tree = parsed(source)
    bound: dict[str, str] = {}  # a local name → the dotted path it stands for
    found = []

    def check(path: str, line: int) -> None:
        parts = path.split(".")
        if parts[0] not in PACKAGES:
            return
        for i, part in enumerate(parts):
            if _private(part):
                owner = ".".join(parts[:i])
                if module is None or not (module == owner or module.startswith(owner + ".")):
                    found.append(f"{line}: {'.'.join(parts[:i + 1])}")
                return

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name, node.lineno)
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:  # `import a.b` binds a
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = (module or "").split(".")
                package = package if is_package else package[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join([*package, *([node.module] if node.module else [])])
            for alias in node.names:
                check(f"{base}.{alias.name}", node.lineno)
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):  # each chain is met at every length: found once
            chain, inner = [], node
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in bound:
                check(".".join([bound[inner.id], *reversed(chain)]), node.lineno)
    return sorted(set(found))


def module_name(path: Path) -> tuple[str, bool]:
    """`path`'s dotted module name from its code root, and whether it is a package's __init__."""
    root = next(ROOT / r for r in CODE_ROOTS if path.is_relative_to(ROOT / r))
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def test_no_code_reaches_into_another_packages_private_parts():
    """helpers' layers, the teacher's tools, the book's extension, the scripts and the chapters'
    code use only public names of what they do not belong to (the tests may: a unit test
    drives its private module)."""
    found = []
    for path in [p for p in project_files(".py") if any(p.is_relative_to(ROOT / r) for r in CODE_ROOTS)]:
        name, is_package = module_name(path)
        found += [f"{path.relative_to(ROOT)}:{hit}"
                  for hit in private_reaches(path.read_text(encoding="utf-8"), name, is_package)]
    for ipynb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        found += [f"{ipynb.relative_to(ROOT)}:{hit}" for hit in private_reaches(chapter_code(ipynb), None)]
    assert not found, "ほかのパッケージの非公開の名前(_ で始まる)を使っています:\n" + "\n".join(found)


@pytest.mark.parametrize(("source", "module", "expected"), [
    ("from .learning import _palate_pass, loss_and_gradients", "helpers.heads", ["1: helpers.learning._palate_pass"]),
    ("from . import descent\nx = descent._backward(1)", "helpers.heads", ["2: helpers.descent._backward"]),
    ("from helpers.widgets import _base", "qkv_book.explorables", ["1: helpers.widgets._base"]),
    ("import helpers.widgets._base as b", None, ["1: helpers.widgets._base"]),
    ("import helpers\nhelpers.learning._palate_pass()", None, ["2: helpers.learning._palate_pass"]),
    ("from helpers.checks._base.credit import VERDICT_MIME", "qkv_classroom.tamper",
     ["1: helpers.checks._base"]),
    ("from ..plotting._base import texts", "helpers.widgets.ch08_going_further", ["1: helpers.plotting._base"]),
    ("from ._base import Explorable\nfrom .. import _validate", "helpers.widgets.ch03_three_roles", []),
    ("from . import _base\n_base.passed()", "helpers.checks.ch03_three_roles", []),
    ("from .credit import exercise", "helpers.checks._base", []),
    ("from ._base import texts", "helpers.plotting", []),
    ("from sphinx.util.nodes import _make_id\nimport os\nos._exit", None, []),
])
def test_the_private_finder_sees_each_way_in(source, module, expected):
    is_package = module in ("helpers.checks._base", "helpers.plotting")
    assert private_reaches(source, module, is_package) == expected


# ------------------------------------------------------------------ sys.path


def path_changes(source: str) -> list[int]:
    """The lines that change `sys.path` (insert, append, extend, assignment, `+=`)."""
    found = []
    if "path" not in unicodedata.normalize("NFKC", source):  # names as Python reads them
        return found  # no `sys.path` in it: the walk over every node (most of the time) not needed
    for node in ast.walk(parsed(source)):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in getattr(node, "targets", [getattr(node, "target", None)]):
                target = t.value if isinstance(t, ast.Subscript) else t
        if isinstance(target, ast.Attribute) and target.attr == "path" and \
                isinstance(target.value, ast.Name) and target.value.id == "sys":
            found.append(node.lineno)
    return sorted(found)


def test_no_python_changes_sys_path():
    """pytest's `pythonpath` (pyproject.toml) and make's PYTHONPATH say where modules are."""
    found = [f"{path.relative_to(ROOT)}:{line}" for path in project_files(".py")
             for line in path_changes(path.read_text(encoding="utf-8"))]
    found += [f"{ipynb.relative_to(ROOT)}:{line}" for ipynb in sorted((ROOT / "notebooks").glob("*.ipynb"))
              for line in path_changes(chapter_code(ipynb))]
    assert not found, f"sys.path を書き換えています(pyproject.toml の pythonpath か PYTHONPATH で): {found}"


def test_the_path_finder_sees_each_change():
    source = ("import sys\nsys.path.insert(0, 'x')\nsys.path.append('y')\nsys.path[:0] = ['z']\n"
              "sys.path += ['w']\nsys.path = []\nprint(sys.path)\nos.path.join('a')\n")
    assert path_changes(source) == [2, 3, 4, 5, 6]
    assert path_changes("import sys\nsys.\uff50\uff41\uff54\uff48.append('v')\n") == [2]  # ｐａｔｈ is path


# ------------------------------------------------------------------ files named in comments

#: Files a comment may name that are no file of this repository: other projects' (Sphinx's
#: search page and scripts, sphinx-copybutton's, the theme's icons) and those a command writes
#: or a teacher brings (the classroom's reports, the hub's roster), each by its plain name.
ELSEWHERE = {
    "search.html", "searchtools.js", "language_data.js", "documentation_options.js", "translations.js",
    "copybutton.js", "fontawesome.js",
    "grading.csv", "summary.csv", "report.md", "grades.csv", "class_report.html", "class_report.csv",
    "nbgrader_config_local.py", "ROSTER.csv", "VENDORED.json",
    "Node.js",  # a program
}
#: Folders a comment names inside what a command writes or serves: Sphinx's output (html/,
#: _static/, the book's font in fonts/), the classroom's reports/ and course root/, JupyterLab's URL paths (lab/tree/).
OUTPUT = ("html/", "_static/", "fonts/", "reports/", "root/", "lab/tree/")
_EXTENSIONS = "py|js|mjs|css|md|yml|yaml|toml|json|cfg|txt|ipynb|html|csv|woff2"
_NAMED = re.compile(rf"(?<![\w./<{{*$-])((?:\.\.?/)?[\w.-]+(?:/[\w.-]+)*\.(?:{_EXTENSIONS}))(?![\w/<>{{}}*(-])")


def comments_of(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each comment and docstring of a Python, JavaScript or make/shell/TOML file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        found = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                 if tok.type == tokenize.COMMENT]
        statements = [parsed(text)]  # statements only (no expression can hold a docstring)
        while statements:
            node = statements.pop()
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    found.append((node.body[0].lineno, doc))
            for field in ("body", "orelse", "handlers", "finalbody"):
                statements += [n for n in getattr(node, field, []) if isinstance(n, (ast.stmt, ast.excepthandler))]
        return found
    if path.suffix in (".js", ".mjs", ".css"):
        pattern = r"/\*.*?\*/" if path.suffix == ".css" else r"//[^\n]*|/\*.*?\*/"
        return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in re.finditer(pattern, text, re.S)]
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith("#")]


def missing_files(comments: list[tuple[int, str]], where: Path, files: set[str]) -> list[str]:
    """The files the comments name that do not exist. A path is looked for from the root, from
    `where`'s folder and as the end of one of `files` (the repository's, from the root: a module
    named from its package's folder), unless it is in a folder git ignores or in OUTPUT; a plain
    file name must be a name of `files` or an ELSEWHERE name. A pattern (chapter `NN_slug`) is
    no file."""
    names = {file.rsplit("/", 1)[-1] for file in files}
    missing = []
    for line, text in comments:
        for named in _NAMED.findall(text):
            plain = named.removeprefix("./")
            if "NN" in re.split(r"[/_.]", plain):
                continue
            if "/" not in plain:
                if plain not in names and plain not in ELSEWHERE:
                    missing.append(f"{line}: {named}")
                continue
            wanted = [(base / plain).resolve() for base in (ROOT, where.parent)]
            if plain.startswith(OUTPUT) or any(w.is_relative_to(f) for w in wanted for f in IGNORED):
                continue
            if not any(w.exists() for w in wanted) and not any(f.endswith("/" + plain) for f in files):
                missing.append(f"{line}: {named}")
    return missing


def test_every_file_a_comment_names_exists():
    files = project_files(".py", ".js", ".mjs", ".css", ".toml", ".cfg") + [ROOT / "Makefile", ROOT / ".ci" / "run"]
    everything = {p.relative_to(ROOT).as_posix() for p in project_files(
        ".py", ".js", ".mjs", ".css", ".toml", ".cfg", ".md", ".yml", ".yaml", ".json", ".ipynb", ".html", ".txt")}
    assert {"src/helpers/widgets/js/qkv_math.js", "book/chapters.yml", "lab/learner_lab.py"} <= everything
    found = [f"{path.relative_to(ROOT)}:{hit}" for path in files
             for hit in missing_files(comments_of(path), path, everything)]
    assert not found, "コメントが、ない file を指しています:\n" + "\n".join(found)


def test_the_file_finder_sees_a_dangling_name():
    where = ROOT / "src" / "helpers" / "widgets" / "_base.py"
    files = {"src/helpers/widgets/js/qkv_math.js", "book/chapters.yml", "lab/jupyter_config/lab_settings/x.json"}
    comments = [(1, "the list is book/chapters.yml, not book/chapter.yml"),
                (2, "shared maths in `qkv_maths.js` (qkv_math.js is right)"),
                (3, "see js/qkv.css and js/qkv.scss.css and ../_validate.py and ../validate.py"),
                (4, "written to book/_build/html/index.html; https://x.org/a/b.html; html/book/index.html"),
                (5, "run `python tools/nothing_here.py`; copybutton.js is Sphinx's"),
                (6, "moved: scripts/learner_lab.py; notebooks/NN_slug.md is a pattern; ./qkv_math.js"),
                (7, "lab_settings/x.json and widgets/js/qkv_math.js, not lab_settings/y.json")]
    assert missing_files(comments, where, files) == [
        "1: book/chapter.yml", "2: qkv_maths.js", "3: js/qkv.scss.css", "3: ../validate.py",
        "5: tools/nothing_here.py", "6: scripts/learner_lab.py", "7: lab_settings/y.json"]


# ------------------------------------------------------------------ JavaScript


def test_make_lint_reads_every_javascript_file():
    """ESLint and Prettier (make lint) go over every .js and .mjs file of the repository."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (patterns,) = re.findall(r"^JS_SOURCES = (.*)$", makefile, re.M)
    linted = {path for pattern in patterns.split() for path in ROOT.glob(pattern)}
    assert (ROOT / "book" / "_static" / "qkv-book.js") in linted
    missing = sorted(str(p.relative_to(ROOT)) for p in set(project_files(".js", ".mjs")) - linted)
    assert not missing, f"make lint の JS_SOURCES にない JavaScript: {missing}"
    lint = makefile[makefile.index("\nlint:"):].split("\n\n")[0]
    assert "eslint --max-warnings 0 $(JS_SOURCES)" in lint and "prettier --check" in lint
