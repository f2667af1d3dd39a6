"""Chapter 00: a first look at the destination, and a first widget to try.

`attention_preview_explorer` blends the hand-made W_Q of the preview from "keep the embedding as
it is" (t = 0, so Q = K = X) to "swap sweet and spicy" (t = 1) and shows who attends to whom.
It is re-exported as `helpers.widgets.attention_preview_explorer`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from . import plotting
from .attention import qkv, scaled_dot_product_attention
from .data import Embedding, foods
from .widgets import Explorable, LiveHeatmap, Update, _slider

__all__ = ["SWAP", "preview_w_q", "attention_preview_explorer"]

#: The preview's W_Q: the first component of q is x's spiciness, the second its sweetness.
SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])


def _check_mix(mix) -> float:
    if isinstance(mix, bool) or not isinstance(mix, (int, float, np.integer, np.floating)):
        raise TypeError(f"入れ替え度 t には 0 から 1 の数を渡してください。{type(mix).__name__} が来ました。")
    if not 0.0 <= float(mix) <= 1.0:
        raise ValueError(f"入れ替え度 t は 0 以上 1 以下にしてください。{mix} が来ました。")
    return float(mix)


def preview_w_q(mix: float) -> np.ndarray:
    """`(1 - t) I + t SWAP`: t = 0 leaves x as it is, t = 1 swaps sweet and spicy."""
    t = _check_mix(mix)
    return (1.0 - t) * np.eye(2) + t * SWAP


def attention_preview_explorer(embedding: Embedding | None = None, mix: float = 0.0) -> Explorable:
    """Slide t from 0 (Q = K = X) to 1 (the swapped W_Q); watch the attention weights change.

    W_K and W_V stay the identity, so only the question side moves, as in the preview.
    """
    emb = foods() if embedding is None else embedding
    if not isinstance(emb, Embedding):
        raise TypeError(f"embedding には helpers.data.Embedding を渡してください。{type(emb).__name__} が来ました。")
    if emb.vectors.shape[1] != 2:
        raise ValueError(f"この図は 2 次元の埋め込み用です。d_model = {emb.vectors.shape[1]} が来ました。")
    start = _check_mix(mix)
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
        {"mix": _slider("入れ替え度 t", start, 0.0, 1.0)},
        static_frames=[{"mix": round(t, 1)} for t in np.linspace(0.0, 1.0, 11)],
        frame_label=lambda v: f"入れ替え度 t = {v['mix']:.1f}",
        title="W_Q を動かすと注目先が変わる",
        figsize=(9.0, 3.6),
    )
