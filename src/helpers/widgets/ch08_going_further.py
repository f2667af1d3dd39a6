"""Chapter 08's widget: pick a head, turn the causal mask on, and watch the map and the output."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from .._validate import HelpersError, as_array, as_matrix
from ..heads import causal_mask, multi_head_attention
from ..plotting import shade_masked
from ..plotting._base import texts
from ._base import MAX_ITEMS, FrameExplorable, LiveHeatmap, Update, at_most
from ._base import KernelExplorable as Explorable

__all__ = ["heads_explorer"]


def heads_explorer(X, words: Sequence[str], W_Q, W_K, W_V, W_O, head_names: Sequence[str],
                   out_labels: Sequence[str]) -> Explorable:
    """Left: the attention map of the chosen head; right: the output of all heads through W_O.

    With the causal mask on, the cells above the diagonal (later words) are hatched: hidden.
    Every (head, mask) pair is computed and drawn once up front, so a control only swaps images.
    `state` holds the chosen head's weights and the output for the current controls.
    """
    X = as_matrix(X, "X")
    n = X.shape[0]
    words = texts(words, "words(語)")
    if len(words) != n:
        raise HelpersError(f"語が {len(words)} 個、X の行が {n} 本です。同じ数にしてください。")
    at_most(n, MAX_ITEMS, "語(X の行)")
    W_Q = as_array(W_Q, "W_Q")
    if W_Q.ndim == 3 and 2 * W_Q.shape[0] > 12:  # other shapes: multi_head_attention names them
        raise HelpersError(
            f"本に載せるコマ(頭 × マスクのあり・なし = {2 * W_Q.shape[0]})は 12 個までにしてください。"
        )
    W_O = as_matrix(W_O, "W_O")
    at_most(W_O.shape[1], MAX_ITEMS, "出力の列(W_O の列)")
    out_labels = texts(out_labels, "out_labels(出力の列の名前)", count=W_O.shape[1])
    mask = causal_mask(n)
    results = {masked: multi_head_attention(X, W_Q, W_K, W_V, W_O, mask if masked else None)
               for masked in (False, True)}
    h = results[False][1].shape[0]
    head_names = texts(head_names, "head_names(頭の名前)")
    if len(head_names) != h:
        raise HelpersError(f"頭が {h} 個、head_names が {len(head_names)} 個です。同じ数にしてください。")
    # The colour range of the output; an all-zero output still needs one (vmin < vmax).
    reach = max(float(np.abs(out).max()) for out, _ in results.values()) or 1.0

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
            title.set_text(f"注目の重み({head_names[head]}" + ("、因果マスクあり)" if masked else ")"))
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
