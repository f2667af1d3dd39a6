"""Chapter 06 helpers: the phrase, the √d_k experiment, histograms, the d_k widget, the checks."""

import json
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest

import helpers
from helpers import checks, scaling
from helpers.data import PHRASE_AXES, foods, phrase
from helpers.plotting import plot_histograms
from helpers.widgets import scaling_explorer


def np_softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- data.phrase


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


# ---------------------------------------------------------------- scaling experiment


def test_random_scores_match_plain_numpy():
    run = scaling.random_scores(16, np.random.default_rng(3), n_sentences=2, n_words=5)
    ref = np.random.default_rng(3)
    blocks = []
    for _ in range(2):
        Q = ref.standard_normal((5, 16))
        K = ref.standard_normal((5, 16))
        blocks.append(Q @ K.T)
    np.testing.assert_allclose(run.scores, np.vstack(blocks))
    assert run.d_k == 16 and run.scores.shape == (10, 5)
    np.testing.assert_allclose(run.scored(True), run.scores / 4.0)
    np.testing.assert_allclose(run.scored(False), run.scores)
    np.testing.assert_allclose(run.weights(True), np_softmax_rows(run.scores / 4.0))
    np.testing.assert_allclose(run.max_weights(False), np_softmax_rows(run.scores).max(axis=1))


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_variance_grows_like_d_k_and_scaling_brings_it_back(d_k):
    run = scaling.random_scores(d_k, np.random.default_rng(1), n_sentences=200)
    assert run.scores.var() == pytest.approx(d_k, rel=0.15)
    assert run.scored(True).var() == pytest.approx(1.0, rel=0.15)


def test_unscaled_softmax_saturates_and_scaled_does_not():
    small, big = scaling.scaling_experiment([1, 512], np.random.default_rng(2))
    assert big.max_weights(False).mean() > 0.9
    assert small.max_weights(False).mean() < 0.4
    assert big.max_weights(True).mean() < 0.45
    np.testing.assert_allclose(small.max_weights(True), small.max_weights(False))


