"""Chapter 00's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks
from helpers.checks import CheckFailed


def right(scores):
    e = np.exp(scores)
    return e / e.sum()


def stable(scores):
    e = np.exp(scores - scores.max())
    return e / e.sum()


@pytest.mark.parametrize("fn", [right, stable, lambda s: list(right(s))])
def test_right_softmax_passes(fn, capsys):
    checks.check_first_softmax(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda s: s, "そのまま返して"),
    (lambda s: s / s.sum(), "np.exp を取っていません"),
    (lambda s: np.exp(s), "割るのを忘れて"),
    (lambda s: np.exp(s) / s.sum(), "割る数が違います"),
    (lambda s: np.exp(s - s.max()), "np.exp\\(scores - scores.max\\(\\)\\)"),
    (lambda s: np.exp(s) / np.exp(s).max(), "最大値を引くのは"),
    (lambda s: right(s)[None, :], "shape"),
    (lambda s: None, "return を書き忘れて"),
    (lambda s: s.sort(), "return を書き忘れて"),
])
def test_each_softmax_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_first_softmax(fn)


def test_sorting_the_scores_in_place_is_named():
    def in_place(scores):
        scores -= scores.max()
        e = np.exp(scores)
        return e / e.sum()

    with pytest.raises(CheckFailed, match="scores の中身を書き換えて"):
        checks.check_first_softmax(in_place)


@pytest.mark.parametrize("answer", [(1, 3), [1, 3], np.array([1, 3]), (np.int64(1), 3)])
def test_shape_prediction_accepts(answer, capsys):
    checks.check_matmul_shape_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ((1, 2), "x と同じ形"), ((2, 3), "W の形そのもの"), ((3, 1), "逆です"), ((2, 2), "内側の数"),
    ("エラー", "かけ算はできます"), (" エラー。", "かけ算はできます"), ("エラー　", "かけ算はできます"),
    ("(1, 3)", "文字列です"), ((4, 4), "ではありません"), ("", "まだ答えが"), (None, "整数の組"),
    ((True, 3), "整数の組"),
])
def test_shape_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_matmul_shape_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_first_softmax(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_first_softmax(lambda s: np.exp(s), hidden=True)
