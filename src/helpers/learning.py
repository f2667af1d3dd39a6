"""Chapter 07: how W_Q, W_K, W_V are learned — gradient descent on a toy task, in plain numpy.

The task (口直しさがし): on every menu (a few foods on the 甘い/辛い plane), each sweet food must
find the spiciest food on that menu and each spicy food the sweetest one. The attention output of
a food must become the embedding of that partner. Which partner is right depends on the menu, so
no fixed reshaping of a food's own vector can answer it: the food has to look at the others.

Chapter 07 writes the forward pass, one step of the backward pass and the loop in its own
cells; this module keeps the task and what the figures, the widget and the survey need, and
trains through the shared engine beside it (`descent`: `forward`, `backward`, `descend`, which
chapter 08's heads use too; `forward`, `backward`, `numerical_gradient` and `relative_error` are
re-exported here for the chapter). Inputs are checked once, where a caller comes in (`@public`,
in `_validate`); the arithmetic runs unchecked inside the loops. The menus of one size are
stacked, so one pass computes every menu of every run at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ._validate import (
    HelpersError,
    arg,
    as_matrix,
    guard_size,
    instance,
    integer,
    number,
    public,
    require_same_length,
    said,
)
from .data import SWAP, Embedding, foods
from .descent import (
    BLOWUP,
    LR,
    NAMES,
    RNG,
    STEPS,
    Forward,
    Run,
    backward,
    descend,
    divergence,
    forward,
    numerical_gradient,
    relative_error,
    saved_steps,
)

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

#: The four foods of chapter 01 with a clear taste (照り焼き is as sweet as it is spicy).
TASK_FOODS = ("ケーキ", "プリン", "カレー", "キムチ")
#: The most (run × step) records one call keeps: `survey_starts`' runs share this budget.
MAX_RUN_STEPS = 2_000_000


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
        """O* (`O_star` in chapter 07): row i is the embedding of food i's partner — what its attention output should be."""
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
        """The menus of each size stacked: (X, O*, partner) of shapes (m, n, d), (m, n, d), (m, n).

        In the order of `menus` (which go by size), so the full menu is the last of the last stack.
        """
        stacks = []
        for size in sorted({len(m.words) for m in self.menus}):
            same = [m for m in self.menus if len(m.words) == size]
            stacks.append((np.stack([m.X for m in same]), np.stack([m.targets for m in same]),
                           np.stack([m.partner for m in same])))
        return tuple(stacks)


#: The spec of a `task` argument: what `palate_task()` made.
PALATE_TASK = arg(instance, cls=PalateTask, made_by="palate_task() の結果")


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


def _weights(params, d_model: int | None = None) -> dict[str, np.ndarray]:
    """`params`, the three W as matrices that fit together: W_Q, W_K d_model × d_k, W_V
    d_model × d_v."""
    if not isinstance(params, dict) or set(params) != set(NAMES):
        got = sorted(params, key=str) if isinstance(params, dict) else type(params).__name__
        raise HelpersError(f"params は {list(NAMES)} をキーにした辞書で渡してください。{got} が来ました。")
    params = {name: as_matrix(params[name], f"params[{name!r}]") for name in NAMES}
    shapes = "、".join(f"{name} は shape {params[name].shape}" for name in NAMES)
    d_model = params["W_Q"].shape[0] if d_model is None else d_model
    if any(params[name].shape[0] != d_model for name in NAMES):
        raise HelpersError(
            f"三つの W の行数は、どれも埋め込みの次元 d_model = {d_model} でなければなりません"
            f"(x @ W の形を合わせるため)。{shapes} です。"
        )
    require_same_length(params["W_Q"], params["W_K"], "W_Q", "W_K", dim="列数 d_k")
    return params


def _task_weights(a: dict) -> None:
    """`params` for this task: d_model rows (the embedding's size), W_V giving a full embedding back."""
    d = a["task"].full_menu.X.shape[1]
    a["params"] = params = _weights(a["params"], d)
    if params["W_V"].shape[1] != d:
        raise HelpersError(
            f"この課題の出力は相手の埋め込み({d} 次元)なので、W_V は shape ({d}, {d}) にしてください。"
            f"shape {params['W_V'].shape} が来ました。"
        )


def _weights_for(a: dict) -> None:
    """`params` whose rows fit the task's embedding (W_V may give any width: only the map is read)."""
    a["params"] = _weights(a["params"], a["task"].full_menu.X.shape[1])


# --------------------------------------------------------------------------------------------
# The loss, its gradients and the accuracy on the task


