"""helpers.widgets._base: the Explorable machinery and the live artists, driven headlessly."""

import ipywidgets as W
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import helpers
from helpers.widgets import LiveBars, LiveHeatmap
from helpers.widgets._base import FrameExplorable
from helpers.widgets._base import KernelExplorable as Explorable


def _heatmap(**kwargs):
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    return ax, LiveHeatmap(ax, ["行1", "行2"], ["列1", "列2", "列3"], **kwargs)


def test_live_heatmap_sets_cells_and_text_colours():
    ax, hm = _heatmap(vmin=0.0, vmax=1.0)
    m = np.array([[0.0, 0.5, 1.0], [0.2, 0.9, 0.1]])
    hm.set(m)
    np.testing.assert_array_equal(hm.image.get_array(), m)
    assert hm.texts[(0, 1)].get_text() == "0.50"
    assert hm.texts[(0, 2)].get_color() == "white"  # darkest blue
    assert hm.texts[(0, 0)].get_color() == "black"
    assert hm.image.get_animated() and all(t.get_animated() for t in hm.texts.values())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["列1", "列2", "列3"]


def test_live_heatmap_without_numbers():
    _, hm = _heatmap(vmin=0.0, vmax=1.0, numbers=False, colorbar=False, fmt="{:.1f}")
    assert hm.texts == {}
    hm.set(np.ones((2, 3)))
    np.testing.assert_array_equal(hm.image.get_array(), np.ones((2, 3)))


def test_live_heatmap_bad_inputs():
    with pytest.raises(ValueError, match="vmin は vmax より小さく"):
        _heatmap(vmin=1.0, vmax=1.0)
    _, hm = _heatmap(vmin=0.0, vmax=1.0)
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*shape \(3, 2\)"):
        hm.set(np.zeros((3, 2)))


def bars_explorer(calls=None):
    """The smallest Explorable: one slider, two live bars; `calls` collects every update."""
    calls = [] if calls is None else calls

    def build(fig):
        ax = fig.subplots()
        bars = LiveBars(ax, ["a", "b"], (0, 2), title="テスト")

        def update(v):
            calls.append(v)
            bars.set([v, 2 - v], highlight=0)
            return {"v": v}

        return update

    return Explorable(build, {"v": W.FloatSlider(value=0.5, min=0, max=2)},
                      static_frames=[{"v": 0.0}], frame_label=str, title="テスト")


