"""Chapter 08's exercises: causal attention, and several heads cut from one fused matrix."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _validate, attention
from ..attention import softmax
from ..heads import causal_mask, masked_softmax, merge_heads, split_heads
from . import _base

#: Chapter 08: the hint for each typical mistake in `causal_attention(Q, K, V)`.
CAUSAL_HINTS = {
    "no_mask": "マスクがかかっていません。後ろの語(対角より上)への重みが 0 になっていません。"
               "「先を見ない目隠し:因果マスク」の節を見直しましょう。",
    "lower": "隠す三角形が逆です(前の語が隠れて、後ろの語が見えています)。"
             "「先を見ない目隠し:因果マスク」の節で、どちらの三角を隠したかを見直しましょう。",
    "diagonal": "対角(自分自身)まで隠しています。そのため 1 行めがすべて -inf になり、NaN が出ます。"
                "「全部が隠された行」の節を見直しましょう。",
    "plus_inf": "マスクの符号を確かめましょう。最後の行のほかはどの行の重みも NaN で、隠すマスに +inf"
                "(プラスの無限大)を足した形です。+inf を足すと、ソフトマックスで inf − inf や inf / inf が"
                "出て NaN になります。",
    "nan": "重みに NaN が出ています。どこかの行がすべて -inf になっていませんか?"
           "「全部が隠された行」の節を見直しましょう。",
    "mask_after": "ソフトマックスのあとでマスクを足しています(重みに -inf が残っています)。"
                  "「先を見ない目隠し:因果マスク」の節で、マスクを足す順番を見直しましょう。",
    "rows_zeroed": "空席の行(問い)の重みまで 0 にしています。空席は見られないだけで、空席の行も本物の語だけに"
                   "重みを配ります(どの行も和が 1)。隠すのは見出しの列だけです。",
    "zeroed_after": "ソフトマックスのあとで上の三角を 0 にしています。これでは行の和が 1 になりません。"
                    "因果マスクの節の「ソフトマックスの後で、上の三角を 0 にした場合」と見比べましょう。",
    "no_sqrt": "得点を √d_k で割り忘れています。第 6 章のアテンションの得点と見比べましょう。",
    "mask_multiplied": "マスクを得点に掛けていませんか? 掛けると、隠すマスの得点が 0 になるだけで、"
                       "後ろの語への重みが 0 になりません。マスクは得点に足すものです。",
    "mask_finite": "後ろの語への重みが、小さいけれど 0 ではありません。隠すマスに足した数が、"
                   "-inf(マイナスの無限大)ではなく有限の数になっていませんか?",
    "top_aligned": "Q を文の先頭の n_q 語の問いとして隠しています(1 行めが 1 語めしか見ていません)。Q は文の"
                   "最後の n_q 語の問いです。Q の 1 行めは文の何語めでしょう。そこから、それぞれの問いより後ろに"
                   "ある見出しを隠しましょう。",
    "offset_reversed": "問いの位置を逆向きにずらしています。Q は文の最後の n_q 語の問いなので、Q の 1 行めは文の"
                       "先頭より後ろにある語で、自分より前の見出しを何語も見てよいはずです。ところが今の答えでは、"
                       "前の語まで隠れて、全部が隠された行ができています。Q の 1 行めが文の何語めかを数えて、"
                       "隠す境目を右と左のどちらへずらすのかを確かめましょう。",
    "offset_n_k": "隠す境目を、問いの数 n_q によらず n_k − 1 にしていませんか? それで合うのは問いがちょうど "
                  "2 語のときだけです。Q の 1 行めが文の何語めかは、n_q によって変わります。そこから、"
                  "それぞれの問いより後ろにある見出しを隠しましょう。",
    "mask_shifted": "自分のすぐ後ろの語(対角のすぐ上)が見えています。隠す三角形が一段ずれていませんか? "
                    "「先を見ない目隠し:因果マスク」の節で、どこから上を隠したかを見直しましょう。",
    "transposed": "得点表の行と列が入れ替わっています(行が見出し、列が問いの表です)。"
                  "第 6 章のステップ 1 を見直しましょう。",
    "swapped": "返す順番が逆です。(output, weights) の順、つまり出力が先、重みが後です。",
    "weights_as_output": "出力のところに重みをそのまま返しています。第 6 章のステップ 3 を見直しましょう。",
    "bad_output": "重みは合っていますが、出力が違います。",
}

#: Chapter 08: the hint for each typical mistake in `multi_head(X, W_Q, W_K, W_V, W_O, h)`.
MULTI_HEAD_HINTS = {
    "no_W_O": "W_O をかけ忘れています(出力が 語の数 × h·d_v のままです)。"
              "「つないで、W_O で混ぜる」の節を見直しましょう。",
    "reshape_only": "Q.reshape(h, n, d_k) のように、いきなり (頭, 語, 列) の形にしていませんか。"
                    "それでは数の切れ目がずれて、語と頭が混ざります。"
                    "「本物のコードの書き方」の節で、111, 112, … の数がどう並び替わったかを見直しましょう。",
    "merge_reshape_only": "頭に分けるところは合っていますが、つなぎ方が違います。各頭の出力を縦に"
                          "(axis=0)つないでから形を変えたり、(頭, 語, 列) の配列をそのまま "
                          "reshape(n, h·d_v) したりすると、一語の行に別の語の結果が入ります。"
                          "つないだ表の一行が、一つの語の全部の頭の出力になっているか確かめましょう。",
    "no_sqrt": "得点を √d_k で割り忘れています(d_k は一つの頭の列の数です)。",
    "full_sqrt": "得点を全体の列の数(h·d_k)の平方根で割っています。問題文で、一つの頭の d_k が"
                 "いくつかを見直しましょう。",
    "sqrt_h": "得点を頭の数 h の平方根で割っています。割るのは一つの頭の列の数 d_k の平方根です。本文のセルの "
              "d_k = 2 を関数の中でそのまま使っていても、h = 2 のときはこの数になります。d_k は、受け取った行列の"
              "形と h から求めましょう。",
    "sqrt_d_model": "得点を d_model(X の列の数)の平方根で割っています。割るのは一つの頭の列の数 d_k の"
                    "平方根です。",
    "one_head": "h 個に分けずに、全体を一つの頭として計算しています。問題文で、頭 i が W_Q のどの列かを"
                "見直しましょう。",
    "reversed": "頭をつなぐ順番が逆です(頭 h−1 の出力が左に来ています)。",
    "transposed": "値は合っていますが、出力が転置(d_model × 語の数)になっています。積の順番を確かめましょう。",
}


def _later(n_q: int, n_k: int, shift: int = 0) -> np.ndarray:
    """n_q × n_k: True where key j comes after query i, the queries being the last n_q of the n_k
    words (query i is word n_k − n_q + i); `shift` moves the border (1: the next word is seen too)."""
    i, j = np.arange(n_q)[:, None], np.arange(n_k)[None, :]
    return j > i + (n_k - n_q) + shift


def _reversed(n_q: int, n_k: int) -> np.ndarray:
    """The cells a mask hides when its border is moved by n_k − n_q the wrong way (to the left)."""
    return _later(n_q, n_k, -2 * (n_k - n_q))


def _hide(S, hidden) -> np.ndarray:
    """Softmax of each row of S with the `hidden` cells at -inf (every row keeps a cell)."""
    return masked_softmax(S, np.where(hidden, -np.inf, 0.0))


def _causal_variants(Q, K, V) -> dict[str, np.ndarray]:
    """The right weights when the queries are the last n_q of the n_k words (the square case is
    the chapter's mask), and each typical mistake's."""
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[1])
    later = _later(n_q, n_k)
    plain = masked_softmax(S)
    with np.errstate(invalid="ignore"):  # the first query hides every key when n_q = n_k: NaN
        diagonal = np.exp(S + np.where(_later(n_q, n_k, -1), -np.inf, 0.0))
        diagonal = diagonal / diagonal.sum(axis=1, keepdims=True)
    variants = {
        "right": _hide(S, later),
        "mask_multiplied": masked_softmax(S * ~later),
        "mask_finite": masked_softmax(S - 10 * later),  # -1e9 is as good as -inf; -10 is not
        "mask_shifted": _hide(S, _later(n_q, n_k, 1)),
        "no_mask": plain,
        "lower": _hide(S, ~_later(n_q, n_k, -1)),        # the words before hidden, the later seen
        "diagonal": diagonal,                             # the query's own word hidden too
        "zeroed_after": plain * ~later,
        "no_sqrt": _hide(Q @ K.T, later),
    }
    if n_q < n_k:  # the queries taken as the first n_q words: a copy of the square mask's triu
        variants["top_aligned"] = _hide(S, np.arange(n_k)[None, :] > np.arange(n_q)[:, None])
    if n_q - 2 not in (0, 1):  # the border at k = n_k − 1, moved n_q − 2: the right one or mask_shifted's
        variants["offset_n_k"] = _hide(S, _later(n_q, n_k, n_q - 2))
    if n_q == n_k:
        variants["transposed"] = _hide(K @ Q.T / np.sqrt(Q.shape[1]), later)
    return variants


def _causal_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A square problem (a decoder reading its own words, the chapter's mask) and the last few
    words' queries against every word's keys (writing one word at a time with the keys kept),
    with d_v ≠ d_k: n, d_k and d_v differ in each, so √d_k, d_k and √n are different numbers. Both
    have a case with four queries: with two, the border k = n_k − 1 is the right one (with three,
    mask_shifted's), so an answer that takes it for every rectangular case passes the first two."""
    if hidden:
        return _base.hidden_cases("causal_attention", ((6, 3), (6, 3), (6, 2)),
                                  ((2, 4), (6, 4), (6, 5)), ((4, 2), (7, 2), (7, 3)))
    rng = np.random.default_rng(8)
    sizes = ((4, 4, 3, 2), (2, 5, 4, 3), (4, 6, 3, 5))
    return [(rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v)))
            for n_q, n_k, d_k, d_v in sizes]


