"""Chapter 07's explorable: step through a training run and watch W and the attention map change.

The training itself is the chapter's numpy (`helpers.learning.train`); this class sends its record
to the browser once, as plain lists (every loss, and at each saved step the loss, the accuracy,
the full menu's attention weights and the three W), and js/ch07_how_w_learns.js draws the step the
slider (or `explorer.step = 35` in a cell) chooses.
"""

from __future__ import annotations

import numpy as np
import traitlets

from .._validate import HelpersError, HelpersTypeError, arg, public
from ..learning import NAMES, History
from ._base import Choice, Explorable, data_trait

__all__ = ["training_explorer", "TrainingExplorer", "MAX_SNAPSHOTS"]

#: The most saved steps the slider walks through: each one is sent to the page as numbers
#: (about 0.7 kB each for the chapter's 4 foods), so 60 keep the page light.
MAX_SNAPSHOTS = 60

#: The steps chapter 07 saves: every step up to 20, then every 10th (39 in all).
CHAPTER_STEPS = [*range(20), *range(20, 201, 10)]


class TrainingExplorer(Explorable):
    """Walk through the saved steps of a training run: the loss so far, the attention map of the
    full menu (the right partner of each row framed) and W_Q, W_K, W_V at that step."""

    module = "ch07_how_w_learns"
    title = "学習の途中経過"
    # `steps` comes before `step`: the control's value is checked against it.
    SIZES = {"saves": MAX_SNAPSHOTS, "run": 100_000}
    steps = data_trait([], "integer", ("saves",))
    step = Choice(0, "step(更新の回数)", options="steps")
    losses = data_trait([], "number", ("run",))
    words = data_trait([], "text", ("words",))
    partner = data_trait([], "integer", ("words",))
    saved_losses = data_trait([], "number", ("saves",))
    saved_accuracies = data_trait([], "number", ("saves",))
    saved_weights = data_trait([], "number", ("saves", "words", "words"))
    saved_params = data_trait([], "any", ("saves",))

    @traitlets.validate("step")
    def _whole_step(self, proposal):
        return int(proposal["value"])  # 35.0 or np.int64(35) becomes 35 (JSON, and the same key)

    @classmethod
    def example(cls) -> TrainingExplorer:
        """The chapter's run: its starting point, learning rate 0.5, 200 updates."""
        from .. import DEFAULT_SEED, learning

        task = learning.palate_task()
        start = learning.initial_weights(np.random.default_rng(DEFAULT_SEED), scale=0.3)
        return training_explorer(learning.train(task, start, lr=0.5, steps=200, save_at=CHAPTER_STEPS))

    def numbers(self) -> dict:
        """What the picture shows now: the step, its loss and accuracy, the attention weights of
        the full menu, the three W and each food's right partner."""
        i = self.steps.index(self.step)
        return {"step": self.step, "loss": self.saved_losses[i],
                "accuracy": self.saved_accuracies[i],
                "weights": np.array(self.saved_weights[i]),
                "params": {name: np.array(self.saved_params[i][name]) for name in NAMES},
                "partner": list(self.partner)}


def _a_history_with_saved_steps(history, name: str) -> History:
    """A spec: what `learning.train` returned, with a few saved steps for the slider."""
    if not isinstance(history, History):
        raise HelpersTypeError(
            f"{name} には learning.train(...) の結果を渡してください。{type(history).__name__} が来ました。"
        )
    steps = {s.step for s in history.snapshots}
    if not steps or len(history.losses) == 0:
        raise HelpersError(f"{name} に保存されたステップがありません。train の save_at を確かめてください。")
    if len(steps) > MAX_SNAPSHOTS:
        raise HelpersError(
            f"保存されたステップが {len(steps)} 個あります。スライダーで選べるステップは "
            f"{MAX_SNAPSHOTS} 個までにしてください(train の save_at で選びます)。"
        )
    return history


@public(history=arg(_a_history_with_saved_steps), draws=True)
def training_explorer(history: History, **controls) -> TrainingExplorer:
    """A slider over the saved steps of `history` (from `learning.train`).

    The loss curve with the current step marked, the attention map of the full menu (the right
    partner of each row framed) and W_Q, W_K, W_V at that step. `step=` starts at another
    saved step than the first.
    """
    snaps = {s.step: s for s in history.snapshots}
    steps = sorted(snaps)
    chosen = [snaps[s] for s in steps]
    return TrainingExplorer.starting_at(
        "training_explorer", {"step": steps[0], **controls}, steps=steps,
        losses=[float(v) for v in history.losses],
        words=list(history.words),
        partner=[int(p) for p in history.partner],
        saved_losses=[float(s.loss) for s in chosen],
        saved_accuracies=[float(s.accuracy) for s in chosen],
        saved_weights=[np.asarray(s.weights, dtype=float).tolist() for s in chosen],
        saved_params=[{name: np.asarray(s.params[name], dtype=float).tolist() for name in NAMES}
                 for s in chosen],
    )
