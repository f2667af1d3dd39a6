"""Chapter 04's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

from helpers import checks
from helpers.checks import QUESTION_MATRIX, CheckFailed


def faces(x, W_Q_saved, W_K_saved, W_V_saved):
    return x @ W_Q_saved.T, x @ W_K_saved.T, x @ W_V_saved.T


def crash(x, W_Q, W_K, W_V):
    return W_Q @ x, W_K @ x, W_V @ x


def test_right_faces_pass(capsys):
    checks.check_three_faces(faces)
    checks.check_three_faces(lambda x, *Ws: tuple((W @ x.T).T for W in Ws))  # the column style, turned back
    assert capsys.readouterr().out.count("✓ 正解です") == 2


@pytest.mark.parametrize("fn, hint", [
    (lambda x, a, b, c: (a @ x.T, b @ x.T, c @ x.T), "縦一列"),
    (lambda x, a, b, c: (x @ a, x @ b, x @ c), "そのまま右からかけた x @ W"),
    (crash, "エラーで止まりました.*かける順番と、行列の形"),
    (lambda x, a, b, c: (x * a, x * b, x * c), "成分ごとの掛け算"),
    (lambda x, a, b, c: (x[0] @ a.T, x[0] @ b.T, x[0] @ c.T), "1 次元"),
    (lambda x, a, b, c: (x @ b.T, x @ a.T, x @ c.T), "q のところに k"),
    (lambda x, a, b, c: (x @ a.T, x @ b.T), "3 つの配列"),
    (lambda x, a, b, c: (x @ a.T, x @ b.T, 2 * (x @ c.T)), "v の値が違います"),
    (lambda x, a, b, c: (x @ a.T, x @ b.T, np.ones((2, 2))), "v の形が違います"),
    (lambda x, a, b, c: None, "return を書き忘れて"),
    ("three_faces", "関数を渡して"),
])
def test_each_faces_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_three_faces(fn)


def test_the_saved_matrices_are_the_books_transposed():
    """Each case hands over (d_k × d_model) matrices: x @ W fails on every case but the square one."""
    from helpers.checks.ch04_three_matrices import _face_cases
    for hidden in (False, True):
        for x, *Ws in _face_cases(hidden):
            assert all(W.shape[1] == x.shape[1] for W in Ws)
        assert any(W.shape[0] != W.shape[1] for _, *Ws in _face_cases(hidden) for W in Ws)


@pytest.mark.parametrize("W", [QUESTION_MATRIX, [[-1, 0.5, 1], [1, 0, 1]], np.array([[-1, 0.5, 1], [1, 0, 1]])])
def test_right_question_matrix_passes(W, capsys):
    checks.check_question_matrix(W)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("W, hint", [
    (QUESTION_MATRIX.T, "転置"), (QUESTION_MATRIX[:, [1, 0, 2]], "1 成分めと 2 成分めが入れ替わって"),
    (QUESTION_MATRIX[::-1], "甘さの行と辛さの行が入れ替わって"), ([[1.0, 0.5, 1.0], [-1.0, 0.0, 1.0]], "符号が逆"),
    ([[0.0, 0.5], [1.0, 0.0]], r"\(2, 3\)"),
    (None, "まだ W_mine"), ([[np.nan, 0, 0], [1, 0, 0]], "NaN"), ("W", "数を並べた配列"), (np.array([[...], [...]]), "まだ ... が残って"),
    ([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], "カレー"), (-QUESTION_MATRIX, "どれも符号だけ逆"),
])
def test_each_question_matrix_mistake_gets_its_hint(W, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_question_matrix(W)


@pytest.mark.parametrize("W", [QUESTION_MATRIX + 1j, (QUESTION_MATRIX + 0j).tolist(), QUESTION_MATRIX.astype(complex)])
def test_complex_numbers_are_told_as_any_other_non_numbers(W, recwarn):
    """numpy would cast a complex W_mine with a warning, dropping the imaginary part (even a
    zero one): the check names it as any other value that is not real numbers, with no warning."""
    with pytest.raises(CheckFailed, match="実数でないもの") as err:
        checks.check_question_matrix(W)
    assert err.value.mistake == "not_numbers" and not recwarn.list


def test_hidden_must_be_true_or_false():
    """`hidden=` is the grade cells' switch: "yes" or 1 would run the hidden cases silently."""
    from helpers._validate import HelpersTypeError

    for wrong in ("yes", 1, None):
        with pytest.raises(HelpersTypeError, match="hidden.*True か False"):
            checks.check_question_matrix(QUESTION_MATRIX, hidden=wrong)
    checks.check_question_matrix(QUESTION_MATRIX, hidden=np.True_)  # numpy's bool is a bool


def test_transposed_hint_does_not_give_the_answer_away():
    with pytest.raises(CheckFailed) as err:
        checks.check_question_matrix(QUESTION_MATRIX.T)
    assert "-1" not in str(err.value) and "0.5" not in str(err.value)