def _causal_on_error(Q, K) -> str:
    """Where a crash of `causal_attention` comes from: a mask of the square size n_q × n_q (or
    n_k × n_k) added to n_q × n_k scores."""
    n_q, n_k = Q.shape[0], K.shape[0]
    if n_q == n_k:
        return f"Q {Q.shape}, K {K.shape} のときの途中の形を print して確かめましょう。"
    return (f"問いが {n_q} 語、見出しが {n_k} 語のとき、得点とマスクは ({n_q}, {n_k}) の形です。"
            f"マスクを ({n_q}, {n_q}) や ({n_k}, {n_k}) で作っていませんか? Q の各行が文の何語めかを"
            "考えて、隠すマスを決めましょう。")


@_base.exercise
def check_causal_attention(fn: Callable, hidden: bool = False) -> None:
    """Chapter 08: `fn(Q, K, V)` returns `(output, weights)` of causal scaled dot-product attention,
    the queries being the last n_q of the n_k words whose keys and values are given.

    `hidden=True` uses problems the notebook never shows (the autograder's hidden test).
    """
    for Q, K, V in _causal_cases(hidden):
        variants = _causal_variants(Q, K, V)
        w = _base.wrong_attention_weights(fn, Q, K, V, "causal_attention", variants, CAUSAL_HINTS,
                                          forbid=("attention", "heads"), on_error=_causal_on_error(Q, K))
        if w is None:
            continue
        want_w = variants["right"]
        if w.shape != want_w.shape:
            _base.fail(f"weights の形は (問いの数, 見出しの数) = {want_w.shape} のはずですが、{w.shape} でした。",
                       mistake="wrong_shape")
        if np.isneginf(w).any():
            _base.fail(CAUSAL_HINTS["mask_after"], mistake="mask_after")
        later = _later(*want_w.shape)
        nan_rows = np.isnan(w).any(axis=1)
        if len(w) > 2 and nan_rows[later.any(axis=1)].all() and not nan_rows[~later.any(axis=1)].any():
            _base.fail(CAUSAL_HINTS["plus_inf"], mistake="plus_inf")  # every row that hides a key
        if np.isnan(w).any():
            everything = _reversed(*want_w.shape).all(axis=1)  # rows the reversed border hides whole
            if len(w) < K.shape[0] and everything.any() and np.array_equal(np.isnan(w).any(axis=1), everything):
                _base.fail(CAUSAL_HINTS["offset_reversed"], mistake="offset_reversed")
            nan = "diagonal" if np.isnan(w[0]).all() else "nan"
            _base.fail(CAUSAL_HINTS[nan], mistake=nan)
        if len(w) < K.shape[0] and _base.same(w, masked_softmax(Q @ K.T / np.sqrt(Q.shape[1])
                                                                 - 1e9 * _reversed(*want_w.shape))):
            # -1e9 on the reversed border: rows hiding every key look unmasked, as a mask one step off
            # would on this case; the square case passed, so the border's direction is the mistake
            _base.fail(CAUSAL_HINTS["offset_reversed"], mistake="offset_reversed")
        _base.fail_on_typical_mistake(w, variants, CAUSAL_HINTS)
        if _base.rounded_to(w, want_w) is not None:
            _base.fail_on_wrong_values(want_w, w, "weights")
        if np.any(w[later] != 0):
            _base.fail("文の中で後ろにある語の重みが 0 になっていません。隠すマスの得点が、どんな値になって"
                       "いるかを print して確かめましょう。", mistake="upper_not_zero")
        if not np.allclose(w.sum(axis=1), 1.0):
            _base.fail("重みの各行の和が 1 になっていません。ソフトマックスのところを見直しましょう。",
                       mistake="rows_not_one")
        _base.fail_on_wrong_values(want_w, w, "weights", said=f"Q {Q.shape}, K {K.shape}, V {V.shape} で、")
    _base.passed("後ろの語への重みはちょうど 0、どの行も和が 1 で、問いが文の何語めかに合わせて隠せています。",
                 quiet=hidden)


