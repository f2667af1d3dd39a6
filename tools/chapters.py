"""The one list of chapters (book/chapters.yml), read, and the files derived from it written.

    python tools/chapters.py           # rewrite book/_toc.yml's chapters and README's table
    python tools/chapters.py --check   # exit 1 (and say which) if either is out of step

A chapter is its slug (notebooks/<slug>.md), its title (the notebook's first heading) and the
section of the source article it covers. The tests read their chapter lists from here too
(`import chapters`), so adding a chapter is one entry in book/chapters.yml and one run of this.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "book" / "chapters.yml"
TOC = ROOT / "book" / "_toc.yml"
README = ROOT / "README.md"
#: The toc's chapter entries: one run of these lines in book/_toc.yml's 本編 part.
TOC_ENTRY = re.compile(r"(?:^      - file: notebooks/\S+\n)+", re.M)
#: README's chapter table: its header, its rule and one row per chapter.
README_TABLE = re.compile(r"^\| ファイル \| 章 \| 元記事の節 \|\n\| --- \| --- \| --- \|\n(?:^\|.*\n)*", re.M)


@dataclass(frozen=True)
class Chapter:
    slug: str  # 06_attention
    title: str  # the notebook's first heading
    article: str  # the source article's section it covers, in Japanese

    @property
    def number(self) -> int:
        return int(self.slug[:2])

    @property
    def source(self) -> Path:
        return ROOT / "notebooks" / f"{self.slug}.md"


def toc_docs() -> list[str]:
    """Every page of book/_toc.yml, in reading order (the root first), as Sphinx names them:
    source paths without suffix. The PDF prints them in this order; the book tests visit them."""
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    docs = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                docs.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return [re.sub(r"\.(md|ipynb)$", "", d) for d in docs]


def title_of(source: Path) -> str:
    """The first `# ` heading of a chapter's MyST source."""
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ValueError(f"{source} に見出し(# ...)がありません")


def chapters() -> list[Chapter]:
    """Every chapter, in reading order."""
    entries = yaml.safe_load(LIST.read_text(encoding="utf-8"))
    return [Chapter(e["slug"], title_of(ROOT / "notebooks" / f"{e['slug']}.md"), str(e["article"]))
            for e in entries]


def slugs() -> list[str]:
    return [c.slug for c in chapters()]


def toc_text(old: str, listed: list[Chapter]) -> str:
    entries = "".join(f"      - file: notebooks/{c.slug}\n" for c in listed)
    return TOC_ENTRY.sub(lambda _: entries, old, count=1)


def readme_text(old: str, listed: list[Chapter]) -> str:
    rows = "".join(f"| `{c.slug}` | {c.title} | {c.article} |\n" for c in listed)
    table = "| ファイル | 章 | 元記事の節 |\n| --- | --- | --- |\n" + rows
    return README_TABLE.sub(lambda _: table, old, count=1)


def derived() -> dict[Path, str]:
    """Each derived file as the list says it should read."""
    listed = chapters()
    return {TOC: toc_text(TOC.read_text(encoding="utf-8"), listed),
            README: readme_text(README.read_text(encoding="utf-8"), listed)}


def stale() -> list[Path]:
    """The derived files that differ from what the list says."""
    return [path for path, text in derived().items() if path.read_text(encoding="utf-8") != text]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        out_of_step = stale()
        for path in out_of_step:
            print(f"{path.relative_to(ROOT)} が book/chapters.yml と合っていません。"
                  "python tools/chapters.py で書き直してください。")
        return 1 if out_of_step else 0
    for path, text in derived().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"{path.relative_to(ROOT)} を書き直しました。")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
