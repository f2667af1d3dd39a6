"""Chapter 07's exercises: one gradient-descent step, a learning rate too large, and the gradient of
one W that makes both questions and keys."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import _validate
from . import _base

#: Chapter 07: the hint for each typical mistake in `update_W_Q(W_Q, X, dQ, lr)`, where X and dQ
#: hold b menus along their first axis (b × n × d_model and b × n × d_k).
GRADIENT_STEP_HINTS = {
    "sign": "勾配を足す向きに動かしています。「坂を下る:勾配降下法」の節で、勾配がどちらの向きを"
            "指していたかを見直しましょう。",
    "no_lr": "学習率 lr を掛け忘れています。勾配をそのまま使うと一歩が大きすぎます。",
    "sign_no_lr": "勾配を足していて、しかも学習率 lr を掛けていません。向きと一歩の大きさの両方を見直しましょう。",
    "by_lr": "学習率で割っています。「坂を下る:勾配降下法」の節の、一歩の式を見直しましょう。",
    "transposed": "勾配の形は合っていますが、転置になっています(dW_Q の i 行 j 列が、W_Q の j 行 i 列を"
                  "動かしています)。「勾配を求める」の節の dW_Q の式を見直しましょう。",
    "step_only": "W_Q を動かす「量」だけを返しています。返すのは、動かしたあとの新しい W_Q です。",
    "unchanged": "W_Q が元のまま返ってきました(少しも動いていません)。一歩ぶん動かした新しい W_Q を返します。",
    "averaged": "勾配をメニューの数で割っています(平均)。W_Q はどのメニューにも同じ一枚が使われるので、"
                "全体の勾配は、メニューごとの取り分の勾配の和でした(「勾配を求める」の節の終わり)。",
    "no_sum": "メニューごとの勾配を、足し合わせずにそのまま使っています(返した形が メニューの数 × d_model × "
              "d_k です)。W_Q は一枚だけで、どのメニューにも同じものが使われます。",
    "first_only": "1 つめのメニューの勾配しか使っていません。W_Q はどのメニューにも使われるので、どのメニューの"
                  "取り分の勾配も W_Q に届きます。",
}


def _step_fits(a: dict) -> None:
    """X is b × n × d_model and dQ b × n × d_k (b menus of n foods); W_Q is d_model × d_k."""
    W_Q, X, dQ = a["W_Q"], a["X"], a["dQ"]
    if X.ndim != 3 or dQ.ndim != 3 or X.shape[:2] != dQ.shape[:2] or (X.shape[2], dQ.shape[2]) != W_Q.shape:
        raise _validate.HelpersError(
            f"形が合いません: W_Q は shape {W_Q.shape}、X は shape {X.shape}、dQ は shape {dQ.shape} です。"
            "X は b × n × d_model(メニューの数 × 品の数 × d_model)、dQ は b × n × d_k、"
            "W_Q は d_model × d_k にしてください。"
        )


def _shares(X: np.ndarray, dQ: np.ndarray) -> np.ndarray:
    """Each menu's share of dW_Q, X_bᵀ dQ_b: b × d_model × d_k."""
    return np.swapaxes(X, -1, -2) @ dQ


@_validate.public(_step_fits, W_Q=_validate.arg(_validate.as_matrix), X=_validate.arg(_validate.as_array),
                  dQ=_validate.arg(_validate.as_array),
                  lr=_validate.arg(_validate.number, "lr(学習率)", positive=True))
def gradient_step_variants(W_Q, X, dQ, lr) -> dict[str, np.ndarray]:
    """The right new W_Q ("right") and what each typical mistake returns instead."""
    shares = _shares(X, dQ)
    G = shares.sum(axis=0)
    variants = {
        "right": W_Q - lr * G,
        "sign": W_Q + lr * G,
        "no_lr": W_Q - G,
        "sign_no_lr": W_Q + G,
        "by_lr": W_Q - G / lr,
        "averaged": W_Q - lr * G / X.shape[0],
        "unchanged": W_Q.copy(),
        "no_sum": W_Q - lr * shares,
        "first_only": W_Q - lr * shares[0],
    }
    if G.shape == G.T.shape:
        variants["transposed"] = W_Q - lr * G.T
    for i, step in enumerate((-lr * G, lr * G, G, -G)):
        variants[f"step_only:{i}"] = step
    return variants


