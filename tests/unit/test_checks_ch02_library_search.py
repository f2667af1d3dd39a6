"""helpers.checks.ch02_library_search: chapter 02's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import re

import numpy as np
import pytest
import reference

import helpers
from helpers import checks, softmax
from helpers.checks import (
    SOFT_LOOKUP_HINTS,
    CheckFailed,
    check_soft_lookup,
    check_temperature_prediction,
)
from helpers.checks.ch02_library_search import _soft_lookup_cases, _soft_lookup_variants


def right(q, K, V, temperature, on_shelf):
    s = q @ K[on_shelf].T / temperature
    e = np.exp(s - s.max())
    return e / e.sum() @ V[on_shelf]


def hidden_by_minus_inf(q, K, V, temperature, on_shelf):
    return helpers.softmax(np.where(on_shelf, q @ K.T, -np.inf), temperature=temperature) @ V


def test_check_soft_lookup_accepts_the_right_answer(capsys):
    check_soft_lookup(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_soft_lookup_accepts_helpers_and_a_mask_and_asks_for_a_row(capsys):
    check_soft_lookup(lambda q, K, V, T, on: helpers.scaled_dot_product_attention(
        q, K[on], V[on], scale=False, temperature=T)[0])
    check_soft_lookup(hidden_by_minus_inf)
    assert capsys.readouterr().out.count("✓ 正解です。") == 2
    with pytest.raises(AssertionError, match="1×d_v の横一列"):
        check_soft_lookup(lambda q, K, V, T, on: right(q, K, V, T, on).reshape(-1))


def _masked(s, on):
    return np.where(on, s, -np.inf)


MISTAKES = {
    "ignores_shelf": lambda q, K, V, T, on: reference.softmax(q @ K.T / T) @ V,
    "zeroed_after": lambda q, K, V, T, on: (reference.softmax(q @ K.T / T) * on) @ V,
    "zero_score": lambda q, K, V, T, on: reference.softmax(q @ K.T * on / T) @ V,
    "inverted": lambda q, K, V, T, on: right(q, K, V, T, ~on),
    "zeroed_rows": lambda q, K, V, T, on: reference.softmax(q @ (K * on[:, None]).T / T) @ (V * on[:, None]),
    "weights": lambda q, K, V, T, on: reference.softmax(_masked(q @ K.T, on) / T),
    "keys": lambda q, K, V, T, on: reference.softmax(_masked(q @ K.T, on) / T) @ K,
    "axis0": lambda q, K, V, T, on: reference.softmax(q @ K[on].T / T, axis=0) @ V[on],
    "raw": lambda q, K, V, T, on: (q @ K[on].T) @ V[on],
    "no_exp": lambda q, K, V, T, on: (q @ K[on].T) / (q @ K[on].T).sum() @ V[on],
    "unnormalised": lambda q, K, V, T, on: np.exp(q @ K[on].T / T) @ V[on],
    "no_temperature": lambda q, K, V, T, on: reference.softmax(q @ K[on].T) @ V[on],
    "times_temperature": lambda q, K, V, T, on: reference.softmax(q @ K[on].T * T) @ V[on],
    "sqrt": lambda q, K, V, T, on: reference.softmax(q @ K[on].T / np.sqrt(K.shape[1]) / T) @ V[on],
    "argmax": lambda q, K, V, T, on: V[on][np.argmax(q @ K[on].T)],
    "mean": lambda q, K, V, T, on: V[on].mean(axis=0, keepdims=True),
}


def test_every_variant_has_a_hint_and_a_mistake():
    assert set(SOFT_LOOKUP_HINTS) == set(MISTAKES) == {name.split(":")[0] for name in _soft_lookup_variants(
        *_soft_lookup_cases()[0]
    )} - {"right"}


def test_the_weights_of_the_books_on_the_shelf_alone_get_the_weights_hint():
    with pytest.raises(CheckFailed) as info:
        check_soft_lookup(lambda q, K, V, T, on: reference.softmax(q @ K[on].T / T))
    assert info.value.mistake == "weights" and SOFT_LOOKUP_HINTS["weights"] in str(info.value)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_check_soft_lookup_names_each_mistake(mistake):
    with pytest.raises(CheckFailed, match=re.escape(SOFT_LOOKUP_HINTS[mistake])) as info:
        check_soft_lookup(MISTAKES[mistake])
    assert info.value.mistake == mistake


def test_soft_lookup_variants_differ_from_the_right_answer_in_some_case():
    """Each mistake is caught by at least one case (temperature mistakes need T ≠ 1)."""
    for name in SOFT_LOOKUP_HINTS:
        caught = False
        for case in _soft_lookup_cases():
            v = _soft_lookup_variants(*case)
            wrong, good = v[name].reshape(-1), v["right"].reshape(-1)
            caught |= wrong.shape != good.shape or not np.allclose(wrong, good)
        assert caught, name


def test_every_case_has_a_book_on_loan_and_one_on_the_shelf():
    for hidden in (False, True):
        for *_, on_shelf in _soft_lookup_cases(hidden):
            assert on_shelf.dtype == bool and on_shelf.any() and not on_shelf.all()


def test_check_soft_lookup_not_written_yet():
    def stub(q, K, V, temperature, on_shelf):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="まだ書かれていません"):
        check_soft_lookup(stub)


def test_check_soft_lookup_crash_becomes_a_hint():
    with pytest.raises(AssertionError, match=r"エラーで止まりました.*行列の積.*の形が合いません.*q が \(1, 2\)、K が \(5, 2\)、V が \(5, 3\).*\(1, 3\) になるはず"):
        check_soft_lookup(lambda q, K, V, T, on: helpers.softmax(q @ K[on].T) @ V[on].T)


def test_check_soft_lookup_wrong_shape_and_wrong_numbers():
    with pytest.raises(AssertionError, match="形は中身 1 冊ぶん"):
        check_soft_lookup(lambda q, K, V, T, on: np.zeros((2, 7)))
    with pytest.raises(AssertionError, match="になるはずが"):
        check_soft_lookup(lambda q, K, V, T, on: right(q, K, V, T, on) + 0.5)
    with pytest.raises(AssertionError, match="数の配列を返して"):
        check_soft_lookup(lambda q, K, V, T, on: "答え")


def test_temperature_prediction_right(capsys):
    check_temperature_prediction("一冊", "平均")
    assert capsys.readouterr().out.startswith("✓ 正解です。")


@pytest.mark.parametrize(
    "small, large, words",
    [
        ("平均", "平均", "small_T:温度をとても小さく"),
        ("ゼロ", "平均", "small_T:答えは、重みで中身を混ぜた"),
        ("変わらない", "平均", "small_T:温度は得点を割る数"),
        ("一冊", "一冊", "large_T:温度をとても大きく"),
        ("一冊", "ゼロ", "large_T:答えは、重みで中身を混ぜた"),
        ("一冊", "変わらない", "large_T:温度は得点を割る数"),
        ("", "平均", "small_T にまだ答え"),
        ("一冊", None, "large_T にまだ答え"),
        ("ひとつ", "平均", "選択肢にありません"),
    ],
)
def test_temperature_prediction_hints(small, large, words):
    with pytest.raises(AssertionError, match=words):
        check_temperature_prediction(small, large)


# ---------------------------------------------------------------- table-driven (issue 11)


def by_hand(q, K, V, temperature, on_shelf):
    s = np.where(on_shelf, q @ K.T / temperature, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def column_scores(q, K, V, temperature, on_shelf):
    w = softmax(K @ q.T, temperature=temperature)
    return w @ V


@pytest.mark.parametrize("fn", [right, by_hand, hidden_by_minus_inf])
def test_right_soft_lookup_passes(fn, capsys):
    checks.check_soft_lookup(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda q, K, V, T, on: softmax(q @ K[on].T, temperature=T) @ V[on] * 0 + softmax(q @ K.T, temperature=T) @ V,
     "貸し出し中の本の中身も混ざって"),
    (lambda q, K, V, T, on: (softmax(q @ K.T, temperature=T) * on) @ V, "配り直しましょう"),
    (lambda q, K, V, T, on: softmax(q @ K.T * on, temperature=T) @ V, "得点を 0 にしていませんか"),
    (lambda q, K, V, T, on: softmax(np.where(on, q @ K.T, -np.inf), temperature=T), "重み\\(ソフトマックスの結果\\)をそのまま"),
    (lambda q, K, V, T, on: softmax(np.where(on, q @ K.T, -np.inf), temperature=T) @ K, "見出し K を重みで混ぜて"),
    (lambda q, K, V, T, on: (q @ K[on].T) @ V[on], "そのまま重みに"),
    (lambda q, K, V, T, on: np.exp(q @ K[on].T / T) @ V[on], "取ったところで止まって"),
    (lambda q, K, V, T, on: softmax(q @ K[on].T) @ V[on], "温度 temperature が効いていません"),
    (lambda q, K, V, T, on: softmax(q @ K[on].T * T) @ V[on], "温度を掛けて"),
    (lambda q, K, V, T, on: V[on][int(np.argmax(q @ K[on].T))], "いちばん得点の高い本"),
    (lambda q, K, V, T, on: right(q, K, V, T, on)[0], r"shape \(\d,\) で返ってきました"),
    (lambda q, K, V, T, on: right(q, K, V, T, on).T, r"shape \(\d, 1\) で返ってきました"),
    (column_scores, r"得点が 5×1 の縦一列.*横一列 \(1, 5\)"),
    (lambda q, K, V, T, on: None, "return を書き忘れて"),
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
    ("平均", "平均", "small_T:温度をとても小さく"),
    ("一冊", "一冊", "large_T:温度をとても大きく"),
    ("ゼロ", "平均", "small_T:答えは、重みで中身を混ぜた"),
    ("一冊", "変わらない。", "large_T:温度は得点を割る数"),
    ("", "平均", "small_T にまだ答えが"),
    ("一冊", "たくさん", "large_T の「たくさん」は選択肢にありません"),
    ("一冊", None, "large_T にまだ答えが"),
])
def test_temperature_prediction_rejects_with_hint(small, large, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_temperature_prediction(small, large)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_soft_lookup(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed) as info:
        checks.check_soft_lookup(lambda q, K, V, T, on: softmax(q @ K.T, temperature=T) @ V, hidden=True)
    assert info.value.mistake == "ignores_shelf"


def test_scores_made_a_column_are_not_told_to_use_axis_minus_one_alone():
    """K @ q.T with axis=-1 softmaxes each score alone: the hint names the scores' layout (a row or
    a column), not only the axis."""
    def column(q, K, V, temperature, on_shelf):
        s = K[on_shelf] @ q.T / temperature
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)).T @ V[on_shelf]

    with pytest.raises(CheckFailed) as info:
        check_soft_lookup(column)
    assert "縦一列" in str(info.value)


@pytest.mark.parametrize("fn", [
    lambda q, K, V, T, on: softmax(q @ K.T, temperature=T),
    lambda q, K, V, T, on: softmax(q @ K.T) @ V.T,
    column_scores,
    lambda q, K, V, T, on: right(q, K, V, T, on)[0],
])
def test_soft_lookup_messages_never_hand_over_the_code(fn):
    """What was expected and what came, with sizes; never the solution's code."""
    with pytest.raises(CheckFailed) as info:
        checks.check_soft_lookup(fn)
    assert "weights @ V" not in str(info.value) and "q (1×d_k) @ K.T" not in str(info.value)


