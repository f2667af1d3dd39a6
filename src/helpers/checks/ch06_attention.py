"""Chapter 06's exercises: attention itself, and what identical keys do to the weights."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _validate, attention
from ..attention import softmax
from . import _base

#: Chapter 06: the hint for each typical mistake in `my_attention(Q, K, V)`.
ATTENTION_HINTS = {
    "no_sqrt": "得点を √d_k で割り忘れています(d_k は Q と K の列の数)。「ステップ 2:行ごとのソフトマックス」のはじめを見直しましょう。",
    "by_d": "得点を d_k そのもので割っています。「なぜ √d_k で割るのか」の節を見直しましょう。",
    "by_sqrt_n": "これは語の数(Q か K の行の数)の平方根です。d_k は語の数ではなく、問いと見出しの一本一本の"
                 "長さでした。語の数が変わっても変わらないのは、Q の形のどちらの長さでしょう。",
    "wrong_divisor": "この数がどこから来たのかを確かめ、√d_k の d_k が Q と K の形のどこの長さかを見直しましょう。",
    "axis0": "ソフトマックスを列の方向(axis=0)にかけています(各列の和が 1 です)。"
             "「ステップ 2:行ごとのソフトマックス」を見直しましょう。",
    "whole": "重みの表全体の和が 1 になっています(1 行ごとの和は 1 ではありません)。"
             "「ステップ 2:行ごとのソフトマックス」を見直しましょう。",
    "transposed": "得点表の行と列が入れ替わっています(行が見出し、列が問いの表です)。"
                  "ステップ 1 で、行と列がそれぞれ何だったかを見直しましょう。",
    "no_softmax": "得点をそのまま重みにしています(重みの各行の和が 1 になっていません)。"
                  "ステップ 2 を見直しましょう。",
    "unnormalised": "重みの各行の和が 1 になっていません。np.exp を取ったところで止まっています。"
                    "ステップ 2 のソフトマックスを見直しましょう。",
    **_base.KEEPDIMS_HINTS,
    "not_normalised": "重みの各行の和が 1 になっていません。ステップ 2 のソフトマックスを見直しましょう。",
    "swapped": "返す順番が逆です。(output, weights) の順、つまり出力が先、重みが後です。",
    "weights_as_output": "出力のところに重みをそのまま返しています(形が 問いの数 × 見出しの数 です)。"
                         "「ステップ 3:重みで中身を混ぜる」を見直しましょう。",
    "transposed_output": "重みは合っていますが、出力が weights.T @ V(転置した重みで混ぜたもの)に"
                         "なっています。ステップ 3 で、i 行めの出力がどの重みで混ぜたものだったかを"
                         "見直しましょう。",
    "bad_output": "重みは合っていますが、出力が違います。",
}


def _attention_cases(hidden: bool = False) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Two small problems: a square one (4 words attend to 4) and a rectangular one (3 to 5).

    d_v differs from d_k and from the number of keys, so weights (n_q × n_k) and output
    (n_q × d_v) never share a shape; √d_k, d_k, √n_q and √n_k are four different numbers in each
    (d_k = 3, then 4), so a scores divided by a typed 2 or by a row count is named as what it is.
    `hidden`: two problems the notebook never shows (7 keys; d_k = 9).
    """
    if hidden:
        return _base.hidden_cases("attention", ((5, 3), (7, 3), (7, 4)), ((3, 9), (3, 9), (3, 2)))
    rng = np.random.default_rng(6)
    square = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)))
    wide = (rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 3)))
    return [square, wide]


def _attention_kinds(case) -> set[str]:
    """Square or not (queries and keys), and d_v ≠ d_k."""
    Q, K, V = case
    return {"n_q = n_k" if Q.shape[0] == K.shape[0] else "n_q ≠ n_k",
            *(["d_v ≠ d_k"] if V.shape[1] != K.shape[1] else [])}


def _a_key_per_value(a: dict) -> None:
    _validate.require_same_length(a["Q"], a["K"], "Q", "K", dim="列数 d_k")
    if a["K"].shape[0] != a["V"].shape[0]:
        raise _validate.HelpersError(
            f"K と V の行数(語の数)が違います: K は shape {a['K'].shape}、V は shape {a['V'].shape} です。"
        )
    _validate.guard_size((a["Q"].shape[0], a["K"].shape[0]), "スコア行列 Q Kᵀ")


