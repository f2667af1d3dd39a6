"""helpers.widgets.ch02_library_search: chapter 02's explorable, driven headlessly from Python."""


import numpy as np
import pytest
import reference
from explorables import assert_refused

from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Catalog, library_catalog
from helpers.widgets import library_search_explorer


@pytest.fixture
def explorer():
    return library_search_explorer()


def reference_numbers(angle, temperature, cat=None):
    cat = cat or library_catalog()
    a = np.deg2rad(angle)
    q = 2.0 * np.array([np.cos(a), np.sin(a)])
    s = cat.keys @ q
    w = reference.softmax(s / temperature)
    return q, s, w, w @ cat.values


def test_explorer_starts_where_asked(explorer):
    q, s, w, answer = reference_numbers(30, 1.0)
    n = explorer.numbers()
    np.testing.assert_allclose(n["question"], q)
    np.testing.assert_allclose(n["scores"], s)
    np.testing.assert_allclose(n["weights"], w)
    np.testing.assert_allclose(n["answer"], answer)
    assert n["best"] == "照り焼き"


@pytest.mark.parametrize("angle, temperature", [(90, 1.0), (0, 0.3), (-30, 5.0), (150, 0.1)])
def test_setting_traits_from_python_moves_the_numbers(explorer, angle, temperature):
    explorer.angle = angle
    explorer.temperature = temperature
    q, s, w, answer = reference_numbers(angle, temperature)
    n = explorer.numbers()
    np.testing.assert_allclose(n["question"], q, atol=1e-12)
    np.testing.assert_allclose(n["weights"], w)
    np.testing.assert_allclose(n["answer"], answer)
    assert n["best"] == library_catalog().names[int(np.argmax(s))]
    # the traits the browser receives say the same
    state = explorer.get_state()
    assert state["angle"] == angle and state["temperature"] == temperature


def test_cold_is_lookup_hot_is_average(explorer):
    """The chapter's three suggestions, as numbers: cold, the weights jump from book to book
    across the 照り焼き/キムチ border; hot, every weight is near 0.2."""
    cat = library_catalog()
    explorer.temperature = 0.05
    picks = []
    for angle in (0, 25, 40, 50, 90):
        explorer.angle = angle
        picks.append(explorer.numbers()["best"])
        assert explorer.numbers()["weights"].max() > 0.85
    assert picks == ["ケーキ", "照り焼き", "照り焼き", "キムチ", "カレー"]
    explorer.angle = 40
    chilli_40 = explorer.numbers()["answer"][1]
    explorer.angle = 50
    assert explorer.numbers()["answer"][1] - chilli_40 > 2.0
    explorer.temperature = 20.0
    np.testing.assert_allclose(explorer.numbers()["weights"], 0.2, atol=0.04)
    np.testing.assert_allclose(explorer.numbers()["answer"], cat.values.mean(axis=0), atol=0.2)


def test_the_browser_gets_the_catalog_as_plain_lists(explorer):
    state = explorer.get_state()
    cat = library_catalog()
    assert state["names"] == list(cat.names)
    assert state["book_keys"] == cat.keys.tolist()
    assert state["book_values"] == cat.values.tolist()
    assert "export default" in state["_esm"] and "import " not in state["_esm"].split("\n", 3)[0]


def test_explorer_accepts_another_catalog():
    cat = Catalog(("甘い本", "辛い本"), ("甘", "辛"), np.array([[1.0, 0.0], [0.0, 1.0]]),
                  np.array([[1.0], [0.0]]), value_axes=("砂糖",))
    ex = library_search_explorer(cat, angle=0, temperature=1.0)
    w = reference.softmax(cat.keys @ np.array([2.0, 0.0]))
    np.testing.assert_allclose(ex.numbers()["weights"], w)
    np.testing.assert_allclose(ex.numbers()["answer"], w @ cat.values)


@pytest.mark.parametrize(
    "name, value, error, words",
    [
        ("angle", 200, HelpersError, "angle.*-90 以上 180 以下"),
        ("angle", "北", HelpersTypeError, "angle.*数で指定"),
        ("temperature", 0.0, HelpersError, "温度.*0.05 以上 20 以下"),
        ("temperature", float("nan"), HelpersError, "有限の数"),
    ],
)
def test_a_trait_out_of_range_is_refused_and_the_picture_keeps_its_state(explorer, name, value,
                                                                         error, words):
    assert_refused(explorer, name, value, error, words)


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        (("本",), {}, TypeError, "Catalog"),
        ((), {"temperature": 0.0}, ValueError, "温度"),
        ((), {"temperature": 100.0}, ValueError, "温度"),
        ((), {"temperature": "1"}, TypeError, "温度.* は数で指定"),
        ((), {"angle": "北"}, TypeError, "angle.*数で"),
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


@pytest.mark.parametrize("far", [1.0, 40.0, 1000.0])
def test_the_plane_holds_every_key_the_factory_accepts(far):
    """Keys out to ±1000 (the most the factory takes) are drawn inside the plane's frame, the
    question's arrow too (chapter 02's plane was ±2.6 whatever the catalog)."""
    import re

    from explorables import run_module

    from helpers.widgets.sources import module_source

    cat = Catalog(("近い本", "遠い本", "逆の本"), ("近", "遠", "逆"),
                  np.array([[1.0, 0.5], [far, -far], [-far / 2, far]]), np.eye(3), value_axes=("a", "b", "c"))
    state = library_search_explorer(cat, angle=45).state_for_page()
    (result,) = run_module(module_source("ch02_library_search"), "picture", [[state]])
    plane_svg = result["ok"]["panels"][0]
    size = float(re.search(r'viewBox="0 0 ([\d.]+)', plane_svg).group(1))
    frame = re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', plane_svg)
    lo, width = float(frame.group(1)), float(frame.group(3))
    tips = [(float(x), float(y)) for x, y in re.findall(r'<polygon points="([-\d.e]+),([-\d.e]+) ', plane_svg)]
    assert len(tips) >= 2  # the far keys at least (an arrow shorter than a pixel is not drawn)
    for x, y in tips:
        assert lo - 0.01 <= x <= lo + width + 0.01 and lo - 0.01 <= y <= lo + width + 0.01, (x, y, size)
