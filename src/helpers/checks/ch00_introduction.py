"""Chapter 00's exercises: the first softmax, and the shape of a product."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _base

#: Chapter 00: the hint for each typical mistake in `to_weights(scores)`.
FIRST_SOFTMAX_HINTS = {
    "raw": "得点をそのまま返しています。重みはどれも正の数で、合計が 1 になるはずです。"
           "練習 1 の式を見直しましょう。",
    "no_exp": "得点を得点の合計で割っただけで、np.exp を取っていません。"
              "得点がマイナスだと重みもマイナスになってしまいます。練習 1 の式の分子を見直しましょう。",
    "unnormalised": "np.exp を取ったところで止まっています(重みの合計が 1 になっていません)。"
                    "練習 1 の式の分母を見直しましょう。",
    "by_score_sum": "割る数が違います。元の得点の合計で割っています。練習 1 の式の分母が何の合計か、"
                    "見直しましょう。",
    "by_max": "np.exp を取ったあと、合計ではなく一番大きい値で割った形になっています"
              "(np.exp(scores - scores.max()) も同じ値です。最大値を引くのはあふれないための工夫で、"
              "それ自体は正しいのですが)。重みの合計が 1 になっていません。練習 1 の式の分母を見直しましょう。",
    "by_count": "np.exp を取ったあと、得点の個数で割っています。重みの合計が 1 になっていません。"
                "練習 1 の式の分母が何の合計か、見直しましょう。",
}


def _first_softmax_cases(hidden: bool = False) -> list[tuple[np.ndarray]]:
    """Scores whose sum is not their count (dividing by either is told apart), five of them as the
    hidden test has, and a tie; `hidden`: a 5- and a 3-score case the notebook never shows."""
    if hidden:
        return [(np.round(2 * s, 2),) for (s,) in _base.hidden_cases("first_softmax", ((5,),), ((3,),))]
    return [(np.array([2.0, 1.0, -0.5]),), (np.array([0.5, -1.0, 3.0, 0.0, 1.25]),), (np.array([0.0, 0.0]),)]


@_base.exercise
def check_first_softmax(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 00: `fn(scores)` turns a 1-D array of scores into weights: exp, then divide by the sum."""
    for (s,) in _first_softmax_cases(hidden):
        got = _base.as_float_array(_base.call_learner(fn, s.copy(), what="to_weights",
                                                      call=f"to_weights({s})", forbid=("softmax", "heads")),
                                   "to_weights")
        e = np.exp(s)
        want = e / e.sum()
        if _base.same(got, want):
            continue
        with np.errstate(all="ignore"):
            wrong = {"raw": s, "no_exp": s / s.sum(), "unnormalised": e,
                     "by_score_sum": e / s.sum(), "by_max": e / e.max(), "by_count": e / s.size}
        _base.fail_on_typical_mistake(got, wrong, FIRST_SOFTMAX_HINTS,
                                      said=f"scores={s} で {got} が返りました。")
        if got.shape != want.shape:
            _base.fail(f"scores={s}(shape {s.shape})に対して、重みは shape {want.shape} のはずが、"
                       f"shape {got.shape} が返ってきました。", mistake="wrong_shape")
        _base.fail_on_wrong_values(want, got, "重み", said=f"scores={s}(shape {s.shape})のとき、")
    _base.passed("重みはどれも正で、合計は 1 です。得点が同じなら重みも同じ(0.5 ずつ)になります。", quiet=hidden)


#: Other ways to write "it cannot be multiplied" in the shape prediction.
ERROR_SYNONYMS = {"error": "エラー", "えらー": "エラー", "エラーになる": "エラー", "掛けられない": "エラー",
                  "かけられない": "エラー"}


@_base.exercise
def check_matmul_shape_prediction(answer) -> None:
    """Chapter 00 prediction: x is 1 × 2 and W is 2 × 3; what is the shape of x @ W?

    A tuple (1, 3) and the text "(1, 3)" or "1×3" are the same answer (`_base.shape_answer`)."""
    _base.check_shape_choice(
        answer,
        "(1, 3)",
        ("(1, 2)", "(1, 3)", "(2, 3)", "(3, 1)", "エラー"),  # the page's choices, in its order
        {
            "(1, 3)": "(1×2) · (2×3) → (1×3)。内側の 2 と 2 がそろって消え、外側の 1 と 3 が残ります。"
                      "1 本の横一列が、長さ 3 の横一列に変わりました。",
            "(1, 2)": "x と同じ形のまま、と考えましたか? W の形 (2, 3) をもう一度見てみましょう。"
                      "xW の一つひとつの数は、x と W の行・列のどちらを組にして作られるでしょう。",
            "(2, 3)": "それは W の形そのものです。結果の行の数は、x と W のどちらから来るでしょう。",
            "(3, 1)": "それは縦一列の形です。x は横一列(1 行 2 列)でした。結果の行の数と列の数は、"
                      "それぞれ x と W のどこから来るでしょう。",
            "エラー": "x の列の数と W の行の数を数えて、比べてみましょう。",
        },
        ERROR_SYNONYMS,
    )
