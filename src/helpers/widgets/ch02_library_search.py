"""Chapter 02's widget: the library search counter, from exact lookup to soft lookup."""

from __future__ import annotations

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from .. import plotting
from .._validate import HelpersError, HelpersTypeError, number
from ..attention import softmax
from ..data import Catalog, library_catalog
from ..geometry import question_vector
from ._base import MAX_ITEMS, Explorable, LiveArrow, LiveBars, Update, at_most, on_the_plane

__all__ = ["library_search_explorer"]

#: The temperature slider's range (log scale): from almost one-hot to almost uniform.
T_MIN, T_MAX = 0.05, 20.0

#: The book's frames turn the question through these directions (degrees from the 甘い axis):
#: ケーキ, 照り焼き, the two sides of the 照り焼き/キムチ border (45°), and カレー.
SWEEP_ANGLES = (0, 25, 40, 50, 90)


def library_search_explorer(
    catalog: Catalog | None = None, angle: int = 30, temperature: float = 1.0
) -> Explorable:
    """Turn the question around and change the temperature; scores, weights and the mixed
    answer change together. The question has the labels' length (2), so only its direction and
    the temperature decide how sharp the weights are."""
    cat = library_catalog() if catalog is None else catalog
    if not isinstance(cat, Catalog):
        raise HelpersTypeError(f"catalog には helpers.data.Catalog を渡してください。{type(cat).__name__} が来ました。")
    if cat.keys.shape[1] != 2:
        raise HelpersError(f"この図は見出しが 2 次元の目録用です。d_k = {cat.keys.shape[1]} が来ました。")
    at_most(len(cat.names), MAX_ITEMS, "目録の本")
    at_most(len(cat.value_axes), MAX_ITEMS, "中身の軸(value_axes)")
    on_the_plane(cat.keys, "目録の見出し(keys)")
    on_the_plane(cat.values, "目録の中身(values)")
    question_vector(angle)  # validates the angle
    number(temperature, "temperature(温度)", lo=T_MIN, hi=T_MAX)
    K, V, names = cat.keys, cat.values, list(cat.names)
    s_max = 2.0 * float(np.linalg.norm(K, axis=1).max()) * 1.15
    v_top = float(V.max()) * 1.2

    def build(fig: Figure) -> Update:
        ax_plane, ax_s, ax_w, ax_v = fig.subplots(1, 4, width_ratios=[1.15, 1, 1, 0.8])
        plotting.plot_vectors(K, names, ax=ax_plane, colors=plotting.COLORS["K"], limits=(-2.6, 2.6),
                              axis_labels=cat.key_axes, title="問い(青)と見出し(朱)")
        # No label at the arrow's tip: it would cover a book's label when the two point alike.
        arrow = LiveArrow(ax_plane, plotting.COLORS["Q"], "")
        scores = LiveBars(ax_s, names, (-s_max, s_max), color=plotting.COLORS["K"],
                          title=r"得点 $q \cdot k$")
        weights = LiveBars(ax_w, names, (0.0, 1.15), color=plotting.COLORS["K"],
                           title="重み(ソフトマックス)")
        answer = LiveBars(ax_v, list(cat.value_axes), (0.0, v_top), color=plotting.COLORS["V"],
                          title="答え:中身の混ぜ合わせ")
        for ax in (ax_s, ax_w):
            ax.tick_params(axis="x", labelrotation=60)

        def update(angle: float, temperature: float) -> dict:
            q = question_vector(angle)
            s = (q @ K.T).reshape(-1)
            w = softmax(s, temperature=temperature)
            mixed = w @ V
            best = int(np.argmax(w))
            arrow.set(*q.reshape(-1))
            scores.set(s, highlight=best)
            weights.set(w, highlight=best)
            answer.set(mixed)
            return {"question": q.reshape(-1), "scores": s, "weights": w, "answer": mixed,
                    "best": names[best]}

        return update

    controls = {
        "angle": W.IntSlider(value=int(round(angle)), min=-90, max=180, step=5,
                             description="問いの向き(度)", continuous_update=True,
                             style={"description_width": "initial"}),
        "temperature": W.FloatLogSlider(value=float(temperature), base=10,
                                        min=float(np.log10(T_MIN)), max=float(np.log10(T_MAX)),
                                        step=0.05, description="温度 T", readout_format=".2f",
                                        continuous_update=True,
                                        style={"description_width": "initial"}),
    }
    # The book (the chapter's three suggestions): the question turns through the same five
    # directions cold (T = 0.05, the weights jump) and warm (T = 1, they glide), then it points
    # two ways when hot (T = 20, both near the average).
    frames = [{"angle": a, "temperature": t} for t in (0.05, 1.0) for a in SWEEP_ANGLES]
    frames += [{"angle": a, "temperature": T_MAX} for a in (SWEEP_ANGLES[0], SWEEP_ANGLES[-1])]
    return Explorable(
        build,
        controls,
        static_frames=frames,
        frame_label=lambda v: f"問いの向き {v['angle']}°・温度 T = {v['temperature']:.2f}",
        title="検索カウンター",
        figsize=(11.0, 3.4),
    )

