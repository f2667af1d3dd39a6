"""Chapter 03's exercises: the party's weight table, and whether K = Q makes it symmetric."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _validate
from ..attention import masked_softmax, softmax
from ..data import party
from . import _base

#: Chapter 03: the hint for each typical mistake in `party_weights(Q, K)`.
PARTY_HINTS = {
    "no_softmax": "得点の表をそのまま返しています(各行の和が 1 になっていません)。"
                  "「得点を重みにする:ソフトマックス」の節を見直しましょう。",
    "unnormalised": "np.exp を取ったところで止まっています(各行の和が 1 になっていません)。"
                    "ソフトマックスの式の分母を見直しましょう。",
    **_base.KEEPDIMS_HINTS,
    "stable_unnormalised": "最大値を引いて np.exp を取るところまでは正しいのですが、そこで止まっています"
                           "(各行の和が 1 になっていません)。ソフトマックスの式の分母を見直しましょう。",
    "whole": "表全体の和で割っています(全マスの合計が 1 です)。重みは「探す人ひとり(1 行)ごとに和が 1」"
             "の表でした。何の和で割るかを見直しましょう。",
    "axis0": "ソフトマックスを列の方向(axis=0)にかけています(各列の和が 1 です)。"
             "これでは、探される人(列)ごとの配分になってしまいます。「得点を重みにする:ソフトマックス」"
             "の節で、配分を決めるのが誰だったかを見直しましょう。",
    "swapped": "Q と K の役目が逆になっています。行が探される人(K)、列が探す人(Q)の表です。"
               "「誰が誰を探しているか:得点の表」の節で、行と列がそれぞれ誰だったかを見直しましょう。",
    "transposed": "答えが、正しい表の転置(行と列を入れ替えたもの)になっています。得点の表の行と列が"
                  "入れ替わったうえで、ソフトマックスが列ごとにかかっています。「誰が誰を探しているか」"
                  "と「得点を重みにする」の二つの節を見直しましょう。",
    "scaled": "得点を √d_k で割っていませんか? それは第 6 章で出てくる工夫で、この章の重みの表には"
              "入りません。",
    "overflow": "得点がとても大きい表で np.exp があふれて(オーバーフロー)inf になり、inf / inf で "
                "nan が出ています。あふれを防ぐ一歩は、問題文が指す第 0 章の練習 1 の前置きにあります。それを表の各行に当てはめましょう。",
    "clipped": "得点を np.clip などで切り詰めていませんか? あふれはしませんが、切り詰められた得点どうしが"
               "同じ値になり、一番の相手が分からなくなります。あふれを防ぐ一歩は、問題文が指す第 0 章の練習 1 の前置きにあります。",
    "column_max": "各列の最大値(axis=0)を引いています。列の最大値は、同じ行の中でもマスごとに違う数なので、"
                  "引くと行の中の得点の差が変わり、重みも変わってしまいます。同じ数を引いても重みが変わらないのは、"
                  "一行(探す人ひとり)の中で同じ数を引くときです。",
    "global_max": "表全体の最大値 S.max() を引いています。あふれはしませんが、一番大きい得点が表全体の"
                  "最大値よりずっと小さい行では、exp が全部 0 に(アンダーフロー)なり、0 / 0 で nan に"
                  "なります。同じ数を引いても重みが変わらないのは、一行(探す人ひとり)の中で同じ数を引くときです。何の最大値を引くかを考え直しましょう。",
    "row_min": "各行の最小値を引いています。一行の中で同じ数を引くので重みは変わりませんが、最小値を引くと"
               "残りの得点は 0 以上になり、一番大きい得点が千を超えて離れていると np.exp があふれて inf、"
               "inf / inf で nan になります。np.exp に入る数がどれも 0 以下になるのは、何を引いたときでしょう。",
}


def _queries_meet_keys(a: dict) -> None:
    _validate.require_same_length(a["Q"], a["K"], "Q", "K", dim="列数 d_k")
    _validate.guard_size((a["Q"].shape[0], a["K"].shape[0]), "得点の表 Q Kᵀ")


# The naive mistakes overflow on purpose for huge scores: their inf is part of the answer.
@_validate.public(_queries_meet_keys, finite=False, Q=_validate.arg(_validate.as_matrix),
                  K=_validate.arg(_validate.as_matrix))
def party_weight_variants(Q, K) -> dict[str, np.ndarray]:
    """The weights softmax(Q Kᵀ) row by row ("right"), and what each typical mistake returns."""
    S = Q @ K.T
    e = np.exp(S - S.max())
    with np.errstate(over="ignore", invalid="ignore"):  # huge scores: the naive versions overflow
        raw = np.exp(S)
        variants = {
            "right": softmax(S, axis=1),
            "no_softmax": S,
            "unnormalised": raw,
            "whole": e / e.sum(),
            "axis0": softmax(S, axis=0),
            "swapped": softmax(S.T, axis=1),
            "transposed": softmax(S.T, axis=0),
            "scaled": softmax(S / np.sqrt(Q.shape[1]), axis=1),
        }
        stable = np.exp(S - S.max(axis=1, keepdims=True))
        variants["stable_unnormalised"] = stable
        variants["stable_unnormalised:whole_max"] = e
        variants["whole:row_max"] = stable / stable.sum()  # stable row by row, then the table's sum
        # Right on ordinary scores; on huge ones, nan where exp overflows, or where a whole row
        # underflows to 0 after the table's maximum is taken away: named only when they differ.
        by_column = np.exp(S - S.max(axis=0, keepdims=True))
        by_row_min = np.exp(S - S.min(axis=1, keepdims=True))
        for name, top in (("overflow", raw), ("global_max", e), ("column_max", by_column), ("row_min", by_row_min)):
            if not _base.same(top / top.sum(axis=1, keepdims=True), variants["right"]):
                variants[name] = top / top.sum(axis=1, keepdims=True)
        for limit in (100, 500, 700, 709):  # scores cut at exp's range: two cut ones tie
            clipped = softmax(np.clip(S, -limit, limit), axis=1)
            if not _base.same(clipped, variants["right"]):
                variants[f"clipped:{limit}"] = clipped
    return variants | _base.keepdims_slips(S)


def _party_weights_advice(err: Exception) -> str:
    """Where to look, by the kind of crash: the scores' product, or a row-wise step."""
    if _base.matmul_sizes(err):
        return ("得点の表は (探す人の数) × (名札の数) の形になるはずです(Q は 探す人の数 × d_k、"
                "K は 名札の数 × d_k)。途中の形を print して確かめましょう。")
    return ("途中の形を print して確かめましょう。行ごとの最大値や和の形が (n,) か (n, 1) か"
            "(keepdims)にも気をつけましょう。")


