"""Chapter 00's explorable: a first look at the destination.

`attention_preview_explorer` blends the hand-made W_Q of the preview from "keep the embedding as
it is" (t = 0, so Q = K = X) to "swap sweet and spicy" (t = 1) and shows who attends to whom.
Drawn in the browser (js/ch00_introduction.js); `explorer.mix = 0.5` in a cell moves it too.
"""

from __future__ import annotations

import numpy as np

from .._validate import arg, public
from ..attention import qkv, scaled_dot_product_attention
from ..data import Embedding, preview_w_q
from ._base import MAX_ITEMS, Explorable, Number, data_trait, planar_embedding

__all__ = ["attention_preview_explorer", "AttentionPreviewExplorer"]


class AttentionPreviewExplorer(Explorable):
    """Slide t from 0 (Q = K = X) to 1 (the swapped W_Q); W_Q and the attention weights follow.

    W_K and W_V stay the identity, so only the question side moves, as in the preview.
    """

    module = "ch00_introduction"
    title = "W_Q を動かすと注目先が変わる"
    mix = Number(0.0, "mix(入れ替え度 t)", lo=0.0, hi=1.0)
    words = data_trait([], "text", ("words",))
    vectors = data_trait([], "number", ("words", 2))
    axes = data_trait([], "text", (2,))

    @classmethod
    def example(cls) -> AttentionPreviewExplorer:
        return attention_preview_explorer()

    def numbers(self) -> dict:
        """What the picture shows now: W_Q, the attention weights and each word's first pick."""
        X = np.array(self.vectors, dtype=float)
        W_Q = preview_w_q(self.mix)
        eye = np.eye(2)
        Q, K, V = qkv(X, W_Q, eye, eye)
        _, weights = scaled_dot_product_attention(Q, K, V)
        picks = [self.words[int(j)] for j in np.argmax(weights, axis=1)]
        return {"W_Q": W_Q, "weights": weights, "picks": picks}


@public(embedding=arg(planar_embedding, most=MAX_ITEMS), draws=True)
def attention_preview_explorer(
    embedding: Embedding | None = None, mix: float = 0.0, **controls
) -> AttentionPreviewExplorer:
    """Slide t from 0 (Q = K = X) to 1 (the swapped W_Q); watch the attention weights change.

    `embedding` (None: the five foods) must lie on the plane (d_model = 2, at most 12 words).
    """
    emb = embedding
    explorer = AttentionPreviewExplorer.starting_at(
        "attention_preview_explorer", {"mix": mix, **controls},
        words=list(emb.words), vectors=emb.vectors.tolist(), axes=list(emb.axes),
    )
    explorer.numbers()  # as before: an embedding whose scores overflow is refused here, in Japanese
    return explorer
