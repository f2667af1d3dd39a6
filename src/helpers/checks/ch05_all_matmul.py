"""Chapter 05's exercises: one cell of a product alone, the fused product, and the order of cells."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._base import as_float_array, call_learner, check_choice, fail, passed, three_arrays


def _cell_cases():
    """A square case (swapped indices and a row of W show in the value) and a tall one."""
    square = (np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0], [2.0, 0.0, 4.0]]),
              np.array([[2.0, -1.0, 1.0], [0.0, 1.0, 3.0], [1.0, 2.0, -2.0]]))
    tall = (np.array([[1.0, 2.0, 0.0, -1.0], [0.0, 1.0, 3.0, 2.0], [2.0, -2.0, 1.0, 1.0]]),
            np.array([[1.0, 0.0], [2.0, 1.0], [-1.0, 3.0], [0.0, 2.0]]))
    return [(square, (0, 2)), (square, (2, 1)), (tall, (1, 0)), (tall, (2, 1))]


def check_matmul_cell(fn: Callable) -> None:
    """Chapter 05: `fn(X, W, i, j)` returns the single cell (i, j) of `X @ W` as a number."""
    for (X, W), (i, j) in _cell_cases():
        result = call_learner(
            fn, X, W, i, j, what="cell", call=f"cell(X, W, {i}, {j})",
            on_error="使うのは X の i 行め X[i, :] と W の j 列め W[:, j] です"
                          "(X[:, i] や W[j] ではありません)。",
        )
        got = as_float_array(result, "cell")
        want = float(X[i, :] @ W[:, j])
        if got.size == X.shape[1] and np.allclose(got.reshape(-1), X[i, :] * W[:, j]):
            fail("掛け算はできていますが、足し合わせていません。成分ごとの積 X[i, t]·W[t, j] を、"
                 "t について全部足すと 1 つのマスの値になります(sum(...) か @)。")
        if got.size == W.shape[1] and np.allclose(got.reshape(-1), X[i, :] @ W):
            fail("i 行め全体(X[i, :] @ W、1 行ぶん)を返しています。欲しいのは j 列めとの内積、"
                 "数 1 つです。")
        if got.size != 1:
            fail(f"cell は数を 1 つ返してください。shape {got.shape} の配列が返ってきました。")
        value = float(got.reshape(-1)[0])
        if np.isclose(value, want):
            continue
        if X.shape[1] == W.shape[1] and np.isclose(value, X[i, :] @ W[j, :]):
            fail("W の j 行め W[j, :] を使っています。行列の積で使うのは W の j 列め W[:, j] です。")
        if X.shape[0] == W.shape[0] and np.isclose(value, X[:, i] @ W[:, j]):
            fail("X の i 列め X[:, i] を使っています。使うのは X の i 行め X[i, :] です。")
        if (j < X.shape[0] and i < W.shape[1]) and np.isclose(value, X[j, :] @ W[:, i]):
            fail("i と j が入れ替わっています。マス (i, j) は X の i 行めと W の j 列めで決まります。")
        fail(f"X の {i} 行めと W の {j} 列めの内積は {want:.3f} のはずが、{value:.3f} でした。")
    passed("どのマスも、X の 1 行と W の 1 列だけで決まります。ほかのマスを待つ必要はありません。")


def _fused_cases():
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(5, 2)), 1)
    Ws = [np.round(rng.normal(size=(2, 3)), 1) for _ in range(3)]
    return X, Ws


def check_fused_qkv(fn: Callable) -> None:
    """Chapter 05: `fn(X, W_Q, W_K, W_V)` returns Q, K, V from one product with [W_Q W_K W_V]."""
    X, Ws = _fused_cases()
    result = call_learner(
        fn, X, *Ws, what="fused_qkv", call="fused_qkv(X, W_Q, W_K, W_V)",
        on_error="三つの W は横に(列の方向に)並べます: np.hstack([W_Q, W_K, W_V]) で "
                      "d_model × 3d_k になります。縦に積む(np.vstack)と X と掛けられません。",
    )
    got = three_arrays(result, "fused_qkv")
    want = [X @ W for W in Ws]
    names = ("Q", "K", "V")
    for name, g, w in zip(names, got, want, strict=True):
        if g.shape == w.shape and np.allclose(g, w):
            continue
        for other, w2 in zip(names, want, strict=True):
            if other != name and g.shape == w2.shape and np.allclose(g, w2):
                fail(f"{name} のところに {other} が入っています。並べた順(W_Q, W_K, W_V)のとおりに、"
                     "(Q, K, V) の順で返しましょう。")
        if g.ndim == 2 and g.shape[1] == 3 * w.shape[1]:
            fail(f"{name} の形が {g.shape} で、三つ分の列が入ったままです。"
                 "X @ W_QKV の結果を np.split(..., 3, axis=1) で列の方向に三等分します。")
        if g.shape != w.shape:
            fail(f"{name} の形が {g.shape} です。{w.shape}(語の数 × d_k)のはずです。"
                 "分けるのは列の方向(axis=1)です。行の方向(axis=0)に分けると語が切れてしまいます。")
        fail(f"{name} の値が X @ W_{name[0]} と合いません。np.hstack で並べた順と、"
             "np.split で分けた順が同じか確かめましょう。")
    passed("一回の掛け算 X @ [W_Q W_K W_V] で、三つの顔がまとめて出てきました。")


def check_order_prediction(answer) -> None:
    """Chapter 05 prediction: does computing the cells of X @ W in another order change it?"""
    check_choice(
        answer,
        "変わらない",
        ("変わる", "変わらない", "ときどき変わる"),
        {
            "変わらない": "どのマスも自分の行と列だけを読み、ほかのマスの答えを使いません。"
                          "だから順番を変えても、一斉に計算しても、同じ行列になります。",
            "変わる": "マス (i, j) の計算に、ほかのマスの結果は出てくるでしょうか? "
                      "X の i 行めと W の j 列めしか使っていないことを確かめましょう。",
            "ときどき変わる": "乱数が入るのでは、と思いましたか? 順番は乱数で決めても、各マスの計算"
                              "そのものは毎回同じ手順なので、結果は 1 ビットも変わりません。",
        },
    )

