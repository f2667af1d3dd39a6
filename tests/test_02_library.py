"""Chapter 02: the library catalog, the search-counter widget and the exercise checks."""

import re

import numpy as np
import pytest
from static_frames import static_payload

import helpers
from helpers.checks import (
    SOFT_LOOKUP_HINTS,
    check_soft_lookup,
    check_temperature_prediction,
    soft_lookup_variants,
)
from helpers.checks.ch02_library_search import _soft_lookup_cases
from helpers.data import Catalog, library_catalog
from helpers.geometry import question_vector
from helpers.widgets import library_search_explorer


def np_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------- the catalog


def test_catalog_shapes_and_rows_belong_together():
    cat = library_catalog()
    assert cat.keys.shape == (5, 2) and cat.values.shape == (5, 3)
    assert len(cat.titles) == len(cat.names) == 5
    assert cat.key_axes == helpers.data.AXES
    assert cat.value_axes == ("砂糖", "唐辛子", "しょうゆ")
    i = cat.index("照り焼き")
    np.testing.assert_array_equal(cat.keys[i], [1.6, 1.2])
    np.testing.assert_array_equal(cat.values[i], [2.0, 0.0, 3.0])


def test_every_key_has_length_two():
    np.testing.assert_allclose(np.linalg.norm(library_catalog().keys, axis=1), 2.0)


def test_best_dot_product_is_the_nearest_key(rng):
    """Equal key lengths: argmax q·k = argmin |q - k| for any question."""
    K = library_catalog().keys
    for q in rng.normal(scale=2.0, size=(200, 2)):
        assert np.argmax(K @ q) == np.argmin(np.linalg.norm(K - q, axis=1))


def test_shelf_is_a_plain_dict_of_values():
    cat = library_catalog()
    shelf = cat.shelf()
    assert list(shelf) == list(cat.names)
    for i, name in enumerate(cat.names):
        np.testing.assert_array_equal(shelf[name], cat.values[i])
    with pytest.raises(KeyError):
        shelf["甘辛いもの"]


def test_catalog_index_unknown_name():
    with pytest.raises(KeyError, match="甘辛いもの.*ケーキ"):
        library_catalog().index("甘辛いもの")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"titles": ("a",)}, "書名が 1 個"),
        ({"keys": np.zeros((4, 2))}, r"keys は shape \(5, 2\)"),
        ({"keys": np.zeros((5, 3))}, r"keys は shape \(5, 2\)"),
        ({"values": np.zeros((5, 2))}, r"values は shape \(5, 3\)"),
    ],
)
def test_catalog_refuses_mismatched_parts(kwargs, words):
    cat = library_catalog()
    parts = {"titles": cat.titles, "names": cat.names, "keys": cat.keys, "values": cat.values}
    with pytest.raises(ValueError, match=words):
        Catalog(**{**parts, **kwargs})


def test_catalog_with_other_value_axes():
    cat = Catalog(("本1", "本2"), ("a", "b"), np.eye(2), np.ones((2, 1)), value_axes=("量",))
    assert cat.shelf()["b"].tolist() == [1.0]


# ---------------------------------------------------------------- question_vector


@pytest.mark.parametrize("angle, length", [(0, 2.0), (90, 2.0), (30, 1.0), (-45, 3.0)])
def test_question_vector_matches_cos_sin(angle, length):
    a = np.deg2rad(angle)
    np.testing.assert_allclose(question_vector(angle, length),
                               [[length * np.cos(a), length * np.sin(a)]], atol=1e-12)
    assert question_vector(angle, length).shape == (1, 2)


@pytest.mark.parametrize(
    "args, error, words",
    [
        (("30",), TypeError, "angle_deg は数で"),
        ((True,), TypeError, "angle_deg は数で"),
        ((np.nan,), ValueError, "有限"),
        ((30, np.inf), ValueError, "有限"),
        ((30, 0.0), ValueError, "正の数"),
        ((30, -1.0), ValueError, "正の数"),
    ],
)
def test_question_vector_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        question_vector(*args)


# ---------------------------------------------------------------- the widget


@pytest.fixture
def explorer():
    return library_search_explorer()


def reference_state(angle, temperature, cat=None):
    cat = cat or library_catalog()
    a = np.deg2rad(angle)
    q = 2.0 * np.array([np.cos(a), np.sin(a)])
    s = cat.keys @ q
    w = np_softmax(s / temperature)
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
    w = np_softmax(cat.keys @ np.array([2.0, 0.0]))
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
    ],
)
def test_explorer_bad_inputs(args, kwargs, error, words):
    with pytest.raises(error, match=words):
        library_search_explorer(*args, **kwargs)


