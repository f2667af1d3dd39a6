"""helpers.widgets.ch03_three_roles: chapter 03's widget, driven headlessly."""


import matplotlib.pyplot as plt
import numpy as np
import pytest
import reference
from matplotlib.patches import Rectangle
from static_frames import static_payload

from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import Party, party
from helpers.plotting import COLORS
from helpers.widgets import party_explorer


@pytest.fixture
def explorer():
    return party_explorer()


def test_explorer_starts_at_ken(explorer):
    assert explorer.values == {"person": "ケン"}
    assert explorer.state["pick"] == "アオイ"
    np.testing.assert_allclose(explorer.state["take_home"], [1.753, 0.471], atol=1e-3)


def test_explorer_follows_the_dropdown(explorer):
    p = party()
    ref = reference.softmax(p.Q @ p.K.T)
    before = explorer.image.value
    for name in ("アオイ", "ミオ", "ソウタ"):
        explorer.controls["person"].value = name
        i = p.index(name)
        np.testing.assert_allclose(explorer.state["weights"], ref[i])
        np.testing.assert_allclose(explorer.state["take_home"], ref[i] @ p.V)
        assert explorer.image.value != before
        before = explorer.image.value
    assert explorer.state["pick"] == "ユイ"


def test_explorer_picture_names_whose_q_it_shows(explorer):
    labels = [t.get_text() for t in explorer.fig.axes[0].texts]
    assert "ケンの Q" in labels
    explorer.controls["person"].value = "ミオ"
    labels = [t.get_text() for t in explorer.fig.axes[0].texts]
    assert "ミオの Q" in labels and "ケンの Q" not in labels


def test_explorer_weight_bars_are_neutral_grey(explorer):
    """A weight is neither Q (blue) nor K (vermillion): the bars use the neutral grey."""
    ax_w = explorer.fig.axes[1]
    bars = [p for p in ax_w.patches if isinstance(p, Rectangle)]
    assert len(bars) == 5
    grey = plt.matplotlib.colors.to_rgba(COLORS["x"])
    for bar in bars:
        np.testing.assert_allclose(bar.get_facecolor(), grey)
    assert explorer.controls["person"].description == "探す人"


def test_explorer_static_frames_one_per_guest(explorer, monkeypatch):
    html, payload = static_payload(explorer, monkeypatch)
    assert len(payload["frames"]) == 5 == len(set(payload["frames"]))
    assert payload["labels"] == [f"探す人: {n}" for n in party().names]
    assert len(html) < 1_000_000
    assert explorer.state["pick"] == "アオイ"  # the live figure is left as the controls say


def test_explorer_other_party():
    p = Party(("a", "b", "c"), np.eye(3)[:, :2] + 0.1, np.eye(2), np.eye(2), 2 * np.eye(2))
    e = party_explorer(p, person="b")
    np.testing.assert_allclose(e.state["weights"], reference.softmax(p.Q @ p.K.T)[1])


@pytest.mark.parametrize(
    "args, error, words",
    [
        (("not a party",), HelpersTypeError, "Party"),
        ((None, "タロウ"), HelpersKeyError, "参加者はいません"),
        ((None, np.ones((2, 2))), HelpersTypeError, "person.*文字列"),
        ((None, None), HelpersTypeError, "person.*文字列"),
        ((Party(("a",), [[1.0, 0.0, 0.0]], np.eye(3), np.eye(3), np.eye(3), ("p", "q", "r")),
          "a"), HelpersError, "2 次元"),
        ((Party(tuple("abcdefghijklm"), np.ones((13, 2)), np.eye(2), np.eye(2), np.eye(2)), "a"),
         HelpersError, "参加者は 12 個まで"),
    ],
)
def test_explorer_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        party_explorer(*args)
