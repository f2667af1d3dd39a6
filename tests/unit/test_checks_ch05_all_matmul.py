"""Chapter 05's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks
from helpers.checks import CheckFailed


def cell(Q, K, i, j):
    return Q[i, :] @ K[j, :]


def cell_by_loop(Q, K, i, j):
    total = 0.0
    for t in range(Q.shape[1]):
        total += Q[i, t] * K[j, t]
    return total


@pytest.mark.parametrize("fn", [cell, cell_by_loop, lambda Q, K, i, j: float(np.dot(Q[i], K.T[:, j])),
                                lambda Q, K, i, j: np.sum(Q[i, :] * K[j, :])])
def test_right_cell_passes(fn, capsys):
    checks.check_matmul_cell(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda Q, K, i, j: (Q @ K.T)[i, j], "先に Q @ K.T の全部のマスを計算して"),
    (lambda Q, K, i, j: np.dot(Q, K.T)[i, j], "先に Q @ K.T の全部のマスを計算して"),
    (lambda Q, K, i, j: str(Q[i, :] @ K[j, :]), "文字列"),
    (lambda Q, K, i, j: "3.0", "文字列"),
    (lambda Q, K, i, j: Q[i - 1, :] @ K[j, :], "Q の行が 1 つずれて"),
    (lambda Q, K, i, j: Q[i, :] @ K[j - 1, :], "K の行が 1 つずれて"),
    (lambda Q, K, i, j: Q[i, :] @ K[:, j], r"K の j 列め K\[:, j\]"),  # the chapter's cell copied
    (lambda Q, K, i, j: Q[:, i] @ K[j, :], r"Q の i 列め Q\[:, i\]"),
    (lambda Q, K, i, j: Q[j, :] @ K[i, :], "i と j が入れ替わって"),
    (lambda Q, K, i, j: Q[:, i] @ K[:, j], r"Q の i 列め Q\[:, i\] と K の j 列め K\[:, j\]"),
    (lambda Q, K, i, j: Q[i, :] * K[j, :], "足し合わせていません"),
    (lambda Q, K, i, j: Q[i, :] @ K.T, "行 i の全部のマス"),
    (lambda Q, K, i, j: 0.0, r"score_cell\(Q, K, 0, 2\) は .* になるはずが、0.000"),
    (lambda Q, K, i, j: Q @ K.T, "数を 1 つ"),
    (lambda Q, K, i, j: None, "return を書き忘れて"),
])
def test_each_cell_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_matmul_cell(fn)


def test_a_column_of_K_on_the_rectangular_case_alone_crashes_with_where_to_look():
    """Were the square cases right by chance, the rectangular one stops with the sizes and the
    question where column j of Kᵀ is in K, not with the answer."""
    def copied(Q, K, i, j):
        if Q.shape[0] == Q.shape[1]:
            return float(np.dot(Q[i], K.T[:, j]))
        return Q[i, :] @ K[:, j]

    with pytest.raises(CheckFailed) as info:
        checks.check_matmul_cell(copied)
    said = str(info.value)
    assert "エラーで止まりました" in said and "Kᵀ の j 列めが K のどこ" in said and "K[j" not in said, said


def cut(R, W_Q, axis=1):
    """Q, K, V cut out of X @ [W_Q W_K W_V] at the column numbers d_k and 2d_k (d_v is free)."""
    d_k = W_Q.shape[1]
    return tuple(np.split(R, [d_k, 2 * d_k], axis=axis))


def fused(X, W_Q, W_K, W_V):
    return cut(X @ np.hstack([W_Q, W_K, W_V]), W_Q)


def fused_by_index(X, W_Q, W_K, W_V):
    d_k = W_Q.shape[1]
    R = X @ np.concatenate([W_Q, W_K, W_V], axis=1)
    return R[:, :d_k], R[:, d_k:2 * d_k], R[:, 2 * d_k:]


def three_products(X, W_Q, W_K, W_V):
    return X @ W_Q, X @ W_K, X @ W_V


def split_in_three(X, W_Q, W_K, W_V):
    """Right when d_v = d_k only; the check's W_V has a column more, as chapter 06's has."""
    return tuple(np.split(X @ np.hstack([W_Q, W_K, W_V]), 3, axis=1))


def split_rows(X, W_Q, W_K, W_V):
    return cut(X @ np.hstack([W_Q, W_K, W_V]), W_Q, axis=0)


def split_wrong_place(X, W_Q, W_K, W_V):
    return tuple(np.split(X @ np.hstack([W_Q, W_K, W_V]), [2, 5], axis=1))


def stacked(X, W_Q, W_K, W_V):
    return cut(X @ np.vstack([W_Q, W_K, W_V]), W_Q)


@pytest.mark.parametrize("fn", [fused, fused_by_index])
def test_right_fused_passes(fn, capsys):
    checks.check_fused_qkv(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("hidden", [False, True])
def test_a_split_in_three_equal_parts_is_refused_where_d_v_is_not_d_k(hidden):
    """Chapter 06 has d_k = 2, d_v = 3: both the visible check and the hidden test hold the learner
    to the split at column numbers, and say why the equal split failed."""
    with pytest.raises(CheckFailed, match="三等分できませんでした.*d_v = "):
        checks.check_fused_qkv(split_in_three, hidden=hidden)


@pytest.mark.parametrize("fn, hint", [
    (three_products, "X との掛け算を 3 回"),
    (split_rows, "行の方向\\(axis=0\\)に分けていませんか"),
    (split_wrong_place, "分ける位置が"),
    (stacked, "np.vstack"),
    (lambda X, a, b, c: X @ np.hstack([a, b, c]), "3 つの配列"),
    (lambda X, a, b, c: cut(X @ np.hstack([b, a, c]), a), "Q のところに K"),
    (lambda X, a, b, c: (X @ np.hstack([a, b, c]),) * 3, "三つ分の列"),
    (lambda X, a, b, c: (X @ a, X @ b, -(X @ c)), "V の値"),
    (lambda X, a, b, c: None, "return を書き忘れて"),
])
def test_each_fused_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_fused_qkv(fn)


def test_split_by_rows_is_not_called_vstack():
    with pytest.raises(CheckFailed) as info:
        checks.check_fused_qkv(split_rows)
    assert "vstack" not in str(info.value)


@pytest.mark.parametrize("answer", ["変わらない", "変わらない。", "変わらない　", "同じ", " 変わらない "])
def test_order_prediction_accepts(answer, capsys):
    checks.check_order_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("変わる", "ほかのマスの結果は"), ("ときどき変わる", "使う数は変わるでしょうか"), ("時々変わる", "使う数は変わるでしょうか"),
    ("たぶん", "選択肢にありません"), ("", "まだ答えが"),
])
def test_order_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_order_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_matmul_cell(cell, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_matmul_cell(lambda Q, K, i, j: Q[i - 1, :] @ K[j, :], hidden=True)


def test_hidden_fused_test():
    checks.check_fused_qkv(fused, hidden=True)
    with pytest.raises(CheckFailed, match="3 回"):
        checks.check_fused_qkv(three_products, hidden=True)


def stacked_transposed(X, W_Q, W_K, W_V):
    return cut(X @ np.vstack([W_Q.T, W_K.T, W_V.T]), W_Q)


def side_by_side_transposed(X, W_Q, W_K, W_V):
    return cut(X @ np.hstack([W_Q.T, W_K.T, W_V.T]), W_Q)


def wrong_order(X, W_Q, W_K, W_V):
    return cut(np.hstack([W_Q, W_K, W_V]) @ X, W_Q)


@pytest.mark.parametrize("fn", [stacked_transposed, side_by_side_transposed])
def test_transposed_w_is_called_transposed_not_an_order_mistake(fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_fused_qkv(fn)
    assert "転置していませんか" in str(info.value) and "順番" not in str(info.value)


def test_w_before_x_is_the_order_mistake():
    with pytest.raises(CheckFailed, match="掛ける順番"):
        checks.check_fused_qkv(wrong_order)


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_one_number_in_an_array_is_not_one_number(shape):
    """The cell is one number: an array of shape (1,) is refused with its shape."""
    with pytest.raises(CheckFailed, match=rf"数を 1 つ.*shape \({shape[0]},"):
        checks.check_matmul_cell(lambda Q, K, i, j: np.full(shape, Q[i, :] @ K[j, :]))


@pytest.mark.parametrize("hidden", [False, True])
def test_a_cell_rounded_to_a_whole_number_is_not_right(hidden):
    with pytest.raises(CheckFailed, match="丸めて"):
        checks.check_matmul_cell(lambda Q, K, i, j: int(Q[i, :] @ K[j, :]), hidden=hidden)


def test_fused_faces_returned_transposed_are_named_as_transposed():
    def transposed(X, W_Q, W_K, W_V):
        R = X @ np.hstack([W_Q, W_K, W_V])
        d_k = W_Q.shape[1]
        Q, K, V = np.split(R, [d_k, 2 * d_k], axis=1)
        return Q.T, K.T, V.T

    with pytest.raises(CheckFailed) as info:
        checks.check_fused_qkv(transposed)
    assert "転置" in str(info.value) and "axis=0" not in str(info.value)


def test_fused_qkv_praises_one_product_only_when_it_saw_one(capsys):
    def by_broadcasting(X, W_Q, W_K, W_V):  # right values, no matrix product at all
        R = (X[:, :, None] * np.hstack([W_Q, W_K, W_V])[None]).sum(axis=1)
        return tuple(np.split(R, [W_Q.shape[1], 2 * W_Q.shape[1]], axis=1))
    checks.check_fused_qkv(by_broadcasting)
    out = capsys.readouterr().out
    assert out.startswith("✓") and "一回の掛け算" not in out


# ------------------------------------------- 練習 4: a product from the shared axis cut in two


def in_two_right(X, W, k):
    return X[:, :k] @ W[:k, :] + X[:, k:] @ W[k:, :]


def in_two_by_sums(X, W, k):
    """Right another way: each half as a sum of outer products (column of X times row of W)."""
    return sum(np.outer(X[:, t], W[t]) for t in range(k)) + sum(np.outer(X[:, t], W[t]) for t in range(k, len(W)))


def in_two_mixed(X, W, k):
    """Right with one product only: the front half as outer products, the rest with @."""
    return sum(np.outer(X[:, t], W[t]) for t in range(k)) + X[:, k:] @ W[k:]


@pytest.mark.parametrize("fn", [in_two_right, in_two_by_sums, in_two_mixed])
def test_check_matmul_in_two_passes_right_answers(fn, capsys):
    checks.check_matmul_in_two(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_matmul_in_two(fn, hidden=True)


@pytest.mark.parametrize("mistake, fn", [
    ("hstack", lambda X, W, k: np.hstack([X[:, :k] @ W[:k], X[:, k:] @ W[k:]])),
    ("one_half", lambda X, W, k: X[:, :k] @ W[:k]),
    ("one_half", lambda X, W, k: X[:, k:] @ W[k:]),
    ("product", lambda X, W, k: (X[:, :k] @ W[:k]) * (X[:, k:] @ W[k:])),
    ("whole_product", lambda X, W, k: X @ W),
    ("whole_product", lambda X, W, k: np.array(X) @ W),           # a copy the watcher cannot see
    ("whole_product", lambda X, W, k: np.einsum("ik,kj->ij", X, W)),
    ("rows_cut", lambda X, W, k: np.vstack([X[:k] @ W, X[k:] @ W])),
    ("term_twice", lambda X, W, k: X[:, :k + 1] @ W[:k + 1] + X[:, k:] @ W[k:]),
    ("term_twice", lambda X, W, k: X[:, :k] @ W[:k] + X[:, k - 1:] @ W[k - 1:]),
    ("term_missing", lambda X, W, k: X[:, :k] @ W[:k] + X[:, k + 1:] @ W[k + 1:]),
])
def test_check_matmul_in_two_names_each_mistake(mistake, fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_matmul_in_two(fn)
    assert info.value.mistake == mistake
    assert checks.IN_TWO_HINTS[mistake] in str(info.value)


def test_check_matmul_in_two_says_where_a_wrong_cut_crashes():
    with pytest.raises(CheckFailed, match="二つの部分の形"):
        checks.check_matmul_in_two(lambda X, W, k: X[:k] @ W[:k] + X[k:] @ W[k:])
