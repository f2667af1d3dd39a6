"""Chapter 06's widget: slide d_k and watch q·k spread out and one softmax row turn one-hot."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from .. import plotting, scaling
from .._validate import integer
from ._base import MAX_ITEMS, LiveBars, Update
from ._base import KernelExplorable as Explorable

__all__ = ["scaling_explorer"]


#: What the picture and the book's frame labels call the two settings (one wording for both).
SCALING_WORDS = {False: "割らない", True: "d_k の平方根で割る"}


def scaling_explorer(rng: np.random.Generator | None = None, n_words: int = 8) -> Explorable:
    """Chapter 06: slide d_k and watch q·k spread out and one softmax row turn one-hot.

    One random draw per d_k in `scaling.DK_CHOICES` is made up front (from `rng`), so moving a
    control only looks results up. Unchecked, the scores are the raw q·k; checked, they are
    divided by √d_k. Left: histogram of all scores; middle: the weights of one typical row (for
    each d_k, the row whose unscaled largest weight is the median, shown scaled or not);
    right: the average largest weight of a row, for every d_k (the ring marks the current one).
    """
    # Every d_k draws 50 sentences of n_words × n_words scores, and the middle panel has a bar
    # per word: a few words are what the chapter needs (it uses 8).
    n_words = integer(n_words, "n_words(1 文の語の数)", lo=1, hi=MAX_ITEMS)
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
            how = SCALING_WORDS[scaled]
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
                              + SCALING_WORDS[v["scaled"]],
        title="d_k と得点の散らばり",
        figsize=(10.0, 3.6),
    )

