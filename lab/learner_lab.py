"""The learner's JupyterLab (`make lab`) on the learner's own copy of the chapters, in work/.

    make lab                    # make what is missing in work/, open Lab
    make refresh CHAPTER=03     # chapter 03 afresh; the old copy kept

work/ (ignored by git) holds what the learner types and saves, so `git pull` of a fixed chapter
never meets the learner's answers. It mirrors the repository's layout, so a chapter's links work
in Lab as they do in the book: work/notebooks/NN_slug.ipynb (each chapter copied once, never
overwritten, without jupytext's pairing: saving writes no .md beside it, and the file browser
shows each chapter once) and work/book/glossary.md, notation.md, concepts.md (written again every time: they
are the book's, not the learner's; the glossary's MyST `{glossary}` blocks become plain Markdown
with the book's `#term-…` anchors, since JupyterLab renders Markdown but not MyST directives).
"""

from __future__ import annotations

import copy
import os
import re
import sys
import time
from pathlib import Path

import chapters  # tools/chapters.py
import nbformat

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "work"
#: The pages beside the chapters that the chapters link to (../book/<name>).
REFERENCE_PAGES = ("glossary.md", "notation.md", "concepts.md")
#: What `make lab` passes to JupyterLab besides the folder it serves (tests/support/lab_server.py too).
LAB_OPTIONS = ["--LabApp.default_url=/lab/tree/notebooks"]

#: Where the one list of chapters is (`import chapters` above): `make lab` and `make refresh` put
#: it on PYTHONPATH, as pytest's `pythonpath` does for the tests.
TOOLS = ROOT / "tools"


def learner_notebook(path: Path):
    """A chapter as the learner's copy holds it: the same cells and outputs, no jupytext pairing."""
    nb = nbformat.read(path, as_version=4)
    nb = copy.deepcopy(nb)
    nb.metadata.pop("jupytext", None)
    return nb


def _term_id(term: str, taken: set[str], serial: list[int]) -> str:
    """The id Sphinx gives a glossary term (sphinx.util.nodes.make_id): `term-` and the term's
    ASCII part, else `term-<n>` counted through the page, so the book's links fit both."""
    from sphinx.util.nodes import _make_id

    node_id = _make_id(f"term-{term}")
    if node_id == "term":
        node_id = None
    while node_id is None or node_id in taken:
        node_id = f"term-{serial[0]}"
        serial[0] += 1
    taken.add(node_id)
    return node_id


def glossary_for_lab(text: str) -> str:
    """The glossary's ```{glossary} blocks as plain Markdown: each term a bold line after an
    anchor with the book's id, its definition a paragraph."""
    out: list[str] = []
    taken: set[str] = set()
    serial = [0]
    inside = False
    for line in text.splitlines():
        if line.strip() == "```{glossary}":
            inside = True
            continue
        if inside and line.strip() == "```":
            inside = False
            continue
        if not inside:
            out.append(line)
        elif line and not line[0].isspace():  # a term
            out += ["", f'<a id="{_term_id(line.strip(), taken, serial)}"></a>**{line.strip()}**', ""]
        else:  # its definition, indented in MyST
            out.append(line.strip())
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def write_reference_pages(work: Path) -> None:
    """work/book/glossary.md, notation.md and concepts.md, written again (the book's own pages)."""
    (work / "book").mkdir(parents=True, exist_ok=True)
    for name in REFERENCE_PAGES:
        text = (ROOT / "book" / name).read_text(encoding="utf-8")
        if name == "glossary.md":
            text = glossary_for_lab(text)
        (work / "book" / name).write_text(text, encoding="utf-8")


def prepare(work: Path = WORK) -> list[str]:
    """Make what is missing in `work`: returns the chapters copied now. A chapter already there
    is the learner's and is left as it is."""
    (work / "notebooks").mkdir(parents=True, exist_ok=True)
    copied = []
    for slug in chapters.slugs():
        target = work / "notebooks" / f"{slug}.ipynb"
        if not target.exists():
            nbformat.write(learner_notebook(ROOT / "notebooks" / f"{slug}.ipynb"), target)
            copied.append(slug)
    write_reference_pages(work)
    return copied


def find_chapter(name: str) -> str:
    """A chapter's slug from its number (`03`, `3`) or its slug."""
    for slug in chapters.slugs():
        if name in (slug, slug[:2]) or (name.isdigit() and int(name) == int(slug[:2])):
            return slug
    raise SystemExit(f"章 {name!r} が見つかりません。番号(例: 03)か名前(例: 03_three_roles)で指定してください。")


def refresh(name: str, work: Path = WORK) -> tuple[Path, Path | None]:
    """Chapter `name` copied afresh from the repository; the learner's copy, if any, is renamed
    to `<slug>.old-<date>-<time>.ipynb` beside it. Returns (new copy, old copy or None)."""
    slug = find_chapter(name)
    target = work / "notebooks" / f"{slug}.ipynb"
    kept = None
    if target.exists():
        kept = target.with_name(f"{slug}.old-{time.strftime('%Y%m%d-%H%M%S')}.ipynb")
        target.rename(kept)
    prepare(work)
    return target, kept


def lab_environment(env) -> dict[str, str]:
    """`env` for JupyterLab and the learner's kernels: PYTHONPATH without tools/ (what `make lab`
    added for this script), the rest as it was."""
    kept = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p).resolve() != TOOLS]
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    return {**env, "PYTHONPATH": os.pathsep.join(kept)} if kept else env


def main(argv: list[str]) -> int:
    if argv[:1] == ["lab"]:
        copied = prepare()
        print(f"あなたのノートブックは {WORK / 'notebooks'} にあります"
              f"(git の管理外です。{len(copied)} 章を新しく写しました)。", flush=True)
        os.chdir(WORK)
        os.execve(sys.executable, [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={WORK}",
                                   *LAB_OPTIONS, *argv[1:]], lab_environment(os.environ))
    if argv[:1] == ["refresh"] and len(argv) == 2:
        new, old = refresh(argv[1])
        print(f"{new.relative_to(ROOT)} をリポジトリの版で作り直しました。"
              + (f"前の版は {old.relative_to(ROOT)} に残してあります。" if old else ""))
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
