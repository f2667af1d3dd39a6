"""helpers.data: the toy worlds of every chapter (foods, catalog, party, phrase, preview)."""

import re

import numpy as np
import pytest
import reference

import helpers
from helpers import data
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import (
    AXES,
    PHRASE_AXES,
    SWAP,
    Catalog,
    Embedding,
    Party,
    foods,
    library_catalog,
    party,
    party_attention,
    phrase,
    preview_w_q,
)

# ---------------------------------------------------------------- foods: the chapter 01 world


def test_foods_world_has_the_promised_geometry():
    emb = foods()
    assert emb.vectors.shape == (5, 2)
    # プリン points exactly where ケーキ points, at half the length.
    np.testing.assert_allclose(emb["プリン"] * 2, emb["ケーキ"])
    assert emb["ケーキ"].shape == (1, 2)


def test_embedding_lookup_and_copy():
    emb = foods()
    moved = emb.with_vector("カレー", [0.0, 1.0])
    assert moved["カレー"].tolist() == [[0.0, 1.0]]
    assert emb["カレー"].tolist() == [[0.3, 1.8]]  # the original is untouched
    with pytest.raises(KeyError, match="使える語"):
        emb["ラーメン"]
    with pytest.raises(ValueError, match="shape"):
        Embedding(("a",), np.ones((2, 2)))


# ---------------------------------------------------------------- library_catalog: chapter 02's shelf


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


# ---------------------------------------------------------------- party: chapter 03's guests


def test_party_faces_are_x_times_the_hand_made_tables():
    p = party()
    assert p.names == ("アオイ", "ユイ", "ミオ", "ソウタ", "ケン")
    assert p.axes == AXES
    assert p.X.shape == (5, 2)
    for face, W in ((p.Q, p.W_Q), (p.K, p.W_K), (p.V, p.W_V)):
        assert face.shape == (5, 2)
        np.testing.assert_allclose(face, p.X @ W)


def test_party_faces_of_one_guest_are_rows():
    p = party()
    f = p.faces("ケン")
    assert set(f) == {"x", "q", "k", "v"}
    for key, full in (("x", p.X), ("q", p.Q), ("k", p.K), ("v", p.V)):
        assert f[key].shape == (1, 2)
        np.testing.assert_allclose(f[key][0], full[4])
    np.testing.assert_allclose(f["q"], [[1.8, 0.26]])


def test_party_tastes_have_almost_equal_length():
    lengths = np.linalg.norm(party().X, axis=1)
    assert lengths.min() > 1.96 and lengths.max() < 2.02


def test_party_scores_are_not_symmetric_and_nobody_picks_themself():
    p = party()
    S = p.Q @ p.K.T
    assert not np.allclose(S, S.T)
    picks = S.argmax(axis=1)
    assert not np.any(picks == np.arange(5))
    assert [p.names[i] for i in picks] == ["ケン", "ケン", "ソウタ", "ユイ", "アオイ"]
    yui, ken = p.index("ユイ"), p.index("ケン")
    assert S[yui, ken] == pytest.approx(5.216, abs=5e-4) and S[ken, yui] == pytest.approx(3.565, abs=5e-4)


def test_one_vector_is_symmetric_and_everyone_picks_themself():
    p = party().one_vector()
    for face in (p.Q, p.K, p.V):
        np.testing.assert_allclose(face, p.X)
    S = p.Q @ p.K.T
    np.testing.assert_allclose(S, S.T)
    np.testing.assert_array_equal(S.argmax(axis=1), np.arange(5))


def test_name_tag_equal_to_q_makes_the_table_symmetric():
    p = party()
    same_tag = Party(p.names, p.X, p.W_Q, p.W_Q, p.W_V)  # W_K = W_Q: every name tag is the question
    np.testing.assert_allclose(same_tag.K, p.Q)
    S = same_tag.Q @ same_tag.K.T
    np.testing.assert_allclose(S, S.T)


def test_party_copies_its_inputs():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    p = Party(["a", "b"], X, np.eye(2), np.eye(2), np.eye(2))
    X[0, 0] = 9.0
    assert p.X[0, 0] == 1.0
    assert p.names == ("a", "b")


def test_party_index_unknown_name():
    with pytest.raises(KeyError, match="参加者"):
        party().index("タロウ")
    with pytest.raises(KeyError):
        party().faces("タロウ")


GOOD = dict(names=("a", "b"), X=np.ones((2, 2)), W_Q=np.eye(2), W_K=np.eye(2), W_V=np.eye(2))


@pytest.mark.parametrize(
    "change, error, words",
    [
        ({"names": "ab"}, TypeError, "名前"),
        ({"names": ("a", 1)}, TypeError, "名前"),
        ({"names": ("a", "a")}, ValueError, "重複"),
        ({"X": np.ones((3, 2))}, ValueError, "(2, 2)"),
        ({"X": np.ones(2)}, ValueError, "2 次元"),
        ({"X": [[1.0, np.nan], [0.0, 1.0]]}, ValueError, "NaN"),
        ({"X": "xx"}, TypeError, "数の配列"),
        ({"W_Q": np.ones((3, 2))}, ValueError, "d_model"),
        ({"W_V": np.ones((1, 2))}, ValueError, "d_model"),
        ({"W_K": np.ones((2, 3))}, ValueError, "d_k"),
        ({"W_K": [[np.inf, 0.0], [0.0, 1.0]]}, ValueError, "inf"),
    ],
)
def test_party_bad_inputs(change, error, words):
    with pytest.raises(error, match=re.escape(words)):
        Party(**{**GOOD, **change})


