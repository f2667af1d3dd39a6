"""helpers.widgets.ch06_attention: chapter 06's explorable, driven headlessly from Python."""

import json

import numpy as np
import pytest
import reference
from explorables import assert_refused, run_module

from helpers import scaling
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.widgets import ScalingExplorer, scaling_explorer
from helpers.widgets._base import Choice, Flag
from helpers.widgets.sources import module_source

DK = list(scaling.DK_CHOICES)


def reference_experiment(seed, n_words=8, n_sentences=50):
    """The same random draws as the explorer makes, in plain numpy: per d_k, every row's raw
    scores, and the typical row (the median of the unscaled largest weights)."""
    rng = np.random.default_rng(seed)
    runs = {}
    for d_k in DK:
        blocks = []
        for _ in range(n_sentences):
            Q = rng.standard_normal((n_words, d_k))
            K = rng.standard_normal((n_words, d_k))
            blocks.append(Q @ K.T)
        S = np.vstack(blocks)
        typical = int(np.argsort(reference.softmax(S).max(axis=1))[S.shape[0] // 2])
        runs[d_k] = (S, typical)
    return runs


@pytest.fixture(scope="module")
def ref():
    return reference_experiment(0)


@pytest.fixture
def explorer():
    return scaling_explorer(np.random.default_rng(0))


def expected(ref, d_k, scaled):
    S, typical = ref[d_k]
    scored = S / np.sqrt(d_k) if scaled else S
    weights = reference.softmax(scored)
    return {"variance": scored.var(), "row": typical, "weights": weights[typical],
            "mean_max_weight": weights.max(axis=1).mean()}


def test_explorer_controls_start_as_the_chapter_shows_them(explorer):
    assert isinstance(ScalingExplorer.class_traits()["d_k"], Choice)
    assert isinstance(ScalingExplorer.class_traits()["scaled"], Flag)
    assert set(ScalingExplorer.control_traits()) == {"d_k", "scaled"}
    assert explorer.d_ks == DK
    assert (explorer.d_k, explorer.scaled) == (16, False)


@pytest.mark.parametrize("d_k, scaled", [(1, False), (8, True), (16, False), (64, True),
                                         (256, False), (512, True), (512, False)])
def test_numbers_match_an_independent_experiment(explorer, ref, d_k, scaled):
    explorer.d_k = d_k
    explorer.scaled = scaled
    n, want = explorer.numbers(), expected(ref, d_k, scaled)
    assert n["d_k"] == d_k and n["scaled"] is scaled
    assert n["expected_variance"] == (1.0 if scaled else d_k)
    assert n["row"] == want["row"]
    np.testing.assert_allclose(n["weights"], want["weights"], rtol=1e-9, atol=1e-15)
    assert n["max_weight"] == pytest.approx(want["weights"].max())
    assert n["variance"] == pytest.approx(want["variance"], rel=1e-9)
    assert n["mean_max_weight"] == pytest.approx(want["mean_max_weight"], rel=1e-9)


@pytest.mark.parametrize("d_k", [1, 64, 512])
def test_unscaled_variance_is_about_d_k(explorer, d_k):
    explorer.d_k = d_k
    n = explorer.numbers()
    assert n["variance"] == pytest.approx(d_k, rel=0.2)


def test_scaling_brings_the_variance_back_and_spreads_the_weights(explorer):
    """The chapter's suggestion: at a large d_k, unscaled rows go one-hot; scaled, they do not."""
    explorer.d_k = 256
    unscaled = explorer.numbers()
    explorer.scaled = True
    scaled = explorer.numbers()
    assert scaled["variance"] == pytest.approx(1.0, rel=0.2)
    assert scaled["row"] == unscaled["row"]  # the same row, with and without scaling
    assert unscaled["max_weight"] > scaled["max_weight"]
    assert unscaled["mean_max_weight"] > 0.85 > 0.5 > scaled["mean_max_weight"]
    np.testing.assert_allclose(scaled["weights"].sum(), 1.0)


def test_at_d_k_1_dividing_changes_nothing(explorer):
    """√1 = 1: the chapter's third suggestion."""
    explorer.d_k = 1
    before = explorer.numbers()
    explorer.scaled = True
    after = explorer.numbers()
    np.testing.assert_array_equal(after["weights"], before["weights"])
    assert after["variance"] == before["variance"]
    assert after["mean_max_weight"] == before["mean_max_weight"]
    assert (before["expected_variance"], after["expected_variance"]) == (1.0, 1.0)


def test_setting_traits_from_python_moves_the_numbers_and_the_state(explorer):
    first = explorer.numbers()
    explorer.d_k = 512
    explorer.scaled = True
    assert explorer.numbers()["max_weight"] != first["max_weight"]
    state = explorer.get_state()
    assert (state["d_k"], state["scaled"]) == (512, True)


def test_the_browser_gets_small_plain_data(explorer, ref):
    state = explorer.state_for_page()
    assert state["rows"] == [ref[d][0][ref[d][1]].tolist() for d in DK]
    assert state["row_index"] == [ref[d][1] for d in DK] and state["n_rows"] == 400
    assert state["scaling_words"] == ["割らない", "d_k の平方根で割る"]
    limit = 4 * np.sqrt(512)
    assert state["hist_limit"] == pytest.approx(limit)
    edges = np.linspace(-limit, limit, 91)
    for key, scaled in (("hist_raw", False), ("hist_scaled", True)):
        for d, heights in zip(DK, state[key], strict=True):
            S = ref[d][0] / np.sqrt(d) if scaled else ref[d][0]
            counts, _ = np.histogram(np.clip(S, -limit, limit), bins=edges)
            np.testing.assert_allclose(heights, counts / counts.max(), atol=5e-5)
    for key, scaled in (("var_raw", False), ("var_scaled", True)):
        np.testing.assert_allclose(state[key], [expected(ref, d, scaled)["variance"] for d in DK])
    numbers = sum(np.size(v) for k, v in state.items() if k != "scaling_words")
    assert numbers < 5000
    assert len(json.dumps(state)) < 20_000
    assert "export default" in explorer.get_state()["_esm"]


def test_the_picture_says_its_numbers(explorer):
    explorer.d_k = 512
    explorer.scaled = True
    (result,) = run_module(module_source("ch06_attention"), "picture", [[explorer.state_for_page()]])
    pic = result["ok"]
    n = explorer.numbers()
    assert len(pic["panels"]) == 3
    assert all(p.startswith("<svg") for p in pic["panels"])
    assert "d_k = 512・d_k の平方根で割る" in pic["alt"]
    assert f"分散は {n['variance']:.1f}" in pic["alt"]
    assert f"{int(np.argmax(n['weights'])) + 1} 番の {n['max_weight']:.2f}" in pic["alt"]
    assert f"上から {n['row'] + 1} 行め" in pic["alt"]
    assert f"行の最大の重みの平均 {n['mean_max_weight']:.2f}" in pic["readout"]


def test_explorer_weights_match_a_fresh_experiment():
    e = scaling_explorer(np.random.default_rng(5))
    e.d_k = 8
    e.scaled = True
    runs = scaling.scaling_experiment(scaling.DK_CHOICES, np.random.default_rng(5))
    run = runs[scaling.DK_CHOICES.index(8)]
    ref = reference.softmax(run.scores / np.sqrt(8))
    n = e.numbers()
    np.testing.assert_allclose(n["weights"], ref[n["row"]])
    assert n["mean_max_weight"] == pytest.approx(ref.max(axis=1).mean())


def test_fewer_words_give_fewer_bars():
    e = scaling_explorer(np.random.default_rng(1), n_words=3)
    n = e.numbers()
    assert len(n["weights"]) == 3 and e.n_rows == 150
    assert all(len(row) == 3 for row in e.rows)


@pytest.mark.parametrize(
    "name, value, error, words",
    [
        ("d_k", 3, HelpersKeyError, r"d_k.*1、2、4、8、16、32、64、128、256、512 のどれか"),
        ("d_k", 1024, HelpersKeyError, "d_k.*のどれか"),
        ("d_k", "16", HelpersKeyError, "d_k.*'16' が来ました"),
        ("d_k", True, HelpersKeyError, "d_k.*のどれか"),
        ("scaled", "yes", HelpersTypeError, "scaled.*True か False"),
        ("scaled", 1, HelpersTypeError, "scaled.*True か False"),
    ],
)
def test_a_bad_trait_value_is_refused_and_the_picture_keeps_its_state(explorer, name, value,
                                                                     error, words):
    explorer.d_k, explorer.scaled = 64, True
    assert_refused(explorer, name, value, error, words)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [({"rng": 42}, HelpersTypeError, "np.random.Generator"),
     ({"n_words": 0}, HelpersError, "n_words"),
     ({"n_words": 13}, HelpersError, "1 から 12 の範囲"),
     ({"n_words": 10**6}, HelpersError, "1 から 12 の範囲"),
     ({"n_words": 2.5}, HelpersTypeError, "整数")],
)
def test_scaling_explorer_bad_inputs(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaling_explorer(**kwargs)
