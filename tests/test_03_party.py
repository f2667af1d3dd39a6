"""Chapter 03 helpers: the party, its three faces, the plots, the party widget and the checks."""

import json
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Rectangle

import helpers
from helpers import checks
from helpers.data import AXES, Party, party, party_attention
from helpers.plotting import COLORS, outline_heatmap, plot_faces, plot_heatmap
from helpers.widgets import party_explorer


def np_softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------- data.party


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
    Q = party().Q
    S = Q @ Q.T
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


# ---------------------------------------------------------------- plotting.plot_faces


def arrows(ax):
    return [a for a in ax.texts if getattr(a, "arrow_patch", None) is not None]


def test_plot_faces_draws_three_coloured_arrows_with_labels():
    ax = plot_faces([[1.8, 0.26]], np.array([-0.36, 2.34]), [0.58, 1.6], title="ケン")
    drawn = arrows(ax)
    assert [a.xy for a in drawn] == [(1.8, 0.26), (-0.36, 2.34), (0.58, 1.6)]
    colours = [a.arrow_patch.get_edgecolor() for a in drawn]
    expected = [plt.matplotlib.colors.to_rgba(COLORS[c]) for c in "QKV"]
    np.testing.assert_allclose(colours, expected)
    labels = [t.get_text().strip() for t in ax.texts if t not in drawn]
    assert labels == ["Q", "K", "V"]
    assert ax.get_title() == "ケン"
    assert ax.get_xlabel() == AXES[0]
    lo, hi = ax.get_xlim()
    assert lo <= -0.36 and hi >= 2.34


def test_plot_faces_custom_labels_limits_and_given_axes():
    fig, ax0 = plt.subplots()
    ax = plot_faces([1, 0], [0, 1], [1, 1], ax=ax0, labels={"q": "探す"}, limits=(-1, 3))
    assert ax is ax0
    assert [t.get_text().strip() for t in ax.texts if t.get_text().strip()] == ["探す", "K", "V"]
    assert ax.get_xlim() == (-1, 3) and ax.get_ylim() == (-1, 3)


@pytest.mark.parametrize(
    "args, kwargs, error, words",
    [
        (([1, 2, 3], [0, 1], [1, 1]), {}, ValueError, "shape (3,)"),
        (([[1, 2], [3, 4]], [0, 1], [1, 1]), {}, ValueError, "横一列"),
        (([1, 0], "k", [1, 1]), {}, TypeError, "数の配列"),
        (([1, 0], [0, 1], [np.nan, 1]), {}, ValueError, "NaN"),
        (([1, 0], [0, 1], [1, 1]), {"labels": {"x": "好み"}}, ValueError, "labels"),
        (([1, 0], [0, 1], [1, 1]), {"labels": ["Q"]}, ValueError, "labels"),
    ],
)
def test_plot_faces_bad_inputs(args, kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        plot_faces(*args, **kwargs)


# ---------------------------------------------------------------- plotting.outline_heatmap


def test_outline_heatmap_frames_a_row_and_a_column():
    ax = plot_heatmap(np.zeros((3, 4)), list("abc"), list("wxyz"))
    ax = outline_heatmap(ax, row=2, col=1)
    rects = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(rects) == 2
    row, col = rects
    assert row.get_xy() == (-0.5, 1.5) and (row.get_width(), row.get_height()) == (4, 1)
    assert col.get_xy() == (0.5, -0.5) and (col.get_width(), col.get_height()) == (1, 3)
    np.testing.assert_allclose(row.get_edgecolor(), plt.matplotlib.colors.to_rgba(COLORS["Q"]))
    np.testing.assert_allclose(col.get_edgecolor(), plt.matplotlib.colors.to_rgba(COLORS["K"]))


def test_outline_heatmap_only_a_row():
    ax = outline_heatmap(plot_heatmap(np.zeros((2, 2)), ["a", "b"], ["c", "d"]), row=np.int64(0))
    assert len(ax.patches) == 1


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"row": 3}, ValueError, "0 から 2 の範囲"),
        ({"col": -1}, ValueError, "0 から 2 の範囲"),
        ({"row": 1.0}, TypeError, "整数"),
        ({"col": True}, TypeError, "整数"),
    ],
)
def test_outline_heatmap_bad_indices(kwargs, error, words):
    ax = plot_heatmap(np.zeros((3, 3)), list("abc"), list("abc"))
    with pytest.raises(error, match=words):
        outline_heatmap(ax, **kwargs)