def test_scaling_experiment_keeps_order():
    runs = scaling.scaling_experiment((4, 1, 8), np.random.default_rng(0), n_sentences=3)
    assert [r.d_k for r in runs] == [4, 1, 8]
    assert all(r.scores.shape == (24, 8) for r in runs)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"d_k": 0}, ValueError, "d_k は 1 以上"),
        ({"d_k": -3}, ValueError, "-3"),
        ({"d_k": 2.5}, TypeError, "d_k は整数で"),
        ({"d_k": True}, TypeError, "bool"),
        ({"d_k": 4, "n_words": 0}, ValueError, "n_words"),
        ({"d_k": 4, "n_sentences": "3"}, TypeError, "n_sentences"),
        ({"d_k": 4, "rng": 0}, TypeError, "np.random.Generator"),
    ],
)
def test_random_scores_bad_inputs(kwargs, error, words):
    kwargs = {"rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(error, match=re.escape(words)):
        scaling.random_scores(**kwargs)


def test_random_scores_accepts_numpy_integers():
    run = scaling.random_scores(np.int64(4), np.random.default_rng(0), n_sentences=1)
    assert run.d_k == 4 and isinstance(run.d_k, int)


@pytest.mark.parametrize(
    "d_ks, error, words",
    [([], ValueError, "空"), ("16", TypeError, "並び"), (16, TypeError, "並び"),
     ([4, 0], ValueError, "1 以上")],
)
def test_scaling_experiment_bad_inputs(d_ks, error, words):
    with pytest.raises(error, match=words):
        scaling.scaling_experiment(d_ks, np.random.default_rng(0))


def test_relative_histogram_matches_numpy():
    values = np.random.default_rng(4).normal(size=500)
    edges = np.linspace(-2, 2, 9)
    counts, _ = np.histogram(np.clip(values, -2, 2), bins=edges)
    got = scaling.relative_histogram(values, edges)
    np.testing.assert_allclose(got, counts / counts.max())
    assert got.max() == 1.0
    # values outside the edges land in the end bins: nothing is lost
    assert np.histogram(np.clip(values, -2, 2), bins=edges)[0].sum() == 500


@pytest.mark.parametrize(
    "values, edges, error, words",
    [
        ([1.0, np.nan], [0, 1], ValueError, "NaN"),
        ([1.0], [0.0], ValueError, "2 つ以上"),
        ([1.0], [[0.0, 1.0]], ValueError, "1 次元"),
        ([1.0], [0.0, 1.0, 1.0], ValueError, "小さい順"),
        ("abc", [0.0, 1.0], TypeError, "values"),
        ([], [0.0, 1.0], ValueError, "空"),
    ],
)
def test_relative_histogram_bad_inputs(values, edges, error, words):
    with pytest.raises(error, match=words):
        scaling.relative_histogram(values, edges)


# ---------------------------------------------------------------- plotting.plot_histograms


def test_plot_histograms_draws_one_outline_per_sample():
    rng = np.random.default_rng(0)
    samples = {"d_k = 4": rng.normal(0, 2, 300), "d_k = 64": rng.normal(0, 8, 300)}
    ax = plot_histograms(samples, bins=20, value_range=(-30, 30), title="得点の分布", xlabel="q·k")
    assert ax.get_title() == "得点の分布"
    assert ax.get_xlim() == (-30, 30)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(samples)
    assert len(ax.patches) == 2
    plt.close(ax.figure)


def test_plot_histograms_default_range_covers_every_sample():
    ax = plot_histograms({"a": [1.0, 2.0], "b": [-5.0, 0.0]})
    assert ax.get_xlim() == (-5.0, 2.0)
    plt.close(ax.figure)
    ax = plot_histograms({"同じ値": [3.0, 3.0]})
    assert ax.get_xlim() == (2.5, 3.5)
    plt.close(ax.figure)


@pytest.mark.parametrize(
    "samples, kwargs, error, words",
    [
        ({}, {}, ValueError, "1 つ以上"),
        ([1.0, 2.0], {}, ValueError, "辞書"),
        ({"a": [1.0, np.inf]}, {}, ValueError, "inf"),
        ({"a": [1.0]}, {"bins": 0}, ValueError, "bins"),
        ({"a": [1.0], "b": [2.0]}, {"colors": ["red"]}, ValueError, "色が 1 個"),
    ],
)
def test_plot_histograms_bad_inputs(samples, kwargs, error, words):
    with pytest.raises(error, match=words):
        plot_histograms(samples, **kwargs)
    plt.close("all")


# ---------------------------------------------------------------- widget


@pytest.fixture(scope="module")
def explorer():
    return scaling_explorer(np.random.default_rng(0))


def test_explorer_controls_and_frames(explorer):
    assert list(explorer.controls["d_k"].options) == list(scaling.DK_CHOICES)
    assert len(explorer.static_frames) <= 12
    assert {f["scaled"] for f in explorer.static_frames} == {False, True}


@pytest.mark.parametrize("d_k", [1, 64, 512])
def test_explorer_unscaled_variance_is_about_d_k(explorer, d_k):
    explorer.controls["scaled"].value = False
    before = explorer.image.value
    explorer.controls["d_k"].value = d_k
    state = explorer.state
    assert state["d_k"] == d_k and state["scaled"] is False
    assert state["expected_variance"] == d_k
    assert state["variance"] == pytest.approx(d_k, rel=0.2)
    if d_k != 1:  # d_k = 1 may already be showing
        assert explorer.image.value != before


def test_explorer_scaled_variance_is_about_one_and_weights_are_softmax(explorer):
    explorer.controls["d_k"].value = 256
    explorer.controls["scaled"].value = False
    unscaled = explorer.state
    before = explorer.image.value
    explorer.controls["scaled"].value = True
    scaled = explorer.state
    assert explorer.image.value != before
    assert scaled["variance"] == pytest.approx(1.0, rel=0.2)
    assert scaled["row"] == unscaled["row"]  # the same row, with and without scaling
    assert unscaled["max_weight"] > scaled["max_weight"]
    assert unscaled["mean_max_weight"] > 0.85 > 0.5 > scaled["mean_max_weight"]
    np.testing.assert_allclose(scaled["weights"].sum(), 1.0)
    assert scaled["max_weight"] == pytest.approx(scaled["weights"].max())


def test_explorer_weights_match_a_fresh_experiment():
    e = scaling_explorer(np.random.default_rng(5))
    e.controls["d_k"].value = 8
    e.controls["scaled"].value = True
    runs = scaling.scaling_experiment(scaling.DK_CHOICES, np.random.default_rng(5))
    run = runs[scaling.DK_CHOICES.index(8)]
    ref = np_softmax_rows(run.scores / np.sqrt(8))
    np.testing.assert_allclose(e.state["weights"], ref[e.state["row"]])
    assert e.state["mean_max_weight"] == pytest.approx(ref.max(axis=1).mean())


def test_explorer_static_frames_are_distinct(explorer):
    html = explorer.static_html()
    data = re.search(r'class="qkv-frame-data">(.*?)</script>', html).group(1)
    frames, labels = json.loads(data)["frames"], json.loads(data)["labels"]
    assert len(set(frames)) == len(frames) == len(explorer.static_frames) == 12
    assert labels[0] == "d_k = 1・割らない"
    assert labels[-1] == "d_k = 512・d_k の平方根で割る"
    assert len(html) < 1_500_000


# ---------------------------------------------------------------- check_attention


def right(Q, K, V):
    w = np_softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def no_sqrt(Q, K, V):
    w = np_softmax_rows(Q @ K.T)
    return w @ V, w


def by_d(Q, K, V):
    w = np_softmax_rows(Q @ K.T / Q.shape[1])
    return w @ V, w


def axis0(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(s - s.max(axis=0, keepdims=True))
    w = e / e.sum(axis=0, keepdims=True)
    return w @ V, w


def whole(Q, K, V):
    e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    w = e / e.sum()
    return w @ V, w


def transposed(Q, K, V):
    w = np_softmax_rows(K @ Q.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def no_softmax(Q, K, V):
    w = Q @ K.T / np.sqrt(Q.shape[1])
    return w @ V, w


def unnormalised(Q, K, V):
    w = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def other_unnormalised(Q, K, V):
    w = 2 * np_softmax_rows(Q @ K.T / np.sqrt(Q.shape[1]))
    return w @ V, w


def swapped(Q, K, V):
    out, w = right(Q, K, V)
    return w, out


def weights_twice(Q, K, V):
    _, w = right(Q, K, V)
    return w, w


def v_times_weights(Q, K, V):
    _, w = right(Q, K, V)
    return w[:, : V.shape[1]] * V[: w.shape[0]], w


@pytest.mark.parametrize(
    "fn, hint",
    [
        (no_sqrt, "no_sqrt"),
        (by_d, "by_d"),
        (axis0, "axis0"),
        (whole, "whole"),
        (transposed, "transposed"),
        (no_softmax, "no_softmax"),
        (unnormalised, "unnormalised"),
        (other_unnormalised, "not_normalised"),
        (swapped, "swapped"),
        (weights_twice, "weights_as_output"),
        (v_times_weights, "bad_output"),
    ],
)
def test_check_attention_names_each_mistake(fn, hint):
    with pytest.raises(AssertionError) as info:
        checks.check_attention(fn)
    assert checks.ATTENTION_HINTS[hint] in str(info.value)
    others = [h for name, h in checks.ATTENTION_HINTS.items() if name != hint]
    assert not any(h in str(info.value) for h in others)


def test_check_attention_hints_are_all_different():
    hints = list(checks.ATTENTION_HINTS.values())
    assert len(set(hints)) == len(hints)


def test_check_attention_mistakes_are_distinguishable_on_the_test_data():
    for Q, K, V in helpers.checks.ch06_attention._attention_cases():
        variants = checks.attention_variants(Q, K, V)
        names = list(variants)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                wa, wb = variants[a], variants[b]
                assert wa.shape != wb.shape or not np.allclose(wa, wb, atol=1e-3), (a, b)
        assert V.shape[1] != K.shape[0]  # weights and output never share a shape


def test_check_attention_accepts_the_right_answer(capsys):
    checks.check_attention(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_attention_accepts_the_helper():
    checks.check_attention(helpers.scaled_dot_product_attention)


def test_check_attention_accepts_lists():
    def as_lists(Q, K, V):
        out, w = right(Q, K, V)
        return [out.tolist(), w.tolist()]

    checks.check_attention(as_lists)


@pytest.mark.parametrize(
    "fn, words",
    [
        (lambda Q, K, V: (_ for _ in ()).throw(NotImplementedError()), "まだ書かれていません"),
        ("my_attention", "関数を渡して"),
        (lambda Q, K, V: right(Q, K, V)[0], "2 つ"),
        (lambda Q, K, V: (1, 2, 3), "2 つ"),
        (lambda Q, K, V: ("a", "b"), "数の配列"),
        (lambda Q, K, V: Q @ V.T, "エラーで止まりました"),
        (lambda Q, K, V: (np.zeros((Q.shape[0], V.shape[1])), np.full((Q.shape[0], 2), 0.5)),
         "weights の形"),
        (lambda Q, K, V: (np.zeros((Q.shape[0], V.shape[1])),
                          np.full((Q.shape[0], K.shape[0]), 1 / K.shape[0])), "1 行目"),
    ],
)
def test_check_attention_other_stumbles(fn, words):
    with pytest.raises(AssertionError, match=words):
        checks.check_attention(fn)


def test_check_attention_does_not_let_the_learner_change_the_inputs():
    def scribble(Q, K, V):
        Q *= 0
        return right(Q, K, V)

    with pytest.raises(AssertionError):
        checks.check_attention(scribble)
    checks.check_attention(right)  # the next check still sees the original problems


# ---------------------------------------------------------------- identical-keys prediction


def test_identical_keys_prediction(capsys):
    checks.check_identical_keys_prediction("均等")
    assert "1/n" in capsys.readouterr().out
    hints = set()
    for wrong in ("自分", "先頭", "問い次第"):
        with pytest.raises(AssertionError) as info:
            checks.check_identical_keys_prediction(wrong)
        hints.add(str(info.value))
    assert len(hints) == 3
    for bad, words in ((None, "まだ答え"), ("", "まだ答え"), ("ケーキ", "選択肢にありません")):
        with pytest.raises(AssertionError, match=words):
            checks.check_identical_keys_prediction(bad)


def test_identical_keys_really_give_uniform_weights():
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(4, 3))
    K = np.tile(rng.normal(size=(1, 3)), (5, 1))
    V = rng.normal(size=(5, 2))
    out, w = helpers.scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(w, 1 / 5)
    np.testing.assert_allclose(out, np.tile(V.mean(axis=0), (4, 1)))


def test_typical_row_has_the_median_largest_weight():
    run = scaling.random_scores(64, np.random.default_rng(7), n_sentences=5)
    largest = np_softmax_rows(run.scores).max(axis=1)
    row = run.typical_row()
    assert np.sum(largest < largest[row]) == run.scores.shape[0] // 2


@pytest.mark.parametrize(
    "kwargs, error, words",
    [({"rng": 42}, TypeError, "np.random.Generator"), ({"n_words": 0}, ValueError, "n_words")],
)
def test_scaling_explorer_bad_inputs(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaling_explorer(**kwargs)
