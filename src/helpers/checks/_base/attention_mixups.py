"""A learner's attention function checked as a pair: (output, weights) and their mix-ups."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .learner import as_float_array, call_learner
from .mistakes import first_difference, same
from .verdicts import fail


def attention_pair(fn: Callable, Q, K, V, what: str, forbid: Sequence[str] = (),
                   on_error: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Call the learner's attention `what(Q, K, V)`; its `(output, weights)` as float arrays
    (`forbid`: the `helpers` functions the exercise asks the learner to write, as `call_learner`;
    `on_error`: where to look after a crash, by default the shapes)."""
    result = call_learner(fn, Q.copy(), K.copy(), V.copy(), what=what, call=f"{what}(Q, K, V)",
                          on_error=on_error or f"Q {Q.shape}, K {K.shape}, V {V.shape} のときの途中の形を "
                                               "print して確かめましょう。", forbid=forbid)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail("(output, weights) の 2 つを、この順の組(タプル)で返してください。"
             f"{type(result).__name__} が返ってきました。", mistake="not_a_pair")
    return tuple(as_float_array(r, what) for r in result)


def check_attention_output(out, w, want_out, want_w, V, hints: Mapping[str, str]) -> None:
    """Fail with the hint for a mix-up of the output: the pair swapped, the weights returned as
    the output, the weights transposed before mixing (`transposed_output`, if `hints` has it),
    or right weights with a wrong output (`hints` has "swapped", "weights_as_output",
    "bad_output"). Right weights with a wrong output earn half the credit."""
    if out.shape == want_w.shape and w.shape == want_out.shape:
        fail(hints["swapped"], mistake="swapped")
    half = 0.5 if same(w, want_w) else 0.0  # right weights, wrong output: half the credit
    if same(out, want_w):
        fail(hints["weights_as_output"], half, mistake="weights_as_output")
    if half:
        square = want_w.shape[0] == want_w.shape[1]
        if "transposed_output" in hints and square and same(out, want_w.T @ V):
            fail(hints["transposed_output"], half, mistake="transposed_output")
        if out.shape != want_out.shape and out.size == want_out.size and same(out.reshape(want_out.shape), want_out):
            fail(f"出力の値は合っていますが、shape {out.shape} で返ってきました。出力は (問いの数, d_v) = "
                 f"{want_out.shape} の形のまま返します(ravel や reshape は要りません)。", half, mistake="flat_output")
        if out.shape != want_out.shape:
            fail(f"{hints['bad_output']}形は (問いの数, d_v) = {want_out.shape} のはずが {out.shape} でした。", half,
                 mistake="bad_output_shape")
        fail(f"{hints['bad_output']}{first_difference(want_out, out, '出力')}。", half, mistake="bad_output")


def wrong_attention_weights(fn: Callable, Q, K, V, what: str, variants: Mapping[str, np.ndarray],
                            hints: Mapping[str, str], forbid: Sequence[str] = (),
                            on_error: str | None = None) -> np.ndarray | None:
    """Call the learner's attention `what(Q, K, V)`; compare it with `variants["right"]`.

    None when its output and weights are both right; a mix-up of the output fails with its hint
    (`check_attention_output`); what is left is wrong weights, returned for the chapter's hints.
    """
    out, w = attention_pair(fn, Q, K, V, what, forbid, on_error)
    want_w = variants["right"]
    want_out = want_w @ V
    if same(out, want_out) and same(w, want_w):
        return None
    if same(out, want_out) and same(w.T, want_w):
        fail("出力は合っていますが、重みを転置して返しています(行が見出し、列が問いの表です)。"
             "重みは (問いの数, 見出しの数) の表のまま返しましょう。", 0.5, mistake="transposed_weights")
    check_attention_output(out, w, want_out, want_w, V, hints)
    return w
