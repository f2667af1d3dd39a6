"""Which pages are chapters: `notebooks/NN_slug`, and the chapter's number."""

from __future__ import annotations

import re

CHAPTER_DOC = re.compile(r"^notebooks/(\d\d)_")


def is_chapter(docname: str) -> bool:
    return CHAPTER_DOC.match(docname) is not None


def chapter_number(docname: str) -> int:
    """`notebooks/06_attention` → 6."""
    return int(CHAPTER_DOC.match(docname).group(1))
