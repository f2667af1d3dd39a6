"""Chapter 08's explorable: pick a head, turn the causal mask on, and watch the map and the output.

Drawn in the browser (js/ch08_going_further.js), which computes every head's attention from the
data traits (X and each head's W_Q, W_K, W_V) and mixes the heads' outputs with W_O, as
`helpers.heads.multi_head_attention` does. `explorer.head = 1` or `explorer.masked = True` in a
cell moves the picture too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import traitlets

from .._validate import HelpersError, arg, as_array, as_matrix, public, texts
from ..data import phrase
from ..heads import causal_mask, multi_head_attention
from ._base import MAX_ITEMS, Choice, Explorable, Flag, at_most, data_trait

__all__ = ["heads_explorer", "HeadsExplorer"]

#: The most heads one explorer offers: each is a button above the picture, and a phone's width
#: holds about six of them (the chapter uses two).
MAX_HEADS = 6


class HeadsExplorer(Explorable):
    """Choose a head and turn the causal mask on or off: left, that head's attention weights
    (the hidden cells hatched); right, the output of all heads mixed by W_O."""

    module = "ch08_going_further"
    title = "頭を選ぶ・因果マスク"
    head = Choice(0, "head(頭の番号、0 から)", options="heads", labels="head_names")
    masked = Flag(False, "masked(因果マスク)")
    # The widths are bounded by the maths' guard on the cells, not here.
    SIZES = {"heads": MAX_HEADS, "d_model": 10**6, "d_k": 10**6, "d_v": 10**6, "joined": 10**6}
    heads = data_trait([0], "integer", ("heads",))
    head_names = data_trait([], "text", ("heads",))
    words = data_trait([], "text", ("words",))
    out_labels = data_trait([], "text", ("outs",))
    X = data_trait([], "number", ("words", "d_model"))
    W_Q = data_trait([], "number", ("heads", "d_model", "d_k"))
    W_K = data_trait([], "number", ("heads", "d_model", "d_k"))
    W_V = data_trait([], "number", ("heads", "d_model", "d_v"))
    W_O = data_trait([], "number", ("joined", "outs"))

    @classmethod
    def example(cls) -> HeadsExplorer:
        """The chapter's two heads (頭 1 looks by taste, 頭 2 looks for food) on its phrase."""
        p = phrase()
        W_Q = [[[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]], [[1.0, 0.0], [1.0, 0.0], [0.0, 0.0]]]
        W_K = [[[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], [[0.0, 0.0], [0.0, 0.0], [1.5, 0.0]]]
        W_V = [[[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]]]
        W_O = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
        return heads_explorer(p.vectors, p.words, W_Q, W_K, W_V, W_O,
                              ["頭 1:味で探す", "頭 2:食べ物を探す"], ["甘さ", "辛さ", "食べ物らしさ"])

    @traitlets.validate("head")
    def _head_as_index(self, proposal):
        # After Choice has checked it is one of `heads`: 1.0 or np.int64(1) from a cell become
        # the plain int the browser indexes with.
        return int(proposal["value"])

    def numbers(self) -> dict:
        """What the picture shows now: the chosen head's weights and the mixed output (n × d_out)."""
        X = np.array(self.X)
        mask = causal_mask(X.shape[0]) if self.masked else None
        output, weights = multi_head_attention(X, np.array(self.W_Q), np.array(self.W_K),
                                               np.array(self.W_V), np.array(self.W_O), mask)
        return {"head": self.head, "masked": self.masked, "weights": weights[self.head],
                "output": output}


def _heads_that_can_be_drawn(a: dict) -> None:
    X, words, W_Q, W_O = a["X"], a["words"], a["W_Q"], a["W_O"]
    n = X.shape[0]
    if len(words) != n:
        raise HelpersError(f"語が {len(words)} 個、X の行が {n} 本です。同じ数にしてください。")
    at_most(n, MAX_ITEMS, "語(X の行)")
    if W_Q.ndim == 3:  # other shapes: multi_head_attention names them
        at_most(W_Q.shape[0], MAX_HEADS, "頭(W_Q の 1 つめの軸)")
    at_most(W_O.shape[1], MAX_ITEMS, "出力の列(W_O の列)")
    a["out_labels"] = texts(a["out_labels"], "out_labels(出力の列の名前)", count=W_O.shape[1])
    faces = (W_Q, a["W_K"], a["W_V"], W_O)
    # The shapes first (multi_head_attention names what does not fit; zeros never overflow) …
    multi_head_attention(np.zeros_like(X), *faces)
    # … so that what fails below can only be numbers too large (inf or NaN on the way).
    try:
        with np.errstate(all="ignore"):
            results = [multi_head_attention(X, *faces, mask) for mask in (None, causal_mask(n))]
        finite = all(np.all(np.isfinite(out)) for out, _ in results)
    except HelpersError:
        finite = False
    if not finite:
        raise HelpersError(
            "X や W の数が大きすぎて、計算の途中で有限の数でなくなりました(inf や NaN)。"
            "もっと小さな数にしてください。"
        )
    h = results[0][1].shape[0]
    if len(a["head_names"]) != h:
        raise HelpersError(f"頭が {h} 個、head_names が {len(a['head_names'])} 個です。同じ数にしてください。")


@public(_heads_that_can_be_drawn, X=arg(as_matrix), words=arg(texts, "words(語)"), W_Q=arg(as_array),
        W_O=arg(as_matrix), W_K=arg(as_array), W_V=arg(as_array),
        head_names=arg(texts, "head_names(頭の名前)"), draws=True)
def heads_explorer(X, words: Sequence[str], W_Q, W_K, W_V, W_O, head_names: Sequence[str],
                   out_labels: Sequence[str], **controls) -> HeadsExplorer:
    """Left: the attention map of the chosen head; right: the output of all heads through W_O.

    W_Q, W_K: h × d_model × d_k; W_V: h × d_model × d_v; W_O: h·d_v × d_out (as
    `helpers.heads.multi_head_attention` takes them). With the causal mask on, the cells above
    the diagonal (later words) are hatched: hidden. `numbers()` gives what the picture shows.
    `controls` start it elsewhere, e.g. `head=1, masked=True`.
    """
    h = len(head_names)  # one per head (the relation held them to W_Q's heads)
    return HeadsExplorer.starting_at(
        "heads_explorer", controls, heads=list(range(h)), head_names=head_names, words=words, out_labels=out_labels,
        X=X.tolist(), W_Q=W_Q.tolist(), W_K=W_K.tolist(), W_V=W_V.tolist(), W_O=W_O.tolist(),
    )
