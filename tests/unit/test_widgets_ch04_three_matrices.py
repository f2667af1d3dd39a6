"""helpers.widgets.ch04_three_matrices: chapter 04's widget, driven headlessly."""

import ipywidgets as W
import numpy as np
import pytest
from static_frames import static_payload

import helpers
from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Embedding, foods
from helpers.geometry import rotation_scale_matrix
from helpers.widgets import Explorable, three_faces_explorer


@pytest.fixture(scope="module")
def explorer():
    return three_faces_explorer()


@pytest.fixture(autouse=True)
def _reset(explorer):
    yield
    for face in "qkv":
        explorer.controls[f"{face}_angle"].value = 0.0
        explorer.controls[f"{face}_scale"].value = 1.0


def test_it_is_an_explorable_with_six_controls(explorer):
    assert isinstance(explorer, Explorable)
    assert set(explorer.controls) == {f"{f}_{p}" for f in "qkv" for p in ("angle", "scale")}
    assert 1 <= len(explorer.static_frames) <= 12


def test_identity_start_gives_three_faces_equal_to_x(explorer):
    X = foods().vectors
    for face in "QKV":
        np.testing.assert_allclose(explorer.state[face], X)


def test_each_face_is_x_times_its_own_matrix(explorer):
    before = explorer.image.value
    explorer.controls["q_angle"].value = -90.0
    explorer.controls["k_angle"].value = 45.0
    explorer.controls["k_scale"].value = 1.5
    explorer.controls["v_scale"].value = 0.5
    X = foods().vectors
    np.testing.assert_allclose(explorer.state["W_Q"], [[0.0, -1.0], [1.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(explorer.state["Q"], X @ rotation_scale_matrix(-90, 1.0))
    np.testing.assert_allclose(explorer.state["K"], X @ rotation_scale_matrix(45, 1.5))
    np.testing.assert_allclose(explorer.state["V"], 0.5 * X)
    np.testing.assert_allclose(explorer.state["scores"], explorer.state["Q"] @ explorer.state["K"].T)
    assert explorer.image.value != before


def test_best_match_follows_the_scores(explorer):
    explorer.controls["q_angle"].value = -90.0  # spicy looks for sweet
    words = foods().words
    scores = explorer.state["scores"]
    expected = tuple("(同点)" if np.isclose(*np.sort(r)[-2:]) else words[int(np.argmax(r))]
                     for r in scores)
    assert explorer.state["looks_at"] == expected
    # ケーキ's question (0.2, -2.0) is perpendicular to both ケーキ and プリン: a true tie at 0
    assert expected[0] == "(同点)"
    assert explorer.state["looks_at"][words.index("カレー")] == "ケーキ"
    assert "カレー→ケーキ" in explorer.summary.value
    assert "W_Q = [[0.00, -1.00], [1.00, 0.00]]" in explorer.summary.value


def test_a_zero_query_ties_everything(explorer):
    explorer.controls["q_scale"].value = 0.0
    assert set(explorer.state["looks_at"]) == {"(同点)"}


def test_controls_sit_two_to_a_row_above_the_picture_and_summary(explorer):
    box = explorer.widget
    assert [type(c) for c in box.children] == [W.HBox, W.HBox, W.HBox, W.Image, W.HTML]


def test_static_book_frames_are_distinct_and_labelled(explorer, monkeypatch):
    html, payload = static_payload(explorer, monkeypatch)
    assert payload["labels"][1] == "Q -90°×1.0 / K 0°×1.0 / V 0°×1.0"
    # every "try this" bullet of the chapter has a frame, including W_Q's scale 0
    assert "Q 0°×0.0 / K 0°×1.0 / V 0°×1.0" in payload["labels"]
    assert len(html) < 1_500_000  # the book page budget is 3 MB for everything


@pytest.mark.parametrize(
    "embedding, error, words",
    [("foods", HelpersTypeError, "Embedding"),
     (np.eye(2), HelpersTypeError, "Embedding"),
     (Embedding(tuple("abcdefghi"), np.ones((9, 2))), HelpersError, "語は 8 個まで"),
     (Embedding(("a", "b"), [[1e50, 0.0], [0.0, 1.0]]), HelpersError, "絶対値 1000")],
)
def test_bad_embeddings_are_refused_in_japanese(embedding, error, words):
    with pytest.raises(error, match=words):
        three_faces_explorer(embedding)


def test_non_planar_embedding_is_refused():
    emb = helpers.data.Embedding(("a", "b"), np.ones((2, 3)), axes=("x", "y", "z"))
    with pytest.raises(ValueError, match="d_model = 2"):
        three_faces_explorer(emb)
