"""The book builds with every warning an error: `make book-build`, inside the test session.

`make test` runs the whole suite on all cores. tests/conftest.py keeps this test and
tests/test_book.py on one worker, this test first, so the browser tests read the book built here
while the other workers run the rest (the classroom round trip, nbval, the unit tests). Run on
its own, tests/test_book.py reads whatever `make book` built last.
"""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Lines of the build log worth showing when it fails (Sphinx warnings, notebook errors).
PROBLEM = re.compile(r"WARNING:|ERROR:|Error:|Traceback")


def test_the_book_builds_without_warnings():
    # A plain `make book-build`, as an author would run it: no state of the parent make (its
    # jobserver is not inherited) and no pytest variables reaching the notebooks' kernels.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL") and not k.startswith("PYTEST_")}
    run = subprocess.run(["make", "--no-print-directory", "book-build"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if run.returncode:
        lines = (run.stdout + run.stderr).splitlines()
        problems = [line for line in lines if PROBLEM.search(line)]
        pytest.fail("本の書き出し(make book-build)が失敗しました:\n"
                    + "\n".join(problems[:60] + ["…"] + lines[-15:]), pytrace=False)
    assert (ROOT / "book" / "_build" / "html" / "index.html").exists()
