"""The Japanese font: the reader's own first, the shipped Noto Sans JP cut to the book's characters.

A phone, a Mac or a Windows PC has Japanese fonts; book/_static/qkv.css names them first (the usual
stacks of iOS/macOS, Android, Windows), so there the page downloads no font at all. The shipped
face, `Noto Sans JP`, comes after them and itself tries the same fonts by their local() names
before its file, so only a machine without any Japanese font (a bare Linux) downloads it. That file
is made here once the pages are written: every character the built pages and the book's own
scripts can show, cut from @fontsource/noto-sans-jp's slices (node_modules) and merged into one
woff2 of about 140 KB (the whole font is 4 MB in 120 slices; a page loaded 40 of them, 490 KB).
font-display: swap, so text is never held back for the font.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[3]
FONT_PACKAGE = ROOT / "node_modules" / "@fontsource" / "noto-sans-jp"
WEIGHT = "400"
FAMILY = "Noto Sans JP"
#: Where the pages find the face (book/_config.yml html_css_files; tools/build_pdf.py's cover uses it too).
CSS = Path("fonts") / "noto-sans-jp" / f"{WEIGHT}.css"
FONT = Path("fonts") / "noto-sans-jp" / "files" / f"noto-sans-jp-book-{WEIGHT}-normal.woff2"
#: The same fonts as qkv.css's stack, by the names local() matches (full name, PostScript name).
LOCAL_NAMES = (
    "Hiragino Sans W3", "HiraginoSans-W3", "Hiragino Kaku Gothic ProN W3", "HiraKakuProN-W3",
    "Noto Sans CJK JP Regular", "NotoSansCJKjp-Regular", "Noto Sans JP Regular", "NotoSansJP-Regular",
    "Source Han Sans JP Regular", "SourceHanSansJP-Regular", "Yu Gothic Medium", "YuGothic-Medium",
    "Meiryo",
)
#: Scripts whose text is never shown: the search's word splitter (a dictionary) and its index
#: (the titles it shows are the pages' own).
NOT_SHOWN = {"tiny_segmenter.js", "searchindex.js"}
SLICE = re.compile(r"url\(\./files/([^)]+\.woff2)\)[^}]*?unicode-range:\s*([^;]+);", re.S)


#: Text written into the pages later: the PDF's cover, contents and answer notes (【答え 1】).
LATER_TEXT = [ROOT / "tools" / "build_pdf.py"]
#: Printable ASCII, Japanese punctuation (U+3001-303F) and full-width forms (U+FF01-FF5E): a few
#: KB that keep a sentence written later (a script's message) from showing a box.
ALWAYS = {*range(0x20, 0x7F), *range(0x3001, 0x3040), *range(0xFF01, 0xFF5F)}


def shown_characters(outdir: Path) -> set[int]:
    """Every character of the built pages, of the book's scripts and of LATER_TEXT, and ALWAYS."""
    found = set(ALWAYS)
    files = [*outdir.rglob("*.html"), *outdir.rglob("*.js"), *(p for p in LATER_TEXT if p.exists())]
    for path in files:
        if path.name not in NOT_SHOWN:
            found |= {ord(c) for c in set(path.read_text(encoding="utf-8", errors="replace")) if ord(c) > 0x7F}
    return found


def parse_ranges(text: str) -> set[int]:
    """`U+3000-303f,U+ff01` → the code points."""
    out: set[int] = set()
    for part in text.split(","):
        first, _, last = part.strip()[2:].partition("-")
        out |= set(range(int(first, 16), int(last or first, 16) + 1))
    return out


def css_ranges(codepoints: set[int]) -> str:
    """The code points as a compact unicode-range."""
    runs: list[list[int]] = []
    for c in sorted(codepoints):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


def cut_font(wanted: set[int], package: Path = FONT_PACKAGE):
    """The slices of the package that hold a wanted character, cut to those and merged into one
    font; returns (the font, the code points it has)."""
    from fontTools import merge, subset
    from fontTools.ttLib import TTFont

    css = (package / f"{WEIGHT}.css").read_text(encoding="utf-8")
    parts, covered = [], set()
    for name, ranges in SLICE.findall(css):
        if not wanted & parse_ranges(ranges):
            continue
        font = TTFont(package / "files" / name)
        need = wanted & set(font.getBestCmap())
        if not need:
            continue
        options = subset.Options()
        options.notdef_outline = True
        options.hinting = False
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=need)
        subsetter.subset(font)
        font.flavor = None
        buffer = io.BytesIO()
        font.save(buffer)
        buffer.seek(0)
        parts.append(buffer)
        covered |= need
    # Vertical metrics and the style table differ between slices and no page sets text vertically.
    merger = merge.Merger(options=merge.Options(drop_tables=["vhea", "vmtx", "BASE", "STAT"]))
    return merger.merge(parts), covered


def face_css(codepoints: set[int]) -> str:
    local = ", ".join(f'local("{name}")' for name in LOCAL_NAMES)
    return (
        "/* Written by book/_ext/qkv_book/fonts.py: the reader's own Japanese font by its local()\n"
        "   names first, else Noto Sans JP (SIL OFL 1.1) cut to the characters this book shows. */\n"
        f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: {WEIGHT};\n'
        f'  font-display: swap; src: {local}, url(files/{FONT.name}) format("woff2");\n'
        f"  unicode-range: {css_ranges(codepoints)}; }}\n"
    )


def write_font(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or not app.config.qkv_cut_font:
        return
    static = Path(app.outdir) / "_static"
    font, covered = cut_font(shown_characters(Path(app.outdir)))
    (static / FONT).parent.mkdir(parents=True, exist_ok=True)
    font.flavor = "woff2"
    font.save(static / FONT)
    (static / CSS).write_text(face_css(covered), encoding="utf-8")


def setup(app: Sphinx) -> None:
    # Off only in a build whose pages no one reads (tests/test_launch_links.py): the cut is
    # about half of such a build's time, and the pages then link a font that is not there.
    app.add_config_value("qkv_cut_font", True, "html", types=[bool])
    # After the maths (maths.py) and everything else that writes text into the pages.
    app.connect("build-finished", write_font, priority=900)
