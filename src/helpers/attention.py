"""The numerical core of attention, in plain numpy, with row vectors (`x @ W`).

Shapes follow the article: an embedding `x` is `1 × d_model`, a weight matrix `W` is
`d_model × d_k`, so `x @ W` is `1 × d_k`. A batch of n words stacks rows: `X` is `n × d_model`.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_array, as_matrix, matmul_operands, require_same_length

__all__ = [
    "softmax",
    "project",
    "qkv",
    "attention_scores",
    "scaled_dot_product_attention",
    "cosine_similarity",
]


def softmax(scores, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Softmax along `axis` (default: each row), stable for scores in the thousands.

    `temperature` divides the scores first: small → close to one-hot (argmax),
    large → close to uniform (plain average).
    """
    s = as_array(scores, "scores")
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature(温度)は正の有限の数にしてください。{temperature} が来ました。")
    if not -s.ndim <= axis < s.ndim:
        raise ValueError(
            f"axis={axis} は shape {s.shape}({s.ndim} 次元)の配列にはありません。"
            f"{-s.ndim} から {s.ndim - 1} の範囲で指定してください(行ごとなら axis=-1)。"
        )
    z = s / temperature
    # Subtracting the max leaves softmax unchanged and keeps exp() from overflowing.
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def project(x, W, name: str = "W") -> np.ndarray:
    """`x @ W` with a clear Japanese message when the shapes do not fit.

    x: `n × d_model` (n = 1 for one word), W: `d_model × d_k` → result `n × d_k`.
    """
    x, W = matmul_operands(x, W, ("x", name), inner="d_model",
                           inner_meaning="(埋め込みベクトルの次元数)", out="d_k")
    return x @ W


def qkv(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three faces of every word: `Q = X W_Q`, `K = X W_K`, `V = X W_V`."""
    return project(X, W_Q, "W_Q"), project(X, W_K, "W_K"), project(X, W_V, "W_V")


def attention_scores(Q, K, scale: bool = True) -> np.ndarray:
    """`Q Kᵀ` (divided by √d_k when `scale`): row i = how well query i matches each key."""
    Q = as_matrix(Q, "Q")
    K = as_matrix(K, "K")
    require_same_length(Q, K, "Q", "K", dim="列数 d_k")
    scores = Q @ K.T
    return scores / np.sqrt(Q.shape[1]) if scale else scores


def scaled_dot_product_attention(
    Q, K, V, scale: bool = True, temperature: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q Kᵀ / √d_k) V. Returns `(output, weights)`.

    weights: `n_q × n_k`, each row sums to 1 (rows = queries, columns = keys).
    output:  `n_q × d_v`, row i = the mix of the values that query i takes home.
    """
    V = as_matrix(V, "V")
    K_arr = as_matrix(K, "K")
    if K_arr.shape[0] != V.shape[0]:
        raise ValueError(
            f"K と V の行数(語の数)が違います: K は shape {K_arr.shape}、V は shape {V.shape} です。"
            "見出しと中身は同じ語の数だけ、一対一で並んでいる必要があります。"
        )
    weights = softmax(attention_scores(Q, K_arr, scale=scale), axis=-1, temperature=temperature)
    return weights @ V, weights


def cosine_similarity(A, B) -> np.ndarray:
    """Cosine of the angle between every row of A and every row of B: direction only.

    1-D inputs are treated as single rows; two 1-D inputs give a plain float.
    """
    a = as_array(A, "A")
    b = as_array(B, "B")
    scalar = a.ndim == 1 and b.ndim == 1
    a2 = as_matrix(np.atleast_2d(a), "A")
    b2 = as_matrix(np.atleast_2d(b), "B")
    require_same_length(a2, b2, "A", "B")
    na = np.linalg.norm(a2, axis=1, keepdims=True)
    nb = np.linalg.norm(b2, axis=1, keepdims=True)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError(
            "長さ 0 のベクトルが含まれています。向きが決まらないので、コサイン類似度は定義できません。"
        )
    cos = (a2 / na) @ (b2 / nb).T
    cos = np.clip(cos, -1.0, 1.0)
    return float(cos[0, 0]) if scalar else cos
