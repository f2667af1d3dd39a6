"""helpers.widgets.ch04_three_matrices: chapter 04's explorable, driven headlessly from Python
(and its ES module in Node at the settings the chapter talks about)."""

import html
import re

import numpy as np
import pytest
from explorables import assert_refused, run_module, same_numbers

import helpers
from helpers._validate import HelpersError, HelpersTypeError
from helpers.data import Embedding, foods
from helpers.widgets import ThreeFacesExplorer, three_faces_explorer
from helpers.widgets.sources import module_source

TIE = "(同点)"


@pytest.fixture
def explorer():
    return three_faces_explorer()


def turn(angle, scale):
    """The chapter's W = s [[cos θ, sin θ], [-sin θ, cos θ]], written out independently."""
    t = np.radians(angle)
    return scale * np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])


def reference_numbers(settings, emb=None):
    """W_Q, W_K, W_V, Q, K, V, Q Kᵀ and each word's best key (TIE when the top two are equal)."""
    emb = emb or foods()
    X = emb.vectors
    Ws = {f"W_{f}": turn(settings.get(f"{f.lower()}_angle", 0.0), settings.get(f"{f.lower()}_scale", 1.0))
          for f in "QKV"}
    faces = {f: X @ Ws[f"W_{f}"] for f in "QKV"}
    scores = faces["Q"] @ faces["K"].T
    best = []
    for row in scores:
        first, second = sorted(row, reverse=True)[:2]
        best.append(TIE if abs(first - second) <= 1e-9 + 1e-5 * abs(second) else emb.words[int(np.argmax(row))])
    return {**Ws, **faces, "scores": scores, "looks_at": best}


def set_controls(explorer, settings):
    for name, value in settings.items():
        setattr(explorer, name, value)


def assert_numbers(n, expected):
    for key in ("W_Q", "W_K", "W_V", "Q", "K", "V", "scores"):
        np.testing.assert_allclose(n[key], expected[key], atol=1e-12, err_msg=key)
    assert n["looks_at"] == expected["looks_at"]


def test_it_starts_with_three_matrices_that_do_nothing(explorer):
    assert isinstance(explorer, ThreeFacesExplorer)
    assert set(ThreeFacesExplorer.control_traits()) == {f"{f}_{p}" for f in "qkv" for p in ("angle", "scale")}
    n = explorer.numbers()
    X = foods().vectors
    for face in "QKV":
        np.testing.assert_allclose(n[face], X)
        np.testing.assert_allclose(n[f"W_{face}"], np.eye(2))
    # with Q = K = X, every word's best key is the longest one along its direction
    assert n["looks_at"] == ["ケーキ", "ケーキ", "カレー", "カレー", "照り焼き"]
    assert_numbers(n, reference_numbers({}))


@pytest.mark.parametrize("settings", [
    {"q_angle": -90.0},
    {"q_angle": -90.0, "k_angle": 45.0, "k_scale": 1.5, "v_scale": 0.5},
    {"q_angle": 180.0, "v_angle": 90.0, "v_scale": 0.5},
    {"q_angle": -90.0, "q_scale": 1.5, "k_angle": -30.0, "v_angle": 60.0, "v_scale": 0.8},
    {"k_angle": -45.0, "k_scale": 1.5},
    {"q_angle": 37.5, "q_scale": 0.25, "k_angle": -123.0, "k_scale": 2.0, "v_angle": -180.0},
])
def test_setting_traits_from_python_moves_the_numbers(explorer, settings):
    set_controls(explorer, settings)
    assert_numbers(explorer.numbers(), reference_numbers(settings))
    state = explorer.get_state()  # the traits the browser receives say the same
    for name, value in settings.items():
        assert state[name] == value


def test_a_quarter_turn_of_w_q_makes_the_spicy_look_for_the_sweet(explorer):
    """The chapter's second suggestion, as numbers."""
    explorer.q_angle = -90
    n = explorer.numbers()
    words = foods().words
    np.testing.assert_allclose(n["W_Q"], [[0.0, -1.0], [1.0, 0.0]], atol=1e-12)
    looks_at = dict(zip(words, n["looks_at"], strict=True))
    assert looks_at["カレー"] == looks_at["キムチ"] == "ケーキ"
    # ケーキ's and プリン's questions are perpendicular to both their keys (score 0), and every
    # other key scores below 0: a true tie, said as such
    assert looks_at["ケーキ"] == looks_at["プリン"] == TIE
    scores = np.array(n["scores"])
    for who in ("ケーキ", "プリン"):
        row = scores[words.index(who)]
        np.testing.assert_allclose(row[:2], 0.0, atol=1e-12)
        assert (row[2:] < 0).all()


