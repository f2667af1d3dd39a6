"""Chapters 04–05 exercise checks: the right answer passes, each typical mistake gets its hint."""

import numpy as np
import pytest

from helpers import checks
from helpers.checks import QUESTION_MATRIX

# ------------------------------------------------------------------ chapter 04: three faces


def faces_right(x, W_Q, W_K, W_V):
    return x @ W_Q, x @ W_K, x @ W_V


def test_right_faces_pass(capsys):
    checks.check_three_faces(faces_right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda x, a, b, c: (a @ x.T, b @ x.T, c @ x.T), "W @ x.T"),
        (lambda x, a, b, c: (x @ a.T, x @ b.T, x @ c.T), "x @ W.T"),
        (lambda x, a, b, c: (a @ x, b @ x, c @ x), "x @ W の順"),
        (lambda x, a, b, c: (x * a, x * b, x * c), "成分ごとの掛け算"),
        (lambda x, a, b, c: (x[0] @ a, x[0] @ b, x[0] @ c), "1 次元"),
        (lambda x, a, b, c: (x @ b, x @ a, x @ c), "q のところに k"),
        (lambda x, a, b, c: (x @ a, x @ b), "3 つの配列"),
        (lambda x, a, b, c: (x @ a, x @ b, 2 * (x @ c)), "v の値が違います"),
        (lambda x, a, b, c: (x @ a, x @ b, np.ones((2, 2))), "v の形が違います"),
        ("three_faces", "関数を渡して"),
    ],
)
def test_each_faces_mistake_gets_its_own_hint(wrong, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_three_faces(wrong)


def test_unwritten_faces_stub_is_named():
    def stub(x, W_Q, W_K, W_V):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        checks.check_three_faces(stub)


def test_right_question_matrix_passes(capsys):
    checks.check_question_matrix([[0, 0.5], [1, 0]])
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize(
    "W, hint",
    [
        (QUESTION_MATRIX.T, "転置"),
        (QUESTION_MATRIX[:, ::-1], "入れ替わって"),
        ([[1.0, 0.0], [0.0, 0.5]], "逆です"),
        ([[0.0, 0.5, 0.0], [1.0, 0.0, 0.0]], r"\(2, 2\)"),
        ([0.0, 0.5, 1.0, 0.0], r"\(2, 2\)"),
        ([[np.nan, 0.5], [1.0, 0.0]], "NaN"),
        ("W", "数の 2×2"),
        (None, "まだ W_mine が入っていません"),
        (np.eye(2), "カレー"),
    ],
)
def test_each_question_matrix_mistake_gets_its_own_hint(W, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_question_matrix(W)


def test_transposed_hint_does_not_give_the_answer_away():
    with pytest.raises(AssertionError) as err:
        checks.check_question_matrix(QUESTION_MATRIX.T)
    assert "(0, 0.5)" not in str(err.value) and "(1, 0)" not in str(err.value)


@pytest.mark.parametrize(
    "answer, hint",
    [("(3, 5)", "行と列が逆"), ("(5, 2)", "X の形"), ("(2, 3)", "W_Q の形"), ("(1, 3)", "1 語ぶん"),
     ("", "まだ答え"), ("(3,5)", "行と列が逆"), ((2, 3), "W_Q の形"), ("5 行 3 列", "選択肢にありません"),
     ((5, 3, 1), "選択肢にありません")],
)
def test_shape_prediction_hints(answer, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_q_shape_prediction(answer)


@pytest.mark.parametrize("answer", ["(5, 3)", "(5,3)", " ( 5 , 3 ) ", "（５，３）", "5×3", "5x3",
                                    (5, 3), [5, 3], np.zeros((5, 3)).shape])
def test_shape_prediction_right(answer, capsys):
    checks.check_q_shape_prediction(answer)
    assert capsys.readouterr().out.startswith("✓ 正解です")


# ------------------------------------------------------------------ chapter 05: one cell


def cell_right(X, W, i, j):
    return sum(X[i, k] * W[k, j] for k in range(X.shape[1]))


def test_right_cell_passes(capsys):
    checks.check_matmul_cell(cell_right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda X, W, i, j: X[i, :] * W[:, j], "足し合わせていません"),
        (lambda X, W, i, j: X[i, :] @ W, "i 行め全体"),
        (lambda X, W, i, j: X[i, :] @ W[j, :], "W の j 行め"),
        (lambda X, W, i, j: X[:, i] @ W[:, j], "X の i 列め"),
        (lambda X, W, i, j: X[j, :] @ W[:, i], "入れ替わって"),
        (lambda X, W, i, j: 0.0, "内積は"),
        (lambda X, W, i, j: X @ W, "数を 1 つ"),
    ],
)
def test_each_cell_mistake_gets_its_own_hint(wrong, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_matmul_cell(wrong)


def test_cell_index_errors_become_a_hint():
    # W[j] on a tall W fails with an IndexError on the non-square case, or gives the wrong value
    with pytest.raises(AssertionError, match="X\\[i, :\\]"):
        checks.check_matmul_cell(lambda X, W, i, j: X[i, :] @ W[:, j] if X.shape[0] == X.shape[1]
                                 else X[:, i] @ W[:, j])


# ------------------------------------------------------------------ chapter 05: fused


def fused_right(X, W_Q, W_K, W_V):
    W_QKV = np.hstack([W_Q, W_K, W_V])
    return tuple(np.split(X @ W_QKV, 3, axis=1))


def test_right_fused_passes(capsys):
    checks.check_fused_qkv(fused_right)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize(
    "wrong, hint",
    [
        (lambda X, a, b, c: tuple(np.split(X @ np.vstack([a, b, c]), 3, axis=1)), "np.hstack"),
        (lambda X, a, b, c: tuple(np.array_split(X @ np.hstack([a, b, c]), 3, axis=0)), "axis=1"),
        (lambda X, a, b, c: (X @ np.hstack([a, b, c]),) * 3, "三つ分の列"),
        (lambda X, a, b, c: (X @ b, X @ a, X @ c), "Q のところに K"),
        (lambda X, a, b, c: (X @ a, X @ b, -(X @ c)), "V の値"),
        (lambda X, a, b, c: X @ np.hstack([a, b, c]), "3 つの配列"),
    ],
)
def test_each_fused_mistake_gets_its_own_hint(wrong, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_fused_qkv(wrong)


@pytest.mark.parametrize(
    "answer, hint",
    [("変わる", "ほかのマスの結果"), ("ときどき変わる", "1 ビットも"), ("", "まだ答え")],
)
def test_order_prediction_hints(answer, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_order_prediction(answer)


def test_order_prediction_right(capsys):
    checks.check_order_prediction("変わらない")
    assert capsys.readouterr().out.startswith("✓ 正解です")
