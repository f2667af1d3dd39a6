"""Folded solutions: the model answer without nbgrader's marks, under a Japanese summary that prints.

The solution cells keep nbgrader's `### BEGIN/END SOLUTION` lines (the classroom needs them); the
book shows the model answer without them, and without hidden tests. The folded cells' summary has
no English aria-label (its visible 「コードを表示」 names it) and says on paper where the solution is.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

NBGRADER_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) (SOLUTION|HIDDEN TESTS)[ \t]*\n?", re.M)
HIDDEN_TESTS = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*\n?", re.M | re.S)


def without_nbgrader_markers(code: str) -> str:
    """A cell's code as a reader should see it: no nbgrader marker lines, no hidden tests."""
    return NBGRADER_MARKER.sub("", HIDDEN_TESTS.sub("", code)).rstrip("\n")


def strip_nbgrader_markers(app: Sphinx, doctree: nodes.document) -> None:
    """The book's opened solutions show the model answer, not nbgrader's `### BEGIN SOLUTION`."""
    for node in list(doctree.findall(nodes.literal_block)):
        text = node.astext()
        if "### BEGIN " not in text and "### END " not in text:
            continue
        clean = without_nbgrader_markers(text)
        new = nodes.literal_block(clean, clean, **node.attributes)
        node.replace_self(new)



def visit_hidden_cell(self, node) -> None:
    """myst-nb's <details> for a folded cell, with the summary named by its visible text.

    myst-nb gives the summary aria-label="Toggle hidden content", which replaces the visible
    「コードを表示」 for screen readers and voice control; without it the summary is named by what it
    shows. `data-print-note` is what the printed page says instead (book/_static/qkv.css).
    """
    classes = " ".join(node["classes"])
    metadata = node.parent.get("cell_metadata", {}) if node.parent is not None else {}
    solution = metadata.get("nbgrader", {}).get("solution", False)
    source = self.builder.env.doc2path(self.builder.current_docname, False)
    where = f"{Path(source).with_suffix('.ipynb').as_posix()}"
    what = "解答例" if solution else "このコード"
    note = (f"{what}は印刷では伏せてあります。ノートブック {where} の折りたたんだセル、"
            f"または HTML 版のこのページの「{node['prompt_show']}」で見られます。")
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append(f'<summary data-print-note="{escape(note)}">\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_cell(self, node) -> None:
    self.body.append("</details>\n")


def setup(app: Sphinx) -> None:
    from myst_nb.sphinx_ import HideCodeCellNode

    app.connect("doctree-read", strip_nbgrader_markers)
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_hidden_cell))