def _raises_as(err: Exception, attempt: Callable[[], object]) -> bool:
    """Whether `attempt` stops with the same error as the learner's code did."""
    try:
        with np.errstate(all="ignore"):
            attempt()
    except Exception as again:  # the learner's formula, re-run on the same inputs
        return type(again) is type(err) and str(again) == str(err)
    return False


def _gradient_step_advice(err: Exception, X: np.ndarray, dQ: np.ndarray) -> str:
    """A crash of `update_W_Q`: `.T` on a 3-D array (it reverses every axis), an elementwise step
    (`X.T * dQ`, or dQ used as if it were dW_Q), or a product whose shapes do not fit."""
    if _raises_as(err, lambda: X.T @ dQ) or _raises_as(err, lambda: dQ.T @ X):
        return ("3 次元の配列に .T を使っていませんか? .T は全部の軸を逆にします(第 6 章「文をいくつも一度に:"
                "先頭の軸」)。入れ替えたいのは、メニューごとの行と列、つまり最後の二つの軸だけです。")
    shapes = _base.broadcast_shapes(err)
    if shapes and {dQ.shape, X.T.shape} & set(shapes):
        return ("dQ は Q の勾配で、形は W_Q と違います(b×n×d_k)。* は成分ごとの掛け算です。"
                "「勾配を求める」の節の dW_Q の式を見直しましょう。")
    return "dW_Q は W_Q と同じ d_model×d_k の形になるはずです。途中の形を print して確かめましょう。"


def _gradient_step_cases(hidden: bool = False):
    """Three menus of four foods with a square W_Q (d_model = d_k = 2, like the chapter) and two
    menus of three with d_k = 3; `hidden`: two the notebook never shows (d_model = 3). In each,
    `.T` on the 3-D X gives a product numpy refuses (the batch sizes differ from d_model or n)."""
    if hidden:
        return _base.hidden_cases("gradient_step", ((3, 2), (4, 5, 3), (4, 5, 2), 0.05),
                                  ((3, 3), (2, 3, 3), (2, 3, 3), 0.3))
    rng = np.random.default_rng(7)
    square = (rng.normal(size=(2, 2)), rng.normal(size=(3, 4, 2)), rng.normal(size=(3, 4, 2)), 0.5)
    wide = (rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 2)), rng.normal(size=(2, 3, 3)), 0.1)
    return [square, wide]


