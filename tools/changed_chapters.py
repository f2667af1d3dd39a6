"""Print the chapter notebooks that `make check` re-executes with nbval: those changed since main.

    python tools/changed_chapters.py [BASE]

A chapter counts as changed when its .md or .ipynb differs from where this branch left BASE
(default: `main`, else `origin/main`), committed or not, or is new and not yet committed. A change
under src/helpers/ can change any chapter's output, so then every chapter is printed. Output: the
.ipynb paths, relative to the repository, one line; nothing when no chapter changed. Where no BASE
is known (e.g. a download without git history) every chapter is printed, with a note on stderr.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = re.compile(r"^notebooks/([0-9][0-9]_[^/]+)\.(md|ipynb)$")
EVERY_CHAPTER = ("src/helpers/",)


def git(*args: str) -> str | None:
    try:
        run = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return run.stdout if run.returncode == 0 else None


def merge_base(candidates: list[str]) -> str | None:
    for ref in candidates:
        base = git("merge-base", ref, "HEAD")
        if base:
            return base.strip()
    return None


def all_chapters() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def changed_chapters(base: str) -> list[str]:
    changed = (git("diff", "--name-only", base) or "").splitlines()
    changed += (git("ls-files", "--others", "--exclude-standard") or "").splitlines()
    if any(path.startswith(EVERY_CHAPTER) for path in changed):
        return all_chapters()
    stems = {m.group(1) for path in changed if (m := CHAPTER.match(path))}
    return [p for p in all_chapters() if Path(p).stem in stems]


def main(argv: list[str]) -> int:
    refs = argv[:1] or ["main", "origin/main"]
    base = merge_base(refs)
    if base is None:
        print(f"({' / '.join(refs)} が見つからないので、すべての章を検査します)", file=sys.stderr)
        chapters = all_chapters()
    else:
        chapters = changed_chapters(base)
    print(" ".join(chapters))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