def test_outline_heatmap_needs_a_heatmap():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="plot_heatmap"):
        outline_heatmap(ax, row=0)
    with pytest.raises(ValueError, match="plot_heatmap"):
        outline_heatmap(None, row=0)


# ---------------------------------------------------------------- party_attention


@pytest.mark.parametrize("person", party().names)
def test_party_attention_matches_numpy(person):
    p = party()
    i = p.index(person)
    ref_w = np_softmax_rows(p.Q @ p.K.T)[i]
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


# ---------------------------------------------------------------- party_explorer


@pytest.fixture
def explorer():
    return party_explorer()


def test_explorer_starts_at_ken(explorer):
    assert explorer.values == {"person": "ケン"}
    assert explorer.state["pick"] == "アオイ"
    np.testing.assert_allclose(explorer.state["take_home"], [1.753, 0.471], atol=1e-3)


def test_explorer_follows_the_dropdown(explorer):
    p = party()
    ref = np_softmax_rows(p.Q @ p.K.T)
    before = explorer.image.value
    for name in ("アオイ", "ミオ", "ソウタ"):
        explorer.controls["person"].value = name
        i = p.index(name)
        np.testing.assert_allclose(explorer.state["weights"], ref[i])
        np.testing.assert_allclose(explorer.state["take_home"], ref[i] @ p.V)
        assert explorer.image.value != before
        before = explorer.image.value
    assert explorer.state["pick"] == "ユイ"


def test_explorer_weight_bars_are_neutral_grey(explorer):
    """A weight is neither Q (blue) nor K (vermillion): the bars use the neutral grey."""
    ax_w = explorer.fig.axes[1]
    bars = [p for p in ax_w.patches if isinstance(p, Rectangle)]
    assert len(bars) == 5
    grey = plt.matplotlib.colors.to_rgba(COLORS["x"])
    for bar in bars:
        np.testing.assert_allclose(bar.get_facecolor(), grey)
    assert explorer.controls["person"].description == "探す人"


def test_explorer_static_frames_one_per_guest(explorer, monkeypatch):
    monkeypatch.setenv(helpers.STATIC_ENV_VAR, "1")
    html = explorer._repr_mimebundle_()["text/html"]
    payload = json.loads(re.search(r'class="qkv-frame-data">(.*?)</script>', html).group(1))
    assert len(payload["frames"]) == 5 == len(set(payload["frames"]))
    assert payload["labels"] == [f"探す人: {n}" for n in party().names]
    assert len(html) < 1_000_000
    assert explorer.state["pick"] == "アオイ"  # the live figure is left as the controls say


def test_explorer_other_party():
    p = Party(("a", "b", "c"), np.eye(3)[:, :2] + 0.1, np.eye(2), np.eye(2), 2 * np.eye(2))
    e = party_explorer(p, person="b")
    np.testing.assert_allclose(e.state["weights"], np_softmax_rows(p.Q @ p.K.T)[1])


@pytest.mark.parametrize(
    "args, error",
    [
        (("not a party",), TypeError),
        ((None, "タロウ"), KeyError),
        ((Party(("a",), [[1.0, 0.0, 0.0]], np.eye(3), np.eye(3), np.eye(3), ("p", "q", "r")),
          "a"), ValueError),
    ],
)
def test_explorer_bad_inputs(args, error):
    with pytest.raises(error):
        party_explorer(*args)


# ---------------------------------------------------------------- check_party_weights


def right(Q, K):
    return np_softmax_rows(Q @ K.T)