def _party_cases(hidden: bool = False) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(label, Q, K): the party, fewer seekers than tags, and scores past exp's range, in the
    visible check and in the hidden test alike (`_party_score_kinds`)."""
    if hidden:
        (q, k), (q2, tall), (q3, k3) = ((np.round(a, 2), np.round(b, 2)) for a, b in _base.hidden_cases(
            "party_weights", ((4, 3), (4, 3)), ((4, 3), (6, 3)), ((4, 3), (4, 3))))
        return [("隠しテスト(4 人)", q, k),
                ("隠しテスト(4 人が 6 枚の名札を見る)", q2, tall),
                ("隠しテスト(得点が大きい場合)", q3 * 1000, k3)]
    guests = party()
    Q, K = guests.Q, guests.K
    return [
        ("交流会の 5 人", Q, K),
        ("探す人が 3 人、名札が 5 枚", Q[:3], K),
        # rows' largest scores 1400 to 2400 apart by more than exp's range: S.max() alone fails here
        ("得点が千を超える場合", Q * 400, K),
    ]


def _party_score_kinds(case) -> set[str]:
    """The kinds of huge scores a case has: a row whose two largest are past exp's range (a clip
    at ±700 ties them), rows' maxima further apart than that range (the table's maximum alone
    underflows a row)."""
    _, Q, K = case
    S = Q @ K.T
    kinds = set()
    if (np.sort(S, axis=1)[:, -2] > 709).any():
        kinds.add("two scores of a row past exp's range")
    if np.ptp(S.max(axis=1)) > 745:
        kinds.add("rows' maxima further apart than exp's range")
    return kinds


@_base.exercise
def check_party_weights(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 03: `fn(Q, K)` returns the weight table softmax(Q Kᵀ) (softmax over each row)."""
    for label, q, k in _party_cases(hidden):
        got = _base.call_learner(fn, q.copy(), k.copy(), what="party_weights",
                                 call=f"{label}(Q {q.shape}, K {k.shape})で party_weights",
                                 on_error=_party_weights_advice, forbid=("softmax", "heads"))
        w = _base.as_float_array(got, "party_weights")
        variants = party_weight_variants(q, k)
        want = variants["right"]
        if _base.same(w, want):
            continue
        if w.shape == want.T.shape and w.shape != want.shape:
            _base.fail(f"{label}: 形が {w.shape} です。行 = 探す人 {q.shape[0]} 人、列 = 名札 {k.shape[0]} 枚で "
                       f"{want.shape} のはずです。{PARTY_HINTS['swapped']}", mistake="swapped")
        if w.shape != want.shape:
            _base.fail(f"{label}: 重みの表の形は (探す人の数, 名札の数) = {want.shape} のはずですが、"
                       f"{w.shape} でした。", mistake="wrong_shape")
        _base.fail_on_typical_mistake(w, variants, PARTY_HINTS, said=f"{label}: ")
        if _base.rounded_to(w, want) is not None:
            _base.fail_on_wrong_values(want, w, "重み", said=f"{label}: ")
        if not np.all(np.isfinite(w)):
            _base.fail(f"{label}: 重みに inf か nan が混ざっています。{_base.first_difference(want, w, '重み')}。"
                       "得点がとても大きい(または小さい)ときに何が起きるか、問題文を見直しましょう。",
                       mistake="not_finite")
        if not np.allclose(w.sum(axis=1), 1.0):
            sums = w.sum(axis=1)
            _base.fail(f"{label}: 各行の和が 1 になっていません({_base.first_difference(np.ones_like(sums), sums, '行の和')})。"
                       "「得点を重みにする:ソフトマックス」の節を見直しましょう。", mistake="rows_not_one")
        _base.fail_on_wrong_values(want, w, "重み", said=f"{label}(Q {q.shape}, K {k.shape}): 各行の和は 1 ですが、値が違います。")
    _base.passed("どの行も和が 1 で、行 = 探す人(見る側)、列 = 探される人(見られる側)の表になっています。"
                 "探す人と名札の数が違っても、得点が大きくても大丈夫です。", quiet=hidden)


