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
    # The launch buttons' setting stays empty: the offline book (tests/test_launch_links.py sets it).
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "QKV_REPOSITORY_URL", "QKV_JUPYTERHUB_URL")
           and not k.startswith("PYTEST_")}
    run = subprocess.run(["make", "--no-print-directory", "book-build"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    if run.returncode:
        lines = (run.stdout + run.stderr).splitlines()
        problems = [line for line in lines if PROBLEM.search(line)]
        pytest.fail("本の書き出し(make book-build)が失敗しました:\n"
                    + "\n".join(problems[:60] + ["…"] + lines[-15:]), pytrace=False)
    assert (ROOT / "book" / "_build" / "html" / "index.html").exists()


def book_extension():
    import qkv_book  # book/_ext/ (pytest's pythonpath)

    return qkv_book


def test_a_changed_helper_makes_the_chapters_execute_again():
    """Sphinx rebuilds only what changed; a chapter's pictures depend on src/helpers as well."""
    from types import SimpleNamespace

    qkv_book = book_extension()
    noted = []
    for docname in ("notebooks/06_attention", "book/glossary"):
        env = SimpleNamespace(docname=docname, note_dependency=noted.append)
        qkv_book.helpers_dependency.depend_on_helpers(SimpleNamespace(env=env), None)
        helpers_files = {str(p) for p in (ROOT / "src" / "helpers").rglob("*.py")}
        if docname.startswith("notebooks/"):
            assert set(noted) == helpers_files and str(ROOT / "src/helpers/attention.py") in noted
        else:
            assert set(noted) == helpers_files  # nothing more noted for a page that is no chapter


def png_of_a_plot(alpha: float) -> bytes:
    import io

    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2), dpi=50)
    fig.patch.set_alpha(alpha)
    fig.add_subplot().plot([0, 1, 3], color="tab:blue")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


@pytest.mark.parametrize("alpha", [1.0, 0.0], ids=["opaque", "transparent"])
def test_a_figure_carries_its_smallest_text_size_and_keeps_its_pixels(alpha):
    import io

    import numpy as np
    from PIL import Image

    qkv_book = book_extension()
    data = png_of_a_plot(alpha)
    with Image.open(io.BytesIO(data)) as im:
        rgba = np.asarray(im.convert("RGBA"))
    png, px, width = qkv_book.figures.reencoded_png(data, {qkv_book.figure_probe.pixel_key(rgba): 7.5})
    assert (px, width) == (7.5, rgba.shape[1])
    assert qkv_book.figures.measured_text_px(png) == (7.5, rgba.shape[1])
    with Image.open(io.BytesIO(png)) as im:
        im.verify()  # every chunk's checksum
    with Image.open(io.BytesIO(png)) as im:
        again = np.asarray(im.convert("RGBA"))
    if alpha < 1:  # transparency: the very pixels, only the size chunk added
        assert np.array_equal(again, rgba) and len(png) == len(data) + 12 + len("qkv-min-text-px\0" "7.5")
    else:  # 256 colours: the plot's few colours survive, and the file is smaller
        error = np.abs(again.astype(int) - rgba)
        assert again.shape == rgba.shape and error.max() <= 16 and error.mean() < 0.5, error.mean()
        assert len(png) < len(data)
    assert qkv_book.figures.reencoded_png(data, {})[1] is None  # not measured: no size


@pytest.mark.parametrize(("px", "width", "where"), [
    (13.9, 550, []),                      # 10 pt text, 5.5 in wide: fits both columns
    (12.5, 550, ["390"]),                 # 9 pt text: 8.1 px on a phone
    (13.9, 1000, ["1280", "390"]),        # two panels side by side, shrunk on both
    (20.0, 1000, ["390"]),                # large text still too small once shrunk to a phone
])
def test_a_figure_too_small_to_read_where_it_is_shown_is_named(px, width, where):
    """The build's check of every figure (figures.check_legible fails the build with -W)."""
    found = book_extension().figures.too_small(px, width)
    assert [w for w in ("1280", "390") if any(f.startswith(w) for f in found)] == where, found


def test_the_search_index_reuses_the_word_counts_splits():
    """count_words splits every text of a page; Sphinx's index then asks for the same splits."""
    from types import SimpleNamespace

    qkv_book = book_extension()
    calls = []
    lang = SimpleNamespace(split=lambda text: calls.append(text) or text.split())
    qkv_book.search_ranking.remember_splits(lang)
    qkv_book.search_ranking.remember_splits(lang)  # once per build is enough, twice changes nothing
    first = lang.split("内積 で 測る")
    first.append("変えても")
    assert lang.split("内積 で 測る") == ["内積", "で", "測る"] and calls == ["内積 で 測る"]
    assert lang.split("別の 文") == ["別の", "文"] and len(calls) == 2


