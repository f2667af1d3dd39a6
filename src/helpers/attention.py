"""The numerical core of attention, in plain numpy, with row vectors (`x @ W`).

Shapes follow the article: an embedding `x` is `1 × d_model`, a weight matrix `W` is
`d_model × d_k`, so `x @ W` is `1 × d_k`. A batch of n words stacks rows: `X` is `n × d_model`.

Each formula is written once, here, and read like the chapter that teaches it; `@public` (in
`_validate`) checks what a learner passes in and names it in Japanese when it does not fit. The
bodies work on stacks of matrices too (`swapaxes(-1, -2)`), so chapters 07 and 08 use them for
many menus and heads at once.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    HelpersError,
    arg,
    as_array,
    as_matrix,
    flag,
    guard_size,
    integer,
    mask,
    mask_fits,
    matmul_operands,
    number,
    public,
    require_same_length,
    text,
)

__all__ = [
    "softmax",
    "masked_softmax",
    "project",
    "qkv",
    "attention_scores",
    "scaled_dot_product_attention",
    "cosine_similarity",
]


# --------------------------------------------------------------------------------------------
# What must hold between the arguments (the per-argument checks are the specs in `@public`)


def _axis_exists(a: dict) -> None:
    s, axis = a["scores"], a["axis"]
    if not -s.ndim <= axis < s.ndim:
        raise HelpersError(
            f"axis={axis} は shape {s.shape}({s.ndim} 次元)の配列にはありません。"
            f"{-s.ndim} から {s.ndim - 1} の範囲で指定してください(行ごとなら axis=-1)。"
        )


def _something_to_look_at(a: dict) -> None:
    if np.any(np.all(a["scores"] == -np.inf, axis=a["axis"])):
        raise HelpersError(
            "すべてが -inf(マスク)の行があります。どの相手にも重みを置けないので、softmax が決まりません。"
            "各行で少なくとも 1 つは -inf でない(見てよい)スコアを残してください。"
        )


def _rows_with_something_to_look_at(a: dict) -> None:
    s = a["scores"]
    mask_fits(a["mask"], *s.shape, of="scores と同じ")
    visible = s + a["mask"] if a["mask"] is not None else s
    empty = np.flatnonzero(np.all(np.isneginf(visible), axis=1))
    if empty.size:
        raise HelpersError(
            f"行 {empty[0]}({empty[0] + 1} 行め)はすべて -inf で、見てよい見出しが一つもありません。"
            "このままでは 0 / 0 = NaN になります。マスクを確かめてください。"
        )


def _projection_fits(a: dict) -> None:
    name = a["name"]
    a["x"], a["W"] = matmul_operands(a["x"], a["W"], ("x", name), inner="d_model",
                                     inner_meaning="(埋め込みベクトルの次元数)", out="d_k")
    guard_size((a["x"].shape[0], a["W"].shape[1]), f"x @ {name} の結果", by=f"x の行数か {name} の列数")


def _queries_meet_keys(a: dict) -> None:
    require_same_length(a["Q"], a["K"], "Q", "K", dim="列数 d_k")
    guard_size((a["Q"].shape[0], a["K"].shape[0]), "スコア行列 Q Kᵀ")


def _a_value_per_key(a: dict) -> None:
    K, V = a["K"], a["V"]
    if K.shape[0] != V.shape[0]:
        raise HelpersError(
            f"K と V の行数(語の数)が違います: K は shape {K.shape}、V は shape {V.shape} です。"
            "見出しと中身は同じ語の数だけ、一対一で並んでいる必要があります。"
        )


def _rows_to_compare(a: dict) -> None:
    rows = {name: as_matrix(np.atleast_2d(a[name]), name) for name in ("A", "B")}  # 1-D: one row
    require_same_length(rows["A"], rows["B"], "A", "B")
    guard_size((rows["A"].shape[0], rows["B"].shape[0]), "コサイン類似度の表")
    for name, M in rows.items():
        if np.any(np.all(M == 0, axis=1)):
            raise HelpersError(
                f"{name} に長さ 0 のベクトルが含まれています。向きが決まらないので、"
                "コサイン類似度は定義できません。"
            )


# --------------------------------------------------------------------------------------------
# The formulas


@public(_axis_exists, _something_to_look_at,
        scores=arg(as_array, allow_neg_inf=True),
        axis=arg(integer, "axis(どの向きに足して 1 にするか)"),
        temperature=arg(number, "temperature(温度)", positive=True))
def softmax(scores, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Softmax along `axis` (default: each row), stable for scores in the thousands.

    `temperature` divides the scores first: small → close to one-hot (argmax),
    large → close to uniform (plain average). A score of `-inf` means "masked": its weight is 0.
    """
    # Subtracting the max first leaves softmax unchanged and keeps every exponent ≤ 0, so exp()
    # cannot overflow; a gap beyond float's range (or a tiny temperature) becomes -inf: weight 0.
    with np.errstate(over="ignore"):
        z = (scores - scores.max(axis=axis, keepdims=True)) / temperature
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


