"""Measure the smallest text in every figure the book's notebooks draw (book builds only).

book/_ext/qkv_book/figure_probe.py installs this file as an IPython startup file for the kernels that execute
the chapters while the book is built (it points IPYTHONDIR at a folder under book/_build/). It
never runs in JupyterLab, under nbval or in the classroom tools.

While a figure is drawn, it notes the font size, in pixels of the picture, of every visible piece
of text (titles, tick labels, legends, the numbers in heatmap cells); when the picture's pixels are
taken (`FigureCanvasAgg.buffer_rgba`, which the inline figures go through), it appends one line
to the file named by QKV_FIGURE_TEXT_LOG: a hash of those pixels, the smallest size, and the
texts that reach beyond the picture's edge (cut off in the PNG; the build fails on them). The book
extension looks each PNG up by the same hash (it imports `pixel_key` from here; imported as a
module, this file changes nothing: it measures only when run as a startup file), so every figure in the built book carries the size
of its smallest text, and tests/test_book_reader.py can check how large that text is on a phone.
(The explorables draw SVG in the browser; the phone test measures their text there.)
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os

import numpy as np

_LOG = os.environ.get("QKV_FIGURE_TEXT_LOG")
_ATTR = "_qkv_min_text_px"
_OUTSIDE = "_qkv_texts_outside"


def pixel_key(rgba) -> str:
    """A picture's key: its size plus a hash of its RGBA pixels (the kernel's buffer here, the
    decoded PNG in book/_ext/qkv_book/figures.py)."""
    rgba = np.ascontiguousarray(np.asarray(rgba), dtype=np.uint8)
    h, w = rgba.shape[:2]
    return f"{w}x{h}:" + hashlib.sha1(rgba.tobytes()).hexdigest()


if _LOG and not __package__:  # run by IPython as a startup file, not imported by the extension
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    _text_draw = Text.draw
    _figure_draw = Figure.draw
    _buffer_rgba = FigureCanvasAgg.buffer_rgba

    @functools.wraps(_text_draw)  # keeps _supports_rasterization
    def _measuring_text_draw(self, renderer):
        if self.get_visible() and self.get_text().strip():
            fig = self.get_figure(root=True)
            px = float(renderer.points_to_pixels(self.get_fontsize()))
            if fig is not None and px > 0:
                setattr(fig, _ATTR, min(getattr(fig, _ATTR, math.inf), px))
            box = self.get_window_extent(renderer)
            if fig is not None and (box.x0 < -1 or box.y0 < -1 or box.x1 > renderer.width + 1
                                    or box.y1 > renderer.height + 1):  # 1 px: antialiasing
                getattr(fig, _OUTSIDE, []).append(self.get_text())
        return _text_draw(self, renderer)

    @functools.wraps(_figure_draw)
    def _measuring_figure_draw(self, renderer):
        # A full redraw starts afresh; texts blitted later (draw_artist) add to what it found.
        setattr(self, _ATTR, math.inf)
        setattr(self, _OUTSIDE, [])
        return _figure_draw(self, renderer)

    @functools.wraps(_buffer_rgba)
    def _measuring_buffer_rgba(self):
        buf = _buffer_rgba(self)
        px = getattr(self.figure, _ATTR, math.inf)
        if math.isfinite(px):
            line = {"key": pixel_key(np.asarray(buf)), "min_text_px": round(px, 2),
                    "outside": getattr(self.figure, _OUTSIDE, [])}
            with open(_LOG, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(line) + "\n")
        return buf

    Text.draw = _measuring_text_draw
    Figure.draw = _measuring_figure_draw
    FigureCanvasAgg.buffer_rgba = _measuring_buffer_rgba
