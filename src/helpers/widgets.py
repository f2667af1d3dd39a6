"""Thin ipywidgets wrappers around the pure plotting functions.

An `Explorable` is a figure plus controls. `build(fig)` draws everything that never changes and
returns `update(**values)`, which only mutates artists created with `animated=True` (see the
`Live*` classes) and returns what it computed. Redraws blit those artists onto a saved background,
which keeps an update around 10 ms instead of the ~100 ms of a full matplotlib redraw.

In JupyterLab an Explorable is a live widget. In the static HTML book (`helpers.static_mode()`),
where no kernel answers, it becomes a frame slider over precomputed images: the control responds.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as W
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from . import plotting, static_mode
from .attention import cosine_similarity
from .data import Embedding, foods

Update = Callable[..., Mapping | None]
Build = Callable[[Figure], Update]

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
    """The canvas as it is now (no redraw), as PNG bytes. Level 1 is fast; 9 is small."""
    buf = io.BytesIO()
    Image.fromarray(np.asarray(canvas.buffer_rgba())).save(
        buf, format="png", compress_level=compress_level
    )
    return buf.getvalue()


class Explorable:
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
        if not static_frames:
            raise ValueError("static_frames が空です。本に載せるコマを少なくとも 1 つ指定してください。")
        self.controls = dict(controls)
        self.static_frames = [dict(f) for f in static_frames]
        self.frame_label = frame_label
        self.title = title
        # A bare Figure (not pyplot) is never auto-displayed and never leaks between redraws.
        self.fig = Figure(figsize=figsize, dpi=dpi, layout="constrained")
        self.canvas = FigureCanvasAgg(self.fig)
        self._update = build(self.fig)
        self._update(**self.values)  # so the layout sees real titles and limits
        self.canvas.draw()  # everything that is not animated
        self.fig.set_layout_engine("none")  # freeze the layout so later blits line up
        self._background = self.canvas.copy_from_bbox(self.fig.bbox)
        self.image = W.Image(format="png", layout=W.Layout(max_width="100%"))
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
        for artist in self.fig.findobj(lambda a: a.get_animated()):
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
            frames.append(base64.b64encode(canvas_png(self.canvas, 9)).decode("ascii"))
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

    def _repr_mimebundle_(self, include=None, exclude=None):
        if static_mode():
            return {"text/html": self.static_html(), "text/plain": f"<{self.title}>"}
        return self.widget._repr_mimebundle_(include=include, exclude=exclude)


class LiveBars:
    """A bar chart whose heights, value labels and highlighted bar change on every update."""

    def __init__(self, ax: Axes, labels: Sequence[str], ylim: tuple[float, float],
                 color: str = plotting.COLORS["x"], title: str | None = None):
        self.bars = ax.bar(range(len(labels)), np.zeros(len(labels)), color=color,
                           edgecolor="none", linewidth=2, animated=True)
        self.texts = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=9, animated=True)
                      for i in range(len(labels))]
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylim(*ylim)
        ax.axhline(0, color="#888888", lw=0.8)
        if title:
            ax.set_title(title)

    def set(self, values, highlight: int | None = None) -> None:
        for i, (bar, text, v) in enumerate(zip(self.bars, self.texts, values, strict=True)):
            v = float(np.nan_to_num(v))
            bar.set_height(v)
            bar.set_edgecolor("black" if i == highlight else "none")
            text.set_position((i, v))
            text.set_va("bottom" if v >= 0 else "top")
            text.set_text(f"{v:.2f}")


class LiveArrow:
    """An arrow from the origin with a label at its tip."""

    def __init__(self, ax: Axes, color: str, label: str):
        self.arrow = ax.annotate(
            "", xy=(1, 0), xytext=(0, 0), animated=True,
            arrowprops={"arrowstyle": "-|>", "color": color, "lw": 2.5, "shrinkA": 0, "shrinkB": 0},
        )
        self.text = ax.text(1, 0, f" {label}", color=color, fontsize=11, animated=True)

    def set(self, x: float, y: float) -> None:
        self.arrow.xy = (x, y)
        self.text.set_position((x, y))


def _slider(description: str, value: float, lo: float, hi: float, step: float = 0.1):
    return W.FloatSlider(
        value=value, min=lo, max=hi, step=step, description=description,
        continuous_update=True, readout_format=".1f", style={"description_width": "initial"},
    )


def similarity_explorer(embedding: Embedding | None = None, word: str = "ケーキ") -> Explorable:
    """Chapter 01: move one word's vector; watch its dot products and cosines with the others.

    The book's frames turn the word around the origin at a fixed length (direction is what the
    cosine sees); JupyterLab's sliders move both coordinates freely.
    """
    emb = embedding or foods()
    start = emb[word].reshape(-1)
    others = [w for w in emb.words if w != word]
    rest = np.vstack([emb[w] for w in others])

    def build(fig: Figure) -> Update:
        ax_plane, ax_dot, ax_cos = fig.subplots(1, 3, width_ratios=[1.2, 1, 1])
        plotting.plot_vectors(rest, others, ax=ax_plane, colors="#999999", limits=(-2.2, 2.2),
                              title=f"「{word}」を動かす")
        arrow = LiveArrow(ax_plane, plotting.COLORS["Q"], word)
        dot_bars = LiveBars(ax_dot, others, (-5, 5), title="内積")
        cos_bars = LiveBars(ax_cos, others, (-1.15, 1.15), title="コサイン類似度")
        for ax in (ax_dot, ax_cos):
            ax.tick_params(axis="x", labelrotation=45)

        def update(sweet: float, spicy: float) -> dict:
            me = np.array([[sweet, spicy]])
            dots = (me @ rest.T).reshape(-1)
            # A zero vector has no direction, so its cosine is undefined (shown as NaN, bars at 0).
            if np.allclose(me, 0):
                cos = np.full(len(others), np.nan)
            else:
                cos = cosine_similarity(me, rest).reshape(-1)
            arrow.set(sweet, spicy)
            dot_bars.set(dots, highlight=int(np.argmax(dots)))
            cos_bars.set(cos, highlight=None if np.isnan(cos).any() else int(np.argmax(cos)))
            return {"vector": me.reshape(-1), "others": others, "dot": dots, "cosine": cos}

        return update

    length = float(np.linalg.norm(start))
    frames = [
        {"sweet": round(length * np.cos(a), 2), "spicy": round(length * np.sin(a), 2)}
        for a in np.deg2rad(np.arange(0, 360, 30))
    ]
    return Explorable(
        build,
        {"sweet": _slider("甘いもの好き度", start[0], -2.0, 2.0),
         "spicy": _slider("辛いもの好き度", start[1], -2.0, 2.0)},
        static_frames=frames,
        frame_label=lambda v: f"({v['sweet']:.2f}, {v['spicy']:.2f})",
        title=f"「{word}」のベクトル",
        figsize=(10.0, 3.6),
    )
