"""helpers.widgets.ch00_introduction: chapter 00's explorable, driven headlessly from Python."""

import numpy as np
import pytest
import reference

from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Embedding, foods
from helpers.widgets import AttentionPreviewExplorer, attention_preview_explorer

SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])


def reference_numbers(X, t, words):
    """The preview by hand: W_Q = (1 - t) I + t SWAP, W_K = W_V = I, so Q = X W_Q and K = V = X."""
    W_Q = (1 - t) * np.eye(2) + t * SWAP
    weights = reference.attention(X @ W_Q, X, X)[1]
    return W_Q, weights, [words[i] for i in np.argmax(weights, axis=1)]


@pytest.fixture
def explorer():
    return attention_preview_explorer()


def test_preview_starts_with_q_equal_x(explorer):
    W_Q, weights, picks = reference_numbers(foods().vectors, 0.0, foods().words)
    n = explorer.numbers()
    np.testing.assert_allclose(n["W_Q"], np.eye(2))
    np.testing.assert_allclose(n["weights"], weights)
    assert n["picks"] == picks
    assert n["picks"][:3] == ["ケーキ", "ケーキ", "カレー"]
    assert isinstance(explorer, AttentionPreviewExplorer) and explorer.mix == 0.0


@pytest.mark.parametrize("t", [0.3, 0.5, 0.7, 1.0])
def test_setting_mix_from_python_moves_the_numbers(explorer, t):
    explorer.mix = t
    W_Q, weights, picks = reference_numbers(foods().vectors, t, foods().words)
    n = explorer.numbers()
    np.testing.assert_allclose(n["W_Q"], W_Q)
    np.testing.assert_allclose(n["weights"], weights)
    np.testing.assert_allclose(n["weights"].sum(axis=1), 1.0)
    assert n["picks"] == picks
    # the trait the browser receives says the same
    assert explorer.get_state()["mix"] == t


def test_the_chapters_suggestions(explorer):
    """What the chapter says: t = 0 each looks at its own kind, t = 0.5 all at 照り焼き, t = 1
    swapped (カレー → ケーキ 0.49, ケーキ → カレー 0.46); the picks change only between t ≈ 0.36 and 0.58."""
    words = foods().words
    explorer.mix = 0.0
    assert explorer.numbers()["picks"] == ["ケーキ", "ケーキ", "カレー", "カレー", "照り焼き"]
    explorer.mix = 0.5
    assert explorer.numbers()["picks"] == ["照り焼き"] * 5
    explorer.mix = 1.0
    n = explorer.numbers()
    assert n["picks"] == ["カレー", "カレー", "ケーキ", "ケーキ", "照り焼き"]
    w = n["weights"]
    assert f"{w[words.index('カレー'), words.index('ケーキ')]:.2f}" == "0.49"
    assert f"{w[words.index('ケーキ'), words.index('カレー')]:.2f}" == "0.46"
    assert f"{w[words.index('照り焼き'), words.index('照り焼き')]:.2f}" == "0.26"
    first_change = last_change = None
    before = None
    for t in np.linspace(0.0, 1.0, 101):
        explorer.mix = float(t)
        picks = explorer.numbers()["picks"]
        if before is not None and picks != before:
            first_change = first_change if first_change is not None else t
            last_change = t
        before = picks
    assert 0.35 <= first_change <= 0.4 and 0.55 <= last_change <= 0.6


def test_the_browser_gets_the_words_as_plain_lists(explorer):
    state = explorer.get_state()
    assert state["words"] == list(foods().words)
    assert state["vectors"] == foods().vectors.tolist()
    assert state["axes"] == list(foods().axes)
    assert state["mix"] == 0.0
    assert "export default" in state["_esm"] and 'from "./' not in state["_esm"]


def test_preview_other_embedding_and_start():
    emb = Embedding(("a", "b"), np.array([[1.0, 0.0], [0.0, 1.0]]))
    ex = attention_preview_explorer(emb, mix=1.0)
    W_Q, weights, picks = reference_numbers(emb.vectors, 1.0, emb.words)
    np.testing.assert_allclose(ex.numbers()["weights"], weights)
    assert ex.numbers()["picks"] == picks == ["b", "a"]
    assert ex.get_state()["mix"] == 1.0


@pytest.mark.parametrize(
    "value, error, words",
    [(1.5, HelpersError, "入れ替え度 t.*0 以上 1 以下"),
     (-0.1, HelpersError, "0 以上 1 以下"),
     ("0.5", HelpersTypeError, "入れ替え度 t.*数で指定"),
     (True, HelpersTypeError, "数で指定"),
     (float("nan"), HelpersError, "有限の数")],
)
def test_a_bad_mix_is_refused_and_the_picture_keeps_its_state(explorer, value, error, words):
    explorer.mix = 0.25
    with pytest.raises(error, match=words):
        explorer.mix = value
    assert explorer.get_state()["mix"] == 0.25
    np.testing.assert_allclose(explorer.numbers()["W_Q"], [[0.75, 0.25], [0.25, 0.75]])


@pytest.mark.parametrize(
    "args, error, words",
    [((np.eye(2),), HelpersTypeError, "Embedding"),
     (("foods",), HelpersTypeError, "Embedding"),
     ((None, 2.0), HelpersError, "入れ替え度 t.*0 以上 1 以下"),
     ((None, "0.5"), HelpersTypeError, "入れ替え度 t.*数で指定"),
     ((Embedding(tuple("abcdefghijklm"), np.ones((13, 2))),), HelpersError, "12 個まで"),
     ((Embedding(("a", "b"), np.array([[1e200, 0.0], [0.0, 1.0]])),), HelpersError, "大きくなりすぎ")],
)
def test_preview_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        attention_preview_explorer(*args)


def test_preview_needs_a_plane():
    emb = Embedding(("a",), np.ones((1, 3)), axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_model = 3"):
        attention_preview_explorer(emb)