@pytest.mark.parametrize("answer", [
    "(5, 3)", "(5,3)", "5×3", "5x3", "（５，３）", " (5, 3) ", "(5, 3)。", "5 行 3 列", "(5, 3)です", (5, 3), [5, 3],
    np.array([5, 3]), np.zeros((5, 3)).shape,
])
def test_q_shape_prediction_accepts(answer, capsys):
    checks.check_q_shape_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("(3, 5)", "1 行が 1 語"), ((5, 2), "X の形"), ("2×3", "W_Q の形"), ("(1, 3)", "1 語ぶん"),
    ("(4, 4)", "選択肢にありません"), ("", "まだ答えが"), (np.array([5, 2]), "X の形"),
    (np.array([[5, 3]]), "選択肢にありません|文字列で"), ("5 行", "選択肢にありません"),
    ((5, 3, 1), "選択肢にありません"),
])
def test_q_shape_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_q_shape_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_three_faces(faces, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_three_faces(lambda x, a, b, c: (x @ a, x @ b, x @ c), hidden=True)


def test_hidden_question_matrix_test():
    checks.check_question_matrix(QUESTION_MATRIX, hidden=True)
    with pytest.raises(CheckFailed, match="転置"):
        checks.check_question_matrix(QUESTION_MATRIX.T, hidden=True)


GLOBAL_X = np.array([[1.0, 2.0]])
GLOBAL_W_Q = np.eye(2)


@pytest.mark.parametrize("fn, unused", [
    (lambda x_in, W_Q, W_K, W_V: (GLOBAL_X @ W_Q.T, GLOBAL_X @ W_K.T, GLOBAL_X @ W_V.T), "引数の x を変えても"),
    (lambda x, W_Q, W_K, W_V: (x @ GLOBAL_W_Q.T, x @ W_K.T, x @ W_V.T), "引数の W_Q_saved を変えても"),
])
def test_a_function_that_reads_the_notebooks_variables_is_told_so(fn, unused):
    with pytest.raises(CheckFailed, match=unused):
        checks.check_three_faces(fn)


def test_an_ordinary_wrong_value_is_not_blamed_on_global_variables():
    with pytest.raises(CheckFailed) as info:
        checks.check_three_faces(lambda x, W_Q, W_K, W_V: (x @ W_Q.T + 1, x @ W_K.T, x @ W_V.T))
    assert "引数" not in str(info.value)


def test_three_faces_refuses_helpers_qkv_as_the_text_says():
    import helpers
    with pytest.raises(CheckFailed, match=r"helpers\.qkv を使っています"):
        checks.check_three_faces(lambda x, *Ws: helpers.qkv(x, *(W.T for W in Ws)))


def test_w_mine_fallback_does_not_spell_out_the_matrix():
    with pytest.raises(CheckFailed) as info:
        checks.check_question_matrix(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0]]))
    message = str(info.value)
    assert "のはずが" in message or "になるはずが" in message
    assert "0·甘さ" not in message and "0.5·甘さ" not in message and "並べて" not in message
    assert "0.150" not in message  # カレー's second component, 0.3 / 2: the rule itself


# ------------------------------------------------ 練習 4: undo W_Q (x from its question q)


@pytest.mark.parametrize("fn", [lambda q, W: q @ np.linalg.inv(W),
                                lambda q, W: np.linalg.solve(W.T, q.T).T])
def test_check_undo_W_passes_right_answers(fn, capsys):
    checks.check_undo_W(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_undo_W(fn, hidden=True)


@pytest.mark.parametrize("mistake, fn", [
    ("forward", lambda q, W: q @ W),
    ("transpose", lambda q, W: q @ W.T),
    ("transposed_inverse", lambda q, W: (np.linalg.inv(W) @ q.T).T),
    ("transposed_inverse", lambda q, W: q @ np.linalg.inv(W.T)),  # the same numbers, written as a row
    ("column", lambda q, W: np.linalg.inv(W) @ q.T),
    ("reciprocal", lambda q, W: q @ (1 / W)),
    ("elementwise", lambda q, W: q / W),
])
def test_check_undo_W_names_each_mistake(mistake, fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_undo_W(fn)
    assert info.value.mistake == mistake
    assert checks.UNDO_HINTS[mistake] in str(info.value)


def test_the_transposed_inverse_hint_fits_either_way_of_writing_it():
    """q @ inv(W.T) and (inv(W) @ q.T).T give the same numbers: the hint names neither's code
    (a reader who wrote the first was told of a column-vector convention they never used)."""
    assert "縦ベクトル" not in checks.UNDO_HINTS["transposed_inverse"]
    assert "左から" not in checks.UNDO_HINTS["transposed_inverse"]


def test_three_faces_wrong_values_do_not_show_the_expected_face():
    with pytest.raises(CheckFailed) as info:
        checks.check_three_faces(lambda x, W_Q, W_K, W_V: (x @ W_Q.T + 1, x @ W_K.T, x @ W_V.T))
    x, W_Q, *_ = checks.ch04_three_matrices._face_cases()[0]
    want = np.round(x @ W_Q.T, 3).tolist()
    assert info.value.mistake == "wrong_values" and str(want) not in str(info.value)
    assert "1 行めは" in str(info.value)
