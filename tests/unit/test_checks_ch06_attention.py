"""Chapter 06's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks, softmax
from helpers.checks import CheckFailed


def right(Q, K, V):
    A = softmax(Q @ K.T / np.sqrt(K.shape[1]))
    return A @ V, A


@pytest.mark.parametrize("fn", [right, lambda Q, K, V: list(right(Q, K, V))])
def test_right_attention_passes(fn, capsys):
    checks.check_attention(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


def with_weights(make_weights):
    def attention(Q, K, V):
        A = make_weights(Q, K)
        return A @ V if A.shape[1] == V.shape[0] else V[: A.shape[0]], A
    return attention


@pytest.mark.parametrize("fn, hint", [
    (with_weights(lambda Q, K: softmax(Q @ K.T)), "√d_k で割り忘れて"),
    (with_weights(lambda Q, K: softmax(Q @ K.T / Q.shape[1])), "d_k そのもので割って"),
    (with_weights(lambda Q, K: softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0)), "列の方向"),
    (with_weights(lambda Q, K: np.exp(Q @ K.T / np.sqrt(Q.shape[1]))), "行の和"),
    (lambda Q, K, V: right(Q, K, V)[::-1], "返す順番が逆"),
    (lambda Q, K, V: (right(Q, K, V)[1], right(Q, K, V)[1]), "重みをそのまま"),
    (lambda Q, K, V: (right(Q, K, V)[1].T @ V, right(Q, K, V)[1]), r"weights\.T @ V"),
    (lambda Q, K, V: (2 * right(Q, K, V)[0], right(Q, K, V)[1]), "出力が違います"),
    (lambda Q, K, V: right(Q, K, V)[0], "2 つを"),
    (lambda Q, K, V: None, "return を書き忘れて"),
])
def test_each_attention_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_attention(fn)


def test_same_shape_is_never_called_a_wrong_shape():
    with pytest.raises(CheckFailed) as info:
        checks.check_attention(lambda Q, K, V: (2 * right(Q, K, V)[0], right(Q, K, V)[1]))
    assert "のはずが" not in str(info.value)


@pytest.mark.parametrize("answer", ["均等", " 均等 ", "均等。", "均等　", "一様", "均一"])
def test_identical_keys_prediction_accepts(answer, capsys):
    checks.check_identical_keys_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("自分", "第 1 章"), ("先頭", "argmax"), ("問い次第", "差"), ("全部", "選択肢にありません"),
    ("", "まだ答えが"),
])
def test_identical_keys_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_identical_keys_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_attention(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_attention(with_weights(lambda Q, K: softmax(Q @ K.T)), hidden=True)
