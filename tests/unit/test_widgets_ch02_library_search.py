"""helpers.widgets.ch02_library_search: chapter 02's widget, driven headlessly."""


import numpy as np
import pytest
import reference
from static_frames import static_payload

from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Catalog, library_catalog
from helpers.widgets import library_search_explorer


@pytest.fixture
def explorer():
    return library_search_explorer()


def reference_state(angle, temperature, cat=None):
    cat = cat or library_catalog()
    a = np.deg2rad(angle)
    q = 2.0 * np.array([np.cos(a), np.sin(a)])
    s = cat.keys @ q
    w = reference.softmax(s / temperature)
    return q, s, w, w @ cat.values


def test_explorer_starts_where_asked(explorer):
    q, s, w, answer = reference_state(30, 1.0)
    np.testing.assert_allclose(explorer.state["question"], q)
    np.testing.assert_allclose(explorer.state["scores"], s)
    np.testing.assert_allclose(explorer.state["weights"], w)
    np.testing.assert_allclose(explorer.state["answer"], answer)
    assert explorer.state["best"] == "照り焼き"


@pytest.mark.parametrize("angle, temperature", [(90, 1.0), (0, 0.3), (-30, 5.0), (150, 0.1)])
def test_explorer_follows_both_sliders(explorer, angle, temperature):
    before = explorer.image.value
    explorer.controls["angle"].value = angle
    explorer.controls["temperature"].value = temperature
    q, s, w, answer = reference_state(angle, explorer.controls["temperature"].value)
    np.testing.assert_allclose(explorer.state["question"], q, atol=1e-12)
    np.testing.assert_allclose(explorer.state["scores"], s, atol=1e-12)
    np.testing.assert_allclose(explorer.state["weights"], w)
    np.testing.assert_allclose(explorer.state["answer"], answer)
    assert explorer.state["best"] == library_catalog().names[int(np.argmax(s))]
    assert explorer.image.value != before


def test_explorer_cold_is_lookup_hot_is_average(explorer):
    cat = library_catalog()
    explorer.controls["angle"].value = 90
    explorer.controls["temperature"].value = 0.05
    np.testing.assert_allclose(explorer.state["answer"], cat.values[cat.index("カレー")], atol=0.05)
    explorer.controls["temperature"].value = 20.0
    np.testing.assert_allclose(explorer.state["weights"], 0.2, atol=0.04)
    np.testing.assert_allclose(explorer.state["answer"], cat.values.mean(axis=0), atol=0.2)


def test_explorer_static_frames(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert all("温度 T" in label and "問いの向き" in label for label in payload["labels"])
    # the live figure goes back to what the controls say
    assert explorer.render(explorer.values)["best"] == "照り焼き"


def test_static_frames_hold_the_chapters_suggestions(explorer):
    """The book can show what the chapter asks: a cold turn that jumps, the same turn warm that
    glides, and a hot question that stays near the average."""
    frames = explorer.static_frames
    cold = [f for f in frames if f["temperature"] == 0.05]
    warm = [f for f in frames if f["temperature"] == 1.0]
    hot = [f for f in frames if f["temperature"] == 20.0]
    assert len(cold) == len(warm) == 5 and len(hot) == 2 and len(frames) == 12
    assert [f["angle"] for f in cold] == [f["angle"] for f in warm]
    cold_states = [explorer.render(f) for f in cold]
    warm_states = [explorer.render(f) for f in warm]
    assert [s["best"] for s in cold_states] == ["ケーキ", "照り焼き", "照り焼き", "キムチ", "カレー"]
    assert all(s["weights"].max() > 0.85 for s in cold_states)
    assert all(s["weights"].max() < 0.65 for s in warm_states)
    # 40° → 50°: cold, the chilli in the answer jumps by over 2 spoons; warm, by under 0.5
    chilli = 1
    assert cold_states[3]["answer"][chilli] - cold_states[2]["answer"][chilli] > 2.0
    assert warm_states[3]["answer"][chilli] - warm_states[2]["answer"][chilli] < 0.5
    for f in hot:
        np.testing.assert_allclose(explorer.render(f)["weights"], 0.2, atol=0.04)


def test_explorer_accepts_another_catalog():
    cat = Catalog(("甘い本", "辛い本"), ("甘", "辛"), np.array([[1.0, 0.0], [0.0, 1.0]]),
                  np.array([[1.0], [0.0]]), value_axes=("砂糖",))
    ex = library_search_explorer(cat, angle=0, temperature=1.0)
    w = reference.softmax(cat.keys @ np.array([2.0, 0.0]))
    np.testing.assert_allclose(ex.state["weights"], w)
    np.testing.assert_allclose(ex.state["answer"], w @ cat.values)


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        (("本",), {}, TypeError, "Catalog"),
        ((), {"temperature": 0.0}, ValueError, "温度"),
        ((), {"temperature": 100.0}, ValueError, "温度"),
        ((), {"temperature": "1"}, TypeError, "温度.* は数で指定"),
        ((), {"angle": "北"}, TypeError, "angle_deg は数で"),
        ((np.eye(2),), {}, HelpersTypeError, "Catalog"),
        ((Catalog(tuple("abcdefghijklm"), tuple("abcdefghijklm"), np.ones((13, 2)), np.ones((13, 3))),),
         {}, HelpersError, "本は 12 個まで"),
        ((Catalog(("a",), ("a",), [[1e6, 0.0]], [[1.0, 0.0, 0.0]]),), {}, HelpersError,
         "見出し.*絶対値 1000"),
        ((Catalog(("a",), ("a",), [[1.0, 0.0]], [[1e308, 0.0, 0.0]]),), {}, HelpersError,
         "中身.*絶対値 1000"),
    ],
)
def test_explorer_bad_inputs(args, kwargs, error, words):
    with pytest.raises(error, match=words):
        library_search_explorer(*args, **kwargs)


def test_explorer_needs_two_dimensional_keys():
    cat = Catalog(("a",), ("a",), np.ones((1, 3)), np.ones((1, 3)), key_axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_k = 3"):
        library_search_explorer(cat)
