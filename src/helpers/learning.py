"""Chapter 07: how W_Q, W_K, W_V are learned — gradient descent on a toy task, in plain numpy.

The task (口直しさがし): on every menu (a few foods on the 甘い/辛い plane), each sweet food must
find the spiciest food on that menu and each spicy food the sweetest one. The attention output of
a food must become the embedding of that partner. Which partner is right depends on the menu, so
no fixed reshaping of a food's own vector can answer it: the food has to look at the others.

One forward pass is the attention of chapter 06 (Q, K, V, then softmax(Q Kᵀ / √d_k) V); chapter
07 writes it, one step of the backward pass and the loop in its own cells, and this module keeps
what the figures, the widget and the survey need. The backward pass applies the chain rule one
matrix product at a time, in the reverse order:

    Q = X W_Q, K = X W_K, V = X W_V      →  dW_Q = Xᵀ dQ,  dW_K = Xᵀ dK,  dW_V = Xᵀ dV
    S = Q Kᵀ / √d_k                      →  dQ = dS K / √d_k,  dK = (Qᵀ dS)ᵀ / √d_k = dSᵀ Q / √d_k
    A = softmax(S), row by row           →  dS = A ⊙ (dA − rowsum(dA ⊙ A))
    O = A V                              →  dA = dO Vᵀ,  dV = Aᵀ dO
    L = (1/N) Σ ‖o − t‖²                 →  dO = 2 (O − T) / N

(`dM` is short for ∂L/∂M, the gradient of the loss with respect to M; it has the shape of M.)

Many training runs go as one computation: the weights carry a leading batch axis (B runs), the
menus of one size are stacked too, and `@` multiplies every (run, menu) pair at once, the
parallelism of chapter 05. Inputs are checked once, where a caller comes in (`@public`, in
`_validate`); the arithmetic is written once (`forward`, `backward`, `_descend`) and runs
unchecked inside the loops. Chapter 08's heads learn through the same three.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

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
    said,
    trusted,
)
from .attention import attention_scores, softmax, softmax_backward
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
#: The most updates one training run takes: about a minute on a laptop (the chapters use ≤ 1500).
MAX_STEPS = 200_000
#: The most (run × step) records one call keeps: `survey_starts`' runs share this budget.
MAX_RUN_STEPS = 2_000_000
#: The most entries `numerical_gradient` probes (two calls of the learner's f each).
MAX_PROBES = 10_000
#: A loss beyond this (or no longer a finite number) means the run has blown up.
BLOWUP = 1e6


# --------------------------------------------------------------------------------------------
# The task


def _a_food_on_the_menu(a: dict) -> None:
    X = a["X"]
    if X.shape[1] != 2:
        raise HelpersError(f"X は n×2(甘さ, 辛さ)の行列にしてください。shape {X.shape} が来ました。")
    a["i"] = integer(a["i"], "i", 0, X.shape[0] - 1)


@public(_a_food_on_the_menu, X=arg(as_matrix))
def find_partner(X, i: int) -> int:
    """The row that food `i` must find on the menu X (n × 2: 甘さ, 辛さ).

    A sweet food (甘さ > 辛さ) looks for the spiciest food; any other food for the sweetest one.
    """
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

    @cached_property
    def stacks(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        """The menus of each size stacked: (X, T, partner) of shapes (m, n, d), (m, n, d), (m, n).

        In the order of `menus` (which go by size), so the full menu is the last of the last stack.
        """
        stacks = []
        for size in sorted({len(m.words) for m in self.menus}):
            same = [m for m in self.menus if len(m.words) == size]
            stacks.append((np.stack([m.X for m in same]), np.stack([m.targets for m in same]),
                           np.stack([m.partner for m in same])))
        return tuple(stacks)


#: The spec of a `task` argument: what `palate_task()` made.
TASK = arg(instance, cls=PalateTask, made_by="palate_task() の結果")
#: The spec of an `rng` argument.
RNG = arg(instance, cls=np.random.Generator, made_by="np.random.Generator")


def _both_tastes(a: dict) -> None:
    """An embedding on the 甘さ/辛さ plane with a sweet and a spicy food, no two equally sweet
    (or spicy): each food's partner must be one food."""
    embedding = a["embedding"]
    if embedding is None:
        emb = foods()
        embedding = Embedding(TASK_FOODS, np.vstack([emb[w] for w in TASK_FOODS]))
    a["embedding"] = instance(embedding, "embedding", Embedding, "helpers.data.Embedding")
    E = as_matrix(embedding.vectors, "embedding.vectors")
    if E.shape[1] != 2:
        raise HelpersError(f"この課題は 2 次元(甘さ, 辛さ)の埋め込みで作ります。shape {E.shape} が来ました。")
    sweet = E[:, 0] > E[:, 1]
    if sweet.all() or not sweet.any():
        raise HelpersError("甘い料理(甘さ > 辛さ)と辛い料理が、少なくとも 1 つずつ必要です。")
    for col, taste in ((0, "甘さ"), (1, "辛さ")):
        if len(np.unique(E[:, col])) < len(E):
            raise HelpersError(f"{taste}が同じ料理があります。一番を決められるよう、{taste}はすべて違う値にしてください。")
    # Every subset of the foods is a candidate menu: 2 ** (number of foods) of them.
    guard_size((2 ** len(E), len(E)), "メニューの候補(2 の「料理の数」乗)", by="embedding の料理の数")


