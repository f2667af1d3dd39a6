"""helpers.checks.ch05_all_matmul: chapter 05's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import numpy as np
import pytest

from helpers import checks


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
