"""Feedback pages: one HTML page per graded submission, with no hidden test code in it and nothing
loaded from outside it (its maths is MathML)."""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterable
from pathlib import Path

from jinja2 import BytecodeCache, pass_context
from latex2mathml.converter import convert as tex_to_mathml
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from nbgrader.converters import GenerateFeedback
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Bool

from helpers.checks import VERDICT_MIME

from .cells import HIDDEN_TEST_MARKERS, marked_regions
from .course_folder import ClassroomError, Log, run_step, short_reason
from .submissions import chapters_with


def feedback(root: str | Path = "classroom", chapters: Iterable[str] | None = None, *,
             log: Log = print) -> list[str]:
    """`nbgrader generate_feedback`: `feedback/<student>/<chapter>/<chapter>.html` per submission.

    A chapter's pages are made in one run (nbgrader compiles its page templates once per run:
    one run per student spent most of its time on that). A page that cannot be made is
    reported, with its reason, and the others are still made: nbgrader goes on past it and
    leaves no file for it; it is then tried once more alone, for the reason. (The pages of an
    earlier run are removed first, as nbgrader's --force would, so an old page never passes
    for a new one.)
    """
    root = Path(root).resolve()
    todo = chapters_with(root, "autograded", chapters)
    for i, chapter in enumerate(todo, 1):
        students = sorted(p.parent.parent.name
                          for p in (root / "autograded").glob(f"*/{chapter}/{chapter}.ipynb"))
        pages = {s: root / "feedback" / s / chapter / f"{chapter}.html" for s in students}
        for page in pages.values():
            page.unlink(missing_ok=True)
        with contextlib.suppress(ClassroomError):
            run_step(GenerateFeedback, root, assignment_id=chapter)
        failed = []
        for student in students:
            if not pages[student].exists():
                try:
                    run_step(GenerateFeedback, root, assignment_id=chapter, student_id=student)
                except ClassroomError as err:
                    failed.append(f"{student}: {short_reason(str(err))}")
        n = len(list((root / "feedback").glob(f"*/{chapter}/{chapter}.html")))
        log(f"[{i}/{len(todo)}] {chapter}: フィードバック {n} 人分 → feedback/<学生>/{chapter}/"
            + (f"(作れなかったもの: {'; '.join(failed)})" if failed else ""))
    return todo


class FeedbackWithoutHiddenTests(ClearHiddenTests):
    """For the feedback HTML: drop hidden-test code, and the tracebacks that would quote it.

    nbgrader puts the hidden tests back before grading and, by design, shows them in the feedback
    (jupyter/nbgrader#917). Here a test cell with hidden tests keeps only the last line of each
    error (`AssertionError: ✗ hint`), so the hint stays and the test code goes. The checks'
    verdict records (for the class report; nothing renders them) are dropped and the ✗ lines
    they separated joined again, so the page shows what a notebook without them would.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code":
            kept = []
            for output in cell.get("outputs", []):
                if VERDICT_MIME in output.get("data", {}):
                    continue
                last = kept[-1] if kept else None
                if (last is not None and output.get("output_type") == last.get("output_type") == "stream"
                        and output.get("name") == last.get("name")):
                    last["text"] += output["text"]
                else:
                    kept.append(output)
            cell["outputs"] = kept
        if cell.cell_type == "code" and marked_regions(cell.source, HIDDEN_TEST_MARKERS):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    ename, evalue = output.get("ename", ""), output.get("evalue", "")
                    # a check's CheckFailed is its ✗ hint alone, as in JupyterLab
                    output["traceback"] = [evalue if ename == "CheckFailed" else f"{ename}: {evalue}"]
        return super().preprocess_cell(cell, resources, index)



#: The page's own rule, after nbconvert's: a ✗ line (one long line of Japanese) wraps inside its
#: box, as in JupyterLab, instead of running past the box's right edge, where its advice (the end
#: of the line) would be seen only by scrolling sideways.
WRAP_OUTPUT_CSS = "div.output_area pre { white-space: pre-wrap; overflow-wrap: anywhere; }"


class FeedbackStyle(Preprocessor):
    """For the feedback HTML, after nbconvert's CSSHTMLHeaderPreprocessor: `WRAP_OUTPUT_CSS`."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless enabled

    def preprocess(self, nb, resources):
        resources.setdefault("inlining", {}).setdefault("css", []).append(WRAP_OUTPUT_CSS)
        return nb, resources


#: nbgrader's feedback template loads MathJax 2 from cdnjs (and configures it): cut out of the page.
MATHJAX_SCRIPTS = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)
MATHML_NAMESPACE = ' xmlns="http://www.w3.org/1998/Math/MathML"'  # not needed inside HTML


def mathml(tex: str, display: bool) -> str:
    """The formula as MathML; one the converter cannot read stays readable as its TeX."""
    try:
        return tex_to_mathml(tex, display="block" if display else "inline").replace(MATHML_NAMESPACE, "")
    except Exception:  # noqa: BLE001 - any converter error: show the TeX, never lose the page
        return f"<code>{html.escape(tex)}</code>"


class MathMLRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer, with each formula as MathML instead of `$…$` for MathJax."""

    def inline_math(self, body: str) -> str:
        return mathml(body, display=False)

    def block_math(self, body: str) -> str:
        return mathml(body, display=True)

    def latex_environment(self, name: str, body: str) -> str:
        return mathml(rf"\begin{{{name}}}{body}\end{{{name}}}", display=True)


class _CompiledTemplates(BytecodeCache):
    """Jinja's compiled page templates, kept in memory for the whole process: each chapter's
    nbgrader run makes a new exporter, which would parse and compile the same nine templates again
    (a template whose file changed is compiled afresh: Jinja checks each one's checksum)."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = _CompiledTemplates()


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback page with no request outside itself: the maths is MathML, which the
    browser draws without a script (so also offline, and in JupyterLab's HTML viewer, which runs
    no script of an untrusted page), and the MathJax that nbgrader's template loads from a CDN is
    cut out. (`HTMLExporter.mathjax_url` cannot help: nbgrader's template calls `mathjax()` with
    nbconvert's default CDN address.) The page stays one file, as `nbgrader release_feedback`
    sends only the HTML files.
    """

    @pass_context  # as nbconvert's: Jinja gives the filter the cell it renders
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )
        return MarkdownWithMath(renderer=renderer).render(source)

    def _create_environment(self):
        environment = super()._create_environment()
        environment.bytecode_cache = COMPILED_TEMPLATES
        return environment

    def from_notebook_node(self, nb, resources=None, **kw):
        output, resources = super().from_notebook_node(nb, resources, **kw)
        return MATHJAX_SCRIPTS.sub("", output, count=1), resources
