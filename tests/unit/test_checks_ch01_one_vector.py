"""helpers.checks.ch01_one_vector: chapter 01's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import numpy as np
import pytest

from helpers import checks


def right(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_right_cosine_passes(capsys):
    checks.check_cosine(right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda a, b: float(a @ b), "内積そのもの"),
        (lambda a, b: float(a @ b / np.linalg.norm(a)), "片方の長さ"),
        (lambda a, b: float(a @ b / (a @ a * (b @ b))), "2 乗"),
        (lambda a, b: 0.5, "見直しましょう"),
        (lambda a, b: np.array([1.0, 2.0]), "数を 1 つ"),
        ("cosine", "関数を渡して"),
    ],
)
def test_each_mistake_gets_its_own_hint(wrong, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_cosine(wrong)


def test_unwritten_stub_is_named():
    def stub(a, b):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        checks.check_cosine(stub)


def test_prediction(capsys):
    checks.check_pudding_prediction("ケーキ")
    assert "✓" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="コサイン類似度ならそう"):
        checks.check_pudding_prediction("プリン")
    with pytest.raises(AssertionError, match="まだ答えが入っていません"):
        checks.check_pudding_prediction("")
    with pytest.raises(AssertionError, match="選択肢にありません"):
        checks.check_pudding_prediction("ラーメン")
    with pytest.raises(AssertionError, match="見直して"):
        checks.check_pudding_prediction("カレー")