@_validate.public(_a_key_per_value, Q=_validate.arg(_validate.as_matrix),
                  K=_validate.arg(_validate.as_matrix), V=_validate.arg(_validate.as_matrix))
def attention_variants(Q, K, V) -> dict[str, np.ndarray]:
    """The weights that scaled dot-product attention gives ("right") and those of each mistake."""
    S = Q @ K.T
    root = np.sqrt(Q.shape[1])
    variants = {
        "right": softmax(S / root),
        "no_sqrt": softmax(S),
        "by_d": softmax(S / Q.shape[1]),
        "axis0": softmax(S / root, axis=0),
        "whole": np.exp(S / root) / np.exp(S / root).sum(),
        "transposed": softmax(K @ Q.T / root),
        "no_softmax": S / root,
        "unnormalised": np.exp(S / root),
    }
    return variants | _base.keepdims_slips(S / root)


def _divided_by(w: np.ndarray, S: np.ndarray) -> float | None:
    """The number c for which `w` is softmax(S / c) row by row, or None when `w` is no such table:
    the slope of each row's centred log-weights against its centred scores, fitted once."""
    if w.shape != S.shape or not np.all(w > 0):
        return None
    log_w = np.log(w)
    dl = log_w - log_w.mean(axis=-1, keepdims=True)
    ds = S - S.mean(axis=-1, keepdims=True)
    slope = float((dl * ds).sum() / (ds * ds).sum()) if (ds * ds).sum() > 0 else 0.0
    if slope <= 0 or not np.allclose(softmax(S * slope), w, atol=1e-6):
        return None
    return 1.0 / slope


