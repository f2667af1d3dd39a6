"""helpers.widgets.ch08_going_further: chapter 08's explorable (heads and the causal mask), driven
headlessly from Python; its picture is drawn by the ES module in Node."""

import numpy as np
import pytest
import reference
from explorables import assert_refused, run_module

from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.data import phrase
from helpers.widgets import HeadsExplorer, heads_explorer
from helpers.widgets.sources import module_source

P = phrase()
W_Q = np.stack([np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]), np.eye(3)[:, :2]])
W_K = np.stack([np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.eye(3)[:, 1:]])
W_V = np.stack([np.eye(3)[:, :2], np.eye(3)[:, 1:]])
W_O = np.eye(4)[:, :3]
NAMES = ["頭 1", "頭 2"]
LABELS = ["甘", "辛", "食"]


@pytest.fixture
def explorer():
    return heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, NAMES, LABELS)


def reference_heads(X, W_Q, W_K, W_V, W_O, masked):
    """Every head by itself (scores / √d_k, -inf above the diagonal when masked), the heads'
    outputs side by side in head order, then W_O: (output, weights of every head)."""
    n = len(X)
    hidden = np.where(np.arange(n)[None, :] > np.arange(n)[:, None], -np.inf, 0.0)
    weights, outs = [], []
    for q, k, v in zip(W_Q, W_K, W_V, strict=True):
        scores = (X @ q) @ (X @ k).T / np.sqrt(q.shape[1])
        w = reference.softmax(scores + hidden if masked else scores)
        weights.append(w)
        outs.append(w @ (X @ v))
    return np.hstack(outs) @ W_O, weights


def picture(explorer):
    """What the ES module draws for the explorer's state (run in Node)."""
    (result,) = run_module(module_source("ch08_going_further"), "picture", [[explorer.state_for_page()]])
    assert "error" not in result, result
    return result["ok"]


def test_explorer_starts_on_the_first_head_without_the_mask(explorer):
    out, w = reference_heads(P.vectors, W_Q, W_K, W_V, W_O, masked=False)
    n = explorer.numbers()
    assert n["head"] == 0 and n["masked"] is False
    np.testing.assert_allclose(n["weights"], w[0])
    np.testing.assert_allclose(n["output"], out)


@pytest.mark.parametrize("head, masked", [(0, True), (1, False), (1, True)])
def test_setting_traits_from_python_moves_the_numbers(explorer, head, masked):
    explorer.head = head
    explorer.masked = masked
    out, w = reference_heads(P.vectors, W_Q, W_K, W_V, W_O, masked)
    n = explorer.numbers()
    assert n["head"] == head and n["masked"] is masked
    np.testing.assert_allclose(n["weights"], w[head])
    np.testing.assert_allclose(n["output"], out)
    # the traits the browser receives say the same, and its module computes the same numbers
    state = explorer.get_state()
    assert state["head"] == head and state["masked"] is masked
    page = picture(explorer)["numbers"]
    np.testing.assert_allclose(page["weights"], w[head])
    np.testing.assert_allclose(page["output"], out)


def test_the_mask_hides_later_words_and_is_hatched_only_when_on(explorer):
    explorer.head = 1
    assert picture(explorer)["panels"][0].count('fill="url(#qkv-hatch)"') == 0
    explorer.masked = True
    w = explorer.numbers()["weights"]
    assert np.all(np.triu(w, k=1) == 0)
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    shown = picture(explorer)
    assert shown["panels"][0].count('fill="url(#qkv-hatch)"') == 21  # 7 words: 21 cells above
    assert "因果マスクあり" in shown["panels"][0] and "頭 2" in shown["panels"][0]
    assert "全部の頭を W_O で混ぜた出力" in shown["panels"][1] and "出力の列" in shown["panels"][1]


def test_the_chapter_numbers():
    """What the chapter says about its two heads: 甘い shares 0.41/0.41 between カレー and ケーキ
    under 頭 2, 0.69 to カレー once the mask hides ケーキ; the output's 甘い row drops from 1.48
    to 0.70 (甘さ) and from 1.22 to 1.03 (食べ物らしさ); the last row ケーキ never changes."""
    ex = HeadsExplorer.example()
    words = list(ex.words)
    sweet, curry, cake = words.index("甘い"), words.index("カレー"), words.index("ケーキ")
    ex.head = 1
    free = ex.numbers()
    assert round(free["weights"][sweet, curry], 2) == round(free["weights"][sweet, cake], 2) == 0.41
    ex.masked = True
    hidden = ex.numbers()
    assert round(hidden["weights"][sweet, curry], 2) == 0.69
    # as the picture prints them (two decimals)
    assert [f"{v:.2f}" for v in free["output"][sweet]] == ["1.48", "0.36", "1.22"]
    assert [f"{v:.2f}" for v in hidden["output"][sweet]] == ["0.70", "0.60", "1.03"]
    np.testing.assert_allclose(hidden["output"][cake], free["output"][cake])
    for head in (0, 1):
        ex.head = head
        ex.masked = False
        before = ex.numbers()["weights"][cake]
        ex.masked = True
        np.testing.assert_allclose(ex.numbers()["weights"][cake], before)


