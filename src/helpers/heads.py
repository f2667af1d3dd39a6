"""Chapter 08: several heads (each its own W_Q, W_K, W_V) and the causal mask, in plain numpy.

Row vectors throughout. One head h has its own ``W_Q^(h), W_K^(h)`` (d_model × d_k) and
``W_V^(h)`` (d_model × d_v); the heads' outputs are concatenated side by side (n × h·d_v) and
mixed by ``W_O`` (h·d_v × d_out). Real code keeps the heads' matrices side by side in one
d_model × h·d_k matrix and cuts its product into heads with `split_heads` (reshape, then
transpose); `merge_heads` undoes it.

A mask is one more n × n matrix added to the scores before the softmax: 0 where a query may look,
-inf where it may not. `causal_mask(n)` hides every key after the query (above the diagonal).

The toy task of the chapter (`two_lookups_task`): on every menu of chapter 07's four foods, each
food must bring home two things side by side, the most extreme food of its own taste and the most
extreme food of the other taste (chapter 07's 口直し). `train_heads` learns it by gradient
descent with one or several heads; all menus are padded to four foods and the empty seats are
hidden from every query with -inf (a padding mask), so one batched pass serves all menus.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from . import _validate
from ._validate import HelpersError, HelpersTypeError, as_array, as_matrix, integer, number
from .data import Embedding
from .learning import palate_task

__all__ = [
    "causal_mask",
    "masked_softmax",
    "split_heads",
    "merge_heads",
    "multi_head_attention",
    "LOOKUPS",
    "TwoLookupsTask",
    "two_lookups_task",
    "initial_heads",
    "loss_and_gradients",
    "HeadsHistory",
    "train_heads",
]

#: The most updates `train_heads` takes: about a minute on a laptop (the chapter uses 1500).
MAX_STEPS = 200_000

#: The two kinds of looking the toy task asks for, in the order of the target's halves.
LOOKUPS = ("同じ味の一番", "反対の味の一番")


# --------------------------------------------------------------------------------------------
# Masks and heads


def causal_mask(n) -> np.ndarray:
    """n × n: 0 on and below the diagonal (itself and earlier words), -inf above it (later ones)."""
    n = integer(n, "n(語の数)", lo=1)
    _validate.guard_size((n, n), "因果マスク")
    return np.triu(np.full((n, n), -np.inf), k=1)


def masked_softmax(scores, mask=None) -> np.ndarray:
    """Row-wise softmax of `scores + mask`; an entry of -inf gets weight exactly 0.

    A row whose entries are all -inf has nothing to look at: that is refused with a message,
    because the arithmetic would give 0 / 0 = NaN.
    """
    s = as_matrix(scores, "scores")
    if mask is not None:
        # Finite numbers and -inf (hidden) only; as_array says so in Japanese for NaN or +inf.
        m = as_array(mask, "mask", allow_neg_inf=True)
        if m.shape != s.shape:
            raise HelpersError(f"mask は scores と同じ shape {s.shape} にしてください。shape {m.shape} が来ました。")
        s = s + m
    empty = np.where(np.all(np.isneginf(s), axis=1))[0]
    if empty.size:
        raise HelpersError(
            f"{empty[0] + 1} 行めはすべて -inf で、見てよい見出しが一つもありません。"
            "このままでは 0 / 0 = NaN になります。マスクを確かめてください。"
        )
    return _masked_softmax(s)


def _masked_softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))  # exp(-inf) = 0
    return e / e.sum(axis=-1, keepdims=True)


def split_heads(M, h) -> np.ndarray:
    """n × (h·d) → h × n × d: head i gets columns i·d … (i+1)·d − 1 of every row.

    Reshape to n × h × d first (each row cut into h pieces), then swap the first two axes.
    Reshaping straight to h × n × d would cut the flat numbers in the wrong places and mix words.
    """
    M = as_matrix(M, "M")
    h = integer(h, "h(頭の数)", lo=1)
    n, width = M.shape
    if width % h:
        raise HelpersError(f"列の数 {width} は頭の数 h = {h} で割り切れません。各頭の列の数 d = 列の数 / h です。")
    return M.reshape(n, h, width // h).transpose(1, 0, 2)


def merge_heads(H) -> np.ndarray:
    """h × n × d → n × (h·d): the heads side by side, head 0's columns first (undoes `split_heads`)."""
    H = as_array(H, "H")
    if H.ndim != 3:
        raise HelpersError(f"H は (頭の数, 語の数, d) の 3 次元の配列にしてください。shape {H.shape} が来ました。")
    h, n, d = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Several heads with their own W, concatenated and mixed by W_O. Returns (output, weights).

    W_Q, W_K: h × d_model × d_k; W_V: h × d_model × d_v; W_O: h·d_v × d_out; mask: n × n or None.
    output: n × d_out; weights: h × n × n (head i's map is weights[i]).
    """
    X = as_matrix(X, "X")
    W_Q, W_K, W_V = (as_array(W, name) for W, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")))
    W_O = as_matrix(W_O, "W_O")
    for W, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")):
        if W.ndim != 3 or W.shape[:2] != (W_Q.shape[0], X.shape[1]):
            raise HelpersError(
                f"{name} は (頭の数 h, d_model = {X.shape[1]}, 列の数) の 3 次元の配列にしてください。"
                f"shape {W.shape} が来ました。"
            )
    h, _, d_v = W_V.shape
    if W_Q.shape != W_K.shape:
        raise HelpersError(f"W_Q と W_K は同じ形にしてください: {W_Q.shape} と {W_K.shape} が来ました。")
    if W_O.shape[0] != h * d_v:
        raise HelpersError(f"W_O は (h·d_v = {h * d_v}) × d_out の行列にしてください。shape {W_O.shape} が来ました。")
    n = X.shape[0]
    if mask is not None and np.shape(mask) != (n, n):
        raise HelpersError(f"mask は (語の数, 語の数) = ({n}, {n}) にしてください。shape {np.shape(mask)} が来ました。")
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # each h × n × d (X is broadcast over the heads)
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(W_Q.shape[2])
    weights = np.stack([masked_softmax(s, mask) for s in S]) if mask is not None else _masked_softmax(S)
    return merge_heads(weights @ V) @ W_O, weights


# --------------------------------------------------------------------------------------------
# The toy task: two kinds of looking at once


@dataclass(frozen=True)
class TwoLookupsTask:
    """All menus, padded to the four foods: X (m × 4 × 2), targets (m × 4 × 4), seats (m × 4).

    `seats[i, j]` is 1 where menu i has a food in seat j and 0 where the seat is empty. For food j
    on menu i, `same[i, j]` and `other[i, j]` are the seats of the most extreme food of its own
    taste and of the other taste; its target is their embeddings side by side.
    """

    embedding: Embedding
    menus: tuple[tuple[str, ...], ...]
    X: np.ndarray
    targets: np.ndarray
    seats: np.ndarray
    same: np.ndarray
    other: np.ndarray

    @property
    def n_rows(self) -> int:
        """N: how many (menu, food) questions there are; the loss is averaged over them."""
        return int(self.seats.sum())

    @property
    def key_mask(self) -> np.ndarray:
        """m × 1 × 4 × 4 (broadcast over heads): 0 for a food, -inf for an empty seat's column."""
        return np.where(self.seats[:, None, None, :] > 0, 0.0, -np.inf)

    @property
    def full(self) -> int:
        """The index of the menu with all four foods (the one the figures show)."""
        return len(self.menus) - 1


def two_lookups_task() -> TwoLookupsTask:
    """Chapter 07's menus (9 menus, 24 questions); each food needs two foods at once.

    The other taste's best is chapter 07's partner; the own taste's best is the sweetest food on
    the menu for a sweet food and the spiciest for a spicy one (possibly the food itself).
    """
    palate = palate_task()
    seats_max = len(palate.embedding.words)
    menus, Xs, Ts, seats, sames, others = [], [], [], [], [], []
    for menu in palate.menus:
        X, other = menu.X, [int(p) for p in menu.partner]
        same = [int(np.argmax(X[:, 0 if sweet > spicy else 1])) for sweet, spicy in X]
        pad = seats_max - len(X)
        menus.append(tuple(menu.words))
        Xs.append(np.vstack([X, np.zeros((pad, X.shape[1]))]))
        Ts.append(np.vstack([np.hstack([X[same], X[other]]), np.zeros((pad, 2 * X.shape[1]))]))
        seats.append([1.0] * len(X) + [0.0] * pad)
        sames.append(same + [0] * pad)
        others.append(other + [0] * pad)
    return TwoLookupsTask(palate.embedding, tuple(menus), np.array(Xs), np.array(Ts),
                          np.array(seats), np.array(sames), np.array(others))


def initial_heads(rng: np.random.Generator, h: int, d_k: int, d_model: int = 2,
                  d_out: int = 4, scale: float = 0.3) -> dict[str, np.ndarray]:
    """Small random W_Q, W_K, W_V (h × d_model × d_k each) and W_O (h·d_k × d_out)."""
    if not isinstance(rng, np.random.Generator):
        raise HelpersTypeError(f"rng には np.random.Generator を渡してください。{type(rng).__name__} が来ました。")
    h, d_k = integer(h, "h(頭の数)", lo=1), integer(d_k, "d_k", lo=1)
    d_model, d_out = integer(d_model, "d_model", lo=1), integer(d_out, "d_out", lo=1)
    scale = number(scale, "scale", lo=0.0)
    _validate.guard_size((h, d_model, d_k), "W_Q(頭の数 × d_model × d_k)")
    _validate.guard_size((h * d_k, d_out), "W_O(h·d_k × d_out)")
    return {"W_Q": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_K": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_V": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_O": rng.normal(0.0, scale, (h * d_k, d_out))}


def _forward(task: TwoLookupsTask, P: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """All menus at once: X is m × n × d_model, heads broadcast as m × h × n × d."""
    X = task.X[:, None]                                           # m × 1 × n × d_model
    Q, K, V = X @ P["W_Q"], X @ P["W_K"], X @ P["W_V"]            # m × h × n × d
    S = Q @ K.swapaxes(-1, -2) / np.sqrt(Q.shape[-1]) + task.key_mask
    A = _masked_softmax(S)                                        # m × h × n × n
    m, h, n, d_v = V.shape
    C = (A @ V).transpose(0, 2, 1, 3).reshape(m, n, h * d_v)      # heads side by side
    return {"Q": Q, "K": K, "V": V, "A": A, "C": C, "Y": C @ P["W_O"]}


def _evaluate(task: TwoLookupsTask, P: dict[str, np.ndarray]):
    f = _forward(task, P)
    N = task.n_rows
    seat = task.seats[..., None]
    D = (f["Y"] - task.targets) * seat                            # empty seats count for nothing
    losses = np.array([np.sum(D[..., :2] ** 2), np.sum(D[..., 2:] ** 2)]) / N
    dY = 2 * D / N
    Q, K, V, A, C = f["Q"], f["K"], f["V"], f["A"], f["C"]
    m, h, n, d_v = V.shape
    grads = {"W_O": np.einsum("mnc,mno->co", C, dY)}
    dH = (dY @ P["W_O"].T).reshape(m, n, h, d_v).transpose(0, 2, 1, 3)
    dA = dH @ V.swapaxes(-1, -2)
    dV = A.swapaxes(-1, -2) @ dH
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))       # softmax, row by row
    d_k = Q.shape[-1]
    dQ = dS @ K / np.sqrt(d_k)
    dK = dS.swapaxes(-1, -2) @ Q / np.sqrt(d_k)
    for name, dM in (("W_Q", dQ), ("W_K", dK), ("W_V", dV)):
        grads[name] = np.einsum("mnd,mhnk->hdk", task.X, dM)
    return float(losses.sum()), losses, grads, f["A"]


def _params(task: TwoLookupsTask, P) -> dict[str, np.ndarray]:
    """The four W, checked to fit the task and each other (as `initial_heads` makes them)."""
    if not isinstance(task, TwoLookupsTask):
        raise HelpersTypeError(f"task には two_lookups_task() の結果を渡してください。{type(task).__name__} が来ました。")
    names = ("W_Q", "W_K", "W_V", "W_O")
    if not isinstance(P, dict) or set(P) != set(names):
        got = sorted(P, key=str) if isinstance(P, dict) else type(P).__name__
        raise HelpersError(f"W は {list(names)} をキーにした辞書で渡してください。{got} が来ました。")
    P = {name: as_array(P[name], name) for name in names}
    d_model, d_out = task.X.shape[-1], task.targets.shape[-1]
    shapes = "、".join(f"{name} は shape {P[name].shape}" for name in names)
    h = P["W_Q"].shape[0] if P["W_Q"].ndim == 3 else 0
    fits = (all(P[name].ndim == 3 and P[name].shape[:2] == (h, d_model) for name in names[:3])
            and P["W_Q"].shape == P["W_K"].shape and P["W_O"].ndim == 2
            and P["W_O"].shape == (h * P["W_V"].shape[2], d_out))
    if not fits:
        raise HelpersError(
            f"W の形が合いません。W_Q, W_K は (頭の数 h, d_model = {d_model}, d_k)、W_V は "
            f"(h, {d_model}, d_v)、W_O は (h·d_v, {d_out}) にしてください"
            f"(initial_heads が作る形です)。{shapes} です。"
        )
    return P


def loss_and_gradients(task: TwoLookupsTask, W) -> tuple[float, dict[str, np.ndarray]]:
    """L = (1/N) Σ ‖output − target‖² over every (menu, food), and dL/dW for each of the four W."""
    loss, _, grads, _ = _evaluate(task, _params(task, W))
    return loss, grads


@dataclass
class HeadsHistory:
    """What `train_heads` saw. `losses[s]` is the loss before update s; `parts[s]` splits it into
    the two halves of the target (LOOKUPS); `maps[k]` is the full menu's h × 4 × 4 attention at
    `saved[k]`; `W` is where training ended."""

    h: int
    lr: float
    losses: np.ndarray
    parts: np.ndarray
    saved: list[int] = field(default_factory=list)
    maps: list[np.ndarray] = field(default_factory=list)
    W: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def final_map(self) -> np.ndarray:
        return self.maps[-1]


def train_heads(task: TwoLookupsTask, W, lr: float, steps: int,
                save_at=(0,)) -> HeadsHistory:
    """Plain gradient descent, W ← W − lr · dL/dW for all four W at once, `steps` times."""
    P = {name: M.copy() for name, M in _params(task, W).items()}
    lr = number(lr, "lr(学習率)", positive=True)
    steps = integer(steps, "steps(更新の回数)", lo=0, hi=MAX_STEPS)
    if isinstance(save_at, (str, bytes)) or not isinstance(save_at, Iterable):
        raise HelpersTypeError(f"save_at にはステップ番号の並び(例: [0, 10, 50])を渡してください。{save_at!r} が来ました。")
    saved = sorted({integer(s, f"save_at の要素(0 から steps={steps})", 0, steps) for s in save_at}
                   | {steps})
    history = HeadsHistory(P["W_Q"].shape[0], float(lr), np.zeros(0), np.zeros((0, 2)))
    losses, parts = [], []
    for step in range(steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # a blown-up run gives inf/NaN
            loss, part, grads, A = _evaluate(task, P)
        if not np.isfinite(loss):
            raise HelpersError(f"{step} 回目で損失が有限の数でなくなりました。学習率 lr = {lr} を小さくしてください。")
        losses.append(loss)
        parts.append(part)
        if step in saved:
            history.saved.append(step)
            history.maps.append(A[task.full].copy())
        if step < steps:
            P = {name: P[name] - lr * grads[name] for name in P}
    history.losses, history.parts, history.W = np.array(losses), np.array(parts), P
    return history
