"""Chapter 03's widget: the networking party, where every guest asks, is asked and brings something."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import plotting
from .._validate import HelpersError, HelpersTypeError
from ..data import Party, party, party_attention
from ..plotting._base import text
from ._base import MAX_ITEMS, LiveArrow, LiveBars, Update, at_most
from ._base import KernelExplorable as Explorable

__all__ = ["party_explorer"]


def _faded(ax: Axes) -> None:
    """Thin, pale arrows for everyone (fixed), so the chosen guest's thick arrow stands out."""
    for t in ax.texts:
        if getattr(t, "arrow_patch", None) is not None:
            t.arrow_patch.set_linewidth(1.3)
            t.arrow_patch.set_alpha(0.6)
        t.set_fontsize(9)


def _label_beside(text, x: float, y: float) -> None:
    """Put an arrow's label beside its shaft (70 % of the way out, on the clockwise side),
    not past its tip, where it would touch the name tag of a guest facing the same way."""
    text.set_position((0.7 * x, 0.7 * y))
    text.set_ha("left" if y >= 0 else "right")  # the clockwise normal is (y, -x)
    text.set_va("top" if x >= 0 else "bottom")


def party_explorer(guests: Party | None = None, person: str = "ケン") -> Explorable:
    """Pick a guest: their Q against everyone's name tag K, how the softmax weights fall, and
    what they take home (the weighted mix of everyone's V, the thick green arrow)."""
    g = party() if guests is None else guests
    if not isinstance(g, Party):
        raise HelpersTypeError(f"guests には helpers.data.Party を渡してください。{type(g).__name__} が来ました。")
    if g.X.shape[1] != 2 or g.W_Q.shape[1] != 2 or g.W_V.shape[1] != 2:
        raise HelpersError("この図は平面(2 次元)の交流会用です。X, Q, K, V がすべて 2 列の Party を渡してください。")
    at_most(len(g.names), MAX_ITEMS, "交流会の参加者")
    person = text(person, "person(探す人)")
    g.index(person)  # a clear KeyError for a guest who is not there
    names = list(g.names)
    qk = np.vstack([g.Q, g.K])
    limits = (min(-0.5, float(qk.min()) * 1.3), float(qk.max()) * 1.2)
    v_limits = (min(-0.2, float(g.V.min()) * 1.3), float(g.V.max()) * 1.25)

    def build(fig: Figure) -> Update:
        ax_qk, ax_w, ax_v = fig.subplots(1, 3)
        plotting.plot_vectors(g.K, names, ax=ax_qk, colors=plotting.COLORS["K"], limits=limits,
                              axis_labels=g.axes, title="探す相手像 Q(青)と名札 K(朱)")
        _faded(ax_qk)
        q_arrow = LiveArrow(ax_qk, plotting.COLORS["Q"], "Q")
        # a weight belongs to neither Q nor K (it is made from both): neutral grey bars
        bars = LiveBars(ax_w, names, (0, 1.1), color=plotting.COLORS["x"],
                        title="注目の重み(合計 1)")
        ax_w.tick_params(axis="x", labelrotation=45)
        plotting.plot_vectors(g.V, names, ax=ax_v, colors=plotting.COLORS["V"], limits=v_limits,
                              axis_labels=g.axes, title="中身 V(緑)と持ち帰り(太い矢印)")
        _faded(ax_v)
        take = LiveArrow(ax_v, plotting.COLORS["V"], "")  # no tip label: it would hide names
        take.arrow.arrow_patch.set_linewidth(3.5)

        def update(person: str) -> dict:
            state = party_attention(g, person)
            q_arrow.set(*state["q"])
            q_arrow.text.set_text(f"{person}の Q")  # the picture itself says whose Q it is
            _label_beside(q_arrow.text, *state["q"])
            bars.set(state["weights"], highlight=int(np.argmax(state["weights"])))
            take.set(*state["take_home"])
            return state

        return update

    return Explorable(
        build,
        {"person": W.Dropdown(options=names, value=person, description="探す人")},
        static_frames=[{"person": p} for p in names[:12]],
        frame_label=lambda v: f"探す人: {v['person']}",
        title="交流会で誰が誰を探すか",
        figsize=(10.0, 3.6),
    )