@public(_task_weights, task=PALATE_TASK)
def loss_and_gradients(task: PalateTask, params) -> tuple[float, dict[str, np.ndarray]]:
    """L = (1/N) Σ over all menus and foods of ‖output − target‖², and dL/dW for each W of
    `params` (W_Q, W_K, W_V)."""
    loss, grads, _, _ = _palate_pass(task, {name: W[None] for name, W in params.items()})
    return float(loss[0]), {name: g[0] for name, g in grads.items()}


def _palate_pass(task: PalateTask, batched: dict[str, np.ndarray]):
    """One pass over all menus for B runs at once (`batched`: each W stacked, B × d × k).

    Returns the B losses, their gradients (B × d × k each), and what `descend` records of
    each run: at every step the share of questions it gets right; at saved steps its attention
    on the full menu (n × n).
    """
    N = task.n_rows
    batch = len(batched["W_Q"])
    loss, right = np.zeros(batch), np.zeros(batch, dtype=int)
    grads = {name: np.zeros_like(M) for name, M in batched.items()}
    shared = {name: M[:, None] for name, M in batched.items()}  # one W for all menus of a stack
    for X, targets, partner in task.stacks:
        fwd = forward(X, shared["W_Q"], shared["W_K"], shared["W_V"])  # (B, m, n, ·)
        diff = fwd.output - targets
        loss += np.sum(diff**2, axis=(1, 2, 3)) / N
        for name, g in backward(X, fwd, 2 * diff / N).items():
            grads[name] += g.sum(axis=1)  # the menus shared W: their gradients add up
        right += np.sum(np.argmax(fwd.weights, axis=-1) == partner, axis=(1, 2))
    # the full menu is the last of the last stack
    return loss, grads, {"accuracy": right / N}, {"weights": fwd.weights[:, -1]}


@public(_weights_for, task=PALATE_TASK)
def accuracy(task: PalateTask, params) -> float:
    """The share of (menu, food) questions whose largest attention weight is on the partner."""
    right = 0
    for menu in task.menus:
        weights = forward(menu.X, params["W_Q"], params["W_K"], params["W_V"]).weights
        right += int(np.sum(np.argmax(weights, axis=1) == menu.partner))
    return right / task.n_rows


# --------------------------------------------------------------------------------------------
# Gradient descent


@dataclass(frozen=True)
class Snapshot:
    """The state at one saved step: the three W, the loss, the accuracy, the full menu's map."""

    step: int
    params: dict[str, np.ndarray]
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
                               + divergence(len(self.losses), self.lr, self.blowup))
        return self.snapshots[-1]


def _frozen_names(a: dict) -> None:
    frozen = a["frozen"]
    if isinstance(frozen, str) or not isinstance(frozen, Iterable) or any(
        not isinstance(name, str) or name not in NAMES for name in frozen
    ):
        raise HelpersError(
            f"frozen には {list(NAMES)} の中の名前を並べてください(例: (\"W_V\",))。{said(frozen)} が来ました。"
        )


@public(_task_weights, saved_steps, _frozen_names, task=PALATE_TASK, lr=LR, steps=STEPS,
        blowup=arg(number, positive=True))
def train(task: PalateTask, params, lr: float, steps: int,
          save_at: Sequence[int] | None = None, blowup: float = BLOWUP,
          frozen: Sequence[str] = ()) -> History:
    """Plain gradient descent: W ← W − lr · dL/dW for all three W at once, `steps` times.

    `losses[s]` and `accuracies[s]` are measured before update s (so `losses[steps]` is the
    loss after the last update). Snapshots are taken at `save_at` (default: 12 steps spread
    evenly) and always at step `steps`. If the loss grows beyond `blowup` or stops being a
    finite number, training stops early and `diverged` is True (the losses stop there too).
    The matrices named in `frozen` (e.g. ``("W_V",)``) keep their starting value.
    """
    batched = {name: W[None].copy() for name, W in params.items()}
    return _histories(task, descend(lambda b: _palate_pass(task, b), batched, lr, steps, save_at,
                                     blowup, frozen), lr, blowup)[0]


def _histories(task: PalateTask, runs: list[Run], lr: float, blowup: float = BLOWUP) -> list[History]:
    """Chapter 07's record of each run: losses, accuracies, snapshots with the full menu's map."""
    menu = task.full_menu
    histories = []
    for run in runs:
        accuracies = run.records["accuracy"]
        h = History(lr, menu.words, menu.partner.copy(), run.losses, accuracies,
                    diverged=run.diverged, blowup=blowup)
        for step, params, record in run.saved:
            h.snapshots.append(Snapshot(step, params, float(run.losses[step]), float(accuracies[step]),
                                        record["weights"]))
        histories.append(h)
    return histories


