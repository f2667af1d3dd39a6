"""Chapter 00's widget: a first look at the destination.

`attention_preview_explorer` blends the hand-made W_Q of the preview from "keep the embedding as
it is" (t = 0, so Q = K = X) to "swap sweet and spicy" (t = 1) and shows who attends to whom.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import plotting
from .._validate import number
from ..attention import qkv, scaled_dot_product_attention
from ..data import Embedding, preview_w_q
from ._base import MAX_ITEMS, LiveHeatmap, Update, planar_embedding, slider
from ._base import KernelExplorable as Explorable

__all__ = ["attention_preview_explorer"]


def attention_preview_explorer(embedding: Embedding | None = None, mix: float = 0.0) -> Explorable:
    """Slide t from 0 (Q = K = X) to 1 (the swapped W_Q); watch the attention weights change.

    W_K and W_V stay the identity, so only the question side moves, as in the preview.
    """
    emb = planar_embedding(embedding, MAX_ITEMS)
    start = number(mix, "入れ替え度 t", lo=0.0, hi=1.0)
    X = emb.vectors
    eye = np.eye(2)

    def build(fig: Figure) -> Update:
        ax_w, ax_a = fig.subplots(1, 2, width_ratios=[1, 1.9])
        # One short text, one image and one ring marker: texts cost ~1 ms each per redraw,
        # so the 25 cells carry colour only and a ring marks each row's largest weight.
        ax_w.axis("off")
        ax_w.set_title(r"問いを作る行列 $W_Q$", color=plotting.COLORS["Q"])
        ax_w.text(0.5, 0.3, "t = 0:そのまま(Q = X)\nt = 1:甘さと辛さを入れ替え\n\n"
                  "○ = 各行で一番重いマス\n(その語が一番注目する語)", ha="center", va="center",
                  fontsize=9, color="#444444", transform=ax_w.transAxes)
        w_text = ax_w.text(0.5, 0.8, "", ha="center", va="center", fontsize=14,
                           family="monospace", color=plotting.COLORS["Q"],
                           transform=ax_w.transAxes, animated=True)
        a_map = LiveHeatmap(ax_a, emb.words, emb.words, vmin=0.0, vmax=0.6, numbers=False,
                            title="注目の重み(各行の合計 = 1)")
        rings = ax_a.scatter([], [], s=260, marker="o", facecolors="none", linewidths=2.5,
                             edgecolors=plotting.COLORS["K"], animated=True)

        def update(mix: float) -> dict:
            W_Q = preview_w_q(mix)
            Q, K, V = qkv(X, W_Q, eye, eye)
            _, weights = scaled_dot_product_attention(Q, K, V)
            a_map.set(weights)
            w_text.set_text("\n".join(f"[ {a:.2f}  {b:.2f} ]" for a, b in W_Q))
            best = np.argmax(weights, axis=1)
            rings.set_offsets(np.column_stack([best, np.arange(len(best))]))
            picks = [emb.words[int(j)] for j in best]
            return {"W_Q": W_Q, "weights": weights, "picks": picks}

        return update

    return Explorable(
        build,
        {"mix": slider("入れ替え度 t", start, 0.0, 1.0)},
        static_frames=[{"mix": round(t, 1)} for t in np.linspace(0.0, 1.0, 11)],
        frame_label=lambda v: f"入れ替え度 t = {v['mix']:.1f}",
        title="W_Q を動かすと注目先が変わる",
        figsize=(9.0, 3.6),
    )

