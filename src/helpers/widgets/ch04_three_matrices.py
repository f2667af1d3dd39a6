"""Chapter 04's widget: edit W_Q, W_K, W_V (angle and scale) and watch the three faces move."""

from __future__ import annotations

import html
from collections.abc import Mapping

import ipywidgets as W
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon

from .. import plotting
from ..attention import project
from ..data import Embedding
from ..geometry import rotation_scale_matrix
from ._base import KernelExplorable as Explorable
from ._base import Update, on_the_plane, planar_embedding, slider

__all__ = ["three_faces_explorer"]


#: The three faces, in the order the book always uses, with their weight-matrix names.
FACES = (("Q", "W_Q", "問い"), ("K", "W_K", "見出し"), ("V", "W_V", "中身"))


_LIMIT = 4.0


_GRID = np.arange(-2.0, 2.01, 1.0)


_MARKERS = ("o", "s", "^", "D", "P", "v", "X", "h")


_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)


def _format_matrix(M: np.ndarray) -> str:
    M = np.round(M, 2) + 0.0  # + 0.0 turns -0.0 into 0.0
    return f"[[{M[0, 0]:.2f}, {M[0, 1]:.2f}], [{M[1, 0]:.2f}, {M[1, 1]:.2f}]]"


class _PairedExplorable(Explorable):
    """An Explorable whose controls sit two to a row (angle and scale of one matrix).

    The state's "summary" lines are shown as HTML under the picture: text in a widget costs
    nothing to redraw, while text drawn into the figure costs milliseconds per label.
    """

    summary: W.HTML | None = None

    def redraw(self) -> None:
        super().redraw()
        if self.summary is None:
            self.summary = W.HTML()
        lines = self.state.get("summary", ())
        self.summary.value = "<br>".join(f"<code>{html.escape(line)}</code>" for line in lines)

    @property
    def widget(self) -> W.Widget:
        controls = list(self.controls.values())
        rows = [W.HBox(controls[i:i + 2]) for i in range(0, len(controls), 2)]
        return W.VBox([*rows, self.image, self.summary])


class _LivePlane:
    """The image of a grid and of the unit square under a changing 2×2 W."""

    def __init__(self, ax, color: str):
        # Lines of constant 1st coordinate solid, of constant 2nd dashed (as plot_plane_transform).
        self.segments = {
            ls: np.array([seg(c) for c in _GRID])
            for ls, seg in (("-", lambda c: [[c, -2.0], [c, 2.0]]),
                            ("--", lambda c: [[-2.0, c], [2.0, c]]))
        }
        self.lines = {ls: LineCollection(segs, colors=color, linewidths=0.8, linestyles=ls,
                                         alpha=0.35, animated=True)
                      for ls, segs in self.segments.items()}
        for lines in self.lines.values():
            ax.add_collection(lines)
        self.square = Polygon(_SQUARE, closed=True, facecolor=color, alpha=0.15,
                              edgecolor="none", animated=True)
        ax.add_patch(self.square)

    def set(self, M: np.ndarray) -> None:
        for ls, segs in self.segments.items():
            self.lines[ls].set_segments(segs @ M)
        self.square.set_xy(_SQUARE @ M)


