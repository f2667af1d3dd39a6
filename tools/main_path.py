"""How long each chapter's main path is: the Japanese characters a reader meets without unfolding.

    python tools/main_path.py    # a table: each chapter's count against the budget; exit 1 if over

The main path is a chapter's markdown outside code cells and outside what is folded (a
`<details>` aside or answer list, a `{dropdown}`). A chapter has to stay readable in one sitting,
so every chapter's main path is held to BUDGET (tests/test_main_path.py; CONTRIBUTING's budgets).
"""

from __future__ import annotations

import re
import sys

import chapters

#: Japanese characters on a chapter's main path, at most: the longest chapter issue 35 called
#: readable in one sitting (chapter 08 as the issue was filed: 7,567 by this count).
BUDGET = 7600

#: What a reader does not meet as prose on the way through: code cells, folded asides and
#: answer lists, dropdowns. Each removed whole, from its opening to its closing line.
FOLDED = (
    re.compile(r"```\{code-cell\}.*?\n```", re.S),
    re.compile(r"<details.*?</details>", re.S),
    re.compile(r":::\{dropdown\}.*?\n:::", re.S),
)
#: A Japanese character: kana, CJK ideographs, Japanese punctuation and full-width forms.
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


def main_path(text: str) -> str:
    """A chapter's MyST source with its code cells and folded parts taken out."""
    for folded in FOLDED:
        text = folded.sub("", text)
    return text


def length(text: str) -> int:
    """The Japanese characters on the main path of a chapter's MyST source."""
    return len(JAPANESE.findall(main_path(text)))


def lengths() -> dict[str, int]:
    """Each chapter's main path length, in reading order, by slug."""
    return {c.slug: length(c.source.read_text(encoding="utf-8")) for c in chapters.chapters()}


def main() -> int:
    counts = lengths()
    width = max(map(len, counts))
    print(f"{'chapter':<{width}}  main path  (budget {BUDGET:,})")
    for slug, n in counts.items():
        over = f"  OVER by {n - BUDGET:,}" if n > BUDGET else ""
        print(f"{slug:<{width}}  {n:>9,}{over}")
    return 1 if any(n > BUDGET for n in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