def naive(Q, K):  # right, but without subtracting the max: overflows on huge scores
    e = np.exp(Q @ K.T)
    return e / e.sum(axis=1, keepdims=True)


def softmax_cols(s):
    return np_softmax_rows(s.T).T


MISTAKES = {
    "no_softmax": lambda Q, K: Q @ K.T,
    "unnormalised": lambda Q, K: np.exp(Q @ K.T),
    "no_keepdims": lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=1),
    "whole": lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(),
    "axis0": lambda Q, K: softmax_cols(Q @ K.T),
    "swapped": lambda Q, K: np_softmax_rows(K @ Q.T),
    "transposed": lambda Q, K: softmax_cols(K @ Q.T),
    "scaled": lambda Q, K: np_softmax_rows(Q @ K.T / np.sqrt(Q.shape[1])),
}


def test_check_party_weights_accepts_the_right_answer(capsys):
    checks.check_party_weights(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_party_weights_accepts_helpers_softmax(capsys):
    checks.check_party_weights(lambda Q, K: helpers.softmax(Q @ K.T, axis=-1))
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_check_party_weights_names_each_mistake(mistake):
    with pytest.raises(AssertionError) as info:
        checks.check_party_weights(MISTAKES[mistake])
    message = str(info.value)
    assert checks.PARTY_HINTS[mistake] in message
    others = [h for name, h in checks.PARTY_HINTS.items() if name != mistake]
    assert not any(h in message for h in others)


def test_check_party_weights_variants_are_all_different():
    p = party()
    variants = checks.party_weight_variants(p.Q, p.K)
    names = sorted(variants)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not np.allclose(variants[a], variants[b]), (a, b)
    assert set(variants) - {"right"} == set(checks.PARTY_HINTS) - {"overflow"}


def test_check_party_weights_overflow_hint():
    with np.errstate(over="ignore", invalid="ignore"), pytest.raises(AssertionError) as info:
        checks.check_party_weights(naive)
    assert checks.PARTY_HINTS["overflow"] in str(info.value)
    assert "得点が千を超える" in str(info.value)


def test_check_party_weights_swapped_on_a_rectangle_names_the_shape():
    def swapped_rectangle(Q, K):  # right on a square, but K @ Q.T whenever it is not square
        return right(Q, K) if Q.shape[0] == K.shape[0] else np_softmax_rows(K @ Q.T)

    with pytest.raises(AssertionError) as info:
        checks.check_party_weights(swapped_rectangle)
    assert "(5, 3)" in str(info.value) and checks.PARTY_HINTS["swapped"] in str(info.value)


@pytest.mark.parametrize(
    "fn, words",
    [
        ("not a function", "関数"),
        (lambda Q, K: (_ for _ in ()).throw(NotImplementedError), "まだ書かれていません"),
        (lambda Q, K: Q @ K, "エラーで止まりました"),
        (lambda Q, K: "重み", "数の配列"),
        (lambda Q, K: right(Q, K)[:, :2], "(探す人の数, 名札の数)"),
        (lambda Q, K: right(Q, K) * 2, "各行の和が 1 になっていません"),
        (lambda Q, K: right(Q, K)[:, ::-1], "値が違います"),
    ],
)
def test_check_party_weights_other_failures(fn, words):
    with pytest.raises(AssertionError, match=re.escape(words)):
        checks.check_party_weights(fn)


# ---------------------------------------------------------------- check_party_symmetry_prediction


def test_symmetry_prediction_right(capsys):
    checks.check_party_symmetry_prediction("対称になる")
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize(
    "answer, words",
    [
        ("対称にならない", "内積は順番を入れ替えても"),
        ("人による", "結論は同じ"),
        ("", "まだ答えが入っていません"),
        (None, "まだ答えが入っていません"),
        ("たぶん", "選択肢にありません"),
    ],
)
def test_symmetry_prediction_wrong(answer, words):
    with pytest.raises(AssertionError, match=words):
        checks.check_party_symmetry_prediction(answer)
