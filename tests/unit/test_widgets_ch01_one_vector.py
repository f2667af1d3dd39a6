"""helpers.widgets.ch01_one_vector: chapter 01's widget, driven headlessly."""

import base64

import numpy as np
import pytest
import reference
from static_frames import static_payload

import helpers
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import Embedding, foods
from helpers.widgets import similarity_explorer


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
    np.testing.assert_allclose(explorer.state["cosine"], reference.cosine(rest, me)[:, 0])
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


def test_static_mode_shows_a_frame_slider_with_distinct_frames(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert all(alt.startswith("「ケーキ」のベクトル") for alt in payload["alts"])
    # The live figure is left as the controls say, not on the last frame.
    assert explorer.render(explorer.values)["vector"].tolist() == [2.0, 0.2]


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


def test_before_the_cell_runs_jupyterlab_shows_a_sharp_picture(explorer, monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    bundle, metadata = explorer._repr_mimebundle_()
    # A notebook just opened (no kernel yet) shows this picture instead of the widget, at the
    # figure's CSS size though it has PIXEL_RATIO times the pixels.
    png = base64.b64decode(bundle["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == bytes(explorer.image.value)
    assert metadata["image/png"] == {"width": 800, "height": 288}
    assert explorer.canvas.get_width_height() == (1200, 432)
    assert bundle["text/plain"] == "<「ケーキ」のベクトル>"


@pytest.mark.parametrize(
    "args, error, words",
    [((np.ones((2, 2)),), HelpersTypeError, "Embedding"),
     (("ケーキ",), HelpersTypeError, "Embedding"),
     ((None, 3), HelpersTypeError, "word.*文字列"),
     ((None, "ラーメン"), HelpersKeyError, "語彙にありません"),
     ((Embedding(("a",), [[1.0, 0.0]]), "a"), HelpersError, "比べる相手がいません"),
     ((Embedding(("a", "a"), np.eye(2)), "a"), HelpersError, "ほかに 1 語以上"),
     ((Embedding(("a", "b"), [[5000.0, 0.0], [0.0, 1.0]]), "a"), HelpersError, "絶対値 1000"),
     ((Embedding(tuple("abcdefghijklm"), np.ones((13, 2))), "a"), HelpersError, "12 個まで"),
     ((Embedding(("a", "b"), np.ones((2, 3)), axes=("x", "y", "z")), "a"), HelpersError,
      "d_model = 2")],
)
def test_bad_inputs_are_refused_in_japanese(args, error, words):
    with pytest.raises(error, match=words):
        similarity_explorer(*args)


def test_a_vector_off_the_sliders_still_draws():
    """Up to the limit, a far word is drawn (off the plane) and its slider starts at the end."""
    e = similarity_explorer(Embedding(("a", "b"), [[999.0, 0.0], [0.0, 1.0]]), "a")
    assert e.controls["sweet"].value == 2.0
