"""helpers.widgets.ch01_one_vector: chapter 01's explorable, driven headlessly (Python and Node)."""

import math

import numpy as np
import pytest
import reference
from explorables import assert_refused, run_module, same_numbers

import helpers
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import Embedding, foods
from helpers.plotting import WORD_COLORS
from helpers.widgets import SimilarityExplorer, similarity_explorer
from helpers.widgets.sources import module_source

OTHERS = ["プリン", "カレー", "キムチ", "照り焼き"]


@pytest.fixture
def explorer():
    return similarity_explorer(foods(), word="ケーキ")


def reference_numbers(me, others=OTHERS, emb=None):
    """Dot products and cosines of `me` with `others`, in plain numpy (tests/support/reference.py)."""
    emb = emb or foods()
    rest = np.vstack([emb[w] for w in others])
    me = np.asarray(me, dtype=float)
    return rest @ me, reference.cosine(me, rest)[0]


def node(function, *cases):
    """`function(*case)` of the module as JupyterLab and the book get it, run in Node."""
    results = run_module(module_source("ch01_one_vector"), function, [list(c) for c in cases])
    assert all("error" not in r for r in results), results
    return [r["ok"] for r in results]


def test_explorer_starts_at_the_word(explorer):
    dots, cos = reference_numbers([2.0, 0.2])
    n = explorer.numbers()
    np.testing.assert_allclose(n["vector"], [2.0, 0.2])
    assert n["others"] == OTHERS
    np.testing.assert_allclose(n["dot"], dots)
    np.testing.assert_allclose(n["cosine"], cos)
    # the chapter's point: the dot product prefers 照り焼き, the cosine プリン (same direction)
    assert n["best_dot"] == "照り焼き" and n["best_cosine"] == "プリン"
    assert explorer.title == "「ケーキ」のベクトル"


@pytest.mark.parametrize("sweet, spicy", [(-1.0, 1.0), (0.3, 1.8), (-2.0, -2.0), (1.5, -0.25)])
def test_setting_traits_from_python_moves_the_numbers(explorer, sweet, spicy):
    explorer.sweet = sweet
    explorer.spicy = spicy
    dots, cos = reference_numbers([sweet, spicy])
    n = explorer.numbers()
    np.testing.assert_allclose(n["vector"], [sweet, spicy])
    np.testing.assert_allclose(n["dot"], dots)
    np.testing.assert_allclose(n["cosine"], cos, atol=1e-12)  # カレー ⟂ (1.5, -0.25)
    assert n["best_dot"] == OTHERS[int(np.argmax(dots))]
    assert n["best_cosine"] == OTHERS[int(np.argmax(cos))]
    state = explorer.get_state()  # the traits the browser receives say the same
    assert state["sweet"] == sweet and state["spicy"] == spicy


def test_shrinking_in_the_same_direction_changes_only_the_dot_product(explorer):
    """The chapter's first suggestion: (2.00, 0.20) → (1.00, 0.10) → (0.50, 0.05)."""
    dot0, cos0 = explorer.numbers()["dot"], explorer.numbers()["cosine"]
    for factor in (0.5, 0.25):
        explorer.sweet, explorer.spicy = 2.0 * factor, 0.2 * factor
        np.testing.assert_allclose(explorer.numbers()["dot"], factor * dot0)
        np.testing.assert_allclose(explorer.numbers()["cosine"], cos0)
    # halved, ケーキ is プリン exactly: its dot product with プリン is プリン's own length squared
    explorer.sweet, explorer.spicy = 1.0, 0.1
    assert explorer.numbers()["dot"][0] == pytest.approx(1.01)


def test_turning_at_the_same_length_changes_the_cosine(explorer):
    """The chapter's other suggestion: turned towards カレー at its own length (about 2.01), ケーキ
    is most like カレー by both measures; turned to the bottom left, every number is negative."""
    length = math.hypot(2.0, 0.2)
    curry = np.arctan2(1.8, 0.3)
    explorer.sweet = round(length * math.cos(curry), 2)
    explorer.spicy = round(length * math.sin(curry), 2)
    n = explorer.numbers()
    assert (explorer.sweet, explorer.spicy) == (0.33, 1.98)  # the point the chapter names
    assert math.hypot(explorer.sweet, explorer.spicy) == pytest.approx(length, abs=0.01)
    assert n["best_cosine"] == "カレー" and n["cosine"][1] == pytest.approx(1.0, abs=1e-12)
    assert n["best_dot"] == "カレー"
    explorer.sweet = explorer.spicy = -1.42
    n = explorer.numbers()
    assert (n["dot"] < 0).all() and (n["cosine"] < 0).all()


def test_zero_vector_has_no_direction_and_no_outlined_bar(explorer):
    explorer.sweet = 0.0
    explorer.spicy = 0.0
    n = explorer.numbers()
    assert np.isnan(n["cosine"]).all()
    np.testing.assert_array_equal(n["dot"], 0.0)
    assert n["best_dot"] is None and n["best_cosine"] is None


def test_the_browser_computes_the_same_numbers_for_the_zero_vector_too(explorer):
    """JSON has no NaN: Node's NaN arrives as "NaN", and the comparison must still hold."""
    settings = [(0.0, 0.0), (-0.0, 0.0), (1.0, 0.1), (-1.42, -1.42)]
    states, expected = [], []
    for sweet, spicy in settings:
        explorer.sweet, explorer.spicy = sweet, spicy
        states.append([explorer.state_for_page()])
        expected.append(explorer.numbers())
    got = node("numbers", *states)
    assert got[0]["cosine"] == ["NaN"] * 4 and got[0]["best_cosine"] is None
    for page, numpy in zip(got, expected, strict=True):
        assert same_numbers(page, numpy) == []
    # and the comparison would notice a number where numpy has NaN
    assert same_numbers({**got[0], "cosine": [0.0] * 4}, expected[0]) != []


