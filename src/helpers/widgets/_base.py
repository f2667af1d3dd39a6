"""What every widget shares: `Explorable`, a picture computed and drawn in the browser.

An explorable is one plain ES module (`js/chNN_<notebook>.js`) that draws SVG from the model's
traits, plus a thin Python class (anywidget) that keeps the data and the state as synced traits:
a learner reads `explorer.angle` in the next cell or sets it, and the picture follows. The same
module runs in JupyterLab and, through a small model shim (book/_ext), in the static book.

`numbers()` gives, in numpy, the numbers the picture shows for the current traits (tests hold the
browser's numbers to them). Modules import the shared `qkv_math.js` and `qkv_draw.js`;
`module_source` inlines those imports, since anywidget (and a page opened from disk) load one
module with no path to resolve another from.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources

import anywidget
import ipywidgets as W
import numpy as np
import traitlets
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import ScaledTranslation
from PIL import Image

from .._mode import autograding, static_mode
from .._validate import HelpersError, HelpersKeyError, HelpersTypeError, flag, integer, number, pair
from ..data import Embedding, foods
from ..plotting import COL_TITLE, COLORS, ROW_TITLE, heatmap_axes, text_colors
from ..plotting._base import text as _text

#: The shared modules an explorable may import, in the order they are inlined.
SHARED_MODULES = ("qkv_math", "qkv_draw")
_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"\./(\w+)\.js";\s*$', re.M)
_EXPORT = re.compile(r"^export (?=function|const|class|let)", re.M)


def js_source(name: str) -> str:
    """The text of `js/<name>.js` as shipped in the package."""
    return resources.files(__package__).joinpath("js", f"{name}.js").read_text(encoding="utf-8")


@cache
def module_source(name: str) -> str:
    """`js/<name>.js` as one module: its `import {…} from "./qkv_*.js"` lines replaced by those
    shared modules' text (each once, `export` kept only on the explorable's own names)."""
    own = js_source(name)
    wanted = set(_IMPORT.findall(own))
    unknown = wanted - set(SHARED_MODULES)
    if unknown:
        raise HelpersError(f"{name}.js が知らないモジュールを読み込んでいます: {sorted(unknown)}")
    shared = []
    for dep in SHARED_MODULES:  # qkv_draw imports qkv_math: inline math first, then draw
        if dep in wanted or (dep == "qkv_math" and "qkv_draw" in wanted):
            shared.append(_IMPORT.sub("", _EXPORT.sub("", js_source(dep))))
    return "\n".join([*shared, _IMPORT.sub("", own)])


@cache
def stylesheet() -> str:
    """The explorables' CSS: the book's palette (plotting.COLORS) as variables, then js/qkv.css."""
    palette = "".join(f"  --qkv-{name.lower()}: {colour};\n" for name, colour in COLORS.items())
    css = resources.files(__package__).joinpath("js", "qkv.css").read_text(encoding="utf-8")
    return f".qkv-ex {{\n{palette}}}\n{css}"


class Number(traitlets.TraitType):
    """A synced number trait that refuses, in Japanese, what is not a number in `lo` … `hi`."""

    def __init__(self, default: float, what: str, lo: float, hi: float):
        self.what, self.lo, self.hi = what, lo, hi
        super().__init__(default_value=float(default))
        self.tag(sync=True)

    def validate(self, obj, value):
        return number(value, self.what, lo=self.lo, hi=self.hi)


class Flag(traitlets.TraitType):
    """A synced True/False trait (a checkbox), refused in Japanese when it is anything else."""

    def __init__(self, default: bool, what: str):
        self.what = what
        super().__init__(default_value=bool(default))
        self.tag(sync=True)

    def validate(self, obj, value):
        return flag(value, self.what)


class Choice(traitlets.TraitType):
    """A synced trait that takes one of the values listed in the object's trait `options`
    (a data trait, so the browser draws the same choices)."""

    def __init__(self, default, what: str, options: str):
        self.what, self.options = what, options
        super().__init__(default_value=default)
        self.tag(sync=True)

    def validate(self, obj, value):
        options = getattr(obj, self.options)
        if value not in options or isinstance(value, bool) != isinstance(options[0], bool):
            shown = "、".join(map(str, options))
            raise HelpersKeyError(f"{self.what} は {shown} のどれかにしてください。{value!r} が来ました。")
        return value


def data_trait(value) -> traitlets.TraitType:
    """A synced trait for the data the picture is drawn from (lists of numbers and names)."""
    return traitlets.Any(value).tag(sync=True)


#: ipywidgets' and anywidget's own traits: not part of an explorable's state.
_PLUMBING = {"_esm", "_css", "_anywidget_id", "layout", "tabbable", "tooltip", "_dom_classes",
             "_model_module", "_model_module_version", "_model_name", "_view_module",
             "_view_module_version", "_view_name", "_view_count", "comm", "keys", "log"}


class Explorable(anywidget.AnyWidget):
    """An explorable: subclasses set `module` (the ES module's name) and `title`, declare their
    controls as `Number`, `Flag` or `Choice` traits and their data as `data_trait`s, and define
    `numbers()` (what the picture shows now, computed with numpy) and the classmethod
    `example()` (the explorable as its chapter shows it; tests start from there)."""

    module = ""
    title = ""
    #: Every explorable class by its module's name (the book's tests find them here).
    registry: dict[str, type[Explorable]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Only where `module` is declared: ipywidgets' add_traits makes a subclass on the fly.
        if "module" in cls.__dict__:
            cls._esm = module_source(cls.module)  # anywidget makes these two synced traits
            cls._css = stylesheet()
            Explorable.registry[cls.module] = cls

    @classmethod
    def control_traits(cls) -> dict[str, traitlets.TraitType]:
        """The traits the controls move, by name."""
        return {name: t for name, t in cls.class_traits().items()
                if isinstance(t, (Number, Flag, Choice))}

    def state_for_page(self) -> dict:
        """The synced traits the module reads, as JSON (the book's model shim starts from it)."""
        state = {}
        for name in self.trait_names(sync=lambda v: v):
            if name in _PLUMBING or name.startswith("_model") or name.startswith("_view"):
                continue
            state[name] = getattr(self, name)
        return json.loads(json.dumps(state, default=_jsonable))

    def static_html(self) -> str:
        """The explorable for the static book: a container the book's shim mounts the same module
        in, with the state as JSON (book/_ext/qkv_book.py ships the modules and the shim)."""
        state = json.dumps(self.state_for_page(), ensure_ascii=False).replace("</", "<\\/")
        return (f'<div class="qkv-explorable" data-qkv-module="{html.escape(self.module)}" '
                f'aria-label="{html.escape(self.title)}" role="group">'
                f'<script type="application/json" class="qkv-state">{state}</script>'
                f'<p class="qkv-noscript">{html.escape(self.title)}(図は JavaScript で描かれます)</p>'
                "</div>")

    def _repr_mimebundle_(self, **kwargs):
        if static_mode():
            return {"text/html": self.static_html(), "text/plain": f"<{self.title}>"}
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = f"<{self.title}>"
        return bundle


def _jsonable(value):
    tolist = getattr(value, "tolist", None)
    if tolist is None:  # json.dumps expects a TypeError here
        raise HelpersTypeError(f"{type(value).__name__} は JSON にできません")
    return tolist()


# --- The kernel-drawn widgets, until every chapter has moved to the browser (above). ---


Update = Callable[..., Mapping | None]

#: Live widget pictures have this many pixels per CSS pixel: sharper on high-DPI screens. 2 would
#: match most of them, but it draws and encodes 4× the pixels, which took the slower widgets'
#: update past the 30 ms budget (measured: 22–44 ms CPU at 2, 11–22 ms at 1.5).
PIXEL_RATIO = 1.5
Build = Callable[[Figure], Update]

#: The most words, books, guests or bars one widget draws: more cannot be told apart on a
#: phone, and every one costs time on each redraw (the book uses at most 8).
MAX_ITEMS = 12

#: The largest coordinate a widget draws: its planes show about ±4, and labels placed far
#: outside overflow matplotlib's font rasteriser (coordinates of about 1e5 did).
MAX_COORD = 1000.0

_FRAME_SCRIPT = """
(function () {
  var root = document.currentScript.parentElement;
  var data = JSON.parse(root.querySelector('script.qkv-frame-data').textContent);
  var slider = root.querySelector('input[type=range]');
  var img = root.querySelector('img.qkv-frame');
  var out = root.querySelector('output');
  function show(i) {
    img.src = 'data:image/png;base64,' + data.frames[i];
    img.alt = data.alts[i];
    out.textContent = data.labels[i];
    root.setAttribute('data-frame', String(i));
  }
  slider.addEventListener('input', function () { show(Number(slider.value)); });
  show(Number(slider.value));
})();
"""


def canvas_png(canvas: FigureCanvasAgg, compress_level: int = 1) -> bytes:
    """The canvas as it is now (no redraw), as PNG bytes. Level 1 is fast; 9 is small.

    Level 1 (every live update) writes the PNG itself: RGB, the "Up" filter (each row minus the
    one above, which turns a plot's flat areas into zeros) and zlib's run-length strategy. That is
    several times faster than PIL's per-row filter search, for a file about as small.
    """
    if not isinstance(canvas, FigureCanvasAgg):
        raise HelpersTypeError(
            "canvas には matplotlib の FigureCanvasAgg(Explorable の .canvas)を渡してください。"
            f"{type(canvas).__name__} が来ました。"
        )
    compress_level = integer(compress_level, "compress_level(圧縮の強さ)", lo=0, hi=9)
    if getattr(canvas, "renderer", None) is None:
        raise HelpersError("この canvas はまだ一度も描かれていません。先に canvas.draw() を呼んでください。")
    rgba = np.asarray(canvas.buffer_rgba())
    if compress_level <= 1:
        return _fast_png(rgba[..., :3])
    buf = io.BytesIO()
    Image.fromarray(rgba).save(buf, format="png", compress_level=compress_level)
    return buf.getvalue()


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


#: Rows filtered and compressed at a time: a few hundred KB of scratch memory instead of three
#: copies of the whole picture (which raised the kernel's peak memory by several MiB).
_PNG_BLOCK_ROWS = 64


def _fast_png(rgb: np.ndarray) -> bytes:
    """An 8-bit RGB PNG of `rgb` (h × w × 3), every row filtered with "Up" (filter type 2)."""
    h, w, _ = rgb.shape
    packer = zlib.compressobj(1, zlib.DEFLATED, 15, 8, zlib.Z_RLE)
    chunks = []
    above = np.zeros(w * 3, np.uint8)  # PNG: the row above the first one is all zeros
    for top in range(0, h, _PNG_BLOCK_ROWS):
        rows = np.ascontiguousarray(rgb[top:top + _PNG_BLOCK_ROWS]).reshape(-1, w * 3)
        raw = np.empty((len(rows), w * 3 + 1), np.uint8)
        raw[:, 0] = 2
        np.subtract(rows[0], above, out=raw[0, 1:])  # uint8 arithmetic wraps, as PNG wants
        np.subtract(rows[1:], rows[:-1], out=raw[1:, 1:])
        chunks.append(packer.compress(raw))
        above = rows[-1]
    data = b"".join(chunks) + packer.flush()
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bits, truecolour, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", data)
            + _png_chunk(b"IEND", b""))


class KernelExplorable:
    """A figure that `update(**values)` redraws whenever one of `controls` changes.

    `state` holds what the latest update computed, so tests and curious readers can check the
    numbers behind the picture. `static_frames` lists the control values the book shows.
    """

    def __init__(
        self,
        build: Build,
        controls: Mapping[str, W.ValueWidget],
        static_frames: Sequence[Mapping],
        frame_label: Callable[[Mapping], str],
        title: str,
        figsize: tuple[float, float] = (8.0, 3.6),
        dpi: int = 80,
    ):
        """`dpi` is CSS pixels per inch: the picture is shown `figsize × dpi` CSS pixels large.

        Live widgets are drawn at `PIXEL_RATIO` times that (sharp on high-DPI screens); the
        static book's frames at 1× (its pages have a size budget).
        """
        if not static_frames:
            raise HelpersError("static_frames が空です。本に載せるコマを少なくとも 1 つ指定してください。")
        self.controls = dict(controls)
        self.static_frames = [dict(f) for f in static_frames]
        self.frame_label = frame_label
        self.title = title
        # A bare Figure (not pyplot) is never auto-displayed and never leaks between redraws.
        ratio = self._ratio = 1 if static_mode() else PIXEL_RATIO
        self.fig = Figure(figsize=figsize, dpi=dpi * ratio, layout="constrained")
        self.css_size = (round(figsize[0] * dpi), round(figsize[1] * dpi))
        self.canvas = FigureCanvasAgg(self.fig)
        self._update = build(self.fig)
        self._update(**self.values)  # so the layout sees real titles and limits
        self.canvas.draw()  # everything that is not animated
        self.fig.set_layout_engine("none")  # freeze the layout so later blits line up
        self._background = self.canvas.copy_from_bbox(self.fig.bbox)
        # Found once: searching the figure for them costs more than drawing a small update.
        self._animated = self.fig.findobj(lambda a: a.get_animated())
        self.image = W.Image(format="png", layout=W.Layout(
            width=f"{self.css_size[0]}px", max_width="100%", height="auto"))
        self.state: dict = {}
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.redraw()

    @property
    def values(self) -> dict:
        return {name: c.value for name, c in self.controls.items()}

    def _on_change(self, _change) -> None:
        self.redraw()

    def render(self, values: Mapping) -> dict:
        """Update the animated artists for `values` and blit them; return the computed state."""
        state = dict(self._update(**values) or {})
        self.canvas.restore_region(self._background)
        for artist in self._animated:
            self.fig.draw_artist(artist)
        return state

    def redraw(self) -> None:
        self.state = self.render(self.values)
        self.image.value = canvas_png(self.canvas)

    @property
    def widget(self) -> W.Widget:
        return W.VBox([W.HBox(list(self.controls.values())), self.image])

    def static_html(self) -> str:
        """A kernel-free frame slider: one precomputed PNG per entry of `static_frames`."""
        frames, labels, alts = [], [], []
        for values in self.static_frames:
            merged = {**self.values, **values}
            self.render(merged)
            frames.append(base64.b64encode(self._book_png()).decode("ascii"))
            labels.append(self.frame_label(merged))
            alts.append(f"{self.title}({self.frame_label(merged)})")
        self.render(self.values)  # leave the live figure as the controls say
        payload = json.dumps({"frames": frames, "labels": labels, "alts": alts}, ensure_ascii=False)
        title = html.escape(self.title)
        return (
            '<div class="qkv-frames">'
            f'<label class="qkv-frames-control">{title}:'
            f'<input type="range" min="0" max="{len(frames) - 1}" step="1" value="0" '
            f'aria-label="{title}"> <output>{html.escape(labels[0])}</output></label><br>'
            f'<img class="qkv-frame" alt="{html.escape(alts[0])}" '
            f'src="data:image/png;base64,{frames[0]}">'
            f'<script type="application/json" class="qkv-frame-data">{payload}</script>'
            f"<script>{_FRAME_SCRIPT}</script></div>"
        )

    def _book_png(self) -> bytes:
        """The canvas at 1× (the book's size budget). Level 6, not 9: the book's build makes
        every frame a 256-colour PNG anyway (book/_ext/qkv_book.py), and 9 took 3.6× as long
        for a file 2.5 % smaller."""
        if self._ratio == 1:
            return canvas_png(self.canvas, 6)
        # Drawn for a live widget at PIXEL_RATIO: scale down, and keep 256 colours so that the
        # smoothed edges do not grow the file.
        image = Image.fromarray(np.asarray(self.canvas.buffer_rgba())[..., :3])
        image = image.resize(self.css_size, Image.Resampling.LANCZOS).quantize(256)
        buf = io.BytesIO()
        image.save(buf, format="png", compress_level=9)
        return buf.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        if static_mode():
            return {"text/html": self.static_html(), "text/plain": f"<{self.title}>"}
        bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude)
        # Until the kernel runs the cell (a notebook just opened, untrusted), JupyterLab cannot
        # show the widget and falls back to the richest other output: let that be the picture.
        bundle["image/png"] = base64.b64encode(bytes(self.image.value)).decode("ascii")
        bundle["text/plain"] = f"<{self.title}>"
        width, height = self.css_size
        return bundle, {"image/png": {"width": width, "height": height}}


