"""The book builds with every warning an error: `make book-build`, inside the test session.

`make test` runs the whole suite on all cores. tests/conftest.py keeps this test and
tests/test_book.py on one worker, this test first, while the other workers run the rest (the
classroom round trip, nbval, the unit tests). When it ends it writes BUILT_MARK (this session's
id and "ok" or "failed"): browser tests on other workers wait for it (test_book.book), so none
reads a book half built or left from an earlier run. Run on its own, tests/test_book.py reads
whatever `make book` built last.
"""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Which session built the book last, and how it went ("<testrun_uid> ok" / "<testrun_uid> failed").
BUILT_MARK = ROOT / "book" / "_build" / "qkv-built-by-session.txt"
#: Lines of the build log worth showing when it fails (Sphinx warnings, notebook errors).
PROBLEM = re.compile(r"WARNING:|ERROR:|Error:|Traceback")


def test_the_book_builds_without_warnings(testrun_uid):
    BUILT_MARK.unlink(missing_ok=True)
    try:
        build_the_book()
    except BaseException:
        BUILT_MARK.write_text(f"{testrun_uid} failed", encoding="utf-8")
        raise
    BUILT_MARK.write_text(f"{testrun_uid} ok", encoding="utf-8")


def build_the_book():
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


def test_a_changed_helper_makes_the_chapters_execute_again():
    """Sphinx rebuilds only what changed; a chapter's pictures depend on src/helpers as well."""
    import sys
    from types import SimpleNamespace

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import qkv_book
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    noted = []
    for docname in ("notebooks/06_attention", "book/glossary"):
        env = SimpleNamespace(docname=docname, note_dependency=noted.append)
        qkv_book.depend_on_helpers(SimpleNamespace(env=env), None)
        helpers_files = {str(p) for p in (ROOT / "src" / "helpers").rglob("*.py")}
        if docname.startswith("notebooks/"):
            assert set(noted) == helpers_files and str(ROOT / "src/helpers/attention.py") in noted
        else:
            assert set(noted) == helpers_files  # nothing more noted for a page that is no chapter
