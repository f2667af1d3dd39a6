"""Chapter 07's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import pytest

from helpers import checks
from helpers.checks import CheckFailed


def right(W_Q, X, dQ, lr):
    return W_Q - lr * (X.T @ dQ)


def in_place(W_Q, X, dQ, lr):
    W_Q -= lr * (X.T @ dQ)
    return W_Q


def test_right_step_passes(capsys):
    checks.check_gradient_step(right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda W, X, dQ, lr: W + lr * (X.T @ dQ), "勾配を足して"),
    (lambda W, X, dQ, lr: W - X.T @ dQ, "学習率 lr を掛け忘れて"),
    (lambda W, X, dQ, lr: W - (X.T @ dQ) / lr, "学習率で割って"),
    (lambda W, X, dQ, lr: -lr * (X.T @ dQ), "動かす「量」だけ"),
    (lambda W, X, dQ, lr: W - lr * (dQ.T @ X), "エラーで止まりました|転置"),
    (in_place, "W_Q の中身を書き換えて"),
    (lambda W, X, dQ, lr: None, "return を書き忘れて"),
])
def test_each_step_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_gradient_step(fn)


@pytest.mark.parametrize("answer", ["壊れる", "壊れる。", "壊れる　", "発散", "発散する", "爆発する", "爆発"])
def test_learning_rate_prediction_accepts(answer, capsys):
    checks.check_learning_rate_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("速くなる", "とは限りません"), ("変わらない", "一歩の大きさそのもの"), ("同じ", "一歩の大きさそのもの"),
    ("止まる", "選択肢にありません"), ("", "まだ答えが"),
])
def test_learning_rate_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_learning_rate_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_gradient_step(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_gradient_step(lambda W, X, dQ, lr: W + lr * (X.T @ dQ), hidden=True)