class FrameExplorable(KernelExplorable):
    """An Explorable with a few discrete control values, each drawn once and then looked up.

    Moving the slider only swaps a ready PNG, so it responds at once however busy the figure.
    """

    _cache: dict | None = None

    def redraw(self) -> None:
        if self._cache is None:
            self._cache = {}
        key = tuple(sorted(self.values.items()))
        if key not in self._cache:
            state = self.render(self.values)
            self._cache[key] = (state, canvas_png(self.canvas))
        self.state, self.image.value = self._cache[key]

    def precompute(self) -> FrameExplorable:
        """Draw every frame in `static_frames` now (a slider over them then never waits).

        Not for the static book (`static_html` draws its own frames at 1×) nor while grading:
        nobody moves a slider there, and each frame costs as much as a small figure.
        """
        if static_mode() or autograding():
            return self
        current = self.values
        for values in self.static_frames:
            key = tuple(sorted({**current, **values}.items()))
            if key not in self._cache:
                state = self.render({**current, **values})
                self._cache[key] = (state, canvas_png(self.canvas))
        self.render(current)  # leave the figure as the controls say
        return self


class LiveBars:
    """A bar chart whose heights, value labels and highlighted bar change on every update."""

    def __init__(self, ax: Axes, labels: Sequence[str], ylim: tuple[float, float],
                 color: str = COLORS["x"], title: str | None = None):
        self.bars = ax.bar(range(len(labels)), np.zeros(len(labels)), color=color,
                           edgecolor="none", linewidth=2, animated=True)
        # The numbers sit 3 points clear of the bar's end (not on the highlight's outline); a
        # shifted transform costs no more per redraw than a plain text (an annotation does).
        self._above = ax.transData + ScaledTranslation(0, 3 / 72, ax.figure.dpi_scale_trans)
        self._below = ax.transData + ScaledTranslation(0, -3 / 72, ax.figure.dpi_scale_trans)
        self.texts = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=9, animated=True,
                              transform=self._above)
                      for i in range(len(labels))]
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylim(*ylim)
        ax.axhline(0, color="#888888", lw=0.8)
        if title:
            ax.set_title(title)

    def set(self, values, highlight: int | None = None) -> None:
        for i, (bar, text, v) in enumerate(zip(self.bars, self.texts, values, strict=True)):
            v = float(np.nan_to_num(v))
            v = 0.0 if abs(v) < 0.005 else v  # never print "-0.00"
            bar.set_height(v)
            bar.set_edgecolor("black" if i == highlight else "none")
            text.set_position((i, v))
            text.set_transform(self._above if v >= 0 else self._below)
            text.set_va("bottom" if v >= 0 else "top")
            text.set_text(f"{v:.2f}")