@public(_rows_with_something_to_look_at, scores=arg(as_matrix), mask=arg(mask, optional=True))
def masked_softmax(scores, mask=None) -> np.ndarray:
    """Row-wise softmax of `scores + mask`; an entry of -inf gets weight exactly 0 (chapter 08).

    A row whose entries are all -inf has nothing to look at: that is refused with a message,
    because the arithmetic would give 0 / 0 = NaN. The one masked softmax: chapter 08's heads and
    the forward pass of chapters 07 and 08 (stacks of score matrices inside) call it.
    """
    return softmax(scores if mask is None else scores + mask)


def softmax_backward(weights: np.ndarray, d_weights: np.ndarray) -> np.ndarray:
    """The gradient through `softmax` along the last axis: from dL/dA back to dL/dS.

    For one row a = softmax(s), the Jacobian J = diag(a) − a aᵀ is symmetric, so
    ds = Jᵀ da = a ⊙ (da − a·da). (Inner maths of chapters 07 and 08; not checked.)
    """
    return weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))


@public(_projection_fits, name=arg(text))
def project(x, W, name: str = "W") -> np.ndarray:
    """`x @ W` with a clear Japanese message when the shapes do not fit.

    x: `n × d_model` (n = 1 for one word), W: `d_model × d_k` → result `n × d_k`.
    """
    return x @ W


def _faces_fit(a: dict) -> None:
    for name in ("W_Q", "W_K", "W_V"):
        a["X"], a[name] = matmul_operands(a["X"], a[name], ("X", name), inner="d_model",
                                          inner_meaning="(埋め込みベクトルの次元数)", out="d_k")
        guard_size((a["X"].shape[0], a[name].shape[1]), f"X @ {name} の結果")


@public(_faces_fit)
def qkv(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three faces of every word: `Q = X W_Q`, `K = X W_K`, `V = X W_V`."""
    return X @ W_Q, X @ W_K, X @ W_V


@public(_queries_meet_keys, Q=arg(as_matrix), K=arg(as_matrix),
        scale=arg(flag, "scale(√d_k で割るか)"))
def attention_scores(Q, K, scale: bool = True) -> np.ndarray:
    """`Q Kᵀ` (divided by √d_k when `scale`): row i = how well query i matches each key."""
    scores = Q @ K.swapaxes(-1, -2)
    return scores / np.sqrt(Q.shape[-1]) if scale else scores


@public(_a_value_per_key, _queries_meet_keys,
        Q=arg(as_matrix), K=arg(as_matrix), V=arg(as_matrix),
        scale=arg(flag, "scale(√d_k で割るか)"),
        temperature=arg(number, "temperature(温度)", positive=True))
def scaled_dot_product_attention(
    Q, K, V, scale: bool = True, temperature: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q Kᵀ / √d_k) V. Returns `(output, weights)`.

    weights: `n_q × n_k`, each row sums to 1 (rows = queries, columns = keys).
    output:  `n_q × d_v`, row i = the mix of the values that query i takes home.
    """
    weights = softmax(attention_scores(Q, K, scale=scale), temperature=temperature)
    return weights @ V, weights


@public(_rows_to_compare, A=arg(as_array), B=arg(as_array))
def cosine_similarity(A, B) -> np.ndarray:
    """Cosine of the angle between every row of A and every row of B: direction only.

    1-D inputs are treated as single rows; two 1-D inputs give a plain float.
    """
    cos = np.clip(_unit_rows(np.atleast_2d(A)) @ _unit_rows(np.atleast_2d(B)).T, -1.0, 1.0)
    return float(cos[0, 0]) if A.ndim == 1 and B.ndim == 1 else cos


def _unit_rows(M: np.ndarray) -> np.ndarray:
    """Every row divided by its length, exact for lengths near 1e-300 and 1e300 alike.

    Each row is first divided by its largest |entry|, so squaring neither overflows to inf
    nor underflows to 0; the direction is the same.
    """
    M = M / np.max(np.abs(M), axis=1, keepdims=True)
    return M / np.sqrt(np.sum(M * M, axis=1, keepdims=True))