#: Other words a learner may use for the symmetry prediction's choices.
SYMMETRY_SYNONYMS = {"対称": "対称になる", "なる": "対称になる", "左右対称": "対称になる",
                     "非対称": "対称にならない", "ならない": "対称にならない", "非対称になる": "対称にならない",
                     "対称ではない": "対称にならない", "場合による": "人による"}


def _symmetry_prediction() -> _base.Prediction:
    """The page's three choices; the right one is whether the party's weights softmax(Q Qᵀ), row
    by row, are symmetric (the scores Q Qᵀ are; each row of weights is divided by its own sum)."""
    Q = party().Q
    A = softmax(Q @ Q.T, axis=1)
    return _base.Prediction(("対称になる", "対称にならない", "人による"),
                            "対称になる" if np.allclose(A, A.T) else "対称にならない", SYMMETRY_SYNONYMS)


#: The symmetry prediction, its answer computed from the party.
SYMMETRY = _symmetry_prediction()


@_base.exercise
@_base.asks(SYMMETRY)
def check_party_symmetry_prediction(answer) -> None:
    """Chapter 03 prediction: if everyone's name tag were their own Q (K = Q), the scores are
    symmetric; is the weight table A = softmax(S), taken row by row, symmetric too?"""
    _base.check_choice(
        answer,
        SYMMETRY.correct,
        SYMMETRY.choices,
        {
            "対称になる": "得点の表が対称なのは、そのとおりです。では、ソフトマックスは各行を何で割るのでしょう。"
                          "A[i, j] と A[j, i] を、それぞれ「分子 ÷ 分母」の形に書き出して、分子どうしと"
                          "分母どうしを見比べてみましょう。",
            "人による": "この五人の表 A の話です。A[i, j] と A[j, i] は、それぞれ誰の行の数でしょう。"
                        "二つを「分子 ÷ 分母」の形に書いて、等しくなるには何と何が等しくなければならないかを"
                        "考えてみましょう。",
            "対称にならない": "重みは行ごとに、その行の exp(得点) の合計で割ります。A[i, j] と A[j, i] は"
                              "分子が同じ exp(S[i, j]) でも、分母は i さんの行と j さんの行の合計です。"
                              "行の合計がそろっていないので、表は対称になりません。",
        },
        SYMMETRY.synonyms,
    )


