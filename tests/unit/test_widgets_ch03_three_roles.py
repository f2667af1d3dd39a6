"""helpers.widgets.ch03_three_roles: chapter 03's explorable, driven headlessly from Python
(and its picture drawn by the ES module in Node, without a browser)."""


import numpy as np
import pytest
import reference
from explorables import run_module

from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import Party, party, party_attention
from helpers.widgets import PartyExplorer, explorables, party_explorer
from helpers.widgets.sources import module_source


@pytest.fixture
def explorer():
    return party_explorer()


def reference_numbers(p: Party, person: str) -> dict:
    """One guest's row, from scratch: q·k as it is (chapter 03 does not divide by √d_k)."""
    i = p.names.index(person)
    Q, K, V = p.X @ p.W_Q, p.X @ p.W_K, p.X @ p.W_V
    scores = K @ Q[i]
    weights = reference.softmax(scores)
    return {"q": Q[i], "scores": scores, "weights": weights, "take_home": weights @ V,
            "pick": p.names[int(np.argmax(weights))]}


def assert_numbers(got: dict, want: dict) -> None:
    for key in ("q", "scores", "weights", "take_home"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12, err_msg=key)
    assert got["pick"] == want["pick"]


def test_explorer_starts_at_ken(explorer):
    assert explorer.person == "ケン"
    n = explorer.numbers()
    assert n["person"] == "ケン" and n["pick"] == "アオイ"
    np.testing.assert_allclose(n["take_home"], [1.753, 0.471], atol=1e-3)
    assert_numbers(n, reference_numbers(party(), "ケン"))


def test_numbers_are_party_attention_as_plain_lists(explorer):
    n = explorer.numbers()
    want = party_attention(party(), "ケン")
    assert set(n) == set(want)
    for key, value in n.items():
        assert not isinstance(value, np.ndarray), key  # JSON-compatible
        np.testing.assert_array_equal(value, want[key])


def test_the_weights_are_not_divided_by_root_d_k(explorer):
    p = party()
    scores = p.K @ p.Q[p.index("ケン")]
    weights = explorer.numbers()["weights"]
    assert not np.allclose(weights, reference.softmax(scores / np.sqrt(2)), atol=1e-3)
    np.testing.assert_allclose(weights, reference.softmax(scores))


@pytest.mark.parametrize("person, pick", [("アオイ", "ケン"), ("ユイ", "ケン"), ("ミオ", "ソウタ"),
                                          ("ソウタ", "ユイ"), ("ケン", "アオイ")])
def test_setting_the_guest_from_python_moves_the_numbers(explorer, person, pick):
    explorer.person = person
    n = explorer.numbers()
    assert n["person"] == person and n["pick"] == pick
    assert_numbers(n, reference_numbers(party(), person))
    assert explorer.get_state()["person"] == person  # the browser is told too


def test_the_chapters_suggestions_hold():
    """ミオ spreads her weights and takes home a middle taste; アオイ and ケン take home opposite sides."""
    ex = party_explorer(person="ミオ")
    mio = ex.numbers()
    assert mio["pick"] == "ソウタ" and round(max(mio["weights"]), 2) == 0.30
    assert min(mio["weights"]) > 0.05
    np.testing.assert_allclose(mio["take_home"], [1.21, 1.22], atol=0.005)
    ex.person = "アオイ"
    aoi = ex.numbers()["take_home"]
    ex.person = "ケン"
    ken = ex.numbers()["take_home"]
    np.testing.assert_allclose(aoi, [0.77, 1.52], atol=0.005)  # the spicy side
    np.testing.assert_allclose(ken, [1.75, 0.47], atol=0.005)  # the sweet side


@pytest.mark.parametrize(
    "value, error, words",
    [
        ("タロウ", HelpersKeyError, "person\\(探す人\\) は アオイ、ユイ、ミオ、ソウタ、ケン のどれか"),
        (3, HelpersKeyError, "探す人.*3 が来ました"),
        (None, HelpersKeyError, "探す人.*None が来ました"),
        (True, HelpersKeyError, "探す人.*True が来ました"),
    ],
)
def test_a_guest_who_is_not_there_is_refused_and_the_picture_keeps_its_state(explorer, value,
                                                                            error, words):
    explorer.person = "ミオ"
    with pytest.raises(error, match=words):
        explorer.person = value
    assert explorer.person == "ミオ" and explorer.get_state()["person"] == "ミオ"
    assert explorer.numbers()["pick"] == "ソウタ"