@_base.exercise
def check_attention(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 06: `fn(Q, K, V)` returns `(output, weights)` of softmax(Q Kᵀ / √d_k) V."""
    typed = ""  # √(number of words) that is a whole number, as a divisor typed by hand would be
    for Q, K, V in _attention_cases(hidden):
        variants = attention_variants(Q, K, V)
        w = _base.wrong_attention_weights(fn, Q, K, V, "my_attention", variants, ATTENTION_HINTS,
                                          forbid=(*attention.__all__, "heads"))
        if w is None:
            continue
        _base.fail_on_typical_mistake(w, variants, ATTENTION_HINTS)
        want_w = variants["right"]
        if _base.rounded_to(w, want_w) is not None:
            _base.fail_on_wrong_values(want_w, w, "weights")
        d_k = Q.shape[1]
        if (c := _divided_by(w, Q @ K.T)) is not None and not np.isclose(c, np.sqrt(d_k)):
            said = f"割る数が違います。Q {Q.shape}, K {K.shape}, V {V.shape} のとき、得点を {c:.3f} で割っています。"
            if np.isclose(c, np.sqrt(Q.shape[0])) or np.isclose(c, np.sqrt(K.shape[0])):
                if not np.isclose(c, round(c)) or typed:  # a whole number may be typed: the next case tells
                    _base.fail(said + ATTENTION_HINTS["by_sqrt_n"], mistake="by_sqrt_n")
                typed = said
                continue
            _base.fail(said + ATTENTION_HINTS["wrong_divisor"], mistake="wrong_divisor")
        if w.shape != want_w.shape:
            _base.fail(f"weights の形は (問いの数, 見出しの数) = {want_w.shape} のはずですが、"
                       f"{w.shape} でした。", mistake="wrong_shape")
        if not np.allclose(w.sum(axis=-1), 1.0):
            _base.fail(ATTENTION_HINTS["not_normalised"], mistake="not_normalised")
        _base.fail_on_wrong_values(want_w, w, "weights", said=f"Q {Q.shape}, K {K.shape}, V {V.shape} で、")
    if typed:  # right on the cases after it: the whole number was typed, not a count of words
        _base.fail(typed + ATTENTION_HINTS["wrong_divisor"], mistake="wrong_divisor")
    _base.passed("重みはどの行も和が 1、出力は 語の数 × d_v の形です。正方形でない場合(3 語が 5 語を見る)"
                 "でも合っています。", quiet=hidden)


#: Other words a learner may use for the identical-keys prediction's choices.
IDENTICAL_KEYS_SYNONYMS = {"均一": "均等", "一様": "均等", "平等": "均等", "同じ": "均等", "1/n": "均等",
                           "自分自身": "自分", "最初": "先頭", "1番目": "先頭", "問いによる": "問い次第"}


#: The identical-keys prediction: the page's choices, in its order.
IDENTICAL_KEYS = _base.Prediction(("均等", "自分", "先頭", "問い次第"), "均等", IDENTICAL_KEYS_SYNONYMS)


@_base.exercise
@_base.asks(IDENTICAL_KEYS)
def check_identical_keys_prediction(answer) -> None:
    """Chapter 06 prediction: if every key is the same vector, what do the weights look like?"""
    _base.check_choice(
        answer,
        IDENTICAL_KEYS.correct,
        IDENTICAL_KEYS.choices,
        {
            "均等": "見出しが全部同じなら、1 つの行の中の得点はすべて同じ値です。ソフトマックスは"
                    "同じ得点に同じ重みを配るので、どの行も 1/n ずつ。"
                    "出力はどの行も V の平均になります。",
            "自分": "自分を選ぶのは、問いと見出しが同じ(Q = K = X)ときの話でした(第 1 章)。"
                    "ここで同じなのは、見出しどうしです。ステップ 1 の得点表の 1 行が"
                    "どうなるかを考えてみましょう。",
            "先頭": "ステップ 1 の得点表の 1 行を、この問題の見出しで書き出してから、ステップ 2 の"
                    "ソフトマックスの式 exp(s_i) / Σ exp(s_j) に入れてみましょう。先頭の見出しだけが"
                    "特別になるところはあるでしょうか。",
            "問い次第": "問いが変わると、その行の得点の大きさは変わります。では、1 つの行の中の得点"
                        "どうしはどうでしょう。ステップ 1 の得点表の 1 行を、この問題の見出しで"
                        "書き出してみましょう。",
        },
        IDENTICAL_KEYS.synonyms,
    )



#: Chapter 06, 練習 3: the hint for each typical mistake in `batch_attention(Q, K, V)` (b sentences).
BATCH_HINTS = {
    "full_T": "K.T は、3 次元の配列では軸の順番を全部逆にします(文の数 × 語の数 × d_k → d_k × 語の数 × "
              "文の数)。入れ替えたいのは最後の二つの軸だけです。「文をいくつも一度に:先頭の軸」の節で、"
              "二つの軸だけを入れ替える書き方を見直しましょう。",
    "axis1": "ソフトマックスを axis=1 にかけています。3 次元の配列では axis=1 は問い(語)の軸なので、"
             "各列の和が 1 になります。一つの問いの行ごと、つまり最後の軸にかけましょう。",
    "whole_sentence": "ソフトマックスを一つの文の表全体にかけています(表全体の和が 1)。和が 1 になるのは、"
                      "一つの問いの行ごとです。最後の軸にかけましょう。",
    "by_n_q": "得点を問いの数の平方根で割っています。2 次元の Q では形の番号 1 の長さが d_k でしたが、"
              "(文の数, 問いの数, d_k) の 3 次元の Q では、先頭に軸が一つ増えて、番号 1 は問いの数です。"
              "d_k がどの軸の長さかを数え直しましょう。",
    "by_n_q_axis1": "ステップ 2 のセルを 2 次元のときのまま使っていませんか。(文の数, 問いの数, d_k) の 3 次元の Q では、"
                    "形の番号 1 の長さは d_k ではなく問いの数で、axis=1 も一つの問いの行ではなく問いの軸です。"
                    "d_k がどの軸の長さか、和が 1 になるのはどの軸かを数え直しましょう。",
    "first_sentence": "返ってきた重みは 2 次元の表一枚で、1 文め(文 0)の重みです。ほかの文の表がありません。"
                      "返すのは、文の数だけの表を先頭の軸に重ねた 3 次元の配列です。@ やソフトマックスが 3 次元の"
                      "配列のどの軸に働くかを考えると、文を一つずつ取り出さなくても書けます。",
    "no_sqrt": ATTENTION_HINTS["no_sqrt"],
    "by_d": ATTENTION_HINTS["by_d"],
    "no_softmax": ATTENTION_HINTS["no_softmax"],
    "swapped": ATTENTION_HINTS["swapped"],
    "weights_as_output": ATTENTION_HINTS["weights_as_output"],
    "bad_output": ATTENTION_HINTS["bad_output"],
}


def _batch_cases(hidden: bool = False) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Two batches: 2 sentences of 3 words attending to 2 (there b = d_k = n_k, so `K.T` runs and
    gives wrong numbers instead of an error), and 3 sentences of 2 words attending to 5.
    `hidden`: three batches the notebook never shows, the first with b = d_k = n_k as the visible
    one (so `K.T` is named there before it crashes on the others)."""
    if hidden:
        return _base.hidden_cases("batch_attention", ((3, 4, 3), (3, 3, 3), (3, 3, 2)),
                                  ((4, 3, 5), (4, 6, 5), (4, 6, 2)), ((2, 7, 3), (2, 7, 3), (2, 7, 4)))
    rng = np.random.default_rng(63)
    silent_T = (rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 2, 2)), rng.normal(size=(2, 2, 3)))
    wide = (rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 5, 2)))
    return [silent_T, wide]


