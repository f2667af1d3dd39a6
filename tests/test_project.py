"""Project plumbing: layout (tests/unit mirrors src/helpers), environment.yml in step with
pyproject.toml, CI runs README's command."""

import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def pyproject_requirements() -> dict[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(meta["dependencies"])
    for extra in meta["optional-dependencies"].values():
        reqs += extra
    return {Requirement(r).name.lower(): str(Requirement(r).specifier) for r in reqs}


def environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    found = {}
    for dep in env["dependencies"]:
        for item in dep["pip"] if isinstance(dep, dict) else [dep]:
            req = Requirement(item)
            found[req.name.lower()] = str(req.specifier)
    for tool in ("python", "pip", "nodejs"):  # the environment itself, not Python packages
        found.pop(tool, None)
    return found


def test_top_level_layout():
    for path in ("book", "notebooks", "src/helpers", "src/qkv_classroom", "environment.yml",
                 "tools/chapters.py", "lab/learner_lab.py", "lab/jupyter_config", "tests/support",
                 "README.md", "CONTRIBUTING.md", "LICENSE", "pyproject.toml", "Makefile", ".ci/run"):
        assert (ROOT / path).exists(), path


HELPERS = ROOT / "src" / "helpers"


def unit_test_file(module: Path) -> str:
    """CONTRIBUTING.md's rule: src/helpers/<path>.py → tests/unit/test_<path with / → _>.py.

    A package's `__init__.py` only re-exports and has no file, except the root's (`setup()`):
    `test_helpers.py`.
    """
    rel = module.relative_to(HELPERS).with_suffix("")
    if rel == Path("__init__"):
        return "test_helpers.py"
    return "test_" + "_".join(rel.parts) + ".py"


def test_unit_tests_mirror_the_helpers():
    modules = [p for p in HELPERS.rglob("*.py") if p.name != "__init__.py"]
    expected = {unit_test_file(p) for p in [*modules, HELPERS / "__init__.py"]}
    assert len(expected) == len(modules) + 1, "2 つのモジュールが同じテストファイル名になります"
    found = {p.name for p in (ROOT / "tests" / "unit").glob("test_*.py")}
    assert not expected - found, f"テストファイルのないモジュール: {sorted(expected - found)}"
    assert not found - expected, f"対応するモジュールのないテストファイル: {sorted(found - expected)}"
    nested = [str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "unit").rglob("test_*.py")
              if p.parent.name != "unit"]
    assert not nested, f"tests/unit/ の下にフォルダを作らず、平らに並べます: {nested}"
    top = {p.stem.removeprefix("test_") for p in (ROOT / "tests").glob("test_*.py")}
    module_named = {name for name in top if (HELPERS / f"{name}.py").exists()
                    or (HELPERS / name).is_dir()}
    assert not module_named, (
        f"モジュールのテストは tests/unit/ に置きます(tests/ 直下はプロジェクト全体のテスト): {module_named}")


def test_tests_and_what_they_share_are_apart():
    """tests/ holds the whole-project tests (test_*.py), conftest.py and nbval's settings; the unit
    tests are in unit/, everything the tests share (references, runners, harnesses, benches) in
    support/, which holds no test."""
    top = {p.name for p in (ROOT / "tests").iterdir() if p.name != "__pycache__"}
    stray = {name for name in top if not name.startswith("test_")} - {
        "conftest.py", "nbval_sanitize.cfg", "unit", "support"}
    assert not stray, f"tests/ の直下に置けるのはテストだけです(共有するものは tests/support/ へ): {sorted(stray)}"
    support = {p.name for p in (ROOT / "tests" / "support").glob("*.py")}
    assert {"reference.py", "explorables.py", "lab_server.py"} <= support
    assert not {name for name in support if name.startswith("test_")}, sorted(support)


def test_unit_test_file_names_follow_the_rule():
    assert unit_test_file(HELPERS / "attention.py") == "test_attention.py"
    assert unit_test_file(HELPERS / "widgets" / "ch03_three_roles.py") == (
        "test_widgets_ch03_three_roles.py")
    assert unit_test_file(HELPERS / "checks" / "_base" / "credit.py") == "test_checks__base_credit.py"
    assert unit_test_file(HELPERS / "_validate.py") == "test__validate.py"


def test_environment_yml_matches_pyproject():
    assert environment_requirements() == pyproject_requirements()


def test_every_dependency_is_pinned_in_constraints():
    pinned = {
        line.split("==")[0].strip().lower().replace("_", "-")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if "==" in line
    }
    missing = {n.replace("_", "-") for n in pyproject_requirements()} - pinned
    assert not missing, f"constraints.txt に固定されていない依存: {missing}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```(?:bash|sh)?\n(.*?)```", readme, flags=re.S)
    test_cmds = [line.strip() for block in commands for line in block.splitlines()
                 if line.strip().startswith("make test")]
    assert test_cmds, "README にテストのコマンドがありません"
    ci = (ROOT / ".ci" / "run").read_text()
    ci_cmds = [line.strip() for line in ci.splitlines()
               if line.strip() and not line.strip().startswith("#")]
    assert ci_cmds[-1] == test_cmds[0]


