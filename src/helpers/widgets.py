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
from matplotlib.transforms import ScaledTranslation
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
        # The word keeps its colour from the chapter's first figure; blue is reserved for Q.
        colour = plotting.WORD_COLORS[emb.index(word) % len(plotting.WORD_COLORS)]
        arrow = LiveArrow(ax_plane, colour, word)
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

    # The book's frames: one turn at the word's own length (the cosine changes), then the
    # original direction at shrinking lengths (only the dot product changes).
    length = float(np.linalg.norm(start))
    angle = float(np.arctan2(start[1], start[0]))
    polar = [(length, angle + a) for a in np.deg2rad(np.arange(0, 360, 45))]
    polar += [(length * f, angle) for f in (0.75, 0.5, 0.25)]
    frames = [{"sweet": round(r * np.cos(a), 2), "spicy": round(r * np.sin(a), 2)} for r, a in polar]
    return Explorable(
        build,
        {"sweet": _slider("甘いもの好き度", start[0], -2.0, 2.0),
         "spicy": _slider("辛いもの好き度", start[1], -2.0, 2.0)},
        static_frames=frames,
        frame_label=lambda v: f"({v['sweet']:.2f}, {v['spicy']:.2f})",
        title=f"「{word}」のベクトル",
        figsize=(10.0, 3.6),
    )


def scaling_explorer(rng: np.random.Generator | None = None, n_words: int = 8) -> Explorable:
    """Chapter 06: slide d_k and watch q·k spread out and one softmax row turn one-hot.

    One random draw per d_k in `scaling.DK_CHOICES` is made up front (from `rng`), so moving a
    control only looks results up. Unchecked, the scores are the raw q·k; checked, they are
    divided by √d_k. Left: histogram of all scores; middle: the weights of one typical row (for
    each d_k, the row whose unscaled largest weight is the median, shown scaled or not);
    right: the average largest weight of a row, for every d_k (the ring marks the current one).
    """
    from . import scaling

    rng = np.random.default_rng(0) if rng is None else rng
    runs = {r.d_k: r for r in scaling.scaling_experiment(scaling.DK_CHOICES, rng, n_words=n_words)}
    d_ks = sorted(runs)
    limit = 4 * np.sqrt(d_ks[-1])  # 4 standard deviations of the widest case fit on the axis
    edges = np.linspace(-limit, limit, 91)
    mean_max = {s: [float(runs[d].max_weights(s).mean()) for d in d_ks] for s in (False, True)}
    typical = {d: runs[d].typical_row() for d in d_ks}

    def build(fig: Figure) -> Update:
        ax_hist, ax_row, ax_curve = fig.subplots(1, 3, width_ratios=[1.3, 1, 1])
        hist = ax_hist.stairs(np.zeros(edges.size - 1), edges, fill=True,
                              color=plotting.COLORS["x"], animated=True)
        ax_hist.set(xlim=(-limit, limit), ylim=(0, 1.15), title="得点の散らばり",
                    xlabel="ソフトマックスに渡す得点", ylabel="相対的な頻度(最大 = 1)")
        info = ax_hist.text(0.03, 0.96, "", transform=ax_hist.transAxes, va="top", animated=True)
        bars = LiveBars(ax_row, [str(i + 1) for i in range(n_words)], (0, 1.15),
                        color=plotting.COLORS["Q"], title="ある 1 行の注目の重み")
        ax_row.set_xlabel("見出し(キー)の番号")
        ax_curve.plot(d_ks, mean_max[False], "o-", color="#999999", label="割らない")
        ax_curve.plot(d_ks, mean_max[True], "o-", color=plotting.COLORS["Q"],
                      label=r"$\sqrt{d_k}$ で割る")
        ax_curve.axhline(1 / n_words, color="#888888", ls=":", label=f"均等(1/{n_words})")
        ax_curve.set_xscale("log", base=2)
        ax_curve.set(ylim=(0, 1.05), xlabel=r"$d_k$", title="行の最大の重み(平均)")
        ax_curve.legend(fontsize=8, loc="center right")
        (ring,) = ax_curve.plot([], [], "o", ms=13, mfc="none", mec="black", mew=2, animated=True)

        def update(d_k: int, scaled: bool) -> dict:
            run = runs[d_k]
            scores = run.scored(scaled)
            weights = run.weights(scaled)[typical[d_k]]
            variance = float(scores.var())
            hist.set_data(scaling.relative_histogram(scores, edges))
            # Plain text, not mathtext: this label is redrawn on every update and must stay cheap.
            how = "平方根で割る" if scaled else "割らない"
            info.set_text(f"d_k = {d_k}・{how}\n分散 {variance:.1f}")
            bars.set(weights, highlight=int(np.argmax(weights)))
            average_max = mean_max[scaled][d_ks.index(d_k)]
            ring.set_data([d_k], [average_max])
            return {"d_k": d_k, "scaled": scaled, "variance": variance,
                    "expected_variance": 1.0 if scaled else float(d_k), "row": typical[d_k],
                    "weights": weights,
                    "max_weight": float(weights.max()), "mean_max_weight": average_max}

        return update

    return Explorable(
        build,
        {"d_k": W.SelectionSlider(options=d_ks, value=16, description="d_k",
                                  continuous_update=True),
         "scaled": W.Checkbox(value=False, description="√d_k で割る")},
        static_frames=[{"d_k": d, "scaled": s}
                       for s in (False, True) for d in (1, 4, 16, 64, 256, 512)],
        frame_label=lambda v: f"d_k = {v['d_k']}・"
                              + ("d_k の平方根で割る" if v["scaled"] else "割らない"),
        title="d_k と得点の散らばり",
        figsize=(10.0, 3.6),
    )


