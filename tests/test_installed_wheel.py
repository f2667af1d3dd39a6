"""The chapters as a reader runs them outside the repository: a fresh virtual environment in a
temporary folder, the built wheel installed into it, nothing of src/.

`make test-wheel` runs this file (.ci/run calls it before `make test`; `make test` and
`make check` leave it out: it executes the nine chapters a second time, one to two minutes of
both cores, beyond `make test`'s four-minute budget). No network: the wheel is built with this
environment's setuptools (`python -m build --no-isolation`) and installed with
`pip install --no-deps --no-index`; the third-party packages (numpy, matplotlib, JupyterLab's
kernel, nbval, ...) come from this environment through a folder of links to its site-packages,
named in a `.pth` file. A `.pth` line only adds its folder to sys.path, so that folder's own
`.pth` files (the editable install that puts src/ on sys.path) stay unread, and the links leave
out the editable install's files: the new environment imports helpers from the wheel alone,
which the test checks before it runs the chapters with nbval against their committed outputs.
"""

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import chapters
import pytest
from test_project import build_the_package

import helpers

ROOT = Path(__file__).resolve().parents[1]
DIST = "qkv-textbook-helpers"
#: The editable install's files in this environment: what makes src/ importable here.
EDITABLE = ("__editable__", "qkv_textbook_helpers", "helpers")


def run(*cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def reader_env() -> dict:
    """Nothing of the clone (PYTHONPATH to its src/, its Jupyter config) and no pytest or make
    state (the number of workers stays)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "JUPYTER_CONFIG_PATH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
            and (not k.startswith("PYTEST_") or k == "PYTEST_XDIST_AUTO_NUM_WORKERS")}


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv outside the repository, this environment's third-party packages, no helpers."""
    work = tmp_path_factory.mktemp("reader")
    assert ROOT not in work.parents
    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, check=True)
    [new_site] = list((venv / "lib").glob("python3*/site-packages"))
    shared = work / "shared-site-packages"
    shared.mkdir()
    here = Path(site.getsitepackages()[0])
    for entry in here.iterdir():
        if not entry.name.startswith(EDITABLE) and entry.suffix != ".pth":
            (shared / entry.name).symlink_to(entry)
    (new_site / "shared.pth").write_text(f"{shared}\n", encoding="utf-8")
    missing = run(venv / "bin" / "python", "-c", "import helpers", env=reader_env())
    assert "No module named 'helpers'" in missing.stderr, (
        f"新しい環境から src/ の helpers が見えています: {missing.stdout}{missing.stderr}")
    return venv


@pytest.fixture(scope="module")
def installed(venv, tmp_path_factory) -> Path:
    [wheel] = build_the_package(tmp_path_factory.mktemp("wheel"), "wheel")
    run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet",
        "--no-deps", "--no-index", "--disable-pip-version-check", wheel, env=reader_env(), check=True)
    return venv


def test_the_reader_imports_helpers_from_the_wheel(installed):
    shown = run(installed / "bin" / "python", "-c",
                "import helpers, importlib.metadata as m; "
                f"print(helpers.__file__, helpers.__version__, m.version({DIST!r}))",
                env=reader_env(), check=True).stdout.split()
    where, version, metadata = shown
    assert Path(where).is_relative_to(installed), f"helpers が wheel 以外から読まれています: {where}"
    assert version == metadata == helpers.__version__


def test_every_chapter_runs_on_the_installed_wheel(installed, tmp_path_factory):
    """nbval, strict, on copies of the committed .ipynb in a folder outside the repository."""
    folder = tmp_path_factory.mktemp("chapters")
    for chapter in chapters.chapters():
        shutil.copy(chapter.source.with_suffix(".ipynb"), folder)
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", folder)
    result = run(installed / "bin" / "python", "-m", "pytest", "-p", "no:cacheprovider", "-q",
                 "-n", "auto", "--dist", "loadfile", "--nbval", "--nbval-current-env",
                 "--nbval-sanitize-with", "nbval_sanitize.cfg", ".", cwd=folder, env=reader_env())
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
