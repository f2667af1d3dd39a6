"""Chapter 08's exercises: causal attention, and several heads cut from one fused matrix."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _validate
from ..attention import softmax
from ..heads import causal_mask, masked_softmax, merge_heads, split_heads
from . import _base

#: Chapter 08: the hint for each typical mistake in `causal_attention(Q, K, V)`.
CAUSAL_HINTS = {
    "no_mask": "マスクがかかっていません。後ろの語(対角より上)への重みが 0 になっていません。"
               "隠したいマスの得点を、ソフトマックスの前に -inf にします。",
    "lower": "隠す三角形が逆です。隠すのは対角より上(列の番号 > 行の番号、つまり後ろの語)です。"
             "np.tril ではなく np.triu(..., k=1) を使います。",
    "diagonal": "対角まで隠しています。自分自身(対角)は見てよいので、np.triu の k=1 です(k=0 だと "
                "1 行めがすべて -inf になり、NaN が出ます)。",
    "plus_inf": "マスクの符号を確かめましょう。最後の行のほかはどの行の重みも NaN で、隠すマスに +inf"
                "(プラスの無限大)を足した形です。+inf を足すと、ソフトマックスで inf − inf や inf / inf が"
                "出て NaN になります。隠すマスの得点は -inf(マイナスの無限大)にします。",
    "nan": "重みに NaN が出ています。どこかの行がすべて -inf になっていませんか?"
           "対角(自分自身)は隠さないので、np.triu(..., k=1) です。",
    "mask_after": "ソフトマックスのあとでマスクを足しています(重みに -inf が残っています)。"
                  "マスクは得点に足してから、ソフトマックスにかけます。",
    "zeroed_after": "ソフトマックスのあとで上の三角を 0 にしています。これでは行の和が 1 になりません。"
                    "マスク(-inf)を得点に足してからソフトマックスにかければ、残りの重みで和が 1 になります。",
    "no_sqrt": "得点を √d_k で割り忘れています。Q @ K.T / np.sqrt(d_k) にマスクを足します。",
    "transposed": "得点表が転置になっています。K @ Q.T ではなく Q @ K.T です"
                  "(行 = 問い、列 = 見出し)。",
    "swapped": "返す順番が逆です。(output, weights) の順、つまり出力が先、重みが後です。",
    "weights_as_output": "出力のところに重みをそのまま返しています。出力は weights @ V です。",
    "bad_output": "重みは合っていますが、出力が違います。",
}

#: Chapter 08: the hint for each typical mistake in `multi_head(X, W_Q, W_K, W_V, W_O, h)`.
MULTI_HEAD_HINTS = {
    "no_W_O": "最後に W_O をかけ忘れています。つないだ各頭の出力(語の数 × h·d_v)に W_O をかけると、"
              "語の数 × d_model に戻ります。",
    "reshape_only": "Q.reshape(h, n, d_k) のように、いきなり (頭, 語, 列) の形にしていませんか。"
                    "それでは数の切れ目がずれて、語と頭が混ざります。"
                    "「本物のコードの書き方」の節で、111, 112, … の数がどう並び替わったかを見直しましょう。",
    "merge_reshape_only": "頭に分けるところは合っていますが、つなぎ方が違います。各頭の出力を縦に"
                          "(axis=0)つないでから形を変えたり、(頭, 語, 列) の配列をそのまま "
                          "reshape(n, h·d_v) したりすると、一語の行に別の語の結果が入ります。"
                          "つないだ表の一行が、一つの語の全部の頭の出力になっているか確かめましょう。",
    "no_sqrt": "得点を √d_k で割り忘れています。d_k は一つの頭の列の数(全体の列の数 / h)です。",
    "full_sqrt": "得点を全体の列の数(h·d_k)の平方根で割っています。割るのは一つの頭の列の数 d_k の平方根です。",
    "one_head": "h 個に分けずに、全体を一つの頭として計算しています。W_Q の列を h 等分して、"
                "頭ごとに別々のアテンションをとります。",
    "reversed": "頭をつなぐ順番が逆です。頭 0 の出力が左、頭 h−1 の出力が右になるように並べます。",
    "transposed": "値は合っていますが、出力が転置(d_model × 語の数)になっています。積の順番を確かめましょう。"
                  "W_O.T を左、つないだ行列の .T を右に掛けると、(つないだ行列 @ W_O).T と同じものになります。"
                  "つないだ行列(語の数 × h·d_v)を左、W_O(h·d_v × d_model)を右に掛けます。",
}


def _causal_variants(Q, K, V) -> dict[str, np.ndarray]:
    n = Q.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[1])
    mask = causal_mask(n)
    with np.errstate(invalid="ignore"):
        diagonal = np.exp(S + np.triu(np.full((n, n), -np.inf), k=0))
        diagonal = diagonal / diagonal.sum(axis=1, keepdims=True)
    plain = masked_softmax(S)
    return {
        "right": masked_softmax(S, mask),
        "no_mask": plain,
        "lower": masked_softmax(S, mask.T),
        "diagonal": diagonal,
        "zeroed_after": plain * np.tril(np.ones((n, n))),
        "no_sqrt": masked_softmax(Q @ K.T, mask),
        "transposed": masked_softmax(K @ Q.T / np.sqrt(Q.shape[1]), mask),
    }


def _causal_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Square problems (a decoder looks at its own words): d_k = 4 tells √d_k from d_k."""
    if hidden:
        return _base.hidden_cases("causal_attention", ((6, 3), (6, 3), (6, 2)),
                                  ((3, 4), (3, 4), (3, 5)))
    rng = np.random.default_rng(8)
    sizes = ((4, 4, 3), (5, 2, 2))
    return [(rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v)))
            for n, d_k, d_v in sizes]