class LiveHeatmap:
    """A labelled heatmap (rows = who looks, columns = who is looked at) whose cells change.

    The colour scale `vmin`..`vmax` is fixed, so colours stay comparable between updates.
    Each number costs about 1 ms per redraw; `numbers=False` keeps big maps under budget.
    """

    def __init__(self, ax: Axes, row_labels: Sequence[str], col_labels: Sequence[str],
                 vmin: float, vmax: float, cmap: str = "Blues", fmt: str = "{:.2f}",
                 title: str | None = None, row_title: str = plotting.ROW_TITLE,
                 col_title: str = plotting.COL_TITLE, colorbar: bool = True,
                 numbers: bool = True):
        if not vmin < vmax:
            raise ValueError(f"vmin は vmax より小さくしてください。vmin={vmin}, vmax={vmax} が来ました。")
        self.shape = (len(row_labels), len(col_labels))
        self.fmt = fmt
        self.image = ax.imshow(np.zeros(self.shape), cmap=cmap, vmin=vmin, vmax=vmax,
                               aspect="auto", animated=True)
        ax.grid(False)
        ax.set_xticks(range(len(col_labels)), col_labels,
                      rotation=45 if len(col_labels) > 4 else 0)
        ax.set_yticks(range(len(row_labels)), row_labels)
        ax.set_xlabel(col_title)
        ax.set_ylabel(row_title)
        ax.xaxis.set_label_position("top")
        ax.xaxis.tick_top()
        self.texts = {(i, j): ax.text(j, i, "", ha="center", va="center", fontsize=9, animated=True)
                      for i in range(self.shape[0]) for j in range(self.shape[1])} if numbers else {}
        if colorbar:
            ax.figure.colorbar(self.image, ax=ax, shrink=0.8)
        if title:
            ax.set_title(title, pad=12)

    def set(self, matrix) -> None:
        m = np.asarray(matrix, dtype=float)
        if m.shape != self.shape:
            raise ValueError(f"この図の行列は shape {self.shape} ですが、shape {m.shape} が来ました。")
        self.image.set_data(m)
        rgba = self.image.cmap(self.image.norm(m))
        luminance = rgba[..., :3] @ np.array([0.299, 0.587, 0.114])
        for (i, j), text in self.texts.items():
            text.set_text(self.fmt.format(m[i, j]))
            text.set_color("white" if luminance[i, j] < 0.5 else "black")  # white on dark cells


# Chapter explorers that live in their own modules (they import the classes above).
from .faces import three_faces_explorer  # noqa: E402, F401  (chapter 04)
from .learning_widget import training_explorer  # noqa: E402, F401  (chapter 07)
from .library import library_search_explorer  # noqa: E402, F401  (chapter 02)
from .party import party_explorer  # noqa: E402, F401  (chapter 03)
from .preview import attention_preview_explorer  # noqa: E402, F401  (chapter 00)
