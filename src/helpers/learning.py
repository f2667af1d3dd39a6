"""Chapter 07: how W_Q, W_K, W_V are learned — gradient descent on a toy task, in plain numpy.

The task (口直しさがし): on every menu (a few foods on the 甘い/辛い plane), each sweet food must
find the spiciest food on that menu and each spicy food the sweetest one. The attention output of
a food must become the embedding of that partner. Which partner is right depends on the menu, so
no fixed reshaping of a food's own vector can answer it: the food has to look at the others.

One forward pass is the attention of chapter 06 (`helpers.qkv`, then
`helpers.scaled_dot_product_attention`). The backward pass applies the chain rule one matrix
product at a time, in the reverse order:

    Q = X W_Q, K = X W_K, V = X W_V      →  dW_Q = Xᵀ dQ,  dW_K = Xᵀ dK,  dW_V = Xᵀ dV
    S = Q Kᵀ / √d_k                      →  dQ = dS K / √d_k,  dK = (Qᵀ dS)ᵀ / √d_k = dSᵀ Q / √d_k
    A = softmax(S), row by row           →  dS = A ⊙ (dA − rowsum(dA ⊙ A))
    O = A V                              →  dA = dO Vᵀ,  dV = Aᵀ dO
    L = (1/N) Σ ‖o − t‖²                 →  dO = 2 (O − T) / N

(`dM` is short for ∂L/∂M, the gradient of the loss with respect to M; it has the shape of M.)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._validate import as_array, as_matrix, integer, number
from .attention import qkv, scaled_dot_product_attention
from .data import SWAP, Embedding, foods

__all__ = [
    "NAMES",
    "Menu",
    "PalateTask",
    "palate_task",
    "find_partner",
    "initial_weights",
    "Forward",
    "forward",
    "softmax_backward",
    "backward",
    "loss_and_gradients",
    "accuracy",
    "numerical_gradient",
    "relative_error",
    "Snapshot",
    "History",
    "train",
    "SWAP",
    "START_KINDS",
    "weight_split",
    "best_value_matrix",
    "start_weights",
    "StartSurvey",
    "survey_starts",
]

#: The three weight matrices, in the order `qkv` takes them.
NAMES = ("W_Q", "W_K", "W_V")
#: The four foods of chapter 01 with a clear taste (照り焼き is as sweet as it is spicy).
TASK_FOODS = ("ケーキ", "プリン", "カレー", "キムチ")


# --------------------------------------------------------------------------------------------
# The task


def find_partner(X, i: int) -> int:
    """The row that food `i` must find on the menu X (n × 2: 甘さ, 辛さ).

    A sweet food (甘さ > 辛さ) looks for the spiciest food; any other food for the sweetest one.
    """
    X = as_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X は n×2(甘さ, 辛さ)の行列にしてください。shape {X.shape} が来ました。")
    i = integer(i, "i", 0, X.shape[0] - 1)
    sweet, spicy = X[i]
    wanted = 1 if sweet > spicy else 0  # sweet → look at the 辛さ column, else at the 甘さ column
    return int(np.argmax(X[:, wanted]))


@dataclass(frozen=True)
class Menu:
    """One menu: its foods (rows of X) and, for each food, the row of the partner it must find."""

    words: tuple[str, ...]
    X: np.ndarray
    partner: np.ndarray

    @property
    def targets(self) -> np.ndarray:
        """T: row i is the embedding of food i's partner — what its attention output should be."""
        return self.X[self.partner]


@dataclass(frozen=True)
class PalateTask:
    """All menus of the toy task. `menus[-1]` is the full menu, the one the figures show."""

    embedding: Embedding
    menus: tuple[Menu, ...]

    @property
    def n_rows(self) -> int:
        """N: how many (menu, food) questions there are; the loss is averaged over them."""
        return sum(len(m.words) for m in self.menus)

    @property
    def full_menu(self) -> Menu:
        return self.menus[-1]