def _batch_attention_variants(Q, K, V) -> dict[str, np.ndarray]:
    """The weights (b × n_q × n_k) of batched attention ("right") and those of each mistake."""
    S = Q @ np.swapaxes(K, -1, -2)
    root = np.sqrt(Q.shape[-1])
    variants = {
        "right": softmax(S / root, axis=-1),
        "axis1": softmax(S / root, axis=1),
        "by_n_q": softmax(S / np.sqrt(Q.shape[1]), axis=-1),      # d_k = Q.shape[1], copied from 2-D code
        "by_n_q_axis1": softmax(S / np.sqrt(Q.shape[1]), axis=1),  # step 2's cell whole
        "whole_sentence": softmax((S / root).reshape(len(S), 1, -1), axis=-1).reshape(S.shape),
        "no_sqrt": softmax(S, axis=-1),
        "by_d": softmax(S / Q.shape[-1], axis=-1),
        "no_softmax": S / root,
    }
    variants["first_sentence"] = variants["right"][0]  # one sentence's 2-D table: Q[0], K[0], V[0] only
    if K.T.shape[0] == Q.shape[0] and K.T.shape[1] == Q.shape[2]:  # Q @ K.T runs, wrongly
        variants["full_T"] = softmax(Q @ K.T / root, axis=-1)
    return variants


@_base.exercise
def check_batch_attention(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 06, 練習 3: `fn(Q, K, V)` for b sentences at once (Q: b × n_q × d_k, K: b × n_k × d_k,
    V: b × n_k × d_v) returns `(output, weights)`, b × n_q × d_v and b × n_q × n_k."""
    for Q, K, V in _batch_cases(hidden):
        variants = _batch_attention_variants(Q, K, V)
        w = _base.wrong_attention_weights(fn, Q, K, V, "batch_attention", variants, BATCH_HINTS,
                                          forbid=attention.__all__)
        if w is None:
            continue
        _base.fail_on_typical_mistake(w, variants, BATCH_HINTS)
        want = variants["right"]
        if w.shape != want.shape:
            _base.fail(f"Q {Q.shape}, K {K.shape}, V {V.shape} のとき、weights の形は (文の数, 問いの数, "
                       f"見出しの数) = {want.shape} のはずが {w.shape} でした。", mistake="weights_shape")
        if np.allclose(w[0], want[0]):
            _base.fail("文 0(1 文め)の重みは合っていますが、文 1(2 文め)からが違います。どの文も、自分の文の問いと見出し"
                       "だけで計算しているかを確かめましょう。", mistake="later_sentences")
        s = int(np.argmax([not np.allclose(w[i], want[i]) for i in range(len(want))]))  # first sentence off
        _base.fail_on_wrong_values(want[s], w[s], f"weights[{s}]",
                                   said=f"Q {Q.shape}, K {K.shape}, V {V.shape} で、")
    _base.passed("文ごとに、行ごとの重み(和が 1)で中身を混ぜられました。先頭の軸がいくつでも同じ書き方で"
                 "動きます。", quiet=hidden)