@_base.exercise
def check_causal_attention(fn: Callable, hidden: bool = False) -> None:
    """Chapter 08: `fn(Q, K, V)` returns `(output, weights)` of causal scaled dot-product attention.

    `hidden=True` uses problems the notebook never shows (the autograder's hidden test).
    """
    for Q, K, V in _causal_cases(hidden):
        variants = _causal_variants(Q, K, V)
        w = _base.wrong_attention_weights(fn, Q, K, V, "causal_attention", variants, CAUSAL_HINTS)
        if w is None:
            continue
        want_w = variants["right"]
        if w.shape != want_w.shape:
            _base.fail(f"weights の形は (語の数, 語の数) = {want_w.shape} のはずですが、{w.shape} でした。")
        if np.isneginf(w).any():
            _base.fail(CAUSAL_HINTS["mask_after"])
        nan_rows = np.isnan(w).any(axis=1)
        if len(w) > 2 and nan_rows[:-1].all() and not nan_rows[-1]:  # every row that hides a key
            _base.fail(CAUSAL_HINTS["plus_inf"])
        if np.isnan(w).any():
            _base.fail(CAUSAL_HINTS["diagonal"] if np.isnan(w[0]).all() else CAUSAL_HINTS["nan"])
        _base.fail_on_typical_mistake(w, variants, CAUSAL_HINTS)
        if np.any(np.triu(w, k=1) != 0):
            _base.fail("対角より上(後ろの語)の重みが 0 になっていません。マスクを得点に足したか確かめましょう。")
        if not np.allclose(w.sum(axis=1), 1.0):
            _base.fail("重みの各行の和が 1 になっていません。マスクを足した得点を、行ごとにソフトマックスに通します。")
        _base.fail(f"Q {Q.shape}, K {K.shape}, V {V.shape} で、weights の 2 行めは {want_w[1]} になるはずが "
                   f"{w[1]} でした。")
    _base.passed("後ろの語への重みはちょうど 0、どの行も和が 1 で、1 行めは自分自身だけを見ています。",
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
    _validate.matmul_operands(np.empty((1, a["W_V"].shape[1])), a["W_O"], ("各頭の出力をつないだ行列", "W_O"),
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
        "one_head": _heads(Q[None], K[None], V[None], np.sqrt(h * d_k))[0] @ W_O,
        "reversed": merge_heads(H[::-1]) @ W_O,
        "transposed": (merge_heads(H) @ W_O).T,
    }


def _multi_head_cases(hidden: bool):
    """(X, W_Q, W_K, W_V, W_O, h) with d_model ≠ h·d_v, so a missing W_O shows in the shape."""
    if hidden:  # (n, d_model) = (5, 4) with h = 3, d_k = 2; (4, 3) with h = 2, d_k = 3
        return _base.hidden_cases("multi_head", ((5, 4), (4, 6), (4, 6), (4, 6), (6, 4), 3),
                                  ((4, 3), (3, 6), (3, 6), (3, 6), (6, 3), 2))
    rng = np.random.default_rng(9)
    sizes = ((4, 3, 2, 2), (5, 2, 3, 2))
    cases = []
    for n, d_model, h, d_k in sizes:
        cases.append((rng.normal(size=(n, d_model)),
                      *(rng.normal(size=(d_model, h * d_k)) for _ in range(3)),
                      rng.normal(size=(h * d_k, d_model)), h))
    return cases


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
            on_error=f"X {X.shape}, W_Q {W_Q.shape}, W_O {W_O.shape}, h = {h}(一つの頭の d_k = {d_k})"
                     "のとき、途中の形を print して確かめましょう。各頭の出力(語の数 × d_v)は横に"
                     "(axis=1)つないで 語の数 × h·d_v にし、それに W_O をかけます。")
        out = _base.as_float_array(result, "multi_head")
        variants = multi_head_variants(X, W_Q, W_K, W_V, W_O, h)
        want = variants["right"]
        if _base.same(out, want):
            continue
        _base.fail_on_typical_mistake(out, variants, MULTI_HEAD_HINTS)
        if out.shape != want.shape:
            _base.fail(f"出力の形は (語の数, d_model) = {want.shape} のはずですが、{out.shape} でした。"
                       "各頭の出力を横につないでから W_O をかけると、語の数 × d_model に戻ります。")
        _base.fail(f"X {X.shape}、W_Q {W_Q.shape}、W_O {W_O.shape}、h = {h} で、出力の 1 行めは {want[0]} に"
                   f"なるはずが {out[0]} でした。")
    _base.passed("頭ごとのアテンションを横につなぎ、W_O で語の数 × d_model に戻せています"
                 "(頭が 2 つでも 3 つでも)。", quiet=hidden)