def palate_task(embedding: Embedding | None = None) -> PalateTask:
    """Every menu of two or more foods with at least one sweet and one spicy food.

    With the default foods (ケーキ, プリン, カレー, キムチ from chapter 01): 9 menus, 24 questions.
    """
    if embedding is None:
        emb = foods()
        embedding = Embedding(TASK_FOODS, np.vstack([emb[w] for w in TASK_FOODS]))
    if not isinstance(embedding, Embedding):
        raise TypeError(
            f"embedding には helpers.data.Embedding を渡してください。{type(embedding).__name__} が来ました。"
        )
    E = as_matrix(embedding.vectors, "embedding.vectors")
    if E.shape[1] != 2:
        raise ValueError(f"この課題は 2 次元(甘さ, 辛さ)の埋め込みで作ります。shape {E.shape} が来ました。")
    sweet = E[:, 0] > E[:, 1]
    if sweet.all() or not sweet.any():
        raise ValueError("甘い料理(甘さ > 辛さ)と辛い料理が、少なくとも 1 つずつ必要です。")
    for col, taste in ((0, "甘さ"), (1, "辛さ")):
        if len(np.unique(E[:, col])) < len(E):
            raise ValueError(f"{taste}が同じ料理があります。一番を決められるよう、{taste}はすべて違う値にしてください。")
    menus = []
    for size in range(2, len(E) + 1):
        for rows in itertools.combinations(range(len(E)), size):
            rows = list(rows)
            if sweet[rows].all() or not sweet[rows].any():
                continue
            X = E[rows]
            partner = np.array([find_partner(X, i) for i in range(len(rows))])
            menus.append(Menu(tuple(embedding.words[r] for r in rows), X, partner))
    return PalateTask(embedding, tuple(menus))


def initial_weights(rng: np.random.Generator, d_model: int = 2, d_k: int = 2,
                    scale: float = 0.3) -> dict[str, np.ndarray]:
    """Where learning starts: W_Q, W_K small random; W_V the identity plus small random.

    Small W_Q, W_K make the first attention almost even (nobody is committed to anyone yet);
    W_V near the identity (the value ≈ the food itself) keeps gradient descent away from a
    second valley where W_V swaps 甘さ and 辛さ instead of the attention looking elsewhere
    (`survey_starts` measures both).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng には np.random.Generator を渡してください。{type(rng).__name__} が来ました。")
    d_model, d_k = integer(d_model, "d_model", lo=1), integer(d_k, "d_k", lo=1)
    scale = number(scale, "scale", lo=0.0)
    W_Q = rng.normal(0.0, scale, size=(d_model, d_k))
    W_K = rng.normal(0.0, scale, size=(d_model, d_k))
    W_V = np.eye(d_model) + rng.normal(0.0, scale, size=(d_model, d_model))
    return {"W_Q": W_Q, "W_K": W_K, "W_V": W_V}


def _weights(W) -> dict[str, np.ndarray]:
    if not isinstance(W, dict) or set(W) != set(NAMES):
        got = sorted(W) if isinstance(W, dict) else type(W).__name__
        raise ValueError(f"W は {list(NAMES)} をキーにした辞書で渡してください。{got} が来ました。")
    return {name: as_matrix(W[name], name) for name in NAMES}


# --------------------------------------------------------------------------------------------
# Forward and backward


@dataclass(frozen=True)
class Forward:
    """Everything the forward pass computed; the backward pass needs Q, K, V and the weights."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def forward(X, W_Q, W_K, W_V) -> Forward:
    """Self-attention of the rows of X: the three faces, then softmax(Q Kᵀ / √d_k) V."""
    Q, K, V = qkv(X, W_Q, W_K, W_V)
    output, weights = scaled_dot_product_attention(Q, K, V)
    return Forward(Q, K, V, weights, output)


def _forward(X: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray, W_V: np.ndarray) -> Forward:
    """`forward` without the input checks: training calls it thousands of times on arrays it made.

    The same arithmetic as `qkv` + `scaled_dot_product_attention` (a test holds them equal).
    """
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return Forward(Q, K, V, A, A @ V)