def _heads(Qh, Kh, Vh, root) -> np.ndarray:
    return softmax(Qh @ Kh.swapaxes(-1, -2) / root) @ Vh


def _fused_heads_fit(a: dict) -> None:
    X, h = a["X"], a["h"]
    for name in ("W_Q", "W_K", "W_V"):
        a["X"], a[name] = _validate.matmul_operands(X, a[name], ("X", name), inner="d_model", out="h·d")
        if a[name].shape[1] % h:
            raise _validate.HelpersError(
                f"{name} の列の数 {a[name].shape[1]} は頭の数 h = {h} で割り切れません。"
                "各頭の列の数は 列の数 / h です。"
            )
    if a["W_Q"].shape != a["W_K"].shape:
        raise _validate.HelpersError(
            f"W_Q と W_K は同じ形にしてください: {a['W_Q'].shape} と {a['W_K'].shape} が来ました。"
        )
    _validate.matmul_operands(np.zeros((1, a["W_V"].shape[1])), a["W_O"], ("各頭の出力をつないだ行列", "W_O"),
                              inner="h·d_v", out="d_out")
    n = X.shape[0]
    _validate.guard_size((h, n, max(n, a["W_Q"].shape[1], a["W_V"].shape[1])), "頭ごとの重みと Q, K, V",
                         by="X の語の数か W_Q, W_V の列の数")


