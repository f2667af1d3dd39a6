"""The Explorable widget machinery and chapter 01's widget, driven headlessly."""

import base64

import numpy as np
import pytest
from static_frames import static_payload

import helpers
from helpers.data import foods
from helpers.widgets import Explorable, LiveBars, similarity_explorer


@pytest.fixture
def explorer():
    return similarity_explorer(foods(), word="ケーキ")


def test_moving_the_slider_recomputes_dot_and_cosine(explorer):
    before = explorer.image.value
    explorer.controls["sweet"].value = -1.0
    explorer.controls["spicy"].value = 1.0
    me = np.array([-1.0, 1.0])
    rest = np.vstack([foods()[w] for w in explorer.state["others"]])
    np.testing.assert_allclose(explorer.state["dot"], rest @ me)
    ref_cos = rest @ me / (np.linalg.norm(rest, axis=1) * np.linalg.norm(me))
    np.testing.assert_allclose(explorer.state["cosine"], ref_cos)
    assert explorer.image.value != before
    assert explorer.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_length_changes_dot_but_not_cosine(explorer):
    explorer.controls["sweet"].value, explorer.controls["spicy"].value = 1.0, 0.5
    dot1, cos1 = explorer.state["dot"].copy(), explorer.state["cosine"].copy()
    explorer.controls["sweet"].value, explorer.controls["spicy"].value = 2.0, 1.0
    np.testing.assert_allclose(explorer.state["dot"], 2 * dot1)
    np.testing.assert_allclose(explorer.state["cosine"], cos1)


def test_zero_vector_has_undefined_cosine(explorer):
    explorer.controls["sweet"].value = 0.0
    explorer.controls["spicy"].value = 0.0
    assert np.isnan(explorer.state["cosine"]).all()
    np.testing.assert_allclose(explorer.state["dot"], 0.0)


def test_live_mode_shows_an_ipywidget(explorer, monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    bundle, metadata = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    # Before the cell runs (a notebook just opened), JupyterLab shows this picture instead,
    # at the figure's CSS size though it has PIXEL_RATIO times the pixels.
    png = base64.b64decode(bundle["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == bytes(explorer.image.value)
    assert metadata["image/png"] == {"width": 800, "height": 288}
    assert explorer.canvas.get_width_height() == (1200, 432)
    assert bundle["text/plain"] == "<「ケーキ」のベクトル>"


def test_static_mode_shows_a_frame_slider_with_distinct_frames(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert all(alt.startswith("「ケーキ」のベクトル") for alt in payload["alts"])
    # The live figure is left as the controls say, not on the last frame.
    assert explorer.render(explorer.values)["vector"].tolist() == [2.0, 0.2]


def test_update_must_not_need_a_full_redraw():
    """Artists made in build() without animated=True stay in the cached background."""
    calls = []

    def build(fig):
        ax = fig.subplots()
        bars = LiveBars(ax, ["a", "b"], (0, 2), title="テスト")

        def update(v):
            calls.append(v)
            bars.set([v, 2 - v], highlight=0)
            return {"v": v}

        return update

    import ipywidgets as W

    ex = Explorable(build, {"v": W.FloatSlider(value=0.5, min=0, max=2)},
                    static_frames=[{"v": 0.0}], frame_label=str, title="テスト")
    ex.controls["v"].value = 1.5
    assert ex.state == {"v": 1.5}
    assert calls[-1] == 1.5
    assert ex.fig.get_layout_engine() is None or not ex.fig.get_layout_engine().adjust_compatible


def test_explorable_refuses_no_frames():
    import ipywidgets as W

    with pytest.raises(ValueError, match="static_frames"):
        Explorable(lambda fig: (lambda v: {}), {"v": W.FloatSlider()}, [], str, "x")


def test_book_frames_turn_once_then_shrink(explorer):
    """The static book can only show precomputed frames: a turn (cosine moves), then lengths."""
    vecs = np.array([[f["sweet"], f["spicy"]] for f in explorer.static_frames])
    lengths = np.linalg.norm(vecs, axis=1)
    start = foods()["ケーキ"].reshape(-1)
    np.testing.assert_allclose(lengths[:8], np.linalg.norm(start), atol=0.02)
    same_direction = [explorer.static_frames[0], *explorer.static_frames[-3:]]
    cosines = [explorer.render(f)["cosine"] for f in same_direction]
    for c in cosines[1:]:
        np.testing.assert_allclose(c, cosines[0], atol=0.01)
    assert lengths[-1] < lengths[-2] < lengths[-3] < lengths[0]