def test_the_icon_rules_are_found_from_the_start_of_each_rule_only():
    """icons.ICON_RULE starts a match right after a brace (or at the start): the plain pattern tried
    every character of the theme's 400 KB stylesheet (0.4 s a build) and finds the very same pairs."""
    import pydata_sphinx_theme

    icon_rule = book_extension().icons.ICON_RULE
    plain = re.compile(r'([^{}]+)\{content:"\\([ef][0-9a-f]{3,4})"\}')  # tried at every character
    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
    css = (theme / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    found = icon_rule.findall(css)
    assert len(found) > 1000 and ('.fa-magnifying-glass:before,.fa-search:before', 'f002') in found
    missed, extra = set(plain.findall(css)) - set(found), set(found) - set(plain.findall(css))
    assert not missed and not extra and len(found) == len(set(found)), (sorted(missed)[:3], sorted(extra)[:3])
    for tricky in ('a{content:"\\f101"}', '{content:"\\f101"}', 'x}y{z}.fa-a:before,.fa-b{content:"\\e0aa"}',
                   '.a{content:"\\f1"}.b{content:"\\f123"}', '@media print{.fa-a:before{content:"\\f101"}}'):
        assert icon_rule.findall(tricky) == plain.findall(tricky), tricky


def test_the_figure_probe_names_a_text_cut_off_at_the_pictures_edge(tmp_path):
    """book/_ext/qkv_book/figure_text_probe.py, as the chapters' kernels run it: a text beyond the edge
    is logged with the picture's key (figures.check_inside then fails the build), one inside is not."""
    import json
    import os
    import subprocess
    import sys

    log = tmp_path / "figure-text.jsonl"
    draw = (
        "import runpy, matplotlib; matplotlib.use('Agg')\n"
        f"runpy.run_path({str(ROOT / 'book' / '_ext' / 'qkv_book' / 'figure_text_probe.py')!r})\n"
        "import io, matplotlib.pyplot as plt\n"
        "for x in (0.5, 1.05):\n"
        "    fig = plt.figure(figsize=(3, 2)); fig.text(x, 0.5, 'はみ出し'); fig.text(0.1, 0.1, '中')\n"
        "    fig.savefig(io.BytesIO(), format='png')\n"
    )
    subprocess.run([sys.executable, "-c", draw], check=True,
                   env={**os.environ, "QKV_FIGURE_TEXT_LOG": str(log)})
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [e["outside"] for e in entries] == [[], ["はみ出し"]]
    assert len({e["key"] for e in entries}) == 2


def test_the_pages_link_one_stylesheet_cut_to_what_the_book_uses(tmp_path):
    """book/_ext/qkv_book/styles.py: the sheets a page links become one file in their order, an
    @import inlined and url()s rebased to _static/; a rule whose class no page or script names is
    dropped, a selector list keeps its used selectors, :not() never drops, @media keeps its kept rules."""
    from types import SimpleNamespace

    qkv_book = book_extension()
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "basic.css").write_text(".used-basic { color: red; }")
    (static / "styles" / "theme.css").write_text(
        '@import "../basic.css";\n.used { background: url(../img/a.png); }\n.never, .used-too { margin: 0; }\n'
        "p:not(.never) { padding: 0; }\n@media print { .never { x: y; } .used { display: none; } }\n"
        "@font-face { font-family: X; src: url(fonts/x.woff2); }\n")
    (static / "qkv.css").write_text(".added-by-script { color: blue; }")
    (static / "app.js").write_text('el.classList.add("added-by-script");')
    head = ('<link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />\n'
            '    <link rel="stylesheet" type="text/css" href="../_static/qkv.css?v=2" />\n')
    (tmp_path / "ch").mkdir()
    page = tmp_path / "ch" / "p.html"
    page.write_text(f'<head>{head}</head><body><p class="used used-too used-basic">x</p></body>')
    app = SimpleNamespace(outdir=str(tmp_path), builder=SimpleNamespace(format="html"))
    qkv_book.styles.bundle_pages(app, None)

    html = page.read_text()
    links = re.findall(r'<link[^>]*rel="stylesheet"[^>]*>', html)
    assert len(links) == 1 and 'href="../_static/qkv-styles.css?v=' in links[0], html
    css = re.sub(r"\s+", " ", (static / "qkv-styles.css").read_text())
    assert css.index(".used-basic") < css.index(".used{") < css.index(".added-by-script"), css
    assert "url(img/a.png)" in css and "url(styles/fonts/x.woff2)" in css, css  # from _static/
    assert ".never" not in css.replace(":not(.never)", "") and "p:not(.never)" in css, css
    assert ".used-too{ margin: 0; }" in css, css
    assert "@media print{.used{ display: none; }}" in css, css


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def cuts(text: str) -> list[int]:
    """Where a kernel may cut a print's text: either side of each newline (print writes its text
    and its end apart) and inside each line (and between its arguments)."""
    at = {i + d for i, c in enumerate(text) if c == "\n" for d in (0, 1)}
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    at |= {(a + b) // 2 for a, b in zip(starts, starts[1:] + [len(text)], strict=True)}
    return sorted(k for k in at if 0 < k < len(text))


def test_every_chapters_printed_text_reads_the_same_however_the_kernel_cut_it():
    """book/_ext/qkv_book/streams.py on each printed text the chapters save: cut in two at any
    place a kernel may cut it, or at all of them at once, the box shows the uncut text."""
    import chapters
    import nbformat

    merged_streams = book_extension().streams.merged_streams

    def shown(pieces):
        outputs = merged_streams([nbformat.from_dict(stream(p)) for p in pieces])
        assert len(outputs) == 1
        return outputs[0]["text"]

    texts = [output["text"] for chapter in chapters.chapters()
             for cell in nbformat.read(chapter.source.with_suffix(".ipynb"), 4).cells
             for output in cell.get("outputs", []) if output["output_type"] == "stream"]
    assert sum(t.count("\n") for t in texts) > 500 and any("\n\n" in t.strip() for t in texts)
    differ = []
    for text in texts:
        whole, at = shown([text]), cuts(text)
        ways = [[text[:k], text[k:]] for k in at] + [[text[a:b] for a, b in zip([0, *at], [*at, None], strict=True)]]
        differ += [(whole, pieces) for pieces in ways if shown(pieces) != whole]
    assert not differ, differ[:2]


def test_the_books_pages_show_a_cut_print_as_the_cell_printed_it(tmp_path, monkeypatch):
    """Sphinx with myst-nb and book/_ext/qkv_book/streams.py (as book/_config.yml sets them) renders
    each cell's pieces, cut where a kernel may cut them, as the same box as the uncut text (myst-nb
    1.4 alone added a blank line at a cut before a newline, dropped one at a cut after it, and broke
    a line cut inside)."""
    import myst_nb.core.render
    import nbformat
    from docutils import nodes
    from sphinx.application import Sphinx

    # streams.setup replaces the function for the process: put myst-nb's back after this test
    monkeypatch.setattr(myst_nb.core.render, "coalesce_streams", myst_nb.core.render.coalesce_streams)
    printed = {"一\n二\n三\n": ["一\n二", "\n三\n"], "一\n\n二\n": ["一\n\n", "二\n"],
               "一二三\n四\n": ["一", "二三\n四\n"]}
    cells = [nbformat.v4.new_code_cell("print()", outputs=[nbformat.from_dict(stream(p)) for p in pieces])
             for text, cut in printed.items() for pieces in ([text], cut)]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 試し"), *cells])
    nbformat.write(notebook, tmp_path / "index.ipynb")
    (tmp_path / "conf.py").write_text(
        'extensions = ["myst_nb", "qkv_book.streams"]\nnb_execution_mode = "off"\n'
        'nb_merge_streams = True\nexclude_patterns = ["_build"]\n', encoding="utf-8")
    app = Sphinx(tmp_path, tmp_path, tmp_path / "_build", tmp_path / "_build" / ".doctrees", "dummy",
                 status=None, warning=None, freshenv=True)
    app.build()
    boxes = [node.astext() for node in app.env.get_doctree("index").findall(nodes.literal_block)
             if "stream" in node["classes"]]
    assert boxes == [text for text in printed for _ in range(2)], boxes


def printed_boxes(page: str) -> list[str]:
    """The text of every printed box (myst-nb's stream output) of a built page, in order."""
    import html

    boxes = re.findall(r'<div class="output stream[^"]*"><div class="highlight"><pre>(.*?)</pre>', page, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", box)) for box in boxes]


def pages_not_printing_what_was_saved(built: Path) -> list[str]:
    """Each chapter's saved printed texts (`make sync`), in order, that its built page does not
    show as saved (cells tagged nbval-ignore-output, such as timings, print other text each run;
    the page has more boxes than the notebook: the answers' outputs are not saved)."""
    import chapters
    import nbformat

    differ = []
    for chapter in chapters.chapters():
        shown = printed_boxes((built / "notebooks" / f"{chapter.slug}.html").read_text(encoding="utf-8"))
        at = 0  # the page's boxes before this one are matched already
        for cell in nbformat.read(chapter.source.with_suffix(".ipynb"), 4).cells:
            if "nbval-ignore-output" in cell.metadata.get("tags", []):
                continue
            for text in [o["text"].rstrip() + "\n" for o in cell.get("outputs", []) if o["output_type"] == "stream"]:
                if text in shown[at:]:
                    at = shown.index(text, at) + 1
                else:
                    differ.append(f"{chapter.slug}: {text!r}")
    return differ


def test_the_chapters_pages_print_what_the_saved_chapters_print():
    """The book's own execution of each chapter prints what `make sync` saved, box by box, however
    the kernel cut its streams (streams.py). Run alone, it reads the book `make book` built last."""
    mark = BUILT_MARK.read_text(encoding="utf-8").split() if BUILT_MARK.exists() else []
    if mark[1:] == ["failed"]:
        pytest.skip("本の書き出しが失敗したので、ページの出力は検査しません")
    differ = pages_not_printing_what_was_saved(ROOT / "book" / "_build" / "html")
    assert not differ, "保存した章と違う出力を表示しているページがあります:\n" + "\n".join(differ)
