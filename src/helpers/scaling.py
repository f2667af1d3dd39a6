"""Chapter 06: why attention divides the scores by √d_k, measured with random vectors.

Draw queries and keys whose entries are independent standard normals. Each `q·k` is then a sum
of d_k products with mean 0 and variance 1, so its variance is d_k: the scores spread out as the
dimension grows, and a softmax over them turns almost one-hot. Dividing by √d_k brings the
variance back to 1, whatever d_k is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ._validate import (
    HelpersError,
    HelpersTypeError,
    arg,
    as_array,
    flag,
    guard_size,
    instance,
    integer,
    public,
    said,
)
from .attention import attention_scores, softmax

__all__ = ["DK_CHOICES", "ScalingRun", "random_scores", "scaling_experiment", "relative_histogram"]

#: The d_k values of the chapter's widget: powers of two from 1 to 512.
DK_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


#: The spec of a positive count (d_k, sentences, words).
POSITIVE = arg(integer, lo=1)
#: The spec of `rng`.
RNG = arg(instance, cls=np.random.Generator, made_by="np.random.Generator(helpers.setup() が返すもの)")
#: The spec of `scale` (divide the scores by √d_k or not).
SCALE = arg(flag)


@dataclass(frozen=True)
class ScalingRun:
    """Unscaled scores `Q Kᵀ` at dimension d_k: one row per query, one column per key."""

    d_k: int
    scores: np.ndarray

    @public(scale=SCALE, always=True)
    def scored(self, scale: bool) -> np.ndarray:
        """The scores as attention uses them: divided by √d_k when `scale`."""
        return self.scores / np.sqrt(self.d_k) if scale else self.scores

    @public(scale=SCALE, always=True)
    def weights(self, scale: bool) -> np.ndarray:
        """Softmax of every row (rows = queries): each row sums to 1."""
        return softmax(self.scored(scale), axis=-1)

    @public(scale=SCALE, always=True)
    def max_weights(self, scale: bool) -> np.ndarray:
        """The largest weight of each row: 1/n_keys = evenly spread, 1.0 = one-hot."""
        return self.weights(scale).max(axis=-1)

    def typical_row(self) -> int:
        """The row whose largest unscaled weight is the median one: a fair example to show."""
        return int(np.argsort(self.max_weights(False))[self.scores.shape[0] // 2])


@public(lambda a: guard_size((a["n_sentences"] * a["n_words"], max(a["n_words"], a["d_k"])),
                             "ランダムなスコアの表", by="d_k, n_sentences, n_words"),
        d_k=POSITIVE, rng=RNG, n_sentences=POSITIVE, n_words=POSITIVE)
def random_scores(d_k: int, rng, n_sentences: int = 50, n_words: int = 8) -> ScalingRun:
    """`n_sentences` random "sentences" of `n_words` words each, with standard-normal Q and K
    (n_words × d_k). Returns all their `Q Kᵀ` rows stacked: shape (n_sentences·n_words) × n_words.

    Every sentence draws its own keys, so the rows are independent trials of one softmax row.
    """
    rows = []
    for _ in range(n_sentences):
        Q = rng.standard_normal((n_words, d_k))
        K = rng.standard_normal((n_words, d_k))
        rows.append(attention_scores(Q, K, scale=False))
    return ScalingRun(d_k, np.vstack(rows))


def _dimensions(d_ks, name: str) -> list[int]:
    if isinstance(d_ks, (str, bytes)) or not isinstance(d_ks, Iterable):
        raise HelpersTypeError(
            f"{name} には d_k の値の並び(例: [1, 4, 16])を渡してください。{said(d_ks)} が来ました。"
        )
    d_ks = [integer(d, f"{name} の要素", lo=1) for d in d_ks]
    if not d_ks:
        raise HelpersError(f"{name} が空です。少なくとも 1 つの d_k を指定してください。")
    return d_ks


def _runs_fit(a: dict) -> None:
    rows = len(a["d_ks"]) * a["n_sentences"] * a["n_words"]
    guard_size((rows, max(a["n_words"], *a["d_ks"])), "ランダムなスコアの表(すべての d_k)",
               by="d_ks, n_sentences, n_words")


@public(_runs_fit, d_ks=arg(_dimensions), rng=RNG, n_sentences=POSITIVE, n_words=POSITIVE)
def scaling_experiment(
    d_ks: Iterable[int], rng, n_sentences: int = 50, n_words: int = 8
) -> list[ScalingRun]:
    """One `random_scores` draw for each d_k, in order, all from the same generator."""
    return [random_scores(d, rng, n_sentences=n_sentences, n_words=n_words) for d in d_ks]


def _bin_edges(e, name: str) -> np.ndarray:
    e = as_array(e, name)
    if e.ndim != 1 or e.size < 2:
        raise HelpersError(
            "edges は 2 つ以上の境目を並べた 1 次元の配列にしてください。"
            f"shape {e.shape} が来ました。"
        )
    if np.any(e[1:] <= e[:-1]):  # compared, not subtracted: edges near ±1e308 do not overflow
        raise HelpersError(f"{name} は小さい順に、同じ値を含まずに並べてください。")
    return e


@public(values=arg(as_array), edges=arg(_bin_edges))
def relative_histogram(values, edges) -> np.ndarray:
    """Counts per bin, divided by the tallest bin (so the peak is 1).

    Values outside the edges are counted in the first or last bin, so nothing disappears.
    """
    counts, _ = np.histogram(np.clip(values.reshape(-1), edges[0], edges[-1]), bins=edges)
    return counts / counts.max()
