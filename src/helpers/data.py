"""The toy worlds of the book. Everything is small enough to print and read.

The 2-D plane has two named axes, as in the article's embedding chapter:
x axis 甘いもの好き度 (how much it is about sweet things), y axis 辛いもの好き度 (spicy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

AXES = ("甘いもの好き度", "辛いもの好き度")


@dataclass(frozen=True)
class Embedding:
    """Named row vectors: `vectors[i]` is the embedding of `words[i]` (shape n × d_model)."""

    words: tuple[str, ...]
    vectors: np.ndarray
    axes: tuple[str, ...] = AXES

    def __post_init__(self):
        if self.vectors.shape != (len(self.words), len(self.axes)):
            raise ValueError(
                f"語が {len(self.words)} 個、軸が {len(self.axes)} 本なので vectors は shape "
                f"({len(self.words)}, {len(self.axes)}) のはずですが、{self.vectors.shape} でした。"
            )

    def __getitem__(self, word: str) -> np.ndarray:
        """The embedding of one word as a 1 × d_model row."""
        return self.vectors[self.index(word)][None, :]

    def index(self, word: str) -> int:
        if word not in self.words:
            raise KeyError(f"「{word}」はこの語彙にありません。使える語: {'、'.join(self.words)}")
        return self.words.index(word)

    def with_vector(self, word: str, vector) -> Embedding:
        """A copy with one word moved (the original stays untouched)."""
        v = np.array(self.vectors, dtype=float)
        v[self.index(word)] = np.asarray(vector, dtype=float).reshape(-1)
        return Embedding(self.words, v, self.axes)


def foods() -> Embedding:
    """Five foods on the 甘い/辛い plane (chapter 01).

    プリン points the same way as ケーキ but is half as long: equal direction, different length,
    which is exactly where the dot product and the cosine disagree.
    """
    words = ("ケーキ", "プリン", "カレー", "キムチ", "照り焼き")
    vectors = np.array(
        [
            [2.0, 0.2],
            [1.0, 0.1],
            [0.3, 1.8],
            [0.5, 1.3],
            [1.2, 1.1],
        ]
    )
    return Embedding(words, vectors)