def test_one_degree_either_side_unties_them(explorer):
    """-89°: a slightly positive score, the longer key (ケーキ) wins; -91°: slightly negative,
    the shorter key (プリン) is nearer 0. Only the angles' difference matters for the tie."""
    explorer.q_angle = -89
    assert explorer.numbers()["looks_at"][:2] == ["ケーキ", "ケーキ"]
    explorer.q_angle = -91
    assert explorer.numbers()["looks_at"][:2] == ["プリン", "プリン"]
    explorer.q_angle, explorer.k_angle = -45, 45
    assert explorer.numbers()["looks_at"][:2] == [TIE, TIE]


def test_a_zero_query_ties_everything_and_any_other_scale_does_not(explorer):
    start = explorer.numbers()["looks_at"]
    explorer.q_scale = 0.0
    n = explorer.numbers()
    np.testing.assert_allclose(n["Q"], 0.0)
    assert n["looks_at"] == [TIE] * 5
    for scale in (0.01, 0.5, 2.0):
        explorer.q_scale = scale
        assert explorer.numbers()["looks_at"] == start


def test_w_v_never_changes_who_looks_at_whom(explorer):
    explorer.q_angle, explorer.k_angle = -90.0, 45.0
    before = explorer.numbers()["looks_at"]
    for angle, scale in ((180.0, 1.0), (90.0, 0.5), (-33.0, 2.0), (0.0, 0.0)):
        explorer.v_angle, explorer.v_scale = angle, scale
        n = explorer.numbers()
        assert n["looks_at"] == before
        np.testing.assert_allclose(n["V"], foods().vectors @ turn(angle, scale), atol=1e-12)


def test_the_browser_shows_the_chapters_ties_as_numpy_does():
    """The ties come from exact geometry, which random settings never hit: run the ES module in
    Node at the chapter's settings and compare with numpy, and read its picture's text."""
    settings = [{"q_angle": -90.0}, {"q_scale": 0.0}, {"k_scale": 0.0}, {"q_angle": -90.0, "k_angle": 45.0},
                {"q_angle": -45.0, "k_angle": 45.0}, {"q_angle": -89.0}, {"q_angle": -91.0}]
    states = []
    for s in settings:
        fresh = three_faces_explorer()
        set_controls(fresh, s)
        states.append(fresh.state_for_page())
    numbers = run_module(module_source("ch04_three_matrices"), "numbers", [[s] for s in states])
    pictures = run_module(module_source("ch04_three_matrices"), "picture", [[s] for s in states])
    for s, got, pic in zip(settings, numbers, pictures, strict=True):
        expected = reference_numbers(s)
        assert same_numbers(got["ok"], expected) == [], s
        panels, alt, readout = pic["ok"]["panels"], pic["ok"]["alt"], pic["ok"]["readout"]
        assert len(panels) == 4 and all(p.startswith("<svg") for p in panels)
        for word, best in zip(foods().words, expected["looks_at"], strict=True):
            assert f"{word}→{best}" in alt and f"{word}→{best}" in readout
    assert TIE in pictures[0]["ok"]["readout"] and "ケーキ→(同点)" in pictures[1]["ok"]["alt"]
    assert "W_Q は角度 -90°・倍率 1.00" in pictures[0]["ok"]["alt"]
    assert "問い Q: ケーキ (0.20, -2.00)" in pictures[0]["ok"]["alt"]


def test_the_browser_gets_the_words_and_vectors_as_plain_lists(explorer):
    state = explorer.get_state()
    assert state["words"] == list(foods().words)
    assert state["vectors"] == foods().vectors.tolist()
    assert "export default" in state["_esm"] and "\nimport " not in state["_esm"]


def test_explorer_accepts_another_embedding():
    emb = Embedding(("甘", "辛", "両方"), np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]]))
    ex = three_faces_explorer(emb)
    settings = {"q_angle": 90.0, "k_scale": 0.5}
    set_controls(ex, settings)
    expected = reference_numbers(settings, emb)
    assert_numbers(ex.numbers(), expected)
    assert ex.numbers()["looks_at"] == ["辛", "辛", "辛"] == expected["looks_at"]


@pytest.mark.parametrize(
    "name, value, error, words",
    [
        ("q_angle", 200, HelpersError, "W_Q の角度.*-180 以上 180 以下"),
        ("k_angle", "北", HelpersTypeError, "W_K の角度.*数で指定"),
        ("v_angle", -180.5, HelpersError, "W_V の角度.*-180 以上 180 以下"),
        ("q_scale", -0.1, HelpersError, "W_Q の倍率.*0 以上 2 以下"),
        ("k_scale", 2.5, HelpersError, "W_K の倍率.*0 以上 2 以下"),
        ("v_scale", float("nan"), HelpersError, "W_V の倍率.*有限の数"),
        ("q_scale", True, HelpersTypeError, "W_Q の倍率.*数で指定"),
        ("q_angle", None, HelpersTypeError, "W_Q の角度.*数で指定"),
    ],
)
def test_a_trait_out_of_range_is_refused_and_the_picture_keeps_its_state(explorer, name, value,
                                                                         error, words):
    setattr(explorer, name, 30.0 if "angle" in name else 1.5)
    assert_refused(explorer, name, value, error, words)


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


