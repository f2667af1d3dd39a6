"""Chapter 08's widget: pick a head, toggle the causal mask; the book gets one frame per pair."""

import numpy as np
import pytest
from static_frames import static_payload

from helpers import heads
from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import phrase
from helpers.widgets import heads_explorer

P = phrase()
W_Q = np.stack([np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]), np.eye(3)[:, :2]])
W_K = np.stack([np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.eye(3)[:, 1:]])
W_V = np.stack([np.eye(3)[:, :2], np.eye(3)[:, 1:]])
W_O = np.eye(4)[:, :3]
NAMES = ["頭 1", "頭 2"]


@pytest.fixture
def explorer():
    return heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, NAMES, ["甘", "辛", "食"])


def test_state_follows_the_controls(explorer):
    out, w = heads.multi_head_attention(P.vectors, W_Q, W_K, W_V, W_O)
    assert np.allclose(explorer.state["weights"], w[0])
    explorer.controls["head"].value = 1
    assert np.allclose(explorer.state["weights"], w[1])
    explorer.controls["masked"].value = True
    out_m, w_m = heads.multi_head_attention(P.vectors, W_Q, W_K, W_V, W_O, heads.causal_mask(7))
    assert np.allclose(explorer.state["weights"], w_m[1])
    assert np.allclose(explorer.state["output"], out_m)
    assert np.all(np.triu(explorer.state["weights"], k=1) == 0)


def test_mask_squares_show_only_with_the_mask(explorer):
    ax = explorer.fig.axes[0]
    squares = [p for p in ax.patches if p.get_hatch()]
    assert len(squares) == 21
    assert not any(s.get_visible() for s in squares)
    explorer.render({"head": 0, "masked": True})
    assert all(s.get_visible() for s in squares)


def test_every_frame_is_drawn_once_and_then_looked_up(explorer):
    first = explorer.image.value
    explorer.controls["masked"].value = True
    masked = explorer.image.value
    assert masked != first
    explorer.controls["masked"].value = False
    assert explorer.image.value == first
    assert len(explorer._cache) == 4  # every (head, mask) pair drawn once, up front


def test_static_frames_cover_every_head_with_and_without_the_mask(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert payload["labels"] == ["頭 1・マスクなし", "頭 2・マスクなし", "頭 1・マスクあり", "頭 2・マスクあり"]


@pytest.mark.parametrize(
    "change, error, words",
    [({"words": None}, HelpersTypeError, "文字列のリスト"),
     ({"words": list(range(7))}, HelpersTypeError, "文字列"),
     ({"X": np.ones((13, 3)), "words": list("abcdefghijklm")}, HelpersError, "12 個まで"),
     ({"W_Q": 2.0}, HelpersError, "W_Q.*3 次元"),
     ({"W_Q": np.ones((7, 3, 2))}, HelpersError, "コマ.*12 個まで"),
     ({"W_O": np.ones((4, 13))}, HelpersError, "出力の列.*12 個まで"),
     ({"head_names": 5}, HelpersTypeError, "head_names"),
     ({"out_labels": [1, 2, 3]}, HelpersTypeError, "out_labels.*文字列")],
)
def test_bad_inputs_are_refused_in_japanese(change, error, words):
    args = {"X": P.vectors, "words": P.words, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O,
            "head_names": NAMES, "out_labels": ["甘", "辛", "食"], **change}
    with pytest.raises(error, match=words):
        heads_explorer(**args)


def test_an_all_zero_output_still_gets_a_colour_range():
    e = heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, np.zeros((4, 3)), NAMES, list("abc"))
    np.testing.assert_array_equal(e.state["output"], 0.0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="head_names"):
        heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, ["頭 1"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="語が 6 個"):
        heads_explorer(P.vectors, P.words[:6], W_Q, W_K, W_V, W_O, NAMES, ["a", "b", "c"])
    with pytest.raises(ValueError, match="out_labels"):
        heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, NAMES, ["a"])
