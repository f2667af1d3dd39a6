"""Chapter 00: the preview widget, LiveHeatmap, and the two warm-up checks."""

import re

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from static_frames import static_payload

import helpers
from helpers.checks import (
    FIRST_SOFTMAX_HINTS,
    check_first_softmax,
    check_matmul_shape_prediction,
)
from helpers.data import SWAP, Embedding, foods, preview_w_q
from helpers.widgets import LiveHeatmap, attention_preview_explorer


def reference_weights(X, W_Q):
    """softmax((X W_Q) Xᵀ / √2) row by row, with W_K = W_V = I, in plain numpy."""
    s = (X @ W_Q) @ X.T / np.sqrt(2)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- preview_w_q


def test_preview_w_q_blends_identity_and_swap():
    np.testing.assert_array_equal(preview_w_q(0), np.eye(2))
    np.testing.assert_array_equal(preview_w_q(1.0), SWAP)
    np.testing.assert_allclose(preview_w_q(0.25), [[0.75, 0.25], [0.25, 0.75]])


@pytest.mark.parametrize(
    "bad, error, words",
    [(-0.1, ValueError, "0 以上 1 以下"), (1.5, ValueError, "0 以上 1 以下"),
     ("0.5", TypeError, "t は数で"), (None, TypeError, "t は数で"),
     (True, TypeError, "t は数で"), (np.nan, ValueError, "有限の数")],
)
def test_preview_w_q_bad_inputs(bad, error, words):
    with pytest.raises(error, match=words):
        preview_w_q(bad)


# ---------------------------------------------------------------- the preview widget


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
    [((np.eye(2),), TypeError, "Embedding"),
     ((None, 2.0), ValueError, "0 以上 1 以下")],
)
def test_preview_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        attention_preview_explorer(*args)


def test_preview_needs_a_plane():
    emb = Embedding(("a",), np.ones((1, 3)), axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_model = 3"):
        attention_preview_explorer(emb)


# ---------------------------------------------------------------- LiveHeatmap


def _heatmap(**kwargs):
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    return ax, LiveHeatmap(ax, ["行1", "行2"], ["列1", "列2", "列3"], **kwargs)


def test_live_heatmap_sets_cells_and_text_colours():
    ax, hm = _heatmap(vmin=0.0, vmax=1.0)
    m = np.array([[0.0, 0.5, 1.0], [0.2, 0.9, 0.1]])
    hm.set(m)
    np.testing.assert_array_equal(hm.image.get_array(), m)
    assert hm.texts[(0, 1)].get_text() == "0.50"
    assert hm.texts[(0, 2)].get_color() == "white"  # darkest blue
    assert hm.texts[(0, 0)].get_color() == "black"
    assert hm.image.get_animated() and all(t.get_animated() for t in hm.texts.values())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["列1", "列2", "列3"]


def test_live_heatmap_without_numbers():
    _, hm = _heatmap(vmin=0.0, vmax=1.0, numbers=False, colorbar=False, fmt="{:.1f}")
    assert hm.texts == {}
    hm.set(np.ones((2, 3)))
    np.testing.assert_array_equal(hm.image.get_array(), np.ones((2, 3)))


def test_live_heatmap_bad_inputs():
    with pytest.raises(ValueError, match="vmin は vmax より小さく"):
        _heatmap(vmin=1.0, vmax=1.0)
    _, hm = _heatmap(vmin=0.0, vmax=1.0)
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*shape \(3, 2\)"):
        hm.set(np.zeros((3, 2)))


# ---------------------------------------------------------------- check_first_softmax


def test_first_softmax_right(capsys):
    check_first_softmax(lambda s: np.exp(s) / np.exp(s).sum())
    check_first_softmax(helpers.softmax)
    assert capsys.readouterr().out.count("✓ 正解です。") == 2


FIRST_MISTAKES = {
    "raw": lambda s: s,
    "no_exp": lambda s: s / s.sum(),
    "unnormalised": lambda s: np.exp(s),
    "by_score_sum": lambda s: np.exp(s) / s.sum(),
    "by_max": lambda s: np.exp(s) / np.exp(s).max(),
}


def test_every_first_softmax_hint_has_a_mistake():
    assert set(FIRST_MISTAKES) == set(FIRST_SOFTMAX_HINTS)


@pytest.mark.parametrize("mistake", sorted(FIRST_MISTAKES))
def test_first_softmax_names_each_mistake(mistake):
    with pytest.raises(AssertionError, match=re.escape(FIRST_SOFTMAX_HINTS[mistake])):
        check_first_softmax(FIRST_MISTAKES[mistake])


def test_first_softmax_other_failures():
    def stub(scores):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        check_first_softmax(stub)
    with pytest.raises(AssertionError, match="同じ shape"):
        check_first_softmax(lambda s: np.exp(s).sum())
    with pytest.raises(AssertionError, match="になるはずが"):
        check_first_softmax(lambda s: np.full(s.shape, 1 / s.size))
    with pytest.raises(AssertionError, match="エラーで止まりました.*KeyError"):
        check_first_softmax(lambda s: {}["x"])
    with pytest.raises(AssertionError, match="数の配列を返して"):
        check_first_softmax(lambda s: "重み")
    with pytest.raises(AssertionError, match="関数を渡して"):
        check_first_softmax([0.5, 0.5])


# ---------------------------------------------------------------- shape prediction


@pytest.mark.parametrize("answer", [(1, 3), [1, 3], (np.int64(1), np.int64(3))])
def test_shape_prediction_right(answer, capsys):
    check_matmul_shape_prediction(answer)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize(
    "answer, words",
    [((1, 2), "W の列の数"), ((2, 3), "W の形そのもの"), ((3, 1), "行と列が逆"),
     ((2, 2), "外側の数"), ("エラー", "かけ算はできます"), ((), "まだ答えが入っていません"),
     ("", "まだ答えが入っていません"), ((5, 7), "行の数は x から"), (1.3, "整数の組"),
     ((1.0, 3.0), "整数の組"), ((True, 3), "整数の組"),
     # a string: the content may be right, the type is not, and the hint says which type
     ("1,3", "文字列です.*引用符をつけずに.*タプル"), ("(1, 3)", "文字列です.*タプル"),
     ("わからない", "文字列で書くのは.*エラー")],
)
def test_shape_prediction_hints(answer, words):
    with pytest.raises(AssertionError, match=words):
        check_matmul_shape_prediction(answer)
