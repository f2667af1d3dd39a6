"""Chapter 01's explorable: move one word's vector; watch its dot products and cosines.

Drawn in the browser (js/ch01_one_vector.js); this class keeps the embedding and the word's two
coordinates as traits, so `explorer.sweet = -1` in a cell moves the picture's arrow too.
"""

from __future__ import annotations

import numpy as np

from .._validate import HelpersError, arg, public, text
from ..attention import cosine_similarity
from ..data import Embedding, foods
from ..plotting import WORD_COLORS
from ._base import (
    MAX_COORD,
    MAX_ITEMS,
    Explorable,
    Number,
    data_trait,
    planar_embedding,
)

__all__ = ["similarity_explorer", "SimilarityExplorer"]

#: The sliders' range for each coordinate (the plane shows a little more).
LIMIT = 2.0


class SimilarityExplorer(Explorable):
    """Move one word's arrow (two sliders, or drag its tip); its dot products and cosine
    similarities with the other words follow. A zero vector has no direction: its cosines are NaN."""

    module = "ch01_one_vector"
    sweet = Number(2.0, "sweet(甘いもの好き度)", lo=-LIMIT, hi=LIMIT)
    spicy = Number(0.2, "spicy(辛いもの好き度)", lo=-LIMIT, hi=LIMIT)
    word = data_trait("ケーキ", "text")
    word_color = data_trait(WORD_COLORS[0], "text")
    #: Where the word started (on the sliders): the picture draws its length as a dotted circle.
    start = data_trait([2.0, 0.2], "number", (2,), lim=LIMIT)
    other_words = data_trait([], "text", ("others",))
    other_vectors = data_trait([], "number", ("others", 2), lim=MAX_COORD)
    axis_labels = data_trait([], "text", (2,))

    @property
    def title(self) -> str:
        return f"「{self.word}」のベクトル"

    @classmethod
    def example(cls) -> SimilarityExplorer:
        return similarity_explorer(foods(), word="ケーキ")

    def numbers(self) -> dict:
        """What the picture shows now: the word's vector, the other words, the dot products and
        cosines with them (NaN where a vector has length 0), and the word each chart outlines."""
        me = np.array([self.sweet, self.spicy])
        rest = np.array(self.other_vectors, dtype=float).reshape(-1, 2)
        dots = rest @ me
        cos = np.full(len(rest), np.nan)
        has_direction = rest.any(axis=1)
        if me.any() and has_direction.any():
            cos[has_direction] = cosine_similarity(me[None, :], rest[has_direction])[0]
        # A zero vector's dot products are all 0 and its cosines undefined: no bar stands out.
        best_dot = self.other_words[int(np.argmax(dots))] if me.any() else None
        best_cos = None if np.isnan(cos).all() else self.other_words[int(np.nanargmax(cos))]
        return {"vector": me, "others": list(self.other_words), "dot": dots, "cosine": cos,
                "best_dot": best_dot, "best_cosine": best_cos}


def _a_word_with_others(a: dict) -> None:
    emb, word = a["embedding"], a["word"]
    emb.index(word)  # a word that is not there: its own Japanese KeyError
    if all(w == word for w in emb.words):
        raise HelpersError(
            f"「{word}」と比べる相手がいません。埋め込みには「{word}」のほかに 1 語以上が必要です。"
        )


@public(_a_word_with_others, embedding=arg(planar_embedding, most=MAX_ITEMS, bounded=True),
        word=arg(text, "word(動かす語)"), draws=True)
def similarity_explorer(embedding: Embedding | None = None, word: str = "ケーキ", **controls) -> SimilarityExplorer:
    """Chapter 01: move one word's vector; watch its dot products and cosines with the others.

    `embedding` (None: the chapter's five foods) must be 2-D. The word starts where it is (moved
    onto the sliders' ±2 if it lies further out), or at `sweet=`, `spicy=`; the other words stay
    where they are."""
    emb = embedding
    start = emb[word].reshape(-1)
    others = [w for w in emb.words if w != word]
    rest = np.vstack([emb[w] for w in others])
    # The word keeps its colour from the chapter's first figure; blue is reserved for Q.
    colour = WORD_COLORS[emb.index(word) % len(WORD_COLORS)]
    sweet, spicy = (float(v) for v in np.clip(start, -LIMIT, LIMIT))
    return SimilarityExplorer.starting_at(
        "similarity_explorer", {"sweet": sweet, "spicy": spicy, **controls}, word=word,
        word_color="var(--qkv-fg)" if colour == "#000000" else colour,  # black vanishes in dark mode
        start=[sweet, spicy], other_words=others, other_vectors=rest.tolist(),
        axis_labels=list(emb.axes),
    )