def test_ci_runs_every_test_file_alone():
    """No test file passes only because another ran first in the same process: CI runs each alone."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nmake test-alone\n" in ci
    makefile = (ROOT / "Makefile").read_text()
    target = makefile[makefile.index("\ntest-alone:"):].split("\n\n")[0]
    assert "tests/test_*.py tests/unit/test_*.py" in target and "$(PYTEST) -q $$f" in target


def test_node_dependencies_are_locked():
    assert (ROOT / "package-lock.json").exists()
    lock = (ROOT / "package-lock.json").read_text()
    for pkg in ("node_modules/mathjax", "node_modules/@fontsource/noto-sans-jp"):
        assert f'"{pkg}"' in lock


def build_the_package(out: Path, *formats: str) -> list[Path]:
    """`python -m build --no-isolation` (offline: the build tools of this environment) on a copy
    of the tracked sources: setuptools writes build/ and *.egg-info beside what it is given.
    `--skip-dependency-check`: the build tools are this environment's pinned ones, and the check
    asks setuptools for them in a Python process of its own per format (half the test's time)."""
    import shutil
    import subprocess
    import sys

    listed = subprocess.run(["git", "ls-files", "src", "pyproject.toml", "README.md", "LICENSE"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    source = out / "source"
    for name in listed:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check",
                    *(f"--{f}" for f in formats),
                    "-o", str(out / "dist"), str(source)], check=True, capture_output=True)
    return sorted((out / "dist").iterdir())


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def third_party_imports(package: Path) -> set[str]:
    """The distributions whose modules `package` imports (its own and the standard library's left out)."""
    import ast
    import sys
    from importlib.metadata import packages_distributions

    modules = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    modules -= {*sys.stdlib_module_names, "__future__", package.name}
    owners = packages_distributions()
    unknown = {m for m in modules if m not in owners}
    assert not unknown, f"どのパッケージのものかわからない import: {unknown}"
    return {canonical(d) for m in modules for d in owners[m]}


def test_the_package_builds_a_wheel_and_an_sdist_of_helpers_alone(tmp_path):
    """A reader who installs the package (not a clone) gets every file helpers reads (the
    explorables' ES modules and CSS, read with importlib.resources), the licence, and the
    version helpers and the book show; not the teacher's tools, which need the repository."""
    import tarfile
    import zipfile

    import helpers

    sdist, wheel = build_the_package(tmp_path, "sdist", "wheel")
    assert wheel.name == f"qkv_textbook_helpers-{helpers.__version__}-py3-none-any.whl"
    assert sdist.name == f"qkv-textbook-helpers-{helpers.__version__}.tar.gz"  # setuptools 65 keeps the dashes
    inside = set(zipfile.ZipFile(wheel).namelist())
    needed = {str(p.relative_to(ROOT / "src")) for p in HELPERS.rglob("*")
              if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert needed, "src/helpers に .py 以外のファイルが見つかりません(探し方が壊れています)"
    assert needed <= inside, f"wheel に入っていないファイル: {sorted(needed - inside)}"
    packages = {name.split("/")[0] for name in inside if not name.split("/")[0].endswith(".dist-info")}
    assert packages == {"helpers"}, f"wheel に helpers 以外のパッケージ: {packages - {'helpers'}}"
    meta = zipfile.ZipFile(wheel).read(f"qkv_textbook_helpers-{helpers.__version__}.dist-info/METADATA")
    assert f"Version: {helpers.__version__}\n" in meta.decode() and "License: MIT" in meta.decode()
    requires = [Requirement(line.split(":", 1)[1]) for line in meta.decode().splitlines()
                if line.startswith("Requires-Dist:")]
    required = {canonical(r.name) for r in requires if r.marker is None}  # not an extra's
    imported = third_party_imports(HELPERS)
    assert imported and imported <= required, f"wheel の依存に入っていない import: {imported - required}"
    # and nothing more: what helpers never imports belongs to an extra (pillow: the book's), except
    # the kernel the chapters run in and the widgets' front end in JupyterLab
    unused = required - imported - {"ipykernel", "ipywidgets"}
    assert not unused, f"helpers が import しない依存が wheel にあります: {sorted(unused)}"
    in_sdist = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    assert {"LICENSE", "pyproject.toml"} <= in_sdist
    assert {f"src/{n}" for n in needed} <= in_sdist, "sdist に入っていないファイル"


def test_the_changelog_and_the_readme_name_the_current_version():
    import helpers

    assert re.search(rf"^## {re.escape(helpers.__version__)}\b", (ROOT / "CHANGELOG.md").read_text(), re.M)
    readme = (ROOT / "README.md").read_text()
    wheels = set(re.findall(r"qkv_textbook_helpers-([^-\s]+)-py3-none-any\.whl", readme))
    assert wheels == {helpers.__version__}, f"README の wheel の版: {wheels}"


def test_no_symlink_is_tracked():
    """A symlink in the repository (e.g. a work clone's link to a shared .venv) would replace
    the real folder of whoever checks it out."""
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True)
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines() if line.startswith("120000")]
    assert links == [], f"リポジトリにシンボリックリンクが入っています: {links}"


def test_binder_installs_this_repository_on_a_python_it_supports():
    """The book's Binder button (book/_ext/qkv_book/launch_links.py) builds binder/: the helpers of
    this repository (`.`, with its dependencies) on a Python that pyproject.toml allows."""
    from packaging.specifiers import SpecifierSet

    lines = [line.strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert "." in lines
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    python = re.fullmatch(r"python-(\d+\.\d+)", runtime)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python and python[1] + ".0" in SpecifierSet(requires), runtime