class LiveArrow:
    """An arrow from the origin with a label just past its tip.

    The label sits beyond the tip, on the far side from the origin and below it, so it stays
    inside the axes and clear of the fixed words' labels (which sit above their tips).
    """

    def __init__(self, ax: Axes, color: str, label: str):
        self.arrow = ax.annotate(
            "", xy=(1, 0), xytext=(0, 0), animated=True,
            arrowprops={"arrowstyle": "-|>", "color": color, "lw": 2.5, "shrinkA": 0, "shrinkB": 0},
        )
        halo = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1} if label else None
        self.text = ax.text(1, 0, label, color=color, fontsize=11, animated=True, bbox=halo)

    def set(self, x: float, y: float) -> None:
        self.arrow.xy = (x, y)
        self.text.set_position((x, y))
        self.text.set_ha("left" if x >= 0 else "right")
        self.text.set_va("top")


class LiveHeatmap:
    """A labelled heatmap (rows = who looks, columns = who is looked at) whose cells change.

    The colour scale `vmin`..`vmax` is fixed, so colours stay comparable between updates.
    Each number costs about 1 ms per redraw; `numbers=False` keeps big maps under budget.
    """

    def __init__(self, ax: Axes, row_labels: Sequence[str], col_labels: Sequence[str],
                 vmin: float, vmax: float, cmap: str = "Blues", fmt: str = "{:.2f}",
                 title: str | None = None, row_title: str = ROW_TITLE,
                 col_title: str = COL_TITLE, colorbar: bool = True,
                 numbers: bool = True):
        if not vmin < vmax:
            raise HelpersError(f"vmin は vmax より小さくしてください。vmin={vmin}, vmax={vmax} が来ました。")
        self.shape = (len(row_labels), len(col_labels))
        self.fmt = fmt
        self.image = ax.imshow(np.zeros(self.shape), cmap=cmap, vmin=vmin, vmax=vmax,
                               aspect="auto", animated=True)
        heatmap_axes(ax, row_labels, col_labels, row_title, col_title)
        self.texts = {(i, j): ax.text(j, i, "", ha="center", va="center", fontsize=9, animated=True)
                      for i in range(self.shape[0]) for j in range(self.shape[1])} if numbers else {}
        if colorbar:
            ax.figure.colorbar(self.image, ax=ax, shrink=0.8)
        if title:
            ax.set_title(title, pad=12)

    def set(self, matrix) -> None:
        m = np.asarray(matrix, dtype=float)
        if m.shape != self.shape:
            raise HelpersError(f"この図の行列は shape {self.shape} ですが、shape {m.shape} が来ました。")
        self.image.set_data(m)
        colors = text_colors(self.image, m) if self.texts else None
        for (i, j), text in self.texts.items():
            text.set_text(self.fmt.format(m[i, j]))
            text.set_color(colors[i, j])