@_validate.public(_fused_heads_fit, X=_validate.arg(_validate.as_matrix),
                  W_O=_validate.arg(_validate.as_matrix), h=_validate.arg(_validate.integer, "h(頭の数)", lo=1))
def multi_head_variants(X, W_Q, W_K, W_V, W_O, h: int) -> dict[str, np.ndarray]:
    """The output of multi-head attention ("right") and of each typical mistake."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    n, d_k = Q.shape[0], Q.shape[1] // h
    Qh, Kh, Vh = split_heads(Q, h), split_heads(K, h), split_heads(V, h)
    H = _heads(Qh, Kh, Vh, np.sqrt(d_k))
    wrong = [M.reshape(h, n, M.shape[1] // h) for M in (Q, K, V)]
    H_wrong = _heads(*wrong, np.sqrt(d_k))
    return {
        "right": merge_heads(H) @ W_O,
        "no_W_O": merge_heads(H),
        "reshape_only": H_wrong.reshape(n, -1) @ W_O,
        "reshape_only:merged": merge_heads(H_wrong) @ W_O,
        "merge_reshape_only": H.reshape(n, -1) @ W_O,
        "no_sqrt": merge_heads(_heads(Qh, Kh, Vh, 1.0)) @ W_O,
        "full_sqrt": merge_heads(_heads(Qh, Kh, Vh, np.sqrt(h * d_k))) @ W_O,
        "sqrt_h": merge_heads(_heads(Qh, Kh, Vh, np.sqrt(h))) @ W_O,
        "sqrt_d_model": merge_heads(_heads(Qh, Kh, Vh, np.sqrt(X.shape[1]))) @ W_O,
        "one_head": _heads(Q[None], K[None], V[None], np.sqrt(h * d_k))[0] @ W_O,
        "one_head:head_root": _heads(Q[None], K[None], V[None], np.sqrt(d_k))[0] @ W_O,  # a head's d_k
        "reversed": merge_heads(H[::-1]) @ W_O,
        "transposed": (merge_heads(H) @ W_O).T,
    }


def _multi_head_cases(hidden: bool):
    """(X, W_Q, W_K, W_V, W_O, h) with d_model ≠ h·d_v, so a missing W_O shows in the shape; one
    visible and one hidden case have d_v ≠ d_k, so a head's values cut d_k wide (the chapter's
    loop or its merge into n × h·d_k, copied) do not fit."""
    if hidden:  # (n, d_model) = (6, 4) with h = 3, d_k = 2, d_v = 3; (6, 3) with h = 2, d_k = d_v = 4
        return _base.hidden_cases("multi_head", ((6, 4), (4, 6), (4, 6), (4, 9), (9, 4), 3),
                                  ((6, 3), (3, 8), (3, 8), (3, 8), (8, 3), 2))
    rng = np.random.default_rng(9)
    # d_model, h, d_k and h·d_k differ in each, so no two of their square roots coincide
    sizes = ((4, 3, 2, 4, 4), (5, 4, 3, 2, 3))
    cases = []
    for n, d_model, h, d_k, d_v in sizes:
        cases.append((rng.normal(size=(n, d_model)),
                      *(rng.normal(size=(d_model, h * d)) for d in (d_k, d_k, d_v)),
                      rng.normal(size=(h * d_v, d_model)), h))
    return cases


def _multi_head_kinds(case) -> set[str]:
    """The number of heads, and d_v ≠ d_k."""
    _, W_Q, _, W_V, _, h = case
    return {f"h = {h}", *(["d_v ≠ d_k"] if W_V.shape[1] != W_Q.shape[1] else [])}


def _stacked_heads(err: Exception, W_Q: np.ndarray, W_V: np.ndarray, W_O: np.ndarray) -> str:
    """What to say first when the product with W_O crashes: the heads' outputs put one under
    another (axis=0: one head's d_v columns on W_O's left), or the values cut d_k wide like the
    queries (h·d_k columns where W_O has h·d_v rows)."""
    sizes = _base.matmul_sizes(err)
    if not sizes or sizes[1] != W_O.shape[0]:
        return ""
    if W_Q.shape[1] != W_V.shape[1] and sizes[0] == W_Q.shape[1]:
        return (f"W_O({W_O.shape[0]} 行)の左に来た行列が {sizes[0]} 列です。一つの頭の中身の列の数は d_v で、"
                "問いと見出しの d_k とは違います。中身 V を何列ずつ頭に分けたかを確かめましょう。")
    if sizes[0] < W_O.shape[0]:
        return (f"W_O({W_O.shape[0]} 行)の左に来た行列が {sizes[0]} 列しかありません。"
                "各頭の出力を縦(axis=0)につないでいませんか?")
    return ""


@_base.exercise
def check_multi_head(fn: Callable, hidden: bool = False) -> None:
    """Chapter 08: `fn(X, W_Q, W_K, W_V, W_O, h)` returns the output (n × d_model) of h heads.

    W_Q, W_K, W_V are fused (d_model × h·d_k, head i in columns i·d_k … (i+1)·d_k − 1).
    `hidden=True` uses problems the notebook never shows (the autograder's hidden test).
    """
    for X, W_Q, W_K, W_V, W_O, h in _multi_head_cases(hidden):
        d_k = W_Q.shape[1] // h
        result = _base.call_learner(
            fn, X.copy(), W_Q.copy(), W_K.copy(), W_V.copy(), W_O.copy(), h, what="multi_head",
            call="multi_head(X, W_Q, W_K, W_V, W_O, h)",
            forbid=("heads", *(name for name in attention.__all__ if name != "softmax")),
            on_error=lambda err, X=X, W_Q=W_Q, W_V=W_V, W_O=W_O, h=h, d_k=d_k:
                _stacked_heads(err, W_Q, W_V, W_O) + f"X {X.shape}, W_Q {W_Q.shape}, W_V {W_V.shape}, W_O {W_O.shape}, "
                f"h = {h}(一つの頭の d_k = {d_k}、d_v = {W_V.shape[1] // h})のとき、途中の形を print して"
                "確かめましょう。")
        out = _base.as_float_array(result, "multi_head")
        variants = multi_head_variants(X, W_Q, W_K, W_V, W_O, h)
        _base.fail_unless_right(
            out, variants, MULTI_HEAD_HINTS, name="出力", shape_mistake="wrong_shape",
            said=f"X {X.shape}、W_Q {W_Q.shape}、W_O {W_O.shape}、h = {h} で、",
            wrong_shape=f"出力の形は (語の数, d_model) = {variants['right'].shape} のはずですが、{out.shape} でした。")
    _base.passed("頭ごとのアテンションを横につなぎ、W_O で語の数 × d_model に戻せています"
                 "(頭が 2 つでも 3 つでも、中身の列の数 d_v が d_k と違っても)。", quiet=hidden)


#: Chapter 08, 練習 3: the hint for each typical mistake in `padded_attention(Q, K, V, n_real)`.
PADDING_HINTS = {
    "no_mask": "空席の列にも重みが配られています。空席の見出しの列の重みがちょうど 0 になるのは、ソフトマックスの前の"
               "得点がどんな値のときだったでしょう(「先を見ない目隠し:因果マスク」の節)。",
    "rows": "隠しているのが空席の行(問い)になっています。空席は「誰からも見られない」ようにするので、"
            "隠すのは見出しの列です。",
    "off_by_one": "隠す席が一つずれています。席の番号は 0 から数えるので、本物の語は 0 〜 n_real − 1 番め、"
                  "空席は n_real 番めから後ろです。",
    "causal": "因果マスク(対角より上)をかけています。この練習で隠すのは後ろの語ではなく、空席の列です。",
    "rows_zeroed": "空席の行(問い)の重みまで 0 にしています。空席は見られないだけで、空席の行も本物の語だけに"
                   "重みを配ります(どの行も和が 1)。隠すのは見出しの列だけです。",
    "zeroed_after": "ソフトマックスのあとで空席の重みを 0 にしています。これでは行の和が 1 になりません。"
                    "マスクは得点に、ソフトマックスの前に足しましょう。",
    "no_sqrt": CAUSAL_HINTS["no_sqrt"],
    "swapped": CAUSAL_HINTS["swapped"],
    "weights_as_output": CAUSAL_HINTS["weights_as_output"],
    "bad_output": CAUSAL_HINTS["bad_output"],
}


def _padding_variants(Q, K, V, n_real: int) -> dict[str, np.ndarray]:
    """The weights of attention whose keys from `n_real` on are padding ("right"), and each mistake's."""
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[1])

    def hide_columns(first: int) -> np.ndarray:
        return np.broadcast_to(np.where(np.arange(n_k) < first, 0.0, -np.inf), (n_q, n_k))

    variants = {
        "right": masked_softmax(S, hide_columns(n_real)),
        "no_mask": masked_softmax(S),
        # the padded rows hidden instead: a real row is unchanged, a hidden one all -inf, 0 / 0
        "rows": np.where((np.arange(n_q) < n_real)[:, None], masked_softmax(S), np.nan),
        "off_by_one": masked_softmax(S, hide_columns(n_real + 1)),
        "causal": masked_softmax(S, causal_mask(n_q)) if n_q == n_k else masked_softmax(S),
        "zeroed_after": masked_softmax(S) * (np.arange(n_k) < n_real),
        "rows_zeroed": masked_softmax(S, hide_columns(n_real)) * (np.arange(n_q) < n_real)[:, None],
        "no_sqrt": masked_softmax(Q @ K.T, hide_columns(n_real)),
    }
    if n_real > 1:  # one seat fewer: with a single real word, every key would be hidden
        variants["off_by_one:less"] = masked_softmax(S, hide_columns(n_real - 1))
    return variants