def softmax_backward(weights, d_weights) -> np.ndarray:
    """From dA (gradient w.r.t. the softmax output A) to dS (w.r.t. the scores), row by row.

    For one row a = softmax(s) the Jacobian is J = diag(a) − a aᵀ, and the chain rule gives
    ds = Jᵀ da, which is J da because J is symmetric. Written out,
    ds_j = a_j (da_j − Σ_k a_k da_k): no J has to be built.
    """
    A = as_matrix(weights, "weights")
    dA = as_matrix(d_weights, "d_weights")
    if A.shape != dA.shape:
        raise ValueError(
            f"weights と d_weights は同じ形のはずです: weights は shape {A.shape}、"
            f"d_weights は shape {dA.shape} です(勾配はもとの行列と同じ形になります)。"
        )
    return _softmax_backward(A, dA)


def _softmax_backward(A: np.ndarray, dA: np.ndarray) -> np.ndarray:
    return A * (dA - np.sum(dA * A, axis=1, keepdims=True))


def backward(X, fwd: Forward, d_output) -> dict[str, np.ndarray]:
    """The chain rule, from dO back to dW_Q, dW_K, dW_V (each has the shape of its W)."""
    X = as_matrix(X, "X")
    if not isinstance(fwd, Forward):
        raise TypeError(f"fwd には forward(...) の結果を渡してください。{type(fwd).__name__} が来ました。")
    dO = as_matrix(d_output, "d_output")
    if dO.shape != fwd.output.shape:
        raise ValueError(
            f"d_output は出力と同じ shape {fwd.output.shape} のはずですが、shape {dO.shape} が来ました。"
        )
    return _backward(X, fwd, dO)


def _backward(X: np.ndarray, fwd: Forward, dO: np.ndarray) -> dict[str, np.ndarray]:
    d_k = fwd.Q.shape[1]
    dV = fwd.weights.T @ dO                          # O = A V
    dA = dO @ fwd.V.T
    dS = _softmax_backward(fwd.weights, dA)          # A = softmax(S), each row
    dQ = dS @ fwd.K / np.sqrt(d_k)                   # S = Q Kᵀ / √d_k
    dK = dS.T @ fwd.Q / np.sqrt(d_k)
    return {"W_Q": X.T @ dQ, "W_K": X.T @ dK, "W_V": X.T @ dV}  # Q = X W_Q, ...


def loss_and_gradients(task: PalateTask, W) -> tuple[float, dict[str, np.ndarray]]:
    """L = (1/N) Σ over all menus and foods of ‖output − target‖², and dL/dW for each W."""
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    loss, grads, _ = _evaluate(task, _weights(W))
    return loss, grads


def _evaluate(task: PalateTask, W: dict[str, np.ndarray]) -> tuple[float, dict, int]:
    """One pass over all menus: the loss, its gradients, and how many questions are right."""
    N = task.n_rows
    loss, right = 0.0, 0
    grads = {name: np.zeros_like(W[name]) for name in NAMES}
    for menu in task.menus:
        fwd = _forward(menu.X, W["W_Q"], W["W_K"], W["W_V"])
        diff = fwd.output - menu.targets
        loss += float(np.sum(diff**2)) / N
        for name, g in _backward(menu.X, fwd, 2 * diff / N).items():
            grads[name] += g
        right += int(np.sum(np.argmax(fwd.weights, axis=1) == menu.partner))
    return loss, grads, right


def accuracy(task: PalateTask, W) -> float:
    """The share of (menu, food) questions whose largest attention weight is on the partner."""
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    W = _weights(W)
    right = 0
    for menu in task.menus:
        weights = forward(menu.X, W["W_Q"], W["W_K"], W["W_V"]).weights
        right += int(np.sum(np.argmax(weights, axis=1) == menu.partner))
    return right / task.n_rows


# --------------------------------------------------------------------------------------------
# Checking the gradients


def numerical_gradient(f: Callable[[np.ndarray], float], W, eps: float = 1e-5) -> np.ndarray:
    """Central differences: entry (i, j) is (f(W + eps·E_ij) − f(W − eps·E_ij)) / (2 eps)."""
    if not callable(f):
        raise TypeError(f"f には W を受け取って損失を返す関数を渡してください。{type(f).__name__} が来ました。")
    W = as_array(W, "W")
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps は小さな正の数にしてください(例:1e-5)。{eps} が来ました。")
    grad = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        bump = np.zeros_like(W)
        bump[idx] = eps
        grad[idx] = (f(W + bump) - f(W - bump)) / (2 * eps)
    return grad