def test_a_word_of_length_zero_among_the_others_has_no_cosine():
    emb = Embedding(("a", "b", "c"), [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    ex = similarity_explorer(emb, "a")
    ex.sweet, ex.spicy = 1.0, 1.0
    n = ex.numbers()
    assert math.isnan(n["cosine"][0]) and n["cosine"][1] == pytest.approx(1 / math.sqrt(2))
    assert n["best_cosine"] == "c" and n["best_dot"] == "c"
    (page,) = node("numbers", [ex.state_for_page()])
    assert same_numbers(page, n) == []


def test_the_picture_says_what_it_shows(explorer):
    explorer.sweet, explorer.spicy = 1.0, 0.1
    moved = explorer.state_for_page()
    explorer.sweet, explorer.spicy = 0.0, 0.0
    zero = explorer.state_for_page()
    shown, empty = node("picture", [moved], [zero])
    assert len(shown["panels"]) == 3
    # one <svg> per panel: mount's drag finds the plane as the pointer's nearest <svg>
    assert [panel.count("<svg") for panel in shown["panels"]] == [1, 1, 1]
    assert "(1.00, 0.10)" in shown["alt"] and "照り焼き 1.31" in shown["alt"]
    assert "内積が一番大きいのは照り焼き(1.31)" in shown["alt"]
    assert "コサイン類似度が一番大きいのはプリン(1.00)" in shown["alt"]
    outline = 'stroke-width="2.5"'
    assert outline in shown["panels"][1] and outline in shown["panels"][2]
    # the zero vector: its cosines are "—", no bar outlined, and the words say why
    assert "向きがない" in empty["alt"] and "コサイン類似度は決まりません" in empty["readout"]
    assert empty["panels"][2].count(">—<") == 4
    assert outline not in empty["panels"][1] and outline not in empty["panels"][2]
    assert "「ケーキ」を動かす" in empty["panels"][0] and "甘いもの好き度" in empty["panels"][0]


def test_sliders_stop_at_zero_and_dragging_stays_on_them():
    (specs,) = node("controls", [["甘いもの好き度", "辛いもの好き度"]])
    assert [s["label"] for s in specs] == ["甘いもの好き度", "辛いもの好き度"]
    for s in specs:
        assert (s["min"], s["max"]) == (-2, 2)
        assert (0 - s["min"]) / s["step"] == pytest.approx(round((0 - s["min"]) / s["step"]))
        assert s["step"] <= 0.01  # continuous: a slider walks its whole range
    far, near_zero, inside = node("dragTo", [5.0, -3.0], [0.004, -0.003], [1.234, 0.5])
    assert far == {"sweet": 2, "spicy": -2}
    assert near_zero == {"sweet": 0, "spicy": 0}
    assert inside == {"sweet": 1.23, "spicy": 0.5}


@pytest.mark.parametrize(
    "name, value, error, words",
    [
        ("sweet", 2.5, HelpersError, r"sweet\(甘いもの好き度\) は -2 以上 2 以下"),
        ("spicy", -3, HelpersError, r"spicy\(辛いもの好き度\) は -2 以上 2 以下"),
        ("sweet", "甘い", HelpersTypeError, "sweet.*数で指定"),
        ("spicy", True, HelpersTypeError, "spicy.*数で指定"),
        ("sweet", float("nan"), HelpersError, "有限の数"),
    ],
)
def test_a_trait_out_of_range_is_refused_and_the_picture_keeps_its_state(explorer, name, value,
                                                                         error, words):
    assert_refused(explorer, name, value, error, words)


def test_the_browser_gets_the_embedding_as_plain_lists(explorer):
    state = explorer.get_state()
    assert state["word"] == "ケーキ" and state["other_words"] == OTHERS
    assert state["other_vectors"] == [[1.0, 0.1], [0.3, 1.8], [0.5, 1.3], [1.2, 1.1]]
    assert state["axis_labels"] == ["甘いもの好き度", "辛いもの好き度"]
    assert state["start"] == [2.0, 0.2]
    assert state["word_color"] == WORD_COLORS[0]  # its colour in the chapter's first figure
    assert "export default" in state["_esm"] and "\nimport " not in state["_esm"]


def test_each_word_keeps_its_colour_and_black_follows_the_theme():
    assert similarity_explorer(foods(), "カレー").word_color == WORD_COLORS[2]
    assert WORD_COLORS[3] == "#000000"
    assert similarity_explorer(foods(), "キムチ").word_color == "var(--qkv-fg)"


def test_jupyterlab_and_the_book_name_it_after_the_word(explorer, monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    bundle = explorer._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data["text/plain"] == "<「ケーキ」のベクトル>"
    monkeypatch.setenv(helpers.STATIC_ENV_VAR, "1")
    html = explorer._repr_mimebundle_()["text/html"]
    assert 'data-qkv-module="ch01_one_vector"' in html and "「ケーキ」のベクトル" in html
    assert isinstance(SimilarityExplorer.example(), SimilarityExplorer)


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


def test_a_vector_off_the_sliders_starts_at_their_end():
    """Up to the limit, a far word is accepted: its sliders start at the end, and the others'
    numbers use their own coordinates."""
    e = similarity_explorer(Embedding(("a", "b"), [[999.0, -5.0], [0.0, 1.0]]), "a")
    assert (e.sweet, e.spicy) == (2.0, -2.0) and e.start == [2.0, -2.0]
    f = similarity_explorer(Embedding(("a", "b"), [[0.0, 1.0], [999.0, 0.0]]), "a")
    f.sweet, f.spicy = 1.0, 0.0
    assert f.numbers()["dot"].tolist() == [999.0]