#: Chapter 03, 練習 3: the hint for each typical mistake in `received_from_others(Q, K)`.
RECEIVED_HINTS = {
    "with_self": "自分から自分への重みも足しています。それは本文の「列の和」そのままです。表のどのマスが"
                 "「自分が自分を見る」分かを考えて、それを除きましょう。",
    "row_sums": "行の方向に足しています。受け取る注目は、探される人の列に集まります。",
    "row_sums_with_self": "どの人の値も 1 になっています。行の和は、一人ひとりが配る持ち分の全部"
                          "(ソフトマックスのあとは必ず 1)です。受け取る注目は、探される人の列に集まります。",
    "axis0_softmax": "ソフトマックスを列ごとにかけています。重みを配るのは探す人一人ひとりなので、"
                     "ソフトマックスは行ごとです。",
    "scores": "得点のまま足しています。先にソフトマックスで、一人ひとりの持ち分 1 を配る重みにしましょう。",
    "masked_before": "自分のマスを隠してからソフトマックスをかけています。それでは、ほかの人への重みまで"
                     "変わってしまいます。重みは本文のとおり自分も含めて配り、足すときに自分の分を除きます。",
    "swapped": "Q と K が入れ替わっています。得点の表は Q Kᵀ で、行が探す人(問い)、列が探される人(見出し)"
               "です。",
    "mean": "足したあと、人数で割って平均にしています。受け取る注目は、届いた重みを足し合わせたままの量です。",
    "minus_one": "列の和から 1 を引いています。1 は自分が配る持ち分の全部(自分の行の和)で、そのうち自分に"
                 "配った分は 1 より少ないはずです。自分から自分への重みは、表のどのマスにあるでしょう。",
}


def _received_variants(Q, K) -> dict[str, np.ndarray]:
    """How much attention each person receives from the others (column sums of the row-wise
    weights without the diagonal, "right"), and each mistake's."""
    S = Q @ K.T
    A = softmax(S, axis=1)
    mask = np.where(np.eye(len(S), dtype=bool), -np.inf, 0.0)
    return {"right": A.sum(axis=0) - np.diag(A), "with_self": A.sum(axis=0),
            "row_sums": A.sum(axis=1) - np.diag(A), "row_sums_with_self": A.sum(axis=1),
            "axis0_softmax": softmax(S, axis=0).sum(axis=0) - np.diag(softmax(S, axis=0)),
            "scores": S.sum(axis=0) - np.diag(S),
            "masked_before": masked_softmax(S, mask).sum(axis=0),
            "swapped": softmax(S.T, axis=1).sum(axis=0) - np.diag(softmax(S.T, axis=1)),
            "mean": (A.sum(axis=0) - np.diag(A)) / (len(S) - 1),
            "minus_one": A.sum(axis=0) - 1,
            "mean:everyone": (A.sum(axis=0) - np.diag(A)) / len(S)}


def _received_cases(hidden: bool = False):
    """The party, then four people with three-number faces; `hidden`: two the notebook never shows."""
    if hidden:
        return _base.hidden_cases("received", ((6, 2), (6, 2)), ((3, 4), (3, 4)))
    rng = np.random.default_rng(33)
    p = party()
    return [(p.Q, p.K), (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)))]


@_base.exercise
def check_received(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 03, 練習 3: `fn(Q, K)` returns, for each person, the attention received from the
    others: the column sums of the row-wise softmax of Q Kᵀ, each without its diagonal entry."""
    for Q, K in _received_cases(hidden):
        got = _base.as_float_array(
            _base.call_learner(fn, Q.copy(), K.copy(), what="received_from_others",
                               call="received_from_others(Q, K)",
                               on_error=f"Q {Q.shape}, K {K.shape} のとき、途中の形を print して確かめましょう。"),
            "received_from_others")
        variants = _received_variants(Q, K)
        _base.fail_unless_right(
            got, variants, RECEIVED_HINTS, name="答え", said=f"Q {Q.shape}, K {K.shape} のとき、",
            wrong_shape=f"Q {Q.shape}, K {K.shape} のとき、答えは一人に一つの数 {variants['right'].shape} "
                        f"のはずが {got.shape} でした。")
    _base.passed("行ごとに配った持ち分のうち、自分以外から届いた分だけを、列ごとに足し合わせました。",
                 quiet=hidden)