def three_faces_explorer(embedding: Embedding | None = None) -> Explorable:
    """Turn and stretch W_Q, W_K, W_V; watch every word's three faces move (Q, K, V panels).

    Each panel shows the faint grey embeddings x, the grid as the W maps it, and the face
    `xW` of every word. Under the picture (live widget only): the three matrices, and for each
    word the word whose key k best matches its query q (largest q·k), a taste of chapter 06.
    """
    emb = planar_embedding(embedding, len(_MARKERS))  # one marker shape per word
    on_the_plane(emb.vectors, "埋め込みのベクトル")
    X = emb.vectors
    n = len(emb.words)

    def build(fig: Figure) -> Update:
        axes = fig.subplots(1, 3)
        panels = []
        for ax, (face, wname, role) in zip(axes, FACES, strict=True):
            color = plotting.COLORS[face]
            plotting.plot_vectors(X, [""] * n, ax=ax, colors="#cccccc", limits=(-_LIMIT, _LIMIT),
                                  title=rf"{role} ${face} = X{wname}$",
                                  axis_labels=("1 成分め", "2 成分め"))
            ax.grid(False)
            plane = _LivePlane(ax, color)
            # Words are told apart by the marker at the tip (legend below the panels): moving
            # Japanese labels would cost about 1 ms each per frame, markers almost nothing.
            shafts = LineCollection(np.zeros((n, 2, 2)), colors=color, linewidths=2,
                                    animated=True)
            ax.add_collection(shafts)
            tips = [ax.plot([], [], marker=m, ls="none", ms=9, color=color, mec="white",
                            animated=True)[0] for m in _MARKERS[:n]]
            panels.append((plane, shafts, tips))
        fig.legend(
            handles=[Line2D([], [], color="#cccccc", lw=2)]
            + [Line2D([], [], marker=m, ls="none", ms=9, color="#555555") for m in _MARKERS[:n]],
            labels=["元の埋め込み x", *emb.words], loc="outside lower center", ncol=n + 1,
            frameon=False,
        )

        def update(q_angle, q_scale, k_angle, k_scale, v_angle, v_scale) -> dict:
            settings = ((q_angle, q_scale), (k_angle, k_scale), (v_angle, v_scale))
            state: dict = {}
            for (face, wname, _), (angle, scale), (plane, shafts, tips) in zip(
                FACES, settings, panels, strict=True
            ):
                M = rotation_scale_matrix(angle, scale)
                F = project(X, M, name=wname)
                plane.set(M)
                shafts.set_segments([[(0.0, 0.0), (a, b)] for a, b in F])
                for tip, (a, b) in zip(tips, F, strict=True):
                    tip.set_data([a], [b])
                state[wname] = M
                state[face] = F
            scores = state["Q"] @ state["K"].T
            looks_at = []
            for row in scores:
                top = np.sort(row)[::-1]
                tied = top.size > 1 and np.isclose(top[0], top[1], atol=1e-9)
                looks_at.append("(同点)" if tied else emb.words[int(np.argmax(row))])
            state["scores"] = scores
            state["looks_at"] = tuple(looks_at)
            state["summary"] = (
                *(f"{wname} = {_format_matrix(state[wname])}" for _, wname, _ in FACES),
                "問い q と内積 q·k が最大の見出し k:  "
                + "  ".join(f"{w}→{t}" for w, t in zip(emb.words, looks_at, strict=True)),
            )
            return state

        return update

    def angleslider(label: str, value: float):
        s = slider(label, value, -180.0, 180.0, step=15.0)
        s.readout_format = ".0f"
        return s

    controls = {}
    for face, _, _ in FACES:
        controls[f"{face.lower()}_angle"] = angleslider(f"W_{face} の角度(度)", 0.0)
        controls[f"{face.lower()}_scale"] = slider(f"W_{face} の倍率", 1.0, 0.0, 2.0)

    def frame(q=(0, 1.0), k=(0, 1.0), v=(0, 1.0)) -> dict:
        return {"q_angle": float(q[0]), "q_scale": q[1], "k_angle": float(k[0]), "k_scale": k[1],
                "v_angle": float(v[0]), "v_scale": v[1]}

    frames = [
        frame(),
        frame(q=(-90, 1.0)),
        frame(q=(-90, 1.0), k=(45, 1.0)),
        frame(q=(-90, 1.0), k=(45, 1.0), v=(0, 0.5)),
        frame(q=(-90, 1.0), k=(45, 1.0), v=(90, 0.5)),
        frame(q=(180, 1.0)),
        frame(q=(0, 0.0)),  # every question collapses to the origin: all scores tie
        frame(q=(0, 2.0)),
        frame(q=(0, 0.5)),
        frame(k=(-45, 1.5)),
        frame(v=(180, 1.0)),
        frame(q=(-90, 1.5), k=(-30, 1.0), v=(60, 0.8)),
    ]

    def label(v: Mapping) -> str:
        return " / ".join(
            f"{face} {v[f'{face.lower()}_angle']:.0f}°×{v[f'{face.lower()}_scale']:.1f}"
            for face, _, _ in FACES
        )

    return _PairedExplorable(
        build,
        controls,
        static_frames=frames,
        frame_label=label,
        title="W の設定",
        figsize=(10.5, 4.0),
        dpi=72,
    )

