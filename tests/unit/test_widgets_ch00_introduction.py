"""helpers.widgets.ch00_introduction: chapter 00's widget, driven headlessly."""

import numpy as np
import pytest
import reference
from static_frames import static_payload

from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import SWAP, Embedding, foods
from helpers.widgets import attention_preview_explorer


def reference_weights(X, W_Q):
    """The preview's attention weights: W_K = W_V = I, so Q = X W_Q and K = V = X."""
    return reference.attention(X @ W_Q, X, X)[1]


@pytest.fixture
def explorer():
    return attention_preview_explorer()


def test_preview_starts_with_q_equal_x(explorer):
    X = foods().vectors
    np.testing.assert_allclose(explorer.state["weights"], reference_weights(X, np.eye(2)))
    assert explorer.state["picks"][:3] == ["ケーキ", "ケーキ", "カレー"]


@pytest.mark.parametrize("t", [0.3, 0.7, 1.0])
def test_preview_follows_the_slider(explorer, t):
    before = explorer.image.value
    explorer.controls["mix"].value = t
    X = foods().vectors
    W_Q = (1 - t) * np.eye(2) + t * np.array([[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_allclose(explorer.state["W_Q"], W_Q)
    want = reference_weights(X, W_Q)
    np.testing.assert_allclose(explorer.state["weights"], want)
    np.testing.assert_allclose(explorer.state["weights"].sum(axis=1), 1.0)
    assert explorer.state["picks"] == [foods().words[i] for i in np.argmax(want, axis=1)]
    assert explorer.image.value != before


def test_preview_at_one_matches_the_chapter(explorer):
    explorer.controls["mix"].value = 1.0
    w = explorer.state["weights"]
    words = foods().words
    assert explorer.state["picks"][words.index("カレー")] == "ケーキ"
    assert explorer.state["picks"][words.index("ケーキ")] == "カレー"
    assert f"{w[words.index('カレー'), words.index('ケーキ')]:.2f}" == "0.49"


def test_preview_static_frames(explorer, monkeypatch):
    _, payload = static_payload(explorer, monkeypatch)
    assert payload["labels"][0] == "入れ替え度 t = 0.0" and payload["labels"][-1] == "入れ替え度 t = 1.0"
    np.testing.assert_allclose(explorer.render(explorer.values)["W_Q"], np.eye(2))


def test_preview_other_embedding_and_start():
    emb = Embedding(("a", "b"), np.array([[1.0, 0.0], [0.0, 1.0]]))
    ex = attention_preview_explorer(emb, mix=1.0)
    np.testing.assert_allclose(ex.state["weights"], reference_weights(emb.vectors, SWAP))
    assert ex.state["picks"] == ["b", "a"]


@pytest.mark.parametrize(
    "args, error, words",
    [((np.eye(2),), HelpersTypeError, "Embedding"),
     (("foods",), HelpersTypeError, "Embedding"),
     ((None, 2.0), HelpersError, "0 以上 1 以下"),
     ((None, "0.5"), HelpersTypeError, "数で指定"),
     ((Embedding(tuple("abcdefghijklm"), np.ones((13, 2))),), HelpersError, "12 個まで")],
)
def test_preview_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        attention_preview_explorer(*args)


def test_preview_needs_a_plane():
    emb = Embedding(("a",), np.ones((1, 3)), axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_model = 3"):
        attention_preview_explorer(emb)