@public(_both_tastes)
def palate_task(embedding: Embedding | None = None) -> PalateTask:
    """Every menu of two or more foods with at least one sweet and one spicy food.

    With the default foods (ケーキ, プリン, カレー, キムチ from chapter 01): 9 menus, 24 questions.
    """
    E = embedding.vectors
    sweet = E[:, 0] > E[:, 1]
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


@public(lambda a: guard_size((a["d_model"], max(a["d_model"], a["d_k"])), "重み行列", by="d_model, d_k"),
        rng=RNG, d_model=arg(integer, lo=1), d_k=arg(integer, lo=1), scale=arg(number, lo=0.0))
def initial_weights(rng: np.random.Generator, d_model: int = 2, d_k: int = 2,
                    scale: float = 0.3) -> dict[str, np.ndarray]:
    """Where learning starts: W_Q, W_K small random; W_V the identity plus small random.

    Small W_Q, W_K make the first attention almost even (nobody is committed to anyone yet);
    W_V near the identity (the value ≈ the food itself) keeps gradient descent away from a
    second valley where W_V swaps 甘さ and 辛さ instead of the attention looking elsewhere
    (`survey_starts` measures both).
    """
    W_Q = rng.normal(0.0, scale, size=(d_model, d_k))
    W_K = rng.normal(0.0, scale, size=(d_model, d_k))
    W_V = np.eye(d_model) + rng.normal(0.0, scale, size=(d_model, d_model))
    return {"W_Q": W_Q, "W_K": W_K, "W_V": W_V}


def _weights(W, d_model: int | None = None) -> dict[str, np.ndarray]:
    """The three W as matrices that fit together: W_Q, W_K d_model × d_k, W_V d_model × d_v."""
    if not isinstance(W, dict) or set(W) != set(NAMES):
        got = sorted(W, key=str) if isinstance(W, dict) else type(W).__name__
        raise HelpersError(f"W は {list(NAMES)} をキーにした辞書で渡してください。{got} が来ました。")
    W = {name: as_matrix(W[name], name) for name in NAMES}
    shapes = "、".join(f"{name} は shape {W[name].shape}" for name in NAMES)
    d_model = W["W_Q"].shape[0] if d_model is None else d_model
    if any(W[name].shape[0] != d_model for name in NAMES):
        raise HelpersError(
            f"三つの W の行数は、どれも埋め込みの次元 d_model = {d_model} でなければなりません"
            f"(x @ W の形を合わせるため)。{shapes} です。"
        )
    if W["W_Q"].shape[1] != W["W_K"].shape[1]:
        raise HelpersError(
            f"W_Q と W_K の列数 d_k は同じでなければなりません(q と k の内積を取るため)。{shapes} です。"
        )
    return W