def test_the_browser_gets_the_party_as_plain_lists(explorer):
    state = explorer.get_state()
    p = party()
    assert state["names"] == list(p.names)
    assert state["tastes"] == p.X.tolist()
    assert (state["w_q"], state["w_k"], state["w_v"]) == (p.W_Q.tolist(), p.W_K.tolist(), p.W_V.tolist())
    assert state["axis_labels"] == list(p.axes)
    assert "export default" in state["_esm"] and "./qkv_" not in state["_esm"]
    assert explorables()["ch03_three_roles"] is PartyExplorer


def _pictures(states: list[dict]) -> list[dict]:
    results = run_module(module_source("ch03_three_roles"), "picture", [[s] for s in states])
    assert all("ok" in r for r in results), results
    return [r["ok"] for r in results]


def test_the_picture_names_whose_q_it_shows_and_draws_weights_grey(explorer):
    before = explorer.state_for_page()
    explorer.person = "ミオ"
    ken, mio = _pictures([before, explorer.state_for_page()])
    assert "ケンの Q" in ken["panels"][0] and "ミオの Q" not in ken["panels"][0]
    assert "ミオの Q" in mio["panels"][0] and "ケンの Q" not in mio["panels"][0]
    assert len(ken["panels"]) == 3
    assert "探す相手像 Q(青)と名札 K(朱)" in ken["panels"][0]
    # a weight is neither Q (blue) nor K (vermilion): five neutral grey bars
    assert ken["panels"][1].count("fill:var(--qkv-x)") == 5
    assert "注目の重み(合計 1)" in ken["panels"][1]
    assert ken["panels"][2].count("stroke:var(--qkv-v)") == 6  # five V and the take-home
    # the text alternative states the numbers shown
    assert "アオイ 0.54" in ken["alt"] and "(1.75, 0.47)" in ken["alt"]
    assert "一番重いのはソウタ" in mio["alt"] and "(1.21, 1.22)" in mio["alt"]
    assert mio["readout"].startswith("ミオが一番探しているのはソウタ")


def test_explorer_other_party():
    p = Party(("a", "b", "c"), np.eye(3)[:, :2] + 0.1, np.eye(2), np.eye(2), 2 * np.eye(2))
    e = party_explorer(p, person="b")
    assert_numbers(e.numbers(), reference_numbers(p, "b"))
    e.person = "c"
    assert_numbers(e.numbers(), reference_numbers(p, "c"))
    with pytest.raises(HelpersKeyError, match="a、b、c のどれか"):
        e.person = "ケン"
    # a party on the negative side is drawn too
    neg = Party(("x", "y"), -np.array([[2.0, 1.0], [0.5, 3.0]]), np.eye(2), np.eye(2), np.eye(2),
                ("東", "北"))
    (pic,) = _pictures([party_explorer(neg, person="x").state_for_page()])
    assert "xの Q" in pic["panels"][0] and "東" in pic["panels"][0]


@pytest.mark.parametrize(
    "args, error, words",
    [
        (("not a party",), HelpersTypeError, "Party"),
        ((None, "タロウ"), HelpersKeyError, "person.*アオイ.*のどれか.*タロウ"),
        ((None, np.ones((2, 2))), HelpersKeyError, "person.*のどれか.*array"),
        ((None, None), HelpersKeyError, "person.*のどれか.*None が来ました"),
        ((Party(("a",), [[1.0, 0.0, 0.0]], np.eye(3), np.eye(3), np.eye(3), ("p", "q", "r")),
          "a"), HelpersError, "2 次元"),
        ((Party(tuple("abcdefghijklm"), np.ones((13, 2)), np.eye(2), np.eye(2), np.eye(2)), "a"),
         HelpersError, "参加者は 12 個まで"),
    ],
)
def test_explorer_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        party_explorer(*args)
