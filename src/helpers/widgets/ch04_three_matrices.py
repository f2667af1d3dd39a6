"""Chapter 04's explorable: turn and stretch W_Q, W_K, W_V and watch every word's three faces move.

Drawn in the browser (js/ch04_three_matrices.js); this class keeps the words, their embeddings
and the six controls (an angle and a scale for each W) as traits, so `explorer.q_angle = -90`
in a cell turns the question panel too.
"""

from __future__ import annotations

import numpy as np

from .._validate import arg, public
from ..attention import project
from ..data import Embedding
from ..geometry import rotation_scale_matrix
from ._base import MAX_COORD, Explorable, Number, data_trait, planar_embedding

__all__ = ["three_faces_explorer", "ThreeFacesExplorer"]

#: The three faces, in the order the book always uses: (face, its matrix, the trait prefix).
FACES = (("Q", "W_Q", "q"), ("K", "W_K", "k"), ("V", "W_V", "v"))

#: One marker shape per word (the browser draws eight), so at most eight words.
MAX_WORDS = 8

#: What a word's best match says when its two largest scores q·k are equal.
TIE = "(同点)"


def best_matches(scores: np.ndarray, words) -> list[str]:
    """For each row of `scores` (a word's q·k with every key), the word with the largest score,
    or `TIE` when the two largest are equal (np.isclose, atol 1e-9: a zero query ties them all)."""
    looks_at = []
    for row in scores:
        top = np.sort(row)[::-1]
        tied = top.size > 1 and bool(np.isclose(top[0], top[1], atol=1e-9))
        looks_at.append(TIE if tied else words[int(np.argmax(row))])
    return looks_at


class ThreeFacesExplorer(Explorable):
    """Three panels (Q, K, V): the grid and the unit square as each W maps them, every word's face
    xW as a marker; beside them, each word's best-matching key and the three matrices."""

    module = "ch04_three_matrices"
    title = "三つの W の設定"
    q_angle = Number(0.0, "q_angle(W_Q の角度、度)", lo=-180.0, hi=180.0)
    q_scale = Number(1.0, "q_scale(W_Q の倍率)", lo=0.0, hi=2.0)
    k_angle = Number(0.0, "k_angle(W_K の角度、度)", lo=-180.0, hi=180.0)
    k_scale = Number(1.0, "k_scale(W_K の倍率)", lo=0.0, hi=2.0)
    v_angle = Number(0.0, "v_angle(W_V の角度、度)", lo=-180.0, hi=180.0)
    v_scale = Number(1.0, "v_scale(W_V の倍率)", lo=0.0, hi=2.0)
    SIZES = {"words": MAX_WORDS}
    words = data_trait([], "text", ("words",))
    vectors = data_trait([], "number", ("words", 2), lim=MAX_COORD)

    @classmethod
    def example(cls) -> ThreeFacesExplorer:
        return three_faces_explorer()

    def matrices(self) -> dict[str, np.ndarray]:
        """The three matrices as the controls set them now, by name (W_Q, W_K, W_V)."""
        return {wname: rotation_scale_matrix(getattr(self, f"{t}_angle"), getattr(self, f"{t}_scale"))
                for _, wname, t in FACES}

    def numbers(self) -> dict:
        """What the picture shows now: the three W, the faces Q, K, V (one row per word), the
        scores Q Kᵀ and, for each word, the word whose key best matches its query."""
        X = np.array(self.vectors, dtype=float)
        Ws = self.matrices()
        faces = {face: project(X, Ws[wname], name=wname) for face, wname, _ in FACES}
        scores = faces["Q"] @ faces["K"].T
        return {**{w: M.tolist() for w, M in Ws.items()}, **{f: F.tolist() for f, F in faces.items()},
                "scores": scores.tolist(), "looks_at": best_matches(scores, list(self.words))}


@public(embedding=arg(planar_embedding, most=MAX_WORDS, bounded=True),  # one marker shape per word
        draws=True)
def three_faces_explorer(embedding: Embedding | None = None, **controls) -> ThreeFacesExplorer:
    """Turn and stretch W_Q, W_K, W_V; watch every word's three faces move (Q, K, V panels).

    Each panel shows the faint grey embeddings x, the grid and the unit square as the W maps
    them, and the face `xW` of every word. Beside them: the three matrices, and for each word
    the word whose key k best matches its query q (largest q·k), a taste of chapter 06.
    `controls` start the sliders elsewhere, e.g. `q_angle=30, v_scale=0.5`.
    """
    emb = embedding
    return ThreeFacesExplorer.starting_at("three_faces_explorer", controls,
                                          words=list(emb.words), vectors=emb.vectors.tolist())