def test_live_mode_shows_an_ipywidget(monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    bundle, metadata = bars_explorer()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<テスト>"
    assert set(metadata["image/png"]) == {"width", "height"}


def test_update_must_not_need_a_full_redraw():
    """Artists made in build() without animated=True stay in the cached background."""
    calls = []
    ex = bars_explorer(calls)
    ex.controls["v"].value = 1.5
    assert ex.state == {"v": 1.5}
    assert calls[-1] == 1.5
    assert ex.fig.get_layout_engine() is None or not ex.fig.get_layout_engine().adjust_compatible


def frames_explorer(calls):
    """A FrameExplorable over three slider values; `calls` collects every update it draws."""

    def build(fig):
        bars = LiveBars(fig.subplots(), ["a", "b"], (0, 2))

        def update(v):
            calls.append(v)
            bars.set([v, 2 - v])
            return {"v": v}

        return update

    return FrameExplorable(build, {"v": W.SelectionSlider(options=[0, 1, 2], value=0)},
                           static_frames=[{"v": 0}, {"v": 1}, {"v": 2}], frame_label=str,
                           title="テスト", figsize=(2.0, 1.5))


def test_precompute_draws_every_frame_once_for_a_live_slider(monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    calls = []
    ex = frames_explorer(calls).precompute()
    assert sorted(key for key, in ex._cache) == [("v", 0), ("v", 1), ("v", 2)]
    drawn = len(calls)
    ex.controls["v"].value = 2
    assert len(calls) == drawn and ex.state == {"v": 2}  # looked up, not drawn again


@pytest.mark.parametrize("env", [{helpers.STATIC_ENV_VAR: "1"}, {"NBGRADER_EXECUTION": "autograde"}],
                         ids=["static book", "autograding"])
def test_precompute_draws_nothing_where_nobody_moves_the_slider(monkeypatch, env):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    calls = []
    ex = frames_explorer(calls)
    before = len(calls)
    assert ex.precompute() is ex and len(calls) == before
    ex.controls["v"].value = 1  # still drawn when asked for
    assert ex.state == {"v": 1} and calls[-1] == 1


def test_explorable_refuses_no_frames():
    with pytest.raises(ValueError, match="static_frames"):
        Explorable(lambda fig: (lambda v: {}), {"v": W.FloatSlider()}, [], str, "x")


@pytest.mark.parametrize("size", [(3.0, 2.0), (9.6, 6.0)], ids=["small", "chapter07"])
@pytest.mark.parametrize("level", [1, 9])
def test_canvas_png_is_the_canvas_pixel_for_pixel(size, level):
    """The live widgets' own PNG writer (level 1) and PIL's (level 9) give back every pixel."""
    import io

    from PIL import Image

    from helpers.widgets._base import canvas_png

    fig = Figure(figsize=size, dpi=97)  # an odd size: rows that do not fill a whole block
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.imshow(np.random.default_rng(0).random((40, 60)), cmap="RdBu_r")
    ax.set_title("日本語の題 $W_Q$")
    canvas.draw()
    png = canvas_png(canvas, level)
    with Image.open(io.BytesIO(png)) as im:
        decoded = np.asarray(im.convert("RGB"))
    expected = np.asarray(canvas.buffer_rgba())[..., :3]
    assert decoded.shape == expected.shape
    np.testing.assert_array_equal(decoded, expected)


def test_canvas_png_bad_inputs():
    from helpers._validate import HelpersError, HelpersTypeError
    from helpers.widgets import canvas_png

    with pytest.raises(HelpersTypeError, match="FigureCanvasAgg"):
        canvas_png(Figure())
    canvas = FigureCanvasAgg(Figure(figsize=(1, 1)))
    with pytest.raises(HelpersError, match="まだ一度も描かれていません"):
        canvas_png(canvas)
    canvas.draw()
    for level, error in ((10, HelpersError), (-1, HelpersError), (1.5, HelpersTypeError),
                         (None, HelpersTypeError)):
        with pytest.raises(error, match="compress_level"):
            canvas_png(canvas, level)
    assert canvas_png(canvas, 0).startswith(b"\x89PNG")  # 0 and 1: the fast writer


@pytest.mark.parametrize(
    "args, error, words",
    [((None, 0.5, 0.0, 1.0), "HelpersTypeError", "名前.*文字列"),
     (("x", "0.5", 0.0, 1.0), "HelpersTypeError", "value.*数で"),
     (("x", float("nan"), 0.0, 1.0), "HelpersError", "有限"),
     (("x", 0.5, 1.0, 0.0), "HelpersError", "下限 < 上限"),
     (("x", 0.5, 0.0, [1.0]), "HelpersTypeError", "範囲.*数で"),
     (("x", 0.5, 0.0, 1.0, 0.0), "HelpersError", "step.*正の数"),
     (("x", 0.5, 0.0, 1.0, 1j), "HelpersTypeError", "step.*数で")],
)
def test_slider_bad_inputs(args, error, words):
    from helpers import _validate
    from helpers.widgets import slider

    with pytest.raises(getattr(_validate, error), match=words):
        slider(*args)


def test_slider_moves_a_value_outside_to_the_nearer_end():
    from helpers.widgets import slider

    s = slider("x", np.float64(3.0), -2.0, 2.0)
    assert (s.value, s.min, s.max, s.step, s.description) == (2.0, -2.0, 2.0, 0.1, "x")
