"""Chapter 08's widget: pick a head, turn the causal mask on, and watch the map and the output."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from .._validate import HelpersError, as_array, as_matrix
from ..heads import causal_mask, multi_head_attention
from ..plotting import shade_masked
from ._base import Explorable, FrameExplorable, LiveHeatmap, Update

__all__ = ["heads_explorer"]


def heads_explorer(X, words: Sequence[str], W_Q, W_K, W_V, W_O, head_names: Sequence[str],
                   out_labels: Sequence[str]) -> Explorable:
    """Left: the attention map of the chosen head; right: the output of all heads through W_O.

    With the causal mask on, the cells above the diagonal (later words) are hatched: hidden.
    Every (head, mask) pair is computed and drawn once up front, so a control only swaps images.
    `state` holds the chosen head's weights and the output for the current controls.
    """
    X = as_matrix(X, "X")
    W_Q, W_K, W_V = (as_array(M, name) for M, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")))
    n, h = X.shape[0], W_Q.shape[0]
    if len(words) != n:
        raise HelpersError(f"語が {len(words)} 個、X の行が {n} 本です。同じ数にしてください。")
    if len(head_names) != h:
        raise HelpersError(f"頭が {h} 個、head_names が {len(head_names)} 個です。同じ数にしてください。")
    if 2 * h > 12:
        raise HelpersError(f"本に載せるコマ(頭 × マスクのあり・なし = {2 * h})は 12 個までにしてください。")
    mask = causal_mask(n)
    results = {masked: multi_head_attention(X, W_Q, W_K, W_V, W_O, mask if masked else None)
               for masked in (False, True)}
    if len(out_labels) != results[False][0].shape[1]:
        raise HelpersError(f"out_labels は出力の列の数 {results[False][0].shape[1]} 個にしてください。")
    reach = max(float(np.abs(out).max()) for out, _ in results.values())

    def build(fig: Figure) -> Update:
        ax_map, ax_out = fig.subplots(1, 2, width_ratios=[1.35, 1])
        heat = LiveHeatmap(ax_map, words, words, vmin=0, vmax=1)
        squares = shade_masked(ax_map, mask, animated=True)
        title = ax_map.set_title(" ", pad=12, animated=True)
        out = LiveHeatmap(ax_out, words, out_labels, vmin=-reach, vmax=reach, cmap="RdBu_r",
                          title="全部の頭を W_O で混ぜた出力", col_title="出力の列")

        def update(head: int, masked: bool) -> dict:
            output, weights = results[masked]
            heat.set(weights[head])
            for square in squares:
                square.set_visible(masked)
            title.set_text(f"{head_names[head]}の注目の重み" + ("(因果マスクあり)" if masked else ""))
            out.set(output)
            return {"head": head, "masked": masked, "weights": weights[head], "output": output}

        return update

    return FrameExplorable(
        build,
        {"head": W.ToggleButtons(options=[(name, i) for i, name in enumerate(head_names)], value=0,
                                 description="頭"),
         "masked": W.Checkbox(value=False, description="因果マスク(先を見ない)")},
        static_frames=[{"head": i, "masked": m} for m in (False, True) for i in range(h)],
        frame_label=lambda v: f"{head_names[v['head']]}・" + ("マスクあり" if v["masked"] else "マスクなし"),
        title="頭を選ぶ・因果マスク",
        figsize=(10.0, 4.4),
    ).precompute()