def test_explorer_needs_two_dimensional_keys():
    cat = Catalog(("a",), ("a",), np.ones((1, 3)), np.ones((1, 3)), key_axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_k = 3"):
        library_search_explorer(cat)


# ---------------------------------------------------------------- check_soft_lookup


def right(q, K, V, temperature):
    s = q @ K.T / temperature
    e = np.exp(s - s.max())
    return e / e.sum() @ V


def test_check_soft_lookup_accepts_the_right_answer(capsys):
    check_soft_lookup(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_soft_lookup_accepts_helpers_and_a_flat_answer(capsys):
    check_soft_lookup(lambda q, K, V, T: (helpers.softmax(q @ K.T, temperature=T) @ V).reshape(-1))
    check_soft_lookup(lambda q, K, V, T: helpers.scaled_dot_product_attention(
        q, K, V, scale=False, temperature=T)[0])
    assert capsys.readouterr().out.count("✓ 正解です。") == 2


def _sm(s, axis=-1):
    e = np.exp(s)
    return e / e.sum(axis=axis, keepdims=True)


MISTAKES = {
    "weights": lambda q, K, V, T: _sm(q @ K.T / T),
    "keys": lambda q, K, V, T: _sm(q @ K.T / T) @ K,
    "axis0": lambda q, K, V, T: _sm(q @ K.T / T, axis=0) @ V,
    "raw": lambda q, K, V, T: (q @ K.T) @ V,
    "no_exp": lambda q, K, V, T: (q @ K.T) / (q @ K.T).sum() @ V,
    "unnormalised": lambda q, K, V, T: np.exp(q @ K.T / T) @ V,
    "no_temperature": lambda q, K, V, T: _sm(q @ K.T) @ V,
    "times_temperature": lambda q, K, V, T: _sm(q @ K.T * T) @ V,
    "sqrt": lambda q, K, V, T: _sm(q @ K.T / np.sqrt(K.shape[1]) / T) @ V,
    "argmax": lambda q, K, V, T: V[np.argmax(q @ K.T)],
}


def test_every_variant_has_a_hint_and_a_mistake():
    assert set(SOFT_LOOKUP_HINTS) == set(MISTAKES) == set(soft_lookup_variants(
        *_soft_lookup_cases()[0]
    )) - {"right"}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_check_soft_lookup_names_each_mistake(mistake):
    with pytest.raises(AssertionError, match=re.escape(SOFT_LOOKUP_HINTS[mistake])):
        check_soft_lookup(MISTAKES[mistake])


def test_soft_lookup_variants_differ_from_the_right_answer_in_some_case():
    """Each mistake is caught by at least one case (temperature mistakes need T ≠ 1)."""
    for name in SOFT_LOOKUP_HINTS:
        caught = False
        for case in _soft_lookup_cases():
            v = soft_lookup_variants(*case)
            wrong, good = v[name].reshape(-1), v["right"].reshape(-1)
            caught |= wrong.shape != good.shape or not np.allclose(wrong, good)
        assert caught, name


def test_check_soft_lookup_not_written_yet():
    def stub(q, K, V, temperature):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        check_soft_lookup(stub)


def test_check_soft_lookup_crash_becomes_a_hint():
    with pytest.raises(AssertionError, match="エラーで止まりました.*ValueError"):
        check_soft_lookup(lambda q, K, V, T: helpers.softmax(q @ K.T) @ V.T)


def test_check_soft_lookup_wrong_shape_and_wrong_numbers():
    with pytest.raises(AssertionError, match="形は中身 1 冊ぶん"):
        check_soft_lookup(lambda q, K, V, T: np.zeros((2, 7)))
    with pytest.raises(AssertionError, match="になるはずが"):
        check_soft_lookup(lambda q, K, V, T: right(q, K, V, T) + 0.5)
    with pytest.raises(AssertionError, match="数の配列を返して"):
        check_soft_lookup(lambda q, K, V, T: "答え")


# ---------------------------------------------------------------- temperature prediction


def test_temperature_prediction_right(capsys):
    check_temperature_prediction("一冊", "平均")
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize(
    "small, large, words",
    [
        ("平均", "平均", "small_T:温度を小さくすると"),
        ("ゼロ", "平均", "small_T:重みの合計はいつでも 1"),
        ("変わらない", "平均", "small_T:温度は得点を割る数"),
        ("一冊", "一冊", "large_T:温度を大きくすると"),
        ("一冊", "ゼロ", "large_T:重みの合計はいつでも 1"),
        ("一冊", "変わらない", "large_T:温度は得点を割る数"),
        ("", "平均", "small_T にまだ答え"),
        ("一冊", None, "large_T にまだ答え"),
        ("ひとつ", "平均", "選択肢にありません"),
    ],
)
def test_temperature_prediction_hints(small, large, words):
    with pytest.raises(AssertionError, match=words):
        check_temperature_prediction(small, large)
