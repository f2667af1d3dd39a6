"""Chapter 03's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks, softmax
from helpers.checks import CheckFailed


def right(Q, K):
    S = Q @ K.T
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def max_without_keepdims(Q, K):
    S = Q @ K.T
    e = np.exp(S - S.max(axis=1))
    return e / e.sum(axis=1, keepdims=True)


def stable_but_unnormalised(Q, K):
    S = Q @ K.T
    return np.exp(S - S.max(axis=1, keepdims=True))


def stable_no_keepdims_on_sum(Q, K):
    S = Q @ K.T
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1)


@pytest.mark.parametrize("fn", [right, lambda Q, K: softmax(Q @ K.T, axis=1),
                                lambda Q, K: softmax(Q @ K.T)])
def test_right_party_weights_pass(fn, capsys):
    checks.check_party_weights(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda Q, K: Q @ K.T, "そのまま返して"),
    (lambda Q, K: np.exp(Q @ K.T), "np.exp を取ったところで止まって"),
    (stable_but_unnormalised, "最大値を引いて np.exp を取るところまでは正しい"),
    (max_without_keepdims, "最大値を引くところで keepdims=True が抜けて"),
    (stable_no_keepdims_on_sum, "keepdims=True を忘れて"),
    (lambda Q, K: softmax(Q @ K.T, axis=0), "列の方向"),
    (lambda Q, K: softmax(K @ Q.T, axis=1), "Q と K が逆"),
    (lambda Q, K: softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=1), "√d_k"),
    (lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=1, keepdims=True), "inf か nan"),
    (lambda Q, K: None, "return を書き忘れて"),
])
def test_each_party_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_party_weights(fn)


@pytest.mark.parametrize("answer", ["対称になる", "対称になる。", " 対称になる　", "対称", "左右対称"])
def test_symmetry_prediction_accepts(answer, capsys):
    checks.check_party_symmetry_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("対称にならない", "内積は順番を入れ替えても"), ("非対称", "内積は順番を入れ替えても"),
    ("人による", "結論は同じ"), ("わからない", "選択肢にありません"), ("", "まだ答えが"),
])
def test_symmetry_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_party_symmetry_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_party_weights(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_party_weights(max_without_keepdims, hidden=True)
