"""Chapter 07's widget: step through a training run and watch W and the attention map change."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from .. import plotting
from .._validate import HelpersError, HelpersTypeError
from ..learning import NAMES, History
from ._base import FrameExplorable, LiveHeatmap, Update
from ._base import KernelExplorable as Explorable

__all__ = ["training_explorer"]


#: How the rows and columns of a 2×2 W are labelled: input component → output component.
W_ROWS = ("甘さ", "辛さ")
W_COLS = ("1", "2")


def _rounded(M: np.ndarray) -> np.ndarray:
    return np.round(M, 2) + 0.0  # + 0.0 turns -0.0 into 0.0, so no "-0.00" is printed


def training_explorer(history: History) -> Explorable:
    """A slider over the saved steps of `history` (from `learning.train`).

    Top: the loss curve with the current step marked, and the attention map of the full menu
    (the right partner of each row framed). Bottom: W_Q, W_K, W_V at that step.
    """
    if not isinstance(history, History):
        raise HelpersTypeError(
            f"history には learning.train(...) の結果を渡してください。{type(history).__name__} が来ました。"
        )
    snaps = {s.step: s for s in history.snapshots}
    if not snaps or len(history.losses) == 0:
        raise HelpersError("history に保存されたステップがありません。train の save_at を確かめてください。")
    if len(snaps) > 12:
        raise HelpersError(
            f"保存されたステップが {len(snaps)} 個あります。本に載せるコマは 12 個までにしてください"
            "(train の save_at で選びます)。"
        )
    steps = sorted(snaps)
    words = history.words
    reach = max(float(np.abs(m).max()) for s in snaps.values() for m in s.W.values())
    reach = float(np.ceil(reach * 2) / 2)  # a round colour range, the same for all three W

    def build(fig: Figure) -> Update:
        grid = fig.add_gridspec(2, 3, height_ratios=[1.15, 1])
        ax_loss = fig.add_subplot(grid[0, :2])
        ax_map = fig.add_subplot(grid[0, 2])
        ax_w = [fig.add_subplot(grid[1, k]) for k in range(3)]
        plotting.plot_learning_curve(history.losses, ax=ax_loss, title="損失の下がり方")
        (dot,) = ax_loss.plot([], [], "o", ms=9, color=plotting.COLORS["Q"], animated=True)
        info = ax_loss.text(0.98, 0.95, "", transform=ax_loss.transAxes, ha="right", va="top",
                            fontsize=11, animated=True)
        attention = LiveHeatmap(ax_map, words, words, 0.0, 1.0, title="注目の重み(全 4 品)")
        partner = [int(p) for p in history.partner]
        plotting.outline_cells(ax_map, partner, animated=True)
        maps = {}
        for ax, name in zip(ax_w, NAMES, strict=True):
            maps[name] = LiveHeatmap(
                ax, W_ROWS, W_COLS, -reach, reach, cmap="RdBu_r",
                title=f"${name}$", row_title="入力の成分", col_title="出力の成分",
                colorbar=name == "W_V",
            )
            ax.title.set_color(plotting.COLORS[name[-1]])
        for heatmap in (attention, *maps.values()):
            heatmap.image.set_interpolation("none")  # a few big cells: no resampling needed

        def update(step: int) -> dict:
            snap = snaps[step]
            dot.set_data([step], [history.losses[step]])
            info.set_text(f"{step} 回目:損失 {snap.loss:.3f}、正解率 {snap.accuracy:.0%}")
            attention.set(snap.weights)
            for name in NAMES:
                maps[name].set(_rounded(snap.W[name]))
            return {"step": step, "loss": snap.loss, "accuracy": snap.accuracy,
                    "weights": snap.weights, "W": snap.W, "partner": partner}

        return update

    return FrameExplorable(
        build,
        {"step": W.SelectionSlider(options=steps, value=steps[0], description="更新の回数",
                                   continuous_update=True, style={"description_width": "initial"})},
        static_frames=[{"step": s} for s in steps],
        frame_label=lambda v: f"{v['step']} 回目(損失 {snaps[v['step']].loss:.3f})",
        title="学習の途中経過",
        figsize=(9.6, 6.0),
    ).precompute()
