"""Figures readable on a phone, and light: each PNG re-encoded (256 colours) and sized by its smallest text.

Page weight (CONTRIBUTING.md, budgets: no page over 3 MB with everything it loads, measured by
tests/test_book.py): the figures in _images/ are re-encoded as 256-colour PNGs (about a third of
the size, no visible change on matplotlib plots). Each figure also carries its smallest text size,
measured by the probe (`figure_probe`): a PNG text chunk `qkv-min-text-px`, and on the page
`data-qkv-text-px`, `data-qkv-width` and `--qkv-readable-width`, the width at which that text is
READABLE_PX tall. On a phone or tablet (book/_static/qkv.css) no figure is drawn narrower than
that; one wider than the column scrolls sideways inside `.qkv-scroll` (qkv-book.js shows the cue).
The build fails (`check_legible`) when a figure's smallest text, shrunk to the column, would be
under 10 CSS px in the 1280 px layout or under 9 CSS px on a 390 px phone (SHOWN_IN), and
(`check_inside`) when a text of a figure reaches beyond its edge, cut off in the picture.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

from docutils import nodes
from PIL import Image
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator

from .figure_probe import figure_text_sizes, figure_texts_outside, pixel_key

READABLE_PX = 9  # the smallest figure text a reader meets, in CSS px (tests/test_book_reader.py)
#: Where a figure is shown, and the smallest text it must keep there (CSS px): the article column
#: of the 1280 px layout and of a 390 px phone (the theme's widths, measured by
#: tests/test_book_reader.py, which also checks every figure's text in the browser at both).
#: A figure wider than the column is shrunk to it; the build fails when its text gets too small.
SHOWN_IN = {"1280 px の画面": (672, 10.0), "390 px のスマートフォン": (358, 9.0)}
TEXT_CHUNK = "qkv-min-text-px"  # PNG text chunk: the picture's smallest font size, in its pixels


def reencoded_png(data: bytes, sizes: dict[str, float]) -> tuple[bytes, float | None, int]:
    """The picture re-encoded, with its smallest text size: (png, px or None, width in px).

    The PNG carries the size in a text chunk when the probe measured it, and becomes a
    256-colour PNG when that is smaller: matplotlib figures use few colours (antialiased edges,
    one-hue colour maps), so 256 is visually lossless for them; images with transparency or
    already paletted keep their colours, and their bytes (the chunk is added, not re-encoded:
    compressing a full-colour picture again cost most of the build's own time).
    """
    from PIL.PngImagePlugin import PngInfo

    with Image.open(io.BytesIO(data)) as im:
        im.load()
        original = im.copy()
    rgba = original.convert("RGBA")
    px = sizes.get(pixel_key(rgba))
    info = PngInfo()
    if px is not None:
        info.add_text(TEXT_CHUNK, f"{px:g}")
    options = [data if px is None else with_text_chunk(data, TEXT_CHUNK, f"{px:g}")]
    if original.mode != "P" and rgba.getextrema()[3][0] == 255:
        buf = io.BytesIO()
        rgba.convert("RGB").quantize(colors=256, dither=Image.Dither.NONE).save(
            buf, format="png", optimize=True, pnginfo=info)
        options.append(buf.getvalue())
    return min(options, key=len), px, rgba.width


def with_text_chunk(png: bytes, key: str, value: str) -> bytes:
    """`png` with a tEXt chunk `key`=`value` right after its header chunk (IHDR: 33 bytes in)."""
    import struct
    import zlib

    body = b"tEXt" + key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    return png[:33] + chunk + png[33:]


def readable_attrs(px: float | None, width: int) -> dict[str, str]:
    """The attributes an <img> needs so that its smallest text is at least READABLE_PX tall."""
    if px is None:
        return {}
    need = max(1, math.ceil(width * READABLE_PX / px))
    return {"data-qkv-text-px": f"{px:g}", "data-qkv-width": f"{width}",
            "style": f"--qkv-readable-width: {need}px"}


def measured_text_px(data: bytes) -> tuple[float | None, int]:
    """The smallest text size a PNG carries (written by reencoded_png), and its width."""
    with Image.open(io.BytesIO(data)) as im:
        px = im.text.get(TEXT_CHUNK) if hasattr(im, "text") else None
        return (float(px) if px else None), im.width


def too_small(px: float, width: int) -> list[str]:
    """Where a figure of `width` px whose smallest text is `px` px reads below its minimum."""
    found = []
    for where, (column, least) in SHOWN_IN.items():
        shown = px * min(1.0, column / width)
        if shown < least - 0.05:
            found.append(f"{where}で {shown:.1f} px(下限 {least:g} px)")
    return found


def check_legible(app: Sphinx, docname: str, uri: str, px: float | None, width: int) -> None:
    """A Sphinx warning (an error under `make book`'s -W) for a figure too small to read."""
    if px is None:
        return
    problems = too_small(px, width)
    if problems:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(
            "図 %s のいちばん小さい文字が、%s。図を本の列の幅(5.5 インチ以下)で、文字を 10 pt 以上で描いてください"
            "(パネルは横に並べず縦に重ねる)。", Path(uri).name, "、".join(problems),
            location=docname, type="qkv", subtype="figure_text")


def check_inside(app: Sphinx, docname: str, uri: str, data: bytes, outside: dict[str, list[str]]) -> None:
    """A Sphinx warning (an error under -W) for a figure whose texts reach beyond its edge."""
    with Image.open(io.BytesIO(data)) as im:
        cut = outside.get(pixel_key(im.convert("RGBA")), [])
    if cut:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(
            "図 %s の文字が図の外にはみ出して、切れています: %s。凡例を何段かに分けるなど、図の中に収めてください。",
            Path(uri).name, "、".join(f"「{t}」" for t in cut),
            location=docname, type="qkv", subtype="figure_text")


def reencode_output_images(app: Sphinx, doctree: nodes.document) -> None:
    """The figures a chapter's kernel just drew (files under book/_build/jupyter_execute/):
    re-encoded in place with their smallest text size, before Sphinx copies them to _images/.
    Done here, right after the chapter ran, because only then does the probe's log hold them;
    a chapter that is not re-read keeps the files re-encoded by an earlier build."""
    sizes, outside = None, {}
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        path = Path(app.srcdir) / uri
        if not uri.endswith(".png") or "jupyter_execute" not in uri or not path.is_file():
            continue
        data = path.read_bytes()
        px, width = measured_text_px(data)
        if px is None:
            if sizes is None:
                sizes, outside = figure_text_sizes(app), figure_texts_outside(app)
            check_inside(app, app.env.docname, uri, data, outside)
            png, px, width = reencoded_png(data, sizes)
            if px is not None:
                path.write_bytes(png)
        check_legible(app, app.env.docname, uri, px, width)



def quantize_images(app: Sphinx, exception: Exception | None) -> None:
    """Re-encode the other pictures in _images/ (after each build; Sphinx re-copies the files
    it manages). A figure the probe measured keeps its colours and its size chunk."""
    if exception is not None or app.builder.format != "html":
        return
    for path in (Path(app.outdir) / "_images").glob("*.png"):
        data = path.read_bytes()
        if measured_text_px(data)[0] is None:
            path.write_bytes(reencoded_png(data, {})[0])


def lazy_attrs(data: bytes) -> dict[str, str]:
    """Fetched only when the reader scrolls near it (a phone's first visit loads the first screen's
    figures, not all of them), its box kept at the picture's size meanwhile. tools/build_pdf.py and
    the book's tests load every figure at once (build_pdf.EVERY_IMAGE_LOADED)."""
    with Image.open(io.BytesIO(data)) as im:
        return {"width": f"{im.width}", "height": f"{im.height}", "loading": "lazy", "decoding": "async"}


def _readable_img_attrs(translator: HTML5Translator, node: nodes.image) -> dict[str, str]:
    """What a measured figure's <img> adds (none for any other picture); read before Sphinx
    points the node at _images/, from the file it copies there."""
    uri = node.get("uri", "")
    path = Path(translator.builder.srcdir) / uri
    if not uri.endswith(".png") or uri not in translator.builder.images or not path.is_file():
        return {}
    data = path.read_bytes()
    readable = readable_attrs(*measured_text_px(data))
    return {**lazy_attrs(data), **readable} if readable else {}


def visit_image(translator: HTML5Translator, node: nodes.image) -> None:
    """A measured figure is written as `<span class="qkv-scroll"><img … data-qkv-text-px … loading="lazy"></span>`."""
    extra = _readable_img_attrs(translator, node)
    node["qkv_scroll"] = bool(extra)
    if not extra:
        type(translator).visit_image(translator, node)
        return
    translator.body.append('<span class="qkv-scroll">')
    emptytag = translator.emptytag
    # docutils writes the <img> through emptytag; the figure's own attributes (a size) come first
    translator.emptytag = lambda *args, **attributes: emptytag(*args, **{**extra, **attributes})
    try:
        type(translator).visit_image(translator, node)
    finally:
        del translator.emptytag  # the class's own again


def depart_image(translator: HTML5Translator, node: nodes.image) -> None:
    type(translator).depart_image(translator, node)
    if node.get("qkv_scroll"):
        translator.body.append("</span>")


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", reencode_output_images)
    app.connect("build-finished", quantize_images)
    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
