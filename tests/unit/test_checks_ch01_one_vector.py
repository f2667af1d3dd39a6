"""Chapter 01's checks, table-driven: accepted and rejected answers, and the hint of each mistake."""

import numpy as np
import pytest

import helpers
from helpers import checks
from helpers.checks import CheckFailed


def right(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("fn", [right, lambda a, b: np.float64(right(a, b)),
                                lambda a, b: np.dot(a, b) / np.sqrt(a @ a) / np.sqrt(b @ b)])
def test_right_cosine_passes(fn, capsys):
    checks.check_cosine(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


def crash(a, b):
    return a @ b.reshape(1, 2)


@pytest.mark.parametrize("fn, hint", [
    (lambda a, b: float(a @ b), "内積そのもの"),
    (lambda a, b: float(a @ b / np.linalg.norm(a)), "片方の長さ"),
    (lambda a, b: float(a @ b / (a @ a * (b @ b))), "2 乗"),
    (lambda a, b: 0.5, "0.262 になるはずが、0.500 でした"),
    (lambda a, b: np.array([1.0, 2.0]), "数を 1 つ"),
    (lambda a, b: "0.5", "文字列"),
    (lambda a, b: None, "return を書き忘れて"),
    (crash, "エラーで止まりました"),
    ("cosine", "関数を渡して"),
])
def test_each_cosine_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_cosine(fn)


def test_unwritten_stub_is_named():
    def stub(a, b):
        raise NotImplementedError

    with pytest.raises(CheckFailed, match="まだ書かれていません"):
        checks.check_cosine(stub)


@pytest.mark.parametrize("answer", ["ケーキ", "ケーキ　", " ケーキ ", "ｹｰｷ", "ケーキ。", "「ケーキ」"])
def test_pudding_prediction_accepts(answer, capsys):
    checks.check_pudding_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("プリン", "コサイン類似度で比べるなら"), ("プリン　", "コサイン類似度で比べるなら"),
    ("カレー", "70° 以上離れて"), ("照り焼き", "37° ほど上にずれて"), ("キムチ", "60° 以上離れて"), ("", "まだ答えが入っていません"), ("ラーメン", "選択肢にありません"),
    (None, "まだ答えが"), (np.array(["ケーキ"]), "文字列で"),
])
def test_pudding_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_pudding_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_cosine(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_cosine(lambda a, b: float(a @ b), hidden=True)


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_one_number_in_an_array_is_not_one_number(shape):
    """The task asks for a number: the same rule as chapter 05's cell (`_base.as_number`)."""
    with pytest.raises(CheckFailed, match=rf"数を 1 つ.*shape \({shape[0]},"):
        checks.check_cosine(lambda a, b: np.full(shape, right(a, b)))


def test_cosine_refuses_helpers_cosine_similarity_as_the_text_says():
    import helpers
    with pytest.raises(CheckFailed, match=r"helpers\.cosine_similarity を使っています"):
        checks.check_cosine(lambda a, b: float(helpers.cosine_similarity(a[None], b[None])[0, 0]))


def test_euclidean_distance_is_called_a_distance_not_one_length():
    """The first pair was parallel (b = a/2), where |a - b| equals a·b/|a|: a misdiagnosis."""
    with pytest.raises(CheckFailed) as info:
        checks.check_cosine(lambda a, b: float(np.linalg.norm(a - b)))
    assert "距離" in str(info.value) and "片方の長さ" not in str(info.value)


def test_the_first_pair_tells_every_wrong_formula_apart():
    wrong = [lambda a, b: a @ b, lambda a, b: a @ b / np.linalg.norm(a), lambda a, b: a @ b / np.linalg.norm(b),
             lambda a, b: a @ b / np.linalg.norm(a) * np.linalg.norm(b), lambda a, b: np.linalg.norm(a - b),
             lambda a, b: a @ b / (a @ a * (b @ b)), right]
    seen = []

    def spy(a, b):
        seen.append((a, b))
        return 0.5
    with pytest.raises(CheckFailed):
        checks.check_cosine(spy)
    a, b = seen[0]
    values = [float(f(a, b)) for f in wrong]
    assert all(abs(x - y) > 1e-3 for i, x in enumerate(values) for y in values[i + 1:]), values


# -------------------------------------------------- 練習 3: a table of cosines, every pair at once


def cosine_table_right(A, B):
    return (A @ B.T) / (np.linalg.norm(A, axis=1, keepdims=True) * np.linalg.norm(B, axis=1))


def cosine_table_loop(A, B):
    return np.array([[a @ b / (np.linalg.norm(a) * np.linalg.norm(b)) for b in B] for a in A])


@pytest.mark.parametrize("fn", [cosine_table_right, cosine_table_loop])
def test_check_cosine_table_passes_right_answers(fn, capsys):
    checks.check_cosine_table(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_cosine_table(fn, hidden=True)


@pytest.mark.parametrize("mistake, fn", [
    ("dot", lambda A, B: A @ B.T),
    ("whole_norm", lambda A, B: A @ B.T / (np.linalg.norm(A) * np.linalg.norm(B))),
    ("rows_only", lambda A, B: A @ B.T / np.linalg.norm(A, axis=1, keepdims=True)),
    ("cols_only", lambda A, B: A @ B.T / np.linalg.norm(B, axis=1)),
    ("no_keepdims", lambda A, B: A @ B.T / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))),
    ("transposed", lambda A, B: cosine_table_right(B, A)),
    ("swapped_lengths", lambda A, B: A @ B.T / (np.linalg.norm(B, axis=1, keepdims=True)
                                                * np.linalg.norm(A, axis=1))),
    ("squared", lambda A, B: A @ B.T / np.outer((A * A).sum(axis=1), (B * B).sum(axis=1))),
])
def test_check_cosine_table_names_each_mistake(mistake, fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_cosine_table(fn)
    assert info.value.mistake == mistake
    assert checks.COSINE_TABLE_HINTS[mistake] in str(info.value)


def test_a_loop_passes_with_a_note_on_what_the_exercise_practises(capsys):
    """A double loop is a right table (a teacher's grade stays full), but the ✓ says the exercise
    is about broadcasting; a whole-array answer gets no such note."""
    checks.check_cosine_table(lambda A, B: np.array([[right(a, b) for b in B] for a in A]))
    assert checks.COSINE_TABLE_LOOP_NOTE in capsys.readouterr().out
    checks.check_cosine_table(cosine_table_right)
    assert checks.COSINE_TABLE_LOOP_NOTE not in capsys.readouterr().out


@pytest.mark.parametrize("fn", [lambda a, b: a * b, lambda a, b: a * b / (np.linalg.norm(a) * np.linalg.norm(b))])
def test_elementwise_product_is_named_not_just_an_array(fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_cosine(fn)
    assert info.value.mistake == "elementwise" and "成分ごとの掛け算" in str(info.value)


def test_the_pudding_hint_says_cosine_ties_a_word_of_the_same_direction():
    with pytest.raises(CheckFailed) as info:
        checks.check_pudding_prediction("プリン")
    assert "同じ向きの語があれば、その語も 1 で同点" in str(info.value)  # not "cosine's answer" alone


def test_check_cosine_table_refuses_the_helpers_function():
    with pytest.raises(CheckFailed, match="cosine_similarity"):
        checks.check_cosine_table(lambda A, B: helpers.cosine_similarity(A, B))


def test_each_wrong_pudding_answer_gets_its_own_hint():
    messages = set()
    for answer in ("カレー", "キムチ", "照り焼き"):
        with pytest.raises(CheckFailed) as info:
            checks.check_pudding_prediction(answer)
        messages.add(str(info.value).replace(answer, ""))
    assert len(messages) >= 2  # 照り焼き (long, 37° off) is not told what カレー is told


def test_a_wrong_cosine_names_the_components_not_a_length():
    with pytest.raises(CheckFailed) as info:
        checks.check_cosine(lambda a, b: 0.5)
    assert "2 成分のベクトル" in str(info.value) and "長さ 2 のベクトル" not in str(info.value)


def test_dividing_by_the_sum_of_the_lengths_is_named():
    with pytest.raises(CheckFailed) as info:
        checks.check_cosine(lambda a, b: float(a @ b / (np.linalg.norm(a) + np.linalg.norm(b))))
    assert info.value.mistake == "sum_of_lengths" and "長さの和" in str(info.value)


def test_the_pudding_hints_keep_the_space_before_a_number():
    with pytest.raises(CheckFailed) as info:
        checks.check_pudding_prediction("照り焼き")
    assert "プリンの行の 5 語" in str(info.value)