@pytest.mark.parametrize("small, large", [("平均", "平均"), ("一冊", "一冊"), ("ゼロ", "平均"), ("一冊", "ゼロ")])
def test_temperature_hints_do_not_state_the_rule(small, large):
    with pytest.raises(CheckFailed) as info:
        checks.check_temperature_prediction(small, large)
    for rule in ("同じ重みが配られ", "1/n", "集中", "差はむしろ広がり", "いつでも 1"):
        assert rule not in str(info.value)


@pytest.mark.parametrize("small, large", [("平均", "平均"), ("一冊", "一冊"), ("変わらない", "変わらない")])
def test_temperature_hints_point_to_something_the_learner_can_run(small, large):
    """The answer's figure is folded inside the hidden answer: a hint points to a call instead."""
    with pytest.raises(CheckFailed) as info:
        check_temperature_prediction(small, large)
    assert "答え合わせの図" not in str(info.value) and "helpers.softmax(scores, temperature=" in str(info.value)


def test_soft_lookup_hints_name_the_steps_as_the_problem_text_does():
    """The text names three steps, 得点・重み・混ぜる, without numbers: a hint says which by name."""
    for mistake, hint in checks.SOFT_LOOKUP_HINTS.items():
        assert not re.search(r"手順 ?\d", hint), mistake
