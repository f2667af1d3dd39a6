"""The descent engine of chapters 07 and 08: the forward pass, the backward pass, checking a
gradient by central differences, and the loop of gradient descent that trains many runs at once.

One forward pass is the attention of chapter 06 (Q, K, V, then softmax(Q Kᵀ / √d_k + mask) V).
The backward pass applies the chain rule one matrix product at a time, in the reverse order:

    Q = X W_Q, K = X W_K, V = X W_V      →  dW_Q = Xᵀ dQ,  dW_K = Xᵀ dK,  dW_V = Xᵀ dV
    S = Q Kᵀ / √d_k                      →  dQ = dS K / √d_k,  dK = (Qᵀ dS)ᵀ / √d_k = dSᵀ Q / √d_k
    A = softmax(S), row by row           →  dS = A ⊙ (dA − rowsum(dA ⊙ A))
    O = A V                              →  dA = dO Vᵀ,  dV = Aᵀ dO
    L = (1/N) Σ ‖o − o*‖²                →  dO = 2 (O − O*) / N    (O*: the targets, chapter 07)

(`dY` is short for ∂L/∂Y, the gradient of the loss with respect to a matrix Y; it has the shape of Y.)

Many training runs go as one computation: the weights carry a leading batch axis (B runs), the
menus are stacked too, and `@` multiplies every (run, menu) pair at once, the parallelism of
chapter 05. The tasks live beside this module (`learning`: chapter 07's, `heads`: chapter 08's):
each gives `descend` its `evaluate` (loss and gradients of all runs) and reads the `Run`s back.

`__all__` is what a learner calls, checked at the boundary (`@public`). The loop's interface to
the task modules (`descend`, `Run`, `divergence`, `saved_steps` and the argument specs `RNG`,
`LR`, `STEPS`) takes what those modules built and checked, and runs unchecked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ._validate import (
    HelpersError,
    HelpersTypeError,
    arg,
    as_array,
    as_matrix,
    guard_size,
    instance,
    integer,
    learner_code,
    mask,
    number,
    public,
    require_same_length,
    said,
    trusted,
)
from .attention import attention_scores, masked_softmax, softmax_backward

__all__ = [
    "BLOWUP",
    "MAX_STEPS",
    "Forward",
    "forward",
    "backward",
    "numerical_gradient",
    "relative_error",
]

#: The three weight matrices of one attention, in the order `forward` takes them.
NAMES = ("W_Q", "W_K", "W_V")
#: The most updates one training run takes: about a minute on a laptop (the chapters use ≤ 1500).
MAX_STEPS = 200_000
#: The most entries `numerical_gradient` probes (two calls of the learner's f each).
MAX_PROBES = 10_000
#: A loss beyond this (or no longer a finite number) means the run has blown up.
BLOWUP = 1e6

#: The spec of an `rng` argument.
RNG = arg(instance, cls=np.random.Generator, made_by="np.random.Generator")
#: The spec of `steps`: how many updates one run may take.
STEPS = arg(integer, "steps(更新の回数)", lo=0, hi=MAX_STEPS)
#: The spec of `lr`.
LR = arg(number, "lr(学習率)", positive=True)


# --------------------------------------------------------------------------------------------
# Forward and backward


@dataclass(frozen=True)
class Forward:
    """Everything the forward pass computed; the backward pass needs X, Q, K, V and the weights."""

    X: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def _matrix_or_stack(a, name: str) -> np.ndarray:
    """A finite array with at least two axes: a matrix, or a stack of matrices."""
    arr = as_array(a, name)
    return as_matrix(arr, name) if arr.ndim < 2 else arr


def _faces_fit(a: dict) -> None:
    X, faces = a["X"], {name: a[name] for name in NAMES}
    for name, M in faces.items():
        if M.shape[-2] != X.shape[-1]:
            raise HelpersError(
                f"X @ {name} の形が合いません。X は shape {X.shape}(列 {X.shape[-1]})、{name} は "
                f"shape {M.shape}(行 {M.shape[-2]})です。{name} の行数は X の列数 d_model と同じにします。"
            )
    require_same_length(faces["W_Q"], faces["W_K"], "W_Q", "W_K", dim="列数 d_k")
    try:
        batch = np.broadcast_shapes(*(M.shape[:-2] for M in (X, *faces.values())))
    except ValueError as err:
        raise HelpersError(
            "X と W の前に付いた軸(まとめて計算する束の軸)の形が合いません: "
            + "、".join(f"{n} は shape {M.shape}" for n, M in (("X", X), *faces.items())) + "。"
        ) from err
    n = X.shape[-2]
    scores = (*batch, n, n)
    guard_size((*batch, n, max(n, *(M.shape[-1] for M in faces.values()))),
               "アテンションの重みと Q, K, V(束 × 語の数 × …)", by="X と W")
    mask = a["mask"]
    if mask is None:
        return
    try:
        fits = np.broadcast_shapes(mask.shape, scores) == scores
    except ValueError:
        fits = False
    if not fits:
        raise HelpersError(f"mask は得点と同じ (語の数, 語の数) = ({n}, {n}) の形にしてください。shape {mask.shape} が来ました。")
    if np.any(np.all(np.isneginf(mask), axis=-1)):
        raise HelpersError("mask にすべて -inf の行があります。どの語も見られない行では 0 / 0 = NaN になります。")


@public(_faces_fit, X=arg(_matrix_or_stack), W_Q=arg(_matrix_or_stack), W_K=arg(_matrix_or_stack), W_V=arg(_matrix_or_stack),
        mask=arg(mask, optional=True))
def forward(X, W_Q, W_K, W_V, mask=None) -> Forward:
    """Self-attention of the rows of X: the three faces, then softmax(Q Kᵀ / √d_k + mask) V.

    X is n × d_model and each W is d_model × d_k (d_model × d_v for W_V). Leading batch axes
    broadcast as they do for `@`: X of shape (m, n, d) with W_Q of shape (B, 1, d, k) computes
    all B × m attentions at once. `mask` (0 = may look, -inf = hidden; chapter 08) is added to
    the scores. The one forward pass of chapters 07 and 08.
    """
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = masked_softmax(attention_scores(Q, K), mask)
    return Forward(X, Q, K, V, A, A @ V)


def _the_forward_of_X(a: dict) -> None:
    X, fwd = a["X"], a["fwd"]
    if X.shape != fwd.X.shape or not np.array_equal(X, fwd.X):
        raise HelpersError(
            f"X は forward(...) に渡したものと同じにしてください(forward の X は shape {fwd.X.shape}、"
            f"来た X は shape {X.shape} です)。"
        )
    dO = a["d_output"]
    if dO.shape != fwd.output.shape:
        raise HelpersError(
            f"d_output は出力と同じ shape {fwd.output.shape} のはずですが、shape {dO.shape} が来ました。"
        )


@public(_the_forward_of_X, X=arg(_matrix_or_stack), d_output=arg(_matrix_or_stack),
        fwd=arg(instance, cls=Forward, made_by="forward(...) の結果"))
def backward(X, fwd: Forward, d_output) -> dict[str, np.ndarray]:
    """The chain rule, from dO back to dW_Q, dW_K, dW_V (each has the shape of its W), one line
    per step. The one backward pass of chapters 07 and 08.

    With batch axes, each gradient has the broadcast batch shape in front (one per attention);
    sum over an axis along which a W was shared to get that W's own gradient.
    """
    def transposed(M):
        return M.swapaxes(-1, -2)

    root_d_k = np.sqrt(fwd.Q.shape[-1])
    A, dO = fwd.weights, d_output
    dV = transposed(A) @ dO                          # O = A V
    dA = dO @ transposed(fwd.V)
    dS = softmax_backward(A, dA)                     # A = softmax(S), row by row
    dQ = dS @ fwd.K / root_d_k                       # S = Q Kᵀ / √d_k
    dK = transposed(dS) @ fwd.Q / root_d_k
    XT = transposed(fwd.X)
    return {"W_Q": XT @ dQ, "W_K": XT @ dK, "W_V": XT @ dV}  # Q = X W_Q, ...


# --------------------------------------------------------------------------------------------
# Checking a gradient


def _a_function(f, name: str):
    if not callable(f):
        raise HelpersTypeError(f"{name} には W を受け取って損失を返す関数を渡してください。{type(f).__name__} が来ました。")
    return f


@public(lambda a: guard_size(a["W"].shape, "W の成分(1 つごとに f を 2 回呼びます)", limit=MAX_PROBES, by="W"),
        f=arg(_a_function), W=arg(as_array), eps=arg(number, "eps(小さな正の数、例:1e-5)", positive=True))
def numerical_gradient(f: Callable[[np.ndarray], float], W, eps: float = 1e-5) -> np.ndarray:
    """Central differences: entry (i, j) is (f(W + eps·E_ij) − f(W − eps·E_ij)) / (2 eps)."""
    grad = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        bump = np.zeros_like(W)
        bump[idx] = eps
        grad[idx] = (_loss_of(f, W + bump) - _loss_of(f, W - bump)) / (2 * eps)
    return grad


def _loss_of(f: Callable[[np.ndarray], float], W: np.ndarray) -> float:
    """f(W), which must be one number (the loss)."""
    value = learner_code(f, W)
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    return number(value, "f(W) の値(損失は 1 つの数)")


def _same_shape(args: dict) -> None:
    a, b = args["a"], args["b"]
    if a.shape != b.shape:
        raise HelpersError(f"a は shape {a.shape}、b は shape {b.shape} です。同じ形で比べてください。")


@public(_same_shape, a=arg(as_array), b=arg(as_array))
def relative_error(a, b) -> float:
    """max |a − b| / max(|a| + |b|): 0 when equal, about 1 when unrelated."""
    scale = float(np.max(np.abs(a) + np.abs(b)))
    return 0.0 if scale == 0 else float(np.max(np.abs(a - b))) / scale


# --------------------------------------------------------------------------------------------
# Gradient descent


def saved_steps(a: dict) -> None:
    """A relation for `@public`: `save_at` as a sorted list of steps; None: 12 steps spread evenly."""
    steps, save_at = a["steps"], a["save_at"]
    if save_at is None:
        a["save_at"] = sorted({int(round(s)) for s in np.linspace(0, steps, 12)})
        return
    if isinstance(save_at, (str, bytes)) or not isinstance(save_at, Iterable):
        raise HelpersTypeError(f"save_at にはステップ番号の並び(例: [0, 10, 50])を渡してください。{said(save_at)} が来ました。")
    a["save_at"] = sorted({integer(s, f"save_at の要素(0 から steps={steps})", 0, steps) for s in save_at})


def divergence(updates: int, lr: float, blowup: float = BLOWUP) -> str:
    """Why a run stopped: before its first update the starting W was too large, else the step."""
    if updates == 0:
        return (f"学習を始める前から損失が {blowup:g} を超えているか有限の数でなく、発散しています。"
                "params に渡した W の最初の値を小さくしてください。")
    return (f"{updates} 回目の更新のあと、損失が {blowup:g} を超えたか有限の数でなくなり、発散しました。"
            f"学習率 lr = {lr:g} を小さくして試してください。")


@dataclass
class Run:
    """What `descend` saw of one run: per step its loss and small records (arrays, one row per
    step); at saved steps its weights and the large records, as (step, params, records)."""

    losses: np.ndarray
    records: dict[str, np.ndarray]
    saved: list[tuple[int, dict[str, np.ndarray], dict]]
    diverged: bool


@trusted
def descend(evaluate: Callable, batched: dict[str, np.ndarray], lr: float, steps: int,
            saved: Sequence[int], blowup: float = BLOWUP, frozen: Sequence[str] = ()) -> list[Run]:
    """Gradient descent for B runs at once (`batched`: each W stacked with the B runs first;
    updated in place).

    `evaluate(batched)` returns the B losses, their gradients, and two dicts of what each run records
    (arrays with the run first): one kept at every step, one only at the saved steps (an
    attention map at every step of 200,000 would fill the memory). Records are copies, so a step
    keeps nothing of the arrays it was computed in. A run whose loss grows beyond `blowup` or
    stops being a finite number stops there (its W stays where it was); the others go on. The
    one loop of chapters 07 and 08.
    """
    batch = len(next(iter(batched.values())))
    moving = [name for name in batched if name not in frozen]
    losses, records = [], None  # per step, all runs at once; records: {key: [per step]}
    recorded = np.zeros(batch, dtype=int)  # the steps each run recorded (a run that stops, stops)
    saved_by_run = [[] for _ in range(batch)]
    diverged = np.zeros(batch, dtype=bool)
    alive = np.ones(batch, dtype=bool)
    saved_steps = {*saved, steps}
    for step in range(steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # a blown-up run gives inf/NaN
            loss, grads, every_step, at_saved = evaluate(batched)
        if records is None:  # the first step says what every step records
            records = {key: [] for key in every_step}
            shapes = {key: np.shape(value) for key, value in every_step.items()}
        broken = alive & ~(loss <= blowup)  # NaN compares False, so it counts as broken
        diverged |= broken
        alive &= ~broken
        if not alive.any():
            break
        recorded[alive] += 1
        losses.append(np.array(loss, dtype=float))
        for key, value in every_step.items():
            records[key].append(np.array(value))
        if step in saved_steps:
            for b in np.flatnonzero(alive):
                saved_by_run[b].append((step, {n: W[b].copy() for n, W in batched.items()},
                                        {key: np.array(value[b]) for key, value in at_saved.items()}))
        if step < steps:
            for name in moving:  # a stopped run's W stays (its gradient may be NaN)
                batched[name] -= lr * np.where(alive.reshape(-1, *[1] * (batched[name].ndim - 1)),
                                               grads[name], 0.0)
    loss_table = np.array(losses).reshape(len(losses), batch)  # (steps recorded, runs)
    tables = {key: np.array(rows).reshape(len(rows), *shapes[key]) for key, rows in records.items()}
    return [Run(loss_table[:recorded[b], b], {key: t[:recorded[b], b] for key, t in tables.items()},
                 saved_by_run[b], bool(diverged[b])) for b in range(batch)]
