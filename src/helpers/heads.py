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

The attention, its backward pass and the training loop are the shared engine's (`descent.forward`,
`backward`, `descend`, chapter 07's too), the masked softmax the numerical core's
(`attention.masked_softmax`, re-exported here for chapter 08): this module adds only what several
heads need, W_O and the cutting into heads. Learners' arguments are checked by `@public` (in `_validate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validate
from ._validate import (
    HelpersError,
    arg,
    as_array,
    as_matrix,
    instance,
    integer,
    mask,
    number,
    public,
)
from .attention import masked_softmax
from .data import Embedding
from .descent import (
    BLOWUP,
    LR,
    MAX_STEPS,  # noqa: F401  (heads.MAX_STEPS: train_heads has chapter 07's limit)
    RNG,
    STEPS,
    backward,
    descend,
    divergence,
    forward,
    saved_steps,
)
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
    "lookups_loss_and_gradients",
    "HeadsHistory",
    "train_heads",
]

#: The two kinds of looking the toy task asks for, in the order of the target's halves.
LOOKUPS = ("同じ味の一番", "反対の味の一番")


# --------------------------------------------------------------------------------------------
# Masks and heads


@public(lambda a: _validate.guard_size((a["n"], a["n"]), "因果マスク", by="n(語の数)"),
        n=arg(integer, "n(語の数)", lo=1))
def causal_mask(n) -> np.ndarray:
    """n × n: 0 on and below the diagonal (itself and earlier words), -inf above it (later ones)."""
    return np.triu(np.full((n, n), -np.inf), k=1)


def _columns_per_head(a: dict) -> None:
    width, h = a["M"].shape[1], a["h"]
    if width % h:
        raise HelpersError(f"M の列の数 {width} は頭の数 h = {h} で割り切れません。各頭の列の数 d = 列の数 / h です。")


