"""Chapter 06's explorable: move d_k and watch q·k spread out and one softmax row turn one-hot.

Drawn in the browser (js/ch06_attention.js). One random experiment per d_k in
`scaling.DK_CHOICES` is made here, once; the browser gets only what the picture needs (per d_k:
one typical row of raw scores, the two histograms, variances and average largest weights) and
computes the row's softmax itself, so `explorer.d_k = 512` or `explorer.scaled = True` in a cell
moves the picture too.
"""

from __future__ import annotations

import numpy as np

from .. import scaling
from .._validate import arg, instance, integer, public
from ..attention import softmax
from ._base import MAX_ITEMS, Choice, Explorable, Flag, data_trait

__all__ = ["scaling_explorer", "ScalingExplorer", "SCALING_WORDS"]


#: What the picture calls the two settings (one wording for the picture and its alt text).
SCALING_WORDS = {False: "割らない", True: "d_k の平方根で割る"}

#: Bins of the histogram, over ±4 standard deviations of the widest case (4·√(largest d_k)).
BINS = 90


class ScalingExplorer(Explorable):
    """Pick d_k and whether to divide by √d_k; the scores' spread and one row's weights follow."""

    module = "ch06_attention"
    title = "d_k と得点の散らばり"
    # `d_ks` first: `d_k` is checked against it.
    SIZES = {"bins": BINS, "row": MAX_ITEMS}
    d_ks = data_trait(list(scaling.DK_CHOICES), "integer", ("choices",))
    d_k = Choice(16, "d_k(問いと見出しの次元)", options="d_ks")
    scaled = Flag(False, "scaled(√d_k で割るか)")
    #: How the picture names the two settings (SCALING_WORDS[False], SCALING_WORDS[True]).
    scaling_words = data_trait([SCALING_WORDS[False], SCALING_WORDS[True]], "text", (2,))
    #: How many rows (sentences × words) each d_k's experiment has.
    n_rows = data_trait(0, "integer")
    #: Per d_k: the typical row's raw scores q·k (n_words numbers) and its number among the rows.
    rows = data_trait([], "number", ("choices", "row"))
    row_index = data_trait([], "integer", ("choices",))
    #: Per d_k: the histogram's bin heights (tallest = 1) over ±hist_limit, unscaled and scaled.
    hist_limit = data_trait(1.0, "number")
    hist_raw = data_trait([], "number", ("choices", "bins"))
    hist_scaled = data_trait([], "number", ("choices", "bins"))
    #: Per d_k: the variance of all scores and the average largest weight of a row.
    var_raw = data_trait([], "number", ("choices",))
    var_scaled = data_trait([], "number", ("choices",))
    mean_max_raw = data_trait([], "number", ("choices",))
    mean_max_scaled = data_trait([], "number", ("choices",))

    @classmethod
    def example(cls) -> ScalingExplorer:
        return scaling_explorer()

    def numbers(self) -> dict:
        """What the picture shows now: the variance, the typical row's weights, the averages."""
        i = self.d_ks.index(self.d_k)
        row = np.array(self.rows[i], dtype=float)
        scored = row / np.sqrt(self.d_k) if self.scaled else row
        weights = softmax(scored)
        variance = (self.var_scaled if self.scaled else self.var_raw)[i]
        mean_max = (self.mean_max_scaled if self.scaled else self.mean_max_raw)[i]
        return {"d_k": self.d_k, "scaled": self.scaled, "variance": variance,
                "expected_variance": 1.0 if self.scaled else float(self.d_k),
                "row": self.row_index[i], "weights": weights,
                "max_weight": float(weights.max()), "mean_max_weight": mean_max}


def _generator(rng, name: str) -> np.random.Generator:
    """A spec: the generator the draws come from (None: seed 0)."""
    return np.random.default_rng(0) if rng is None else instance(rng, name, np.random.Generator,
                                                                   "np.random.Generator")


# Every d_k draws 50 sentences of n_words × n_words scores, and the middle panel has a bar per
# word: a few words are what the chapter needs (it uses 8).
@public(rng=arg(_generator), n_words=arg(integer, "n_words(1 文の語の数)", lo=1, hi=MAX_ITEMS), draws=True)
def scaling_explorer(rng: np.random.Generator | None = None, n_words: int = 8, **controls) -> ScalingExplorer:
    """Chapter 06: move d_k and watch q·k spread out and one softmax row turn one-hot.

    One random draw per d_k in `scaling.DK_CHOICES` is made up front (from `rng`; None: seed 0).
    Unchecked, the scores are the raw q·k; checked, they are divided by √d_k. Left: histogram of
    all scores; middle: the weights of one typical row (for each d_k, the row whose unscaled
    largest weight is the median, shown scaled or not); right: the average largest weight of a
    row, for every d_k (the ring marks the current one). `controls` start it elsewhere, e.g.
    `d_k=64, scaled=True`.
    """
    runs = scaling.scaling_experiment(scaling.DK_CHOICES, rng, n_words=n_words)
    limit = 4 * np.sqrt(max(r.d_k for r in runs))
    edges = np.linspace(-limit, limit, BINS + 1)
    typical = [r.typical_row() for r in runs]

    def hist(scale: bool) -> list[list[float]]:
        # 4 digits are far finer than a pixel: the page stays small.
        return [np.round(scaling.relative_histogram(r.scored(scale), edges), 4).tolist() for r in runs]

    return ScalingExplorer.starting_at(
        "scaling_explorer", {"d_k": 16, "scaled": False, **controls}, d_ks=[r.d_k for r in runs],
        rows=[r.scores[t].tolist() for r, t in zip(runs, typical, strict=True)],
        row_index=typical, n_rows=int(runs[0].scores.shape[0]), hist_limit=float(limit), hist_raw=hist(False), hist_scaled=hist(True),
        var_raw=[float(r.scores.var()) for r in runs],
        var_scaled=[float(r.scored(True).var()) for r in runs],
        mean_max_raw=[float(r.max_weights(False).mean()) for r in runs],
        mean_max_scaled=[float(r.max_weights(True).mean()) for r in runs],
    )