# --------------------------------------------------------------------------------------------
# Where learning starts, and which valley it ends in

#: Kinds of starting point compared by `survey_starts` (small random numbers have sd `scale`).
START_KINDS = ("この章の出発点", "W_V も乱数だけ", "Q = K = X")


@public(_weights_for, task=PALATE_TASK)
def weight_split(task: PalateTask, params) -> tuple[float, float]:
    """The attention weight a question gives its right partner and itself, averaged over all N."""
    on_partner = on_self = 0.0
    for menu in task.menus:
        A = forward(menu.X, params["W_Q"], params["W_K"], params["W_V"]).weights
        rows = np.arange(len(menu.words))
        on_partner += float(A[rows, menu.partner].sum())
        on_self += float(np.trace(A))
    return on_partner / task.n_rows, on_self / task.n_rows


def _queries_and_keys_fit(a: dict) -> None:
    d = a["task"].full_menu.X.shape[1]
    params = _weights({"W_Q": a["W_Q"], "W_K": a["W_K"], "W_V": np.eye(d)}, d)
    a["W_Q"], a["W_K"] = params["W_Q"], params["W_K"]


@public(_queries_and_keys_fit, task=PALATE_TASK)
def best_value_matrix(task: PalateTask, W_Q, W_K) -> tuple[np.ndarray, float]:
    """The best W_V while W_Q and W_K stay as they are, and the loss it gives.

    With the attention fixed, every output row is (A X)_i W_V: linear in W_V, so the W_V with
    the smallest mean squared error is a least-squares fit of A X to the targets O*.
    """
    d = task.full_menu.X.shape[1]
    mixed, targets = [], []
    for menu in task.menus:
        A = forward(menu.X, W_Q, W_K, np.eye(d)).weights
        mixed.append(A @ menu.X)
        targets.append(menu.targets)
    AX, O_star = np.vstack(mixed), np.vstack(targets)
    W_V = np.linalg.lstsq(AX, O_star, rcond=None)[0]
    return W_V, float(np.sum((AX @ W_V - O_star) ** 2)) / task.n_rows


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
    params = initial_weights(rng, scale=scale)
    if kind == "W_V も乱数だけ":
        params["W_V"] = params["W_V"] - np.eye(2)
    elif kind == "Q = K = X":
        params["W_Q"], params["W_K"] = np.eye(2), np.eye(2)
    return params


@dataclass(frozen=True)
class StartSurvey:
    """How `n` runs from one kind of starting point ended.

    One entry per start in each array but `first_perfect`. `final_losses`: the loss after the
    last update each run took (a run that diverged stopped at its last loss under `BLOWUP`; a
    start already beyond it at step 0 took no step and has `inf`, never NaN, and is `diverged`
    like the others); `solved`: 100% right at the end; `swapped`: not solved and the final W_V
    is nearer the swap matrix than the identity (the second valley); `first_perfect`: the first
    step at 100% for the solved runs.
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


@public(_kinds, task=PALATE_TASK, rng=RNG, n=arg(integer, "n(出発点の数)", lo=1), lr=LR, steps=STEPS,
        scale=arg(number, lo=0.0))
def survey_starts(task: PalateTask, rng: np.random.Generator, n: int = 20, lr: float = 0.5,
                  steps: int = 200, kinds: Sequence[str] = START_KINDS,
                  scale: float = 0.3) -> list[StartSurvey]:
    """Train from `n` starting points of each kind and count where the runs ended."""
    starts = [start_weights(rng, kind, scale) for kind in kinds for _ in range(n)]
    batched = {name: np.stack([start[name] for start in starts]) for name in NAMES}  # (runs, 2, 2)
    runs = _histories(task, descend(lambda b: _palate_pass(task, b), batched, lr, steps, [0]), lr)
    surveys = []
    for k, kind in enumerate(kinds):
        losses, solved, swapped, diverged, first = [], [], [], [], []
        for h in runs[k * n:(k + 1) * n]:
            ok = not h.diverged and h.accuracies[-1] == 1.0
            losses.append(h.losses[-1] if len(h.losses) else np.inf)  # inf: diverged at once
            solved.append(ok)
            diverged.append(h.diverged)
            W_V = h.final.params["W_V"] if not h.diverged else None
            swapped.append(not ok and W_V is not None
                           and np.linalg.norm(W_V - SWAP) < np.linalg.norm(W_V - np.eye(2)))
            if ok:
                first.append(int(np.argmax(h.accuracies == 1.0)))
        surveys.append(StartSurvey(kind, np.array(losses), np.array(solved), np.array(swapped),
                                   np.array(diverged), np.array(first, dtype=int)))
    return surveys