def test_the_picture_says_its_numbers(explorer):
    explorer.head = 1
    explorer.masked = True
    shown = picture(explorer)
    w = explorer.numbers()["weights"]
    assert f"甘い の行: 辛い {w[5, 0]:.2f}、カレー {w[5, 1]:.2f}" in shown["alt"]
    assert "ケーキ 0.00" not in shown["alt"].split("甘い の行")[1].split("。")[0]  # hidden: not said
    assert "頭 2" in shown["readout"] and "因果マスクあり" in shown["readout"]
    # the chosen head's name labels its button
    assert shown["numbers"]["head"] == 1


def test_the_browser_gets_the_data_as_plain_lists(explorer):
    state = explorer.get_state()
    assert state["W_Q"] == W_Q.tolist() and state["W_O"] == W_O.tolist()
    assert state["X"] == P.vectors.tolist()
    assert state["words"] == list(P.words) and state["head_names"] == NAMES
    assert state["heads"] == [0, 1] and state["out_labels"] == LABELS


def test_explorer_accepts_plain_lists_and_three_heads():
    X = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    Wq = [np.eye(2).tolist(), [[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 0.5]]]
    Wo = np.arange(12.0).reshape(6, 2).tolist()
    ex = heads_explorer(X, ["a", "b", "c"], Wq, Wq, Wq, Wo, ["x", "y", "z"], ["p", "q"])
    ex.head = 2.0  # a float index from a cell is the same head
    assert ex.head == 2 and type(ex.head) is int
    out, w = reference_heads(np.array(X), np.array(Wq), np.array(Wq), np.array(Wq), np.array(Wo), False)
    np.testing.assert_allclose(ex.numbers()["weights"], w[2])
    np.testing.assert_allclose(ex.numbers()["output"], out)


def test_an_all_zero_output_still_gets_a_colour_range():
    e = heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, np.zeros((4, 3)), NAMES, list("abc"))
    np.testing.assert_array_equal(e.numbers()["output"], 0.0)
    assert "NaN" not in picture(e)["panels"][1] and "0.00" in picture(e)["panels"][1]


@pytest.mark.parametrize(
    "name, value, error, words",
    [
        # the refusal names each head as its button does: 0 is 頭 1
        ("head", 2, HelpersKeyError, r"head\(頭の番号、0 から\) は 0\(頭 1[^)]*\)、1\(頭 2[^)]*\) のどれか"),
        ("head", True, HelpersKeyError, "head"),
        ("head", "頭 1", HelpersKeyError, "head"),
        ("head", 0.5, HelpersKeyError, "head"),
        ("masked", "はい", HelpersTypeError, "因果マスク.*True か False"),
        ("masked", 1, HelpersTypeError, "因果マスク.*True か False"),
    ],
)
def test_a_bad_trait_value_is_refused_and_the_picture_keeps_its_state(explorer, name, value,
                                                                       error, words):
    explorer.head = 1
    assert_refused(explorer, name, value, error, words)
    assert explorer.numbers()["head"] == 1


@pytest.mark.parametrize(
    "change, error, words",
    [({"words": None}, HelpersTypeError, "文字列のリスト"),
     ({"words": list(range(7))}, HelpersTypeError, "文字列"),
     ({"X": np.ones((13, 3)), "words": list("abcdefghijklm")}, HelpersError, "12 個まで"),
     ({"W_Q": 2.0}, HelpersError, "W_Q.*3 次元"),
     ({"W_Q": np.ones((7, 3, 2))}, HelpersError, "頭.*6 個まで"),
     ({"W_K": np.ones((2, 3, 3))}, HelpersError, "W_Q と W_K は同じ形"),
     ({"W_V": np.ones((2, 2, 2))}, HelpersError, "W_V は"),
     ({"W_O": np.ones((3, 3))}, HelpersError, "W_O は"),
     ({"W_O": np.ones((4, 13))}, HelpersError, "出力の列.*12 個まで"),
     ({"X": np.full((7, 3), 1e200)}, HelpersError, "大きすぎて"),
     ({"W_V": np.full((2, 3, 2), np.nan)}, HelpersError, "W_V に NaN"),
     ({"head_names": 5}, HelpersTypeError, "head_names"),
     ({"out_labels": [1, 2, 3]}, HelpersTypeError, "out_labels.*文字列")],
)
def test_bad_inputs_are_refused_in_japanese(change, error, words):
    args = {"X": P.vectors, "words": P.words, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O,
            "head_names": NAMES, "out_labels": LABELS, **change}
    with pytest.raises(error, match=words):
        heads_explorer(**args)


def test_bad_inputs():
    with pytest.raises(ValueError, match="head_names"):
        heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, ["頭 1"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="語が 6 個"):
        heads_explorer(P.vectors, P.words[:6], W_Q, W_K, W_V, W_O, NAMES, ["a", "b", "c"])
    with pytest.raises(ValueError, match="out_labels"):
        heads_explorer(P.vectors, P.words, W_Q, W_K, W_V, W_O, NAMES, ["a"])