FRAME = (38.0, 262.0)  # the face panels' frame, in SVG units (PAD 38 on a 300-unit panel)


def drawn_markers(panel: str) -> list[dict]:
    """Each word's marker in a face panel's SVG: its word, what hovering it says, its box."""
    out = []
    for word, value, shape in re.findall(r'<g data-item="([^"]*)" data-value="([^"]*)"[^>]*>(.*?)</g>', panel):
        if m := re.match(r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="([\d.]+)"', shape):
            x, y, r = map(float, m.groups())
            xs, ys = [x - r, x + r], [y - r, y + r]
        else:
            pts = [tuple(map(float, p.split(","))) for p in re.search(r'points="([^"]*)"', shape)[1].split()]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        out.append({"word": html.unescape(word), "value": html.unescape(value), "hollow": "fill:var(--qkv-bg)" in shape,
                    "box": (min(xs), min(ys), max(xs), max(ys))})
    return out


ACCEPTED = {  # embeddings the factory accepts, from the smallest to the largest coordinates
    "foods": foods(),
    "tiny": Embedding(("a", "b"), np.array([[0.001, 0.0], [0.0, -0.002]])),
    "far": Embedding(("a", "b", "c"), np.array([[1000.0, 1000.0], [-1000.0, 0.5], [0.001, -1000.0]])),
    "mixed": Embedding(("近", "遠"), np.array([[0.3, 0.2], [-40.0, 25.0]])),
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_every_face_of_every_accepted_embedding_is_drawn_inside_the_frame(name):
    """The plane holds every point the factory accepts (coordinates up to ±1000): at scale 1, any
    angle, each face's marker lies whole inside the frame at its place (nothing pinned); stretched
    to 2, a face past the frame is drawn hollow on its edge and hovering it says so."""
    emb = ACCEPTED[name]
    settings = [{"q_angle": a, "k_angle": -a, "v_angle": a / 2} for a in (0, 37, 90, -135, 180)]
    settings += [{"q_scale": 2.0, "k_scale": 2.0, "q_angle": 45, "k_angle": -120, "v_scale": 0.0}]
    states = []
    for s in settings:
        ex = three_faces_explorer(emb)
        set_controls(ex, s)
        states.append(ex.state_for_page())
    pictures = run_module(module_source("ch04_three_matrices"), "picture", [[s] for s in states])
    for s, pic in zip(settings, pictures, strict=True):
        for panel in pic["ok"]["panels"][:3]:
            markers = drawn_markers(panel)
            assert [m["word"] for m in markers] == list(emb.words), s
            for m in markers:
                x0, y0, x1, y1 = m["box"]
                assert FRAME[0] <= min(x0, y0) and max(x1, y1) <= FRAME[1], (name, s, m)
                assert m["hollow"] == ("枠の外" in m["value"]), m
                if "q_scale" not in s:
                    assert not m["hollow"], (name, s, m)
    stretched = [m for panel in pictures[-1]["ok"]["panels"][:2] for m in drawn_markers(panel)]
    if name == "foods":  # ケーキ stretched twice (4, 0.4) turned: past the ±2.5 frame
        assert any(m["hollow"] for m in stretched), stretched


def test_the_foods_reach_most_of_the_way_to_the_frame_and_no_two_markers_touch():
    """At the start (every W the identity) the farthest food reaches over three quarters of the way
    from the origin to the frame (a ±4.2 plane held them within the first half), and no two
    words' markers overlap in any face panel (カレー and キムチ overlapped at 7 units)."""
    (pic,) = run_module(module_source("ch04_three_matrices"), "picture", [[three_faces_explorer().state_for_page()]])
    middle, half = sum(FRAME) / 2, (FRAME[1] - FRAME[0]) / 2
    for panel in pic["ok"]["panels"][:3]:
        boxes = [m["box"] for m in drawn_markers(panel)]
        centres = [((x0 + x1) / 2, (y0 + y1) / 2) for x0, y0, x1, y1 in boxes]
        reach = max(max(abs(x - middle), abs(y - middle)) for x, y in centres) / half
        assert reach >= 0.75, reach
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                apart = a[2] < b[0] or b[2] < a[0] or a[3] < b[1] or b[3] < a[1]
                assert apart, (a, b)
