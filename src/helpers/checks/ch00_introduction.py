"""Chapter 00's exercises: the first softmax, the shape of a product, and scores back from weights."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..attention import softmax
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
    "negated": "得点の符号を逆にして np.exp を取っています(np.exp(-scores) のような形)。重みの合計は 1 ですが、"
               "得点の低い語ほど重みが大きくなり、順番が逆です。練習 1 の式の分子が e の何乗かを見直しましょう。",
    "abs": "得点の絶対値(`np.abs`)を合計で割っています。重みは正になりますが、-2 のような低い得点が 2 と同じ"
           "重みをもらい、得点の大小の順番が崩れます。負の得点を、順番を保ったまま正の数にするのが、"
           "練習 1 の式の分子の役目です。",
    "one_hot": "一番大きい得点の語に 1、ほかの語に 0 を配っています(一つだけ選ぶ形)。重みは、どの語にも"
               "得点に応じた正の割合を配り、二番め以下の語も少しずつ混ざります。練習 1 の式の分子は、"
               "得点が低い語でも 0 にならないことを確かめましょう。",
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
                     "by_score_sum": e / s.sum(), "negated": np.exp(-s) / np.exp(-s).sum(), "by_max": e / e.max(), "by_count": e / s.size,
                     "abs": np.abs(s) / np.abs(s).sum(), "one_hot": np.eye(s.size)[np.argmax(s)]}
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
#: The shape prediction: the page's choices, in its order.
MATMUL_SHAPE = _base.Prediction(("(1, 2)", "(1, 3)", "(2, 3)", "(3, 1)", "エラー"), "(1, 3)", ERROR_SYNONYMS)


@_base.exercise
@_base.asks(MATMUL_SHAPE)
def check_matmul_shape_prediction(answer) -> None:
    """Chapter 00 prediction: x is 1 × 2 and W is 2 × 3; what is the shape of x @ W?

    A tuple (1, 3) and the text "(1, 3)" or "1×3" are the same answer (`_base.shape_answer`)."""
    _base.check_shape_choice(
        answer,
        MATMUL_SHAPE.correct,
        MATMUL_SHAPE.choices,
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
        MATMUL_SHAPE.synonyms,
    )


#: Chapter 00, 練習 3: the hint for each typical mistake in `scores_from_weights(weights)`.
SCORES_FROM_WEIGHTS_HINTS = {
    "weights_back": "重みをそのまま得点として返しています。to_weights は得点に np.exp を取ってから割るので、"
                    "重みを得点にすると、差が縮んだ別の重みになります。np.exp を取ったあとで重みに比例する数になる"
                    "得点を考えましょう。",
    "exp": "重みに np.exp を取っています。to_weights がもう一度 np.exp を取るので、重みからさらに遠ざかります。"
           "np.exp を取ると重みに戻る数は何でしょう。",
    "negated": "得点の大小が逆になっています(重みの大きい語ほど得点が小さい)。符号を見直しましょう。",
    "log10": "np.log10 は 10 を底にした対数で、np.exp の逆ではありません。np.exp(np.log10(a)) は a に戻りません。",
    "log2": "np.log2 は 2 を底にした対数で、np.exp の逆ではありません。np.exp(np.log2(a)) は a に戻りません。",
    "reciprocal": "重みの逆数を返しています。逆数では、重みの大きい語ほど得点が小さくなります。"
                  "np.exp を取ると重みに比例する数になる得点を考えましょう。",
    "softmax_again": "重みをもう一度 to_weights に通しています。to_weights は得点を重みにする向きの関数です。"
                     "ここで欲しいのは、その逆向き(重みから得点へ)です。",
}
#: np.log of the weights times a number other than 1 (2 * np.log(w), np.log(w ** 2), ...): said apart
#: from the table, as no one variant is that mistake.
SCORES_SCALED_HINT = ("得点の大小の順は合っていますが、得点の差が何倍かになっています。全部の得点に同じ数を足しても"
                      "重みは変わりませんが、掛けると重みが変わります。np.exp を取ると重みに比例する数になる得点を"
                      "考えましょう。")


def _scores_from_weights_variants(w: np.ndarray) -> dict[str, np.ndarray]:
    """One right answer (any constant may be added to it) and each typical mistake's scores."""
    with np.errstate(all="ignore"):
        return {"right": np.log(w), "weights_back": w, "exp": np.exp(w), "negated": -np.log(w),
                "log10": np.log10(w), "log2": np.log2(w), "reciprocal": 1 / w,
                "softmax_again": softmax(w)}


def _scores_from_weights_cases(hidden: bool = False) -> list[tuple[np.ndarray]]:
    """Weights of three and of five words (three or more decimals), as the hidden test has;
    `hidden`: the weights of a 5- and a 3-score case the notebook never shows."""
    if hidden:
        return [(softmax(s),) for (s,) in _base.hidden_cases("scores_from_weights", ((5,),), ((3,),))]
    return [(np.array([0.5, 0.25, 0.25]),), (softmax(np.array([0.5, -1.0, 3.0, 0.0, 1.25])),)]


@_base.exercise
def check_scores_from_weights(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 00, 練習 3: `fn(weights)` returns scores whose softmax is `weights` (any of them:
    scores are only fixed up to a constant added to all)."""
    undecided = None  # a wrong answer on weights of two values only, where any order-keeping map is a scale
    for (w,) in _scores_from_weights_cases(hidden):
        call = f"scores_from_weights({np.round(w, 3)})"
        got = _base.as_float_array(_base.call_learner(fn, w.copy(), what="scores_from_weights", call=call),
                                   "scores_from_weights")
        if got.shape != w.shape:
            _base.fail(f"重み {w.size} 個(shape {w.shape})に対して、得点も同じ shape {w.shape} で返します。"
                       f"shape {got.shape} が返ってきました。", mistake="wrong_shape")
        if not np.all(np.isfinite(got)):
            _base.fail(f"{call} の得点に inf か nan が入っています({np.round(got, 3)})。有限の数の得点を返しましょう。",
                       mistake="not_finite")
        back = softmax(got)
        if _base.same(back, w):
            continue
        centred = {name: v - v.mean() for name, v in _scores_from_weights_variants(w).items()}
        _base.fail_on_typical_mistake(got - got.mean(), centred, SCORES_FROM_WEIGHTS_HINTS,
                                      said=f"{call} で {np.round(got, 3)} が返りました。")
        said = f"返した得点を to_weights に通すと、元の重みに戻るはずです。{call} では、"
        if len(np.unique(w)) < 3:
            undecided = undecided or (w, back, said)
            continue
        right = centred["right"]
        factor = float((got - got.mean()) @ right / (right @ right))
        if factor > 0 and _base.same(got - got.mean(), factor * right):
            _base.fail(f"{call} で {np.round(got, 3)} が返りました。{SCORES_SCALED_HINT}", mistake="scaled")
        _base.fail_on_wrong_values(w, back, "to_weights(得点)", said=said)
    if undecided:
        w, back, said = undecided
        _base.fail_on_wrong_values(w, back, "to_weights(得点)", said=said)
    _base.passed("np.log で戻した得点は、to_weights に通すと元の重みになります。得点は一つに決まりません。"
                 "全部の得点に同じ数を足しても、重みは同じだからです。", quiet=hidden)
