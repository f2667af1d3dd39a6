"""Chapter 02's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks, softmax
from helpers.checks import CheckFailed


def right(q, K, V, temperature):
    return softmax(q @ K.T, temperature=temperature) @ V


def by_hand(q, K, V, temperature):
    s = q @ K.T / temperature
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def column_scores(q, K, V, temperature):
    w = softmax(K @ q.T, temperature=temperature)
    return w @ V


@pytest.mark.parametrize("fn", [right, by_hand])
def test_right_soft_lookup_passes(fn, capsys):
    checks.check_soft_lookup(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda q, K, V, T: softmax(q @ K.T, temperature=T), "重み\\(ソフトマックスの結果\\)をそのまま"),
    (lambda q, K, V, T: softmax(q @ K.T, temperature=T) @ K, "見出し K を混ぜて"),
    (lambda q, K, V, T: (q @ K.T) @ V, "そのまま重みに"),
    (lambda q, K, V, T: np.exp(q @ K.T / T) @ V, "合計で割り忘れて"),
    (lambda q, K, V, T: softmax(q @ K.T) @ V, "温度 temperature が効いていません"),
    (lambda q, K, V, T: softmax(q @ K.T * T) @ V, "温度を掛けて"),
    (lambda q, K, V, T: V[int(np.argmax(q @ K.T))], "いちばん得点の高い本"),
    (lambda q, K, V, T: right(q, K, V, T)[0], r"shape \(\d,\) で返ってきました"),
    (lambda q, K, V, T: right(q, K, V, T).T, r"shape \(\d, 1\) で返ってきました"),
    (column_scores, "K @ q.T だと n×1 の縦一列"),
    (lambda q, K, V, T: None, "return を書き忘れて"),
])
def test_each_soft_lookup_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_soft_lookup(fn)


@pytest.mark.parametrize("small, large", [
    ("一冊", "平均"), ("一冊　", " 平均 "), ("1冊", "平均。"), ("集中", "均等"), ("一冊。", "平均になる"),
])
def test_temperature_prediction_accepts(small, large, capsys):
    checks.check_temperature_prediction(small, large)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("small, large, hint", [
    ("平均", "平均", "small_T:温度を小さくすると"),
    ("一冊", "一冊", "large_T:温度を大きくすると"),
    ("ゼロ", "平均", "small_T:重みの合計はいつでも 1"),
    ("一冊", "変わらない。", "large_T:温度は得点を割る数"),
    ("", "平均", "small_T にまだ答えが"),
    ("一冊", "たくさん", "large_T の「たくさん」 は選択肢にありません"),
    ("一冊", None, "large_T にまだ答えが"),
])
def test_temperature_prediction_rejects_with_hint(small, large, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_temperature_prediction(small, large)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_soft_lookup(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_soft_lookup(lambda q, K, V, T: softmax(q @ K.T) @ V, hidden=True)
