"""Every chapter's main path (what a reader meets without unfolding) stays readable in one sitting.

tools/main_path.py counts the Japanese characters of a chapter's markdown outside code cells and
folded parts; BUDGET is there, with why (CONTRIBUTING's budgets say it too). A chapter over it
moves secondary whys into folded asides or says an idea once and points to it.
"""

from __future__ import annotations

import chapters
import main_path
import pytest


@pytest.mark.parametrize("chapter", chapters.chapters(), ids=lambda c: c.slug)
def test_main_path_within_budget(chapter):
    n = main_path.length(chapter.source.read_text(encoding="utf-8"))
    assert n <= main_path.BUDGET, (
        f"{chapter.slug}: the main path has {n:,} Japanese characters, {n - main_path.BUDGET:,} over "
        f"the budget of {main_path.BUDGET:,}: fold secondary whys into <details class=\"qkv-aside\"> "
        "or say an idea once and point to it")


def test_counts_prose_only():
    """Prose counts; code cells, folded asides, answer lists and dropdowns do not."""
    text = "\n".join([
        "# 見出し",
        "本文です。",
        "```{code-cell} ipython3",
        "print('コードの中')",
        "```",
        '<details class="qkv-aside">',
        "<summary>寄り道</summary>",
        "",
        "畳んだ中身",
        "</details>",
        ":::{dropdown} ヒント",
        "畳んだヒント",
        ":::",
        "Latin letters and $x W_Q$ do not count.",
        "最後。",
    ])
    assert main_path.length(text) == len("見出し本文です。最後。")


def test_script_exits_1_when_a_chapter_is_over(monkeypatch, capsys):
    monkeypatch.setattr(main_path, "lengths", lambda: {"00_a": main_path.BUDGET, "01_b": main_path.BUDGET + 1})
    assert main_path.main() == 1
    out = capsys.readouterr().out
    assert "01_b" in out and "OVER by 1" in out and "00_a" in out
    monkeypatch.setattr(main_path, "lengths", lambda: {"00_a": main_path.BUDGET})
    assert main_path.main() == 0