def test_party_value_may_have_another_width():
    p = Party(**{**GOOD, "W_V": np.ones((2, 3))})
    assert p.V.shape == (2, 3)


# ---------------------------------------------------------------- party_attention


@pytest.mark.parametrize("person", party().names)
def test_party_attention_matches_numpy(person):
    p = party()
    i = p.index(person)
    ref_w = reference.softmax(p.Q @ p.K.T)[i]
    state = party_attention(p, person)
    np.testing.assert_allclose(state["scores"], (p.Q @ p.K.T)[i])
    np.testing.assert_allclose(state["weights"], ref_w)
    np.testing.assert_allclose(state["take_home"], ref_w @ p.V)
    np.testing.assert_allclose(state["q"], p.Q[i])
    assert state["pick"] == p.names[int(np.argmax(ref_w))]


def test_party_attention_bad_inputs():
    with pytest.raises(TypeError, match="Party"):
        party_attention(np.eye(2), "ケン")
    with pytest.raises(KeyError):
        party_attention(party(), "タロウ")


# ---------------------------------------------------------------- phrase: chapter 06's sentence


def test_phrase_tokens_and_shape():
    p = phrase()
    assert p.words == ("辛い", "カレー", "の", "後", "に", "甘い", "ケーキ")
    assert len(set(p.words)) == len(p.words)
    assert p.vectors.shape == (7, 3)
    assert p.axes == PHRASE_AXES


def test_phrase_foods_keep_their_chapter01_taste():
    p, f = phrase(), foods()
    for word in ("カレー", "ケーキ"):
        np.testing.assert_allclose(p[word][:, :2], f[word])


def test_phrase_small_words_are_short():
    p = phrase()
    lengths = np.linalg.norm(p.vectors, axis=1)
    for word in ("の", "後", "に"):
        assert lengths[p.index(word)] < 0.5
    for word in ("辛い", "カレー", "甘い", "ケーキ"):
        assert lengths[p.index(word)] >= 1.5


# ---------------------------------------------------------------- preview_w_q: chapter 00


def test_preview_w_q_blends_identity_and_swap():
    np.testing.assert_array_equal(preview_w_q(0), np.eye(2))
    np.testing.assert_array_equal(preview_w_q(1.0), SWAP)
    np.testing.assert_allclose(preview_w_q(0.25), [[0.75, 0.25], [0.25, 0.75]])


@pytest.mark.parametrize(
    "bad, error, words",
    [(-0.1, ValueError, "0 以上 1 以下"), (1.5, ValueError, "0 以上 1 以下"),
     ("0.5", TypeError, "mix\\(入れ替え度 t\\) は数で"), (None, TypeError, "mix\\(入れ替え度 t\\) は数で"),
     (True, TypeError, "mix\\(入れ替え度 t\\) は数で"), (np.nan, ValueError, "有限の数")],
)
def test_preview_w_q_bad_inputs(bad, error, words):
    with pytest.raises(error, match=words):
        preview_w_q(bad)


# Edges: overflow, underflow, masks, sizes, bad arguments (Japanese messages).


def test_an_embedding_accepts_lists_and_stores_an_array():
    emb = data.Embedding(["a", "b"], [[1, 2], [3, 4]])
    assert emb.words == ("a", "b")
    assert isinstance(emb.vectors, np.ndarray) and emb.vectors.dtype == float
    np.testing.assert_array_equal(emb["b"], [[3.0, 4.0]])


@pytest.mark.parametrize("words, vectors, cls", [
    ("ab", [[1, 2], [3, 4]], HelpersTypeError),
    (("a", 1), [[1, 2], [3, 4]], HelpersTypeError),
    (("a", "b"), "vectors", HelpersTypeError),
    (("a", "b"), [[1, 2]], HelpersError),
    (("a", "b"), [[1, 2], [np.nan, 4]], HelpersError),
])
def test_an_embedding_refuses_bad_parts(words, vectors, cls):
    with pytest.raises(cls):
        data.Embedding(words, vectors)


def test_with_vector_checks_the_new_row():
    emb = data.foods()
    moved = emb.with_vector("ケーキ", [1.0, 1.0])
    np.testing.assert_array_equal(moved["ケーキ"], [[1.0, 1.0]])
    with pytest.raises(HelpersError, match="2 個の数"):
        emb.with_vector("ケーキ", [1.0, 1.0, 1.0])
    with pytest.raises(HelpersKeyError, match="すし"):
        emb.with_vector("すし", [1.0, 1.0])


def test_a_catalog_accepts_lists():
    cat = data.library_catalog()
    again = data.Catalog(list(cat.titles), list(cat.names), cat.keys.tolist(), cat.values.tolist())
    np.testing.assert_array_equal(again.keys, cat.keys)
    with pytest.raises(HelpersTypeError):
        data.Catalog(cat.titles, cat.names, "keys", cat.values)