@public(_columns_per_head, M=arg(as_matrix), h=arg(integer, "h(頭の数)", lo=1))
def split_heads(M, h) -> np.ndarray:
    """n × (h·d) → h × n × d: head i gets columns i·d … (i+1)·d − 1 of every row.

    Reshape to n × h × d first (each row cut into h pieces), then swap the two axes before the
    last. Reshaping straight to h × n × d would cut the flat numbers in the wrong places and mix
    words. (Stacks of matrices, m × n × (h·d), are cut the same way, each on its own.)
    """
    return M.reshape(*M.shape[:-1], h, M.shape[-1] // h).swapaxes(-3, -2)


def _three_axes(H, name: str) -> np.ndarray:
    H = as_array(H, name)
    if H.ndim != 3:
        raise HelpersError(f"{name} は (頭の数, 語の数, d) の 3 次元の配列にしてください。shape {H.shape} が来ました。")
    return H


@public(H=arg(_three_axes))
def merge_heads(H) -> np.ndarray:
    """h × n × d → n × (h·d): the heads side by side, head 0's columns first (undoes `split_heads`)."""
    H = H.swapaxes(-3, -2)
    return H.reshape(*H.shape[:-2], H.shape[-2] * H.shape[-1])


def _heads_fit(a: dict) -> None:
    X, W_Q, W_K, W_V, W_O = (a[name] for name in ("X", "W_Q", "W_K", "W_V", "W_O"))
    for W, name in ((W_Q, "W_Q"), (W_K, "W_K"), (W_V, "W_V")):
        if W.ndim != 3 or W.shape[:2] != (W_Q.shape[0], X.shape[1]):
            raise HelpersError(
                f"{name} は (頭の数 h = {W_Q.shape[0] if W_Q.ndim else '?'}(W_Q と同じ), "
                f"d_model = {X.shape[1]}(X の列数), 列の数) の 3 次元の配列にしてください。"
                f"shape {W.shape} が来ました。"
            )
    h, _, d_v = W_V.shape
    if W_Q.shape != W_K.shape:
        raise HelpersError(f"W_Q と W_K は同じ形にしてください: {W_Q.shape} と {W_K.shape} が来ました。")
    if W_O.shape[0] != h * d_v:
        raise HelpersError(f"W_O は (h·d_v = {h * d_v}) × d_out の行列にしてください。shape {W_O.shape} が来ました。")
    n = X.shape[0]
    # The largest arrays made: h × n × n weights, h × n × d faces, n × d_out output.
    _validate.guard_size((h, n, max(n, W_Q.shape[2], d_v)), "頭ごとの重みと Q, K, V(頭の数 × 語の数 × …)",
                         by="X の語の数か W_Q, W_V の頭の数・列の数")
    _validate.guard_size((n, W_O.shape[1]), "出力(語の数 × d_out)", by="X の語の数か W_O の列の数")
    _validate.mask_fits(a["mask"], n, n, of="(X の語の数, 語の数) =")
    if a["mask"] is not None:  # the scores are finite: a row is empty where the mask's row is
        masked_softmax(np.zeros((n, n)), a["mask"])


@public(_heads_fit, X=arg(as_matrix), W_Q=arg(as_array), W_K=arg(as_array), W_V=arg(as_array),
        W_O=arg(as_matrix), mask=arg(mask, optional=True))
def multi_head_attention(X, W_Q, W_K, W_V, W_O, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Several heads with their own W, concatenated and mixed by W_O. Returns (output, weights).

    W_Q, W_K: h × d_model × d_k; W_V: h × d_model × d_v; W_O: h·d_v × d_out; mask: n × n or None.
    output: n × d_out; weights: h × n × n (head i's map is weights[i]).
    """
    heads = forward(X, W_Q, W_K, W_V, mask)  # X is broadcast over the heads
    return merge_heads(heads.output) @ W_O, heads.weights


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


def _heads_sizes(a: dict) -> None:
    _validate.guard_size((a["h"], a["d_model"], a["d_k"]), "W_Q(頭の数 × d_model × d_k)", by="h, d_model, d_k")
    _validate.guard_size((a["h"] * a["d_k"], a["d_out"]), "W_O(h·d_k × d_out)", by="h, d_k, d_out")


@public(_heads_sizes, rng=RNG, h=arg(integer, "h(頭の数)", lo=1), d_k=arg(integer, lo=1),
        d_model=arg(integer, lo=1), d_out=arg(integer, lo=1), scale=arg(number, lo=0.0))
def initial_heads(rng: np.random.Generator, h: int, d_k: int, d_model: int = 2,
                  d_out: int = 4, scale: float = 0.3) -> dict[str, np.ndarray]:
    """Small random W_Q, W_K, W_V (h × d_model × d_k each) and W_O (h·d_k × d_out)."""
    return {"W_Q": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_K": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_V": rng.normal(0.0, scale, (h, d_model, d_k)),
            "W_O": rng.normal(0.0, scale, (h * d_k, d_out))}


def _lookups_pass(task: TwoLookupsTask, params: dict[str, np.ndarray]):
    """All menus at once (m × h × n × d, X broadcast over the heads): the loss, its two halves
    (LOOKUPS), the gradients of the four W and the attention maps (m × h × n × n)."""
    fwd = forward(task.X[:, None], params["W_Q"], params["W_K"], params["W_V"], task.key_mask)
    C = merge_heads(fwd.output)                                   # m × n × h·d_v, heads side by side
    D = (C @ params["W_O"] - task.targets) * task.seats[..., None]     # empty seats count for nothing
    N = task.n_rows
    losses = np.array([np.sum(D[..., :2] ** 2), np.sum(D[..., 2:] ** 2)]) / N
    dY = 2 * D / N
    grads = {"W_O": np.einsum("mnc,mno->co", C, dY)}
    d_heads = split_heads(dY @ params["W_O"].T, len(params["W_Q"]))         # back through the concatenation
    for name, g in backward(fwd.X, fwd, d_heads).items():
        grads[name] = g.sum(axis=0)                               # the menus share the heads' W
    return float(losses.sum()), losses, grads, fwd.weights


def _params_fit(a: dict) -> None:
    """`params`, the four W, checked to fit the task and each other (as `initial_heads` makes them)."""
    params = a["params"]
    names = ("W_Q", "W_K", "W_V", "W_O")
    if not isinstance(params, dict) or set(params) != set(names):
        got = sorted(params, key=str) if isinstance(params, dict) else type(params).__name__
        raise HelpersError(f"params は {list(names)} をキーにした辞書で渡してください。{got} が来ました。")
    a["params"] = params = {name: as_array(params[name], f"params[{name!r}]") for name in names}
    task = a["task"]
    d_model, d_out = task.X.shape[-1], task.targets.shape[-1]
    shapes = "、".join(f"{name} は shape {params[name].shape}" for name in names)
    h = params["W_Q"].shape[0] if params["W_Q"].ndim == 3 else 0
    fits = (all(params[name].ndim == 3 and params[name].shape[:2] == (h, d_model) for name in names[:3])
            and params["W_Q"].shape == params["W_K"].shape and params["W_O"].ndim == 2
            and params["W_O"].shape == (h * params["W_V"].shape[2], d_out))
    if not fits:
        raise HelpersError(
            f"params の W の形が合いません。W_Q, W_K は (頭の数 h, d_model = {d_model}, d_k)、W_V は "
            f"(h, {d_model}, d_v)、W_O は (h·d_v, {d_out}) にしてください"
            f"(initial_heads が作る形です)。{shapes} です。"
        )
    _validate.guard_size((len(task.menus), h, 4, max(4, params["W_Q"].shape[2], params["W_V"].shape[2])),
                         "メニューごと・頭ごとの Q, K, V", by="params の頭の数と列の数")


#: The spec of a `task` argument: what `two_lookups_task()` made.
LOOKUPS_TASK = arg(instance, cls=TwoLookupsTask, made_by="two_lookups_task() の結果")


@public(_params_fit, task=LOOKUPS_TASK)
def lookups_loss_and_gradients(task: TwoLookupsTask, params) -> tuple[float, dict[str, np.ndarray]]:
    """L = (1/N) Σ ‖output − target‖² over every (menu, food), and dL/dW for each of the four W
    of `params` (chapter 07's task has its own: `learning.loss_and_gradients`)."""
    loss, _, grads, _ = _lookups_pass(task, params)
    return loss, grads


@dataclass
class HeadsHistory:
    """What `train_heads` saw. `losses[s]` is the loss before update s; `parts[s]` splits it into
    the two halves of the target (LOOKUPS); `maps[k]` is the full menu's h × 4 × 4 attention at
    `saved[k]`; `params` is where training ended."""

    h: int
    lr: float
    losses: np.ndarray
    parts: np.ndarray
    saved: list[int] = field(default_factory=list)
    maps: list[np.ndarray] = field(default_factory=list)
    params: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def final_map(self) -> np.ndarray:
        return self.maps[-1]


@public(_params_fit, saved_steps, task=LOOKUPS_TASK, lr=LR, steps=STEPS)
def train_heads(task: TwoLookupsTask, params, lr: float, steps: int,
                save_at=(0,)) -> HeadsHistory:
    """Plain gradient descent, W ← W − lr · dL/dW for all four W at once, `steps` times.

    `save_at`: the steps whose attention map is kept (`maps`, at `saved`; step `steps` always);
    None means 12 steps spread evenly, as in chapter 07's `train`. The shared loop
    (`descent.descend`) with one run; a loss that grows beyond 1e6 or stops being a finite
    number stops training with a message.
    """
    def evaluate(batched):  # the loop keeps runs first: this task trains one
        loss, parts, grads, A = _lookups_pass(task, {name: W[0] for name, W in batched.items()})
        return (np.array([loss]), {name: g[None] for name, g in grads.items()},
                {"parts": parts[None]}, {"map": A[None, task.full]})

    batched = {name: W[None].copy() for name, W in params.items()}
    (run,) = descend(evaluate, batched, lr, steps, save_at, BLOWUP)
    if run.diverged:
        raise HelpersError(divergence(len(run.losses), lr))
    return HeadsHistory(batched["W_Q"].shape[1], float(lr), run.losses,
                        run.records["parts"],
                        [step for step, _, _ in run.saved],
                        [record["map"] for _, _, record in run.saved],
                        {name: W[0] for name, W in batched.items()})