def _task_weights(a: dict) -> None:
    """W for this task: d_model rows (the embedding's size) and W_V giving a full embedding back."""
    d = a["task"].full_menu.X.shape[1]
    a["W"] = W = _weights(a["W"], d)
    if W["W_V"].shape[1] != d:
        raise HelpersError(
            f"この課題の出力は相手の埋め込み({d} 次元)なので、W_V は shape ({d}, {d}) にしてください。"
            f"shape {W['W_V'].shape} が来ました。"
        )


def _weights_for(a: dict) -> None:
    """W whose rows fit the task's embedding (W_V may give any width: only the map is read)."""
    a["W"] = _weights(a["W"], a["task"].full_menu.X.shape[1])


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
    X, W = a["X"], {name: a[name] for name in NAMES}
    for name, M in W.items():
        if M.shape[-2] != X.shape[-1]:
            raise HelpersError(
                f"X @ {name} の形が合いません。X は shape {X.shape}(列 {X.shape[-1]})、{name} は "
                f"shape {M.shape}(行 {M.shape[-2]})です。{name} の行数は X の列数 d_model と同じにします。"
            )
    if W["W_Q"].shape[-1] != W["W_K"].shape[-1]:
        raise HelpersError(
            f"W_Q と W_K の列数 d_k が違います(W_Q は shape {W['W_Q'].shape}、W_K は shape "
            f"{W['W_K'].shape})。問いと見出しは内積を取るので、同じ d_k にします。"
        )
    try:
        batch = np.broadcast_shapes(*(M.shape[:-2] for M in (X, *W.values())))
    except ValueError as err:
        raise HelpersError(
            "X と W の前に付いた軸(まとめて計算する束の軸)の形が合いません: "
            + "、".join(f"{n} は shape {M.shape}" for n, M in (("X", X), *W.items())) + "。"
        ) from err
    n = X.shape[-2]
    scores = (*batch, n, n)
    guard_size((*batch, n, max(n, *(M.shape[-1] for M in W.values()))),
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
    scores = attention_scores(Q, K)
    A = softmax(scores if mask is None else scores + mask)
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


@public(_task_weights, task=TASK)
def loss_and_gradients(task: PalateTask, W) -> tuple[float, dict[str, np.ndarray]]:
    """L = (1/N) Σ over all menus and foods of ‖output − target‖², and dL/dW for each W."""
    loss, grads, _, _ = _evaluate(task, {name: M[None] for name, M in W.items()})
    return float(loss[0]), {name: g[0] for name, g in grads.items()}


def _evaluate(task: PalateTask, W: dict[str, np.ndarray]):
    """One pass over all menus for B runs at once (each W is B × d × k).

    Returns the B losses, their gradients (B × d × k each), and what `_descend` records of
    each run: at every step the share of questions it gets right; at saved steps its attention
    on the full menu (n × n).
    """
    N = task.n_rows
    batch = len(W["W_Q"])
    loss, right = np.zeros(batch), np.zeros(batch, dtype=int)
    grads = {name: np.zeros_like(M) for name, M in W.items()}
    shared = {name: M[:, None] for name, M in W.items()}  # one W for all menus of a stack
    for X, targets, partner in task.stacks:
        fwd = forward(X, shared["W_Q"], shared["W_K"], shared["W_V"])  # (B, m, n, ·)
        diff = fwd.output - targets
        loss += np.sum(diff**2, axis=(1, 2, 3)) / N
        for name, g in backward(X, fwd, 2 * diff / N).items():
            grads[name] += g.sum(axis=1)  # the menus shared W: their gradients add up
        right += np.sum(np.argmax(fwd.weights, axis=-1) == partner, axis=(1, 2))
    # the full menu is the last of the last stack
    return loss, grads, {"accuracy": right / N}, {"weights": fwd.weights[:, -1]}


@public(_weights_for, task=TASK)
def accuracy(task: PalateTask, W) -> float:
    """The share of (menu, food) questions whose largest attention weight is on the partner."""
    right = 0
    for menu in task.menus:
        weights = forward(menu.X, W["W_Q"], W["W_K"], W["W_V"]).weights
        right += int(np.sum(np.argmax(weights, axis=1) == menu.partner))
    return right / task.n_rows


# --------------------------------------------------------------------------------------------
# Checking the gradients


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
    blowup: float = BLOWUP

    @property
    def final(self) -> Snapshot:
        if not self.snapshots:
            raise HelpersError("保存されたステップがありません(diverged が True です)。"
                               + _diverged(len(self.losses), self.lr, self.blowup))
        return self.snapshots[-1]


def _saved_steps(a: dict) -> None:
    """`save_at` as a sorted list of steps; None: 12 steps spread evenly."""
    steps, save_at = a["steps"], a["save_at"]
    if save_at is None:
        a["save_at"] = sorted({int(round(s)) for s in np.linspace(0, steps, 12)})
        return
    if isinstance(save_at, (str, bytes)) or not isinstance(save_at, Iterable):
        raise HelpersTypeError(f"save_at にはステップ番号の並び(例: [0, 10, 50])を渡してください。{said(save_at)} が来ました。")
    a["save_at"] = sorted({integer(s, f"save_at の要素(0 から steps={steps})", 0, steps) for s in save_at})


def _frozen_names(a: dict) -> None:
    frozen = a["frozen"]
    if isinstance(frozen, str) or not isinstance(frozen, Iterable) or any(
        not isinstance(name, str) or name not in NAMES for name in frozen
    ):
        raise HelpersError(
            f"frozen には {list(NAMES)} の中の名前を並べてください(例: (\"W_V\",))。{said(frozen)} が来ました。"
        )


#: The spec of `steps`: how many updates one run may take.
STEPS = arg(integer, "steps(更新の回数)", lo=0, hi=MAX_STEPS)
#: The spec of `lr`.
LR = arg(number, "lr(学習率)", positive=True)


@public(_task_weights, _saved_steps, _frozen_names, task=TASK, lr=LR, steps=STEPS,
        blowup=arg(number, positive=True))
def train(task: PalateTask, W, lr: float, steps: int,
          save_at: Sequence[int] | None = None, blowup: float = BLOWUP,
          frozen: Sequence[str] = ()) -> History:
    """Plain gradient descent: W ← W − lr · dL/dW for all three W at once, `steps` times.

    `losses[s]` and `accuracies[s]` are measured before update s (so `losses[steps]` is the
    loss after the last update). Snapshots are taken at `save_at` (default: 12 steps spread
    evenly) and always at step `steps`. If the loss grows beyond `blowup` or stops being a
    finite number, training stops early and `diverged` is True (the losses stop there too).
    The matrices named in `frozen` (e.g. ``("W_V",)``) keep their starting value.
    """
    batch = {name: M[None].copy() for name, M in W.items()}
    return _histories(task, _descend(lambda W: _evaluate(task, W), batch, lr, steps, save_at,
                                     blowup, frozen), lr, blowup)[0]


def _diverged(updates: int, lr: float, blowup: float = BLOWUP) -> str:
    """Why a run stopped: before its first update the starting W was too large, else the step."""
    if updates == 0:
        return (f"学習を始める前から損失が {blowup:g} を超えているか有限の数でなく、発散しています。"
                "W の最初の値を小さくしてください。")
    return (f"{updates} 回目の更新のあと、損失が {blowup:g} を超えたか有限の数でなくなり、発散しました。"
            f"学習率 lr = {lr:g} を小さくして試してください。")


@dataclass
class _Run:
    """What `_descend` saw of one run: per step its loss and small records (arrays, one row per
    step); at saved steps its W and the large records, as (step, W, records)."""

    losses: np.ndarray
    records: dict[str, np.ndarray]
    saved: list[tuple[int, dict[str, np.ndarray], dict]]
    diverged: bool


@trusted
def _descend(evaluate: Callable, W: dict[str, np.ndarray], lr: float, steps: int,
             saved: Sequence[int], blowup: float = BLOWUP, frozen: Sequence[str] = ()) -> list[_Run]:
    """Gradient descent for B runs at once (each W has the B runs first; updated in place).

    `evaluate(W)` returns the B losses, their gradients, and two dicts of what each run records
    (arrays with the run first): one kept at every step, one only at the saved steps (an
    attention map at every step of 200,000 would fill the memory). Records are copies, so a step
    keeps nothing of the arrays it was computed in. A run whose loss grows beyond `blowup` or
    stops being a finite number stops there (its W stays where it was); the others go on. The
    one loop of chapters 07 and 08.
    """
    batch = len(next(iter(W.values())))
    moving = [name for name in W if name not in frozen]
    losses, records = [], None  # per step, all runs at once; records: {key: [per step]}
    recorded = np.zeros(batch, dtype=int)  # the steps each run recorded (a run that stops, stops)
    saved_by_run = [[] for _ in range(batch)]
    diverged = np.zeros(batch, dtype=bool)
    alive = np.ones(batch, dtype=bool)
    saved_steps = {*saved, steps}
    for step in range(steps + 1):
        with np.errstate(over="ignore", invalid="ignore"):  # a blown-up run gives inf/NaN
            loss, grads, every_step, at_saved = evaluate(W)
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
                saved_by_run[b].append((step, {n: M[b].copy() for n, M in W.items()},
                                        {key: np.array(value[b]) for key, value in at_saved.items()}))
        if step < steps:
            for name in moving:  # a stopped run's W stays (its gradient may be NaN)
                W[name] -= lr * np.where(alive.reshape(-1, *[1] * (W[name].ndim - 1)), grads[name], 0.0)
    loss_table = np.array(losses).reshape(len(losses), batch)  # (steps recorded, runs)
    tables = {key: np.array(rows).reshape(len(rows), *shapes[key]) for key, rows in records.items()}
    return [_Run(loss_table[:recorded[b], b], {key: t[:recorded[b], b] for key, t in tables.items()},
                 saved_by_run[b], bool(diverged[b])) for b in range(batch)]


def _histories(task: PalateTask, runs: list[_Run], lr: float, blowup: float = BLOWUP) -> list[History]:
    """Chapter 07's record of each run: losses, accuracies, snapshots with the full menu's map."""
    menu = task.full_menu
    histories = []
    for run in runs:
        accuracies = run.records["accuracy"]
        h = History(lr, menu.words, menu.partner.copy(), run.losses, accuracies,
                    diverged=run.diverged, blowup=blowup)
        for step, W, record in run.saved:
            h.snapshots.append(Snapshot(step, W, float(run.losses[step]), float(accuracies[step]),
                                        record["weights"]))
        histories.append(h)
    return histories


# --------------------------------------------------------------------------------------------
# Where learning starts, and which valley it ends in

#: Kinds of starting point compared by `survey_starts` (small random numbers have sd `scale`).
START_KINDS = ("この章の出発点", "W_V も乱数だけ", "Q = K = X")


@public(_weights_for, task=TASK)
def weight_split(task: PalateTask, W) -> tuple[float, float]:
    """The attention weight a question gives its right partner and itself, averaged over all N."""
    on_partner = on_self = 0.0
    for menu in task.menus:
        A = forward(menu.X, W["W_Q"], W["W_K"], W["W_V"]).weights
        rows = np.arange(len(menu.words))
        on_partner += float(A[rows, menu.partner].sum())
        on_self += float(np.trace(A))
    return on_partner / task.n_rows, on_self / task.n_rows


def _queries_and_keys_fit(a: dict) -> None:
    d = a["task"].full_menu.X.shape[1]
    W = _weights({"W_Q": a["W_Q"], "W_K": a["W_K"], "W_V": np.eye(d)}, d)
    a["W_Q"], a["W_K"] = W["W_Q"], W["W_K"]


@public(_queries_and_keys_fit, task=TASK)
def best_value_matrix(task: PalateTask, W_Q, W_K) -> tuple[np.ndarray, float]:
    """The best W_V while W_Q and W_K stay as they are, and the loss it gives.

    With the attention fixed, every output row is (A X)_i W_V: linear in W_V, so the W_V with
    the smallest mean squared error is a least-squares fit of A X to the targets T.
    """
    d = task.full_menu.X.shape[1]
    mixed, targets = [], []
    for menu in task.menus:
        A = forward(menu.X, W_Q, W_K, np.eye(d)).weights
        mixed.append(A @ menu.X)
        targets.append(menu.targets)
    M, T = np.vstack(mixed), np.vstack(targets)
    W_V = np.linalg.lstsq(M, T, rcond=None)[0]
    return W_V, float(np.sum((M @ W_V - T) ** 2)) / task.n_rows


def _a_kind(kind, name: str) -> str:
    if not isinstance(kind, str) or kind not in START_KINDS:
        raise HelpersError(f"{name} は {list(START_KINDS)} のどれかにしてください。{said(kind)} が来ました。")
    return kind


@public(rng=RNG, kind=arg(_a_kind), scale=arg(number, lo=0.0))
def start_weights(rng: np.random.Generator, kind: str, scale: float = 0.3) -> dict[str, np.ndarray]:
    """One starting point of the kind `kind` (one of START_KINDS), 2×2, drawn from `rng`.

    "この章の出発点" is `initial_weights`; "W_V も乱数だけ" the same without the identity in W_V;
    "Q = K = X" (W_Q = W_K = identity) starts with Q = K = X and W_V the identity plus small random.
    """
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


def _kinds(a: dict) -> None:
    kinds = a["kinds"]
    if isinstance(kinds, (str, bytes)) or not isinstance(kinds, Iterable) or not list(kinds):
        raise HelpersError(
            f"kinds には {list(START_KINDS)} の中から 1 つ以上を並べてください。{said(kinds)} が来ました。"
        )
    a["kinds"] = [_a_kind(kind, "kinds の要素") for kind in kinds]
    guard_size((len(a["kinds"]) * a["n"], a["steps"] + 1),
               "学習の記録(出発点の数 × 種類 × ステップ数)", limit=MAX_RUN_STEPS, by="n, kinds, steps")


@public(_kinds, task=TASK, rng=RNG, n=arg(integer, "n(出発点の数)", lo=1), lr=LR, steps=STEPS,
        scale=arg(number, lo=0.0))
def survey_starts(task: PalateTask, rng: np.random.Generator, n: int = 20, lr: float = 0.5,
                  steps: int = 200, kinds: Sequence[str] = START_KINDS,
                  scale: float = 0.3) -> list[StartSurvey]:
    """Train from `n` starting points of each kind and count where the runs ended."""
    starts = [start_weights(rng, kind, scale) for kind in kinds for _ in range(n)]
    W = {name: np.stack([w[name] for w in starts]) for name in NAMES}  # (runs, 2, 2)
    runs = _histories(task, _descend(lambda W: _evaluate(task, W), W, lr, steps, [0]), lr)
    surveys = []
    for k, kind in enumerate(kinds):
        losses, solved, swapped, diverged, first = [], [], [], [], []
        for h in runs[k * n:(k + 1) * n]:
            ok = not h.diverged and h.accuracies[-1] == 1.0
            losses.append(h.losses[-1] if len(h.losses) else np.inf)  # inf: diverged at once
            solved.append(ok)
            diverged.append(h.diverged)
            W_V = h.final.W["W_V"] if not h.diverged else None
            swapped.append(not ok and W_V is not None
                           and np.linalg.norm(W_V - SWAP) < np.linalg.norm(W_V - np.eye(2)))
            if ok:
                first.append(int(np.argmax(h.accuracies == 1.0)))
        surveys.append(StartSurvey(kind, np.array(losses), np.array(solved), np.array(swapped),
                                   np.array(diverged), np.array(first, dtype=int)))
    return surveys
