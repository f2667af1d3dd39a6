"""Project plumbing: layout, environment.yml in step with pyproject.toml, CI runs README's command."""

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


def test_layout_from_the_design_card():
    for path in ("book", "notebooks", "src/helpers", "environment.yml", "README.md", "tests",
                 "pyproject.toml", "Makefile", ".ci/run"):
        assert (ROOT / path).exists(), path


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


def test_node_dependencies_are_locked():
    assert (ROOT / "package-lock.json").exists()
    lock = (ROOT / "package-lock.json").read_text()
    for pkg in ("node_modules/mathjax", "node_modules/@fontsource/noto-sans-jp"):
        assert f'"{pkg}"' in lock