def _padding_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """Four seats with two words (the rest padding) and six with three; `hidden`: others."""
    if hidden:
        return _base.hidden_cases("padded_attention", ((7, 3), (7, 3), (7, 2), 5), ((3, 4), (3, 4), (3, 2), 1))
    rng = np.random.default_rng(83)
    return [(rng.normal(size=(n, 4)), rng.normal(size=(n, 4)), rng.normal(size=(n, 3)), n_real)
            for n, n_real in ((4, 2), (6, 3))]


@_base.exercise
def check_padded_attention(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 08, 練習 3: `fn(Q, K, V, n_real)` hides the keys from `n_real` on (padding) and
    returns `(output, weights)` of scaled dot-product attention."""
    for Q, K, V, n_real in _padding_cases(hidden):
        variants = _padding_variants(Q, K, V, n_real)
        call = f"padded_attention(Q, K, V, {n_real})"
        result = _base.call_learner(fn, Q.copy(), K.copy(), V.copy(), n_real, what="padded_attention",
                                    call=call, on_error=f"Q {Q.shape}, K {K.shape}, n_real = {n_real} の"
                                    "ときの途中の形を print して確かめましょう。")
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            _base.fail("(output, weights) の 2 つを、この順の組(タプル)で返してください。"
                       f"{type(result).__name__} が返ってきました。", mistake="not_a_pair")
        out, w = (_base.as_float_array(r, "padded_attention") for r in result)
        want_w = variants["right"]
        if _base.same(out, want_w @ V) and _base.same(w, want_w):
            continue
        _base.check_attention_output(out, w, want_w @ V, want_w, V, PADDING_HINTS)
        _base.fail_on_typical_mistake(w, variants, PADDING_HINTS)
        if w.shape != want_w.shape:
            _base.fail(f"weights の形は (問いの数, 席の数) = {want_w.shape} のはずが {w.shape} でした。",
                       mistake="weights_shape")
        if np.isnan(w).any():
            _base.fail("重みに NaN が出ています。全部が -inf になった行がないか確かめましょう"
                       "(「全部が隠された行」の節)。", mistake="nan")
        if np.any(w[:, n_real:] != 0):
            _base.fail(PADDING_HINTS["no_mask"], mistake="padding_seen")
        _base.fail_on_wrong_values(want_w, w, "weights", said=f"{call} で、")
    _base.passed("空席の列の重みはちょうど 0 で、どの行も本物の語だけで和が 1 になりました。", quiet=hidden)
