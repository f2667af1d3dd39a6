"""Chapter 01's widget: move one word's vector; watch its dot products and cosines."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import plotting
from .._validate import HelpersError
from ..attention import cosine_similarity
from ..data import Embedding
from ..plotting._base import text
from ._base import (
    MAX_ITEMS,
    LiveArrow,
    LiveBars,
    Update,
    on_the_plane,
    planar_embedding,
    slider,
)
from ._base import (
    KernelExplorable as Explorable,
)

__all__ = ["similarity_explorer"]


def similarity_explorer(embedding: Embedding | None = None, word: str = "ケーキ") -> Explorable:
    """Chapter 01: move one word's vector; watch its dot products and cosines with the others.

    The book's frames turn the word around the origin at a fixed length (direction is what the
    cosine sees); JupyterLab's sliders move both coordinates freely.
    """
    emb = planar_embedding(embedding, MAX_ITEMS)
    on_the_plane(emb.vectors, "埋め込みのベクトル")
    word = text(word, "word(動かす語)")
    start = emb[word].reshape(-1)
    others = [w for w in emb.words if w != word]
    if not others:
        raise HelpersError(
            f"「{word}」と比べる相手がいません。埋め込みには「{word}」のほかに 1 語以上が必要です。"
        )
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
        {"sweet": slider("甘いもの好き度", start[0], -2.0, 2.0),
         "spicy": slider("辛いもの好き度", start[1], -2.0, 2.0)},
        static_frames=frames,
        frame_label=lambda v: f"({v['sweet']:.2f}, {v['spicy']:.2f})",
        title=f"「{word}」のベクトル",
        figsize=(10.0, 3.6),
    )