def relative_error(a, b) -> float:
    """max |a − b| / max(|a| + |b|): 0 when equal, about 1 when unrelated."""
    a = as_array(a, "a")
    b = as_array(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a は shape {a.shape}、b は shape {b.shape} です。同じ形で比べてください。")
    scale = float(np.max(np.abs(a) + np.abs(b)))
    return 0.0 if scale == 0 else float(np.max(np.abs(a - b))) / scale


# --------------------------------------------------------------------------------------------
# Gradient descent


@dataclass(frozen=True)
class Snapshot:
    """The state at one saved step: the three W, the loss, the accuracy, the full menu's map."""

    step: int
    W: dict[str, np.ndarray]
    loss: float
    accuracy: float
    weights: np.ndarray


@dataclass
class History:
    """What `train` saw: the loss and accuracy before every step, and snapshots at saved steps.

    `words` and `partner` describe the full menu, whose attention map the snapshots keep.
    """

    lr: float
    words: tuple[str, ...]
    partner: np.ndarray
    losses: np.ndarray
    accuracies: np.ndarray
    snapshots: list[Snapshot] = field(default_factory=list)
    diverged: bool = False

    @property
    def final(self) -> Snapshot:
        return self.snapshots[-1]


def _save_steps(steps: int, save_at) -> list[int]:
    if save_at is None:
        return sorted({int(round(s)) for s in np.linspace(0, steps, 12)})
    return sorted({integer(s, f"save_at の要素(0 から steps={steps})", 0, steps) for s in save_at})


def train(task: PalateTask, W, lr: float, steps: int,
          save_at: Sequence[int] | None = None, blowup: float = 1e6,
          frozen: Sequence[str] = ()) -> History:
    """Plain gradient descent: W ← W − lr · dL/dW for all three W at once, `steps` times.

    `losses[s]` and `accuracies[s]` are measured before update s (so `losses[steps]` is the
    loss after the last update). Snapshots are taken at `save_at` (default: 12 steps spread
    evenly) and always at step `steps`. If the loss grows beyond `blowup` or stops being a
    finite number, training stops early and `diverged` is True (the losses stop there too).
    The matrices named in `frozen` (e.g. ``("W_V",)``) keep their starting value.
    """
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    W = {name: m.copy() for name, m in _weights(W).items()}
    lr = number(lr, "lr(学習率)", positive=True)
    steps = integer(steps, "steps(更新の回数)", lo=0)
    number(blowup, "blowup", positive=True)
    if isinstance(frozen, str) or any(name not in NAMES for name in frozen):
        raise ValueError(
            f"frozen には {list(NAMES)} の中の名前を並べてください(例: (\"W_V\",))。{frozen!r} が来ました。"
        )
    moving = [name for name in NAMES if name not in frozen]
    saved = _save_steps(steps, save_at)
    history = History(float(lr), task.full_menu.words, task.full_menu.partner.copy(),
                      np.zeros(0), np.zeros(0))
    losses, accuracies = [], []
    for step in range(steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # a blown-up run gives inf/NaN
            loss, grads, right = _evaluate(task, W)
        if not np.isfinite(loss) or loss > blowup:
            history.diverged = True
            break
        losses.append(loss)
        accuracies.append(right / task.n_rows)
        if step in saved or step == steps:
            weights = forward(task.full_menu.X, W["W_Q"], W["W_K"], W["W_V"]).weights
            history.snapshots.append(
                Snapshot(step, {n: m.copy() for n, m in W.items()}, loss, accuracies[-1], weights)
            )
        if step < steps:
            W = {**W, **{name: W[name] - lr * grads[name] for name in moving}}
    history.losses = np.array(losses)
    history.accuracies = np.array(accuracies)
    return history


# --------------------------------------------------------------------------------------------
# Where learning starts, and which valley it ends in

#: Kinds of starting point compared by `survey_starts` (small random numbers have sd `scale`).
START_KINDS = ("この章の出発点", "W_V も乱数だけ", "Q = K = X")


def weight_split(task: PalateTask, W) -> tuple[float, float]:
    """The attention weight a question gives its right partner and itself, averaged over all N."""
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    W = _weights(W)
    on_partner = on_self = 0.0
    for menu in task.menus:
        A = forward(menu.X, W["W_Q"], W["W_K"], W["W_V"]).weights
        rows = np.arange(len(menu.words))
        on_partner += float(A[rows, menu.partner].sum())
        on_self += float(np.trace(A))
    return on_partner / task.n_rows, on_self / task.n_rows


def best_value_matrix(task: PalateTask, W_Q, W_K) -> tuple[np.ndarray, float]:
    """The best W_V while W_Q and W_K stay as they are, and the loss it gives.

    With the attention fixed, every output row is (A X)_i W_V: linear in W_V, so the W_V with
    the smallest mean squared error is a least-squares fit of A X to the targets T.
    """
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    W_Q, W_K = as_matrix(W_Q, "W_Q"), as_matrix(W_K, "W_K")
    d = task.full_menu.X.shape[1]
    mixed, targets = [], []
    for menu in task.menus:
        A = forward(menu.X, W_Q, W_K, np.eye(d)).weights
        mixed.append(A @ menu.X)
        targets.append(menu.targets)
    M, T = np.vstack(mixed), np.vstack(targets)
    W_V = np.linalg.lstsq(M, T, rcond=None)[0]
    return W_V, float(np.sum((M @ W_V - T) ** 2)) / task.n_rows


def start_weights(rng: np.random.Generator, kind: str, scale: float = 0.3) -> dict[str, np.ndarray]:
    """One starting point of the kind `kind` (one of START_KINDS), 2×2, drawn from `rng`.

    "この章の出発点" is `initial_weights`; "W_V も乱数だけ" the same without the identity in W_V;
    "Q = K = X" (W_Q = W_K = identity) starts with Q = K = X and W_V the identity plus small random.
    """
    if kind not in START_KINDS:
        raise ValueError(f"kind は {list(START_KINDS)} のどれかにしてください。{kind!r} が来ました。")
    W = initial_weights(rng, scale=scale)
    if kind == "W_V も乱数だけ":
        W["W_V"] = W["W_V"] - np.eye(2)
    elif kind == "Q = K = X":
        W["W_Q"], W["W_K"] = np.eye(2), np.eye(2)
    return W


@dataclass(frozen=True)
class StartSurvey:
    """How `n` runs from one kind of starting point ended.

    `solved`: 100% right at the end; `swapped`: not solved and the final W_V is nearer the swap
    matrix than the identity (the second valley); `first_perfect`: the first step at 100% for
    the solved runs.
    """

    kind: str
    final_losses: np.ndarray
    solved: np.ndarray
    swapped: np.ndarray
    diverged: np.ndarray
    first_perfect: np.ndarray

    @property
    def n(self) -> int:
        return len(self.solved)


def survey_starts(task: PalateTask, rng: np.random.Generator, n: int = 20, lr: float = 0.5,
                  steps: int = 200, kinds: Sequence[str] = START_KINDS,
                  scale: float = 0.3) -> list[StartSurvey]:
    """Train from `n` starting points of each kind and count where the runs ended."""
    if not isinstance(task, PalateTask):
        raise TypeError(f"task には palate_task() の結果を渡してください。{type(task).__name__} が来ました。")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng には np.random.Generator を渡してください。{type(rng).__name__} が来ました。")
    n = integer(n, "n(出発点の数)", lo=1)
    surveys = []
    for kind in kinds:
        losses, solved, swapped, diverged, first = [], [], [], [], []
        for _ in range(n):
            h = train(task, start_weights(rng, kind, scale), lr, steps, save_at=[0])
            W_V = h.snapshots[-1].W["W_V"]
            ok = not h.diverged and h.accuracies[-1] == 1.0
            losses.append(h.losses[-1])
            solved.append(ok)
            diverged.append(h.diverged)
            swapped.append(not ok and not h.diverged
                           and np.linalg.norm(W_V - SWAP) < np.linalg.norm(W_V - np.eye(2)))
            if ok:
                first.append(int(np.argmax(h.accuracies == 1.0)))
        surveys.append(StartSurvey(kind, np.array(losses), np.array(solved), np.array(swapped),
                                   np.array(diverged), np.array(first, dtype=int)))
    return surveys