def planar_embedding(embedding, most: int) -> Embedding:
    """`embedding` (None: the foods) as an Embedding of at most `most` words, d_model = 2."""
    emb = foods() if embedding is None else embedding
    if not isinstance(emb, Embedding):
        raise HelpersTypeError(
            f"embedding には helpers.data.Embedding(例: helpers.data.foods())を渡してください。"
            f"{type(emb).__name__} が来ました。"
        )
    if emb.vectors.shape[1] != 2:
        raise HelpersError(
            f"この図は平面に描くので、d_model = 2 の埋め込みが必要です。d_model = {emb.vectors.shape[1]}"
            f"(shape {emb.vectors.shape})が来ました。"
        )
    at_most(len(emb.words), most, "埋め込みの語")
    return emb


def on_the_plane(M: np.ndarray, what: str) -> None:
    """Refuse coordinates beyond ±`MAX_COORD` (the figures cannot place them)."""
    far = float(np.abs(M).max())
    if far > MAX_COORD:
        raise HelpersError(
            f"{what}の成分は絶対値 {MAX_COORD:g} 以下にしてください(この図の平面は ±4 ほどを描きます)。"
            f"絶対値 {far:g} の成分が来ました。"
        )


def at_most(count: int, most: int, what: str) -> None:
    """Refuse more than `most` items (bars, rows, guests): a figure cannot tell more apart, and
    each one costs time on every redraw."""
    if count > most:
        raise HelpersError(
            f"{what}は {most} 個までにしてください(図で見分けられ、すばやく描ける数)。{count} 個が来ました。"
        )


def slider(description: str, value: float, lo: float, hi: float, step: float = 0.1):
    """A float slider from `lo` to `hi` (a `value` outside is moved to the nearer end)."""
    description = _text(description, "description(スライダーの名前)")
    value = number(value, "value(スライダーの値)")
    lo, hi = pair((lo, hi), "スライダーの範囲 (lo, hi)")
    step = number(step, "step(刻み幅)", positive=True)
    return W.FloatSlider(
        value=value, min=lo, max=hi, step=step, description=description,
        continuous_update=True, readout_format=".1f", style={"description_width": "initial"},
    )