@_base.exercise
def check_gradient_step(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 07: `fn(W_Q, X, dQ, lr)` returns W_Q after one gradient-descent step, X and dQ
    holding several menus along their first axis (the gradient is the sum of their shares)."""
    for W_Q, X, dQ, lr in _gradient_step_cases(hidden):
        shapes = f"W_Q {W_Q.shape}, X {X.shape}, dQ {dQ.shape}"
        result = _base.call_learner(
            fn, W_Q.copy(), X.copy(), dQ.copy(), lr, what="update_W_Q",
            call=f"update_W_Q(W_Q, X, dQ, lr={lr})",
            on_error=lambda err, X=X, dQ=dQ, shapes=shapes: f"このとき {shapes} です。"
            + _gradient_step_advice(err, X, dQ))
        got = _base.as_float_array(result, "update_W_Q")
        variants = gradient_step_variants(W_Q, X, dQ, lr)
        if _base.same(got, variants["right"]):
            continue
        _base.fail_on_typical_mistake(got, variants, GRADIENT_STEP_HINTS)
        if got.shape != W_Q.shape:
            _base.fail(f"{shapes} のとき、新しい W_Q は元と同じ shape {W_Q.shape} のはずですが、"
                       f"shape {got.shape} が返ってきました。", mistake="wrong_shape")
        _base.fail_on_wrong_values(variants["right"], got, "新しい W_Q", said=f"{shapes}, lr={lr} で、")
    _base.passed("どのメニューの取り分も足し合わせて、勾配の逆向きに学習率の分だけ動かせています。"
                 "d_k = 3 の長方形の W_Q でも合っています。", quiet=hidden)


#: Other words a learner may use for the learning-rate prediction's choices.
LEARNING_RATE_SYNONYMS = {"発散": "壊れる", "発散する": "壊れる", "爆発": "壊れる", "爆発する": "壊れる",
                          "壊れた": "壊れる", "暴れる": "壊れる", "速い": "速くなる", "早くなる": "速くなる",
                          "同じ": "変わらない", "変わらず": "変わらない"}


#: The learning-rate prediction: the page's choices, in its order.
LEARNING_RATE = _base.Prediction(("速くなる", "変わらない", "壊れる"), "壊れる", LEARNING_RATE_SYNONYMS)


@_base.exercise
@_base.asks(LEARNING_RATE)
def check_learning_rate_prediction(answer) -> None:
    """Chapter 07 prediction: what happens when the learning rate goes from 0.5 to 1.0?"""
    _base.check_choice(
        answer,
        LEARNING_RATE.correct,
        LEARNING_RATE.choices,
        {
            "速くなる": "一歩を大きくすれば速く下りられる、と考えましたか? 一歩の式で η を 2 倍にすると、"
                        "W の動きは何倍になるでしょう。「坂を下る:勾配降下法」の節の山下りのたとえで、"
                        "一歩が大きすぎたらどこに着地するかを考えてみましょう。",
            "変わらない": "学習率は一歩の大きさそのものです。2 倍にすれば、毎回の W の動きも 2 倍に"
                          "なります。それでも同じ道をたどるでしょうか?",
            "壊れる": "一歩が大きすぎると谷底を飛び越え、着地点の坂がもっと急になって、"
                      "次の一歩はさらに大きくなります。これが繰り返されると損失は爆発します。",
        },
        LEARNING_RATE.synonyms,
    )



#: Chapter 07, 練習 3: the hint for each typical mistake in `grad_W_shared(X_q, X_kv, W, dS)`, where
#: one W makes both the questions (from X_q) and the keys (from X_kv). The hints ask what to check,
#: never give the line.
GRAD_W_SHARED_HINTS = {
    "query_only": "問いの道の勾配だけを返しています。W が作っているのは問い Q だけでしょうか。"
                  "S の式の中に W が何回出てくるかを数えてみましょう。",
    "key_only": "見出しの道の勾配だけを返しています。W が作っているのは見出し K だけでしょうか。"
                "S の式の中に W が何回出てくるかを数えてみましょう。",
    "averaged": "二つの道の勾配を平均しています。W を少し動かしたときの S の変わり方は、二つの道の"
                "変わり方の平均でしょうか、合計でしょうか。",
    "multiplied": "二つの道の勾配を掛け合わせています(成分ごとの積)。連鎖律で掛け算になるのは、一本の道に"
                  "つながった段どうしでした。W の一つの数を少しだけ動かしたとき、問いの道と見出しの道から来る"
                  "二つの S の変化は、どう合わさるでしょう。",
    "inputs_swapped": "二つの道で、左から掛ける語の列が入れ替わっていませんか。それぞれの道の勾配は、その道の"
                      "顔を作った語の列を通って W に届きます。Q を作ったのはどちらの列でしょう。",
    "roles_swapped": "問いと見出しが入れ替わっています(X_kv から問いを、X_q から見出しを作った勾配です)。"
                     "dS の行は問い、列は見出しでした。S の式で、問いを作るのはどちらの語の列かを見直しましょう。",
    "path_doubled": "一つの道の勾配を 2 倍にしていませんか。W が二回出てくるのは確かですが、二つの道は同じ量ではありません。"
                    "もう一本の道が、どの語の列と dS のどちらの向きを通って W に届くかを、別に考えましょう。",
    "no_T": "見出しの道で、dS の形 (n_q, n_k) と Q の形 (n_q, d_k) を見比べましょう。見出し(K の行)に"
            "対応するのは dS のどちらの軸で、K と同じ形の勾配を作るにはどうすればよいでしょう。",
    "no_sqrt": "S の式で QKᵀ に付いている定数は、勾配ではどうなるでしょう。S の式を見直しましょう。",
    "by_d": "割る数を S の式と見比べましょう。d_k と √d_k は違う数です。",
    "sign": "符号が逆です。勾配は損失が増える向きでした。マイナスを付けるのは、勾配を求めるときでしょうか、"
            "W を更新するときでしょうか。",
    "step": "W から勾配を引いた、一歩進めたあとの W を返しています。この練習で返すのは、勾配 dW そのものです。",
    "pair": "二つの道の勾配を、別々のまま組にして返しています(形の先頭に 2 が付いています)。W は一枚なので、"
            "dW も W と同じ形の一枚です。二つの道の勾配から、一枚の dW をどう作ればよいでしょう。",
}


def _grad_W_shared_variants(X_q, X_kv, W, dS) -> dict[str, np.ndarray]:
    """dL/dW for S = (X_q W)(X_kv W)ᵀ / √d_k given dS ("right": the two paths summed), and each
    mistake's result (those whose shapes fit)."""
    Q, K = X_q @ W, X_kv @ W
    d_k = W.shape[1]
    root = np.sqrt(d_k)
    by_query, by_key = X_q.T @ (dS @ K), X_kv.T @ (dS.T @ Q)
    right = (by_query + by_key) / root
    variants = {"right": right, "query_only": by_query / root, "key_only": by_key / root,
                "averaged": right / 2, "no_sqrt": right * root, "by_d": right * root / d_k,
                "sign": -right, "step": W - right, "pair": np.stack([by_query, by_key]) / root,
                "multiplied": by_query * by_key / d_k, "multiplied:once": by_query * by_key / root,
                "path_doubled": 2 * by_query / root, "path_doubled:key": 2 * by_key / root}
    if dS.shape[0] == dS.shape[1]:  # as many questions as keys: these run, wrongly
        variants |= {"inputs_swapped": (X_kv.T @ (dS @ K) + X_q.T @ (dS.T @ Q)) / root,
                     "no_T": (by_query + X_kv.T @ (dS @ Q)) / root,
                     "roles_swapped": (X_kv.T @ (dS @ Q) + X_q.T @ (dS.T @ K)) / root}  # X_q and X_kv exchanged
    return variants


def _grad_W_shared_cases(hidden: bool = False):
    """3 questions and 3 keys from two different word lists (every slip runs), then 2 questions
    about 5 keys; d_model = 2, d_k = 3 tells √d_k from d_k, and the paths averaged (÷ 2) from ÷ d_k
    instead of ÷ √d_k (÷ √d_k). `hidden`: two the notebook never shows, in the same order (as
    many questions as keys first, where the slips that crash on the other run and are named)."""
    if hidden:
        return _base.hidden_cases("grad_W_shared", ((3, 2), (3, 2), (2, 3), (3, 3)),
                                  ((4, 3), (6, 3), (3, 2), (4, 6)))
    rng = np.random.default_rng(73)
    return [(rng.normal(size=(n_q, 2)), rng.normal(size=(n_k, 2)), rng.normal(size=(2, 3)),
             rng.normal(size=(n_q, n_k))) for n_q, n_k in ((3, 3), (2, 5))]


@_base.exercise
def check_grad_W_shared(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 07, 練習 3: `fn(X_q, X_kv, W, dS)` returns dL/dW when one W makes the questions from
    X_q and the keys from X_kv (S = (X_q W)(X_kv W)ᵀ / √d_k), given dS = dL/dS."""
    for X_q, X_kv, W, dS in _grad_W_shared_cases(hidden):
        call = "grad_W_shared(X_q, X_kv, W, dS)"
        shapes = f"X_q {X_q.shape}, X_kv {X_kv.shape}, W {W.shape}, dS {dS.shape}"
        got = _base.as_float_array(
            _base.call_learner(fn, X_q.copy(), X_kv.copy(), W.copy(), dS.copy(),
                               what="grad_W_shared", call=call,
                               on_error=f"{shapes} のとき、途中の形を print して確かめましょう。"),
            "grad_W_shared")
        variants = _grad_W_shared_variants(X_q, X_kv, W, dS)
        _base.fail_unless_right(
            got, variants, GRAD_W_SHARED_HINTS, name="dW", said=f"{shapes} のとき、",
            wrong_shape=f"dW の形は W と同じ {variants['right'].shape} のはずが {got.shape} でした({shapes})。")
    _base.passed("W は問いと見出しの二つの道で使われ、勾配は二つの道の和でした。", quiet=hidden)
