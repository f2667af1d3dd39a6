"""helpers.checks.ch03_three_roles: chapter 03's exercise checks.

The right answer passes; each typical mistake gets its own hint.
"""

import re

import numpy as np
import pytest
import reference

import helpers
from helpers import checks
from helpers.checks import CheckFailed
from helpers.data import party


def right(Q, K):
    return reference.softmax(Q @ K.T)


def naive(Q, K):  # right, but without subtracting the max: overflows on huge scores
    e = np.exp(Q @ K.T)
    return e / e.sum(axis=1, keepdims=True)


def softmax_cols(s):
    return reference.softmax(s.T).T


MISTAKES = {
    "no_softmax": lambda Q, K: Q @ K.T,
    "unnormalised": lambda Q, K: np.exp(Q @ K.T),
    "no_keepdims": lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=1),
    "whole": lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(),
    "axis0": lambda Q, K: softmax_cols(Q @ K.T),
    "swapped": lambda Q, K: reference.softmax(K @ Q.T),
    "transposed": lambda Q, K: softmax_cols(K @ Q.T),
    "scaled": lambda Q, K: reference.softmax(Q @ K.T / np.sqrt(Q.shape[1])),
    "column_max": lambda Q, K: (lambda e: e / e.sum(axis=1, keepdims=True))(
        np.exp(Q @ K.T - (Q @ K.T).max(axis=0, keepdims=True))),
}


def test_check_party_weights_accepts_the_right_answer(capsys):
    checks.check_party_weights(right)
    assert capsys.readouterr().out.startswith("✓ 正解です。")


def test_check_party_weights_refuses_helpers_softmax_as_the_text_says():
    for hidden in (False, True):
        with pytest.raises(CheckFailed, match=r"helpers\.softmax を使っています"):
            checks.check_party_weights(lambda Q, K: helpers.softmax(Q @ K.T, axis=-1), hidden=hidden)


def test_subtracting_the_tables_maximum_is_named_underflow_in_both_tests():
    """S - S.max() does not overflow, but a row far below the table's maximum underflows to
    0 / 0: the visible check and the hidden test both say so (it was ✓, then an overflow ✗)."""
    def global_max(Q, K):
        S = Q @ K.T
        e = np.exp(S - S.max())
        return e / e.sum(axis=1, keepdims=True)

    for hidden in (False, True):
        with np.errstate(all="ignore"), pytest.raises(CheckFailed) as info:
            checks.check_party_weights(global_max, hidden=hidden)
        assert checks.PARTY_HINTS["global_max"] in str(info.value) and "アンダーフロー" in str(info.value)
        assert checks.PARTY_HINTS["overflow"] not in str(info.value)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_check_party_weights_names_each_mistake(mistake):
    with pytest.raises(AssertionError) as info:
        checks.check_party_weights(MISTAKES[mistake])
    message = str(info.value)
    assert checks.PARTY_HINTS[mistake] in message
    others = [h for name, h in checks.PARTY_HINTS.items() if name != mistake]
    assert not any(h in message for h in others)


def test_check_party_weights_variants_are_all_different():
    p = party()
    variants = checks.party_weight_variants(p.Q, p.K)
    names = sorted(variants)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not np.allclose(variants[a], variants[b]), (a, b)
    # overflow, global_max and clipped differ from right only on huge scores
    assert {v.split(":")[0] for v in variants} - {"right"} == (
        set(checks.PARTY_HINTS) - {"overflow", "global_max", "clipped", "row_min"})


@pytest.mark.parametrize("hidden", [False, True])
def test_subtracting_the_rows_minimum_is_named_in_both_tests(hidden):
    def row_min(Q, K):
        S = Q @ K.T
        e = np.exp(S - S.min(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    with pytest.raises(CheckFailed) as info, np.errstate(all="ignore"):
        checks.check_party_weights(row_min, hidden=hidden)
    assert info.value.mistake == "row_min" and checks.PARTY_HINTS["row_min"] in str(info.value)


@pytest.mark.parametrize("hidden", [False, True])
def test_check_party_weights_clipped_scores_fail_visibly_and_hidden(hidden):
    def clipped(Q, K):
        return reference.softmax(np.clip(Q @ K.T, -700, 700))
    with pytest.raises(CheckFailed) as info:
        checks.check_party_weights(clipped, hidden=hidden)
    assert checks.PARTY_HINTS["clipped"] in str(info.value) and info.value.mistake == "clipped"


def test_check_party_weights_overflow_hint():
    with np.errstate(over="ignore", invalid="ignore"), pytest.raises(AssertionError) as info:
        checks.check_party_weights(naive)
    assert checks.PARTY_HINTS["overflow"] in str(info.value)
    assert "得点が千を超える" in str(info.value)


def test_check_party_weights_swapped_on_a_rectangle_names_the_shape():
    def swapped_rectangle(Q, K):  # right on a square, but K @ Q.T whenever it is not square
        return right(Q, K) if Q.shape[0] == K.shape[0] else reference.softmax(K @ Q.T)

    with pytest.raises(AssertionError) as info:
        checks.check_party_weights(swapped_rectangle)
    assert "(5, 3)" in str(info.value) and checks.PARTY_HINTS["swapped"] in str(info.value)


@pytest.mark.parametrize(
    "fn, words",
    [
        ("not a function", "関数"),
        (lambda Q, K: (_ for _ in ()).throw(NotImplementedError), "まだ書かれていません"),
        (lambda Q, K: Q @ K, "エラーで止まりました"),
        (lambda Q, K: "重み", "数の配列"),
        (lambda Q, K: right(Q, K)[:, :2], "(探す人の数, 名札の数)"),
        (lambda Q, K: right(Q, K) * 2, "各行の和が 1 になっていません"),
        (lambda Q, K: right(Q, K)[:, ::-1], "値が違います"),
    ],
)
def test_check_party_weights_other_failures(fn, words):
    with pytest.raises(AssertionError, match=re.escape(words)):
        checks.check_party_weights(fn)


def test_symmetry_prediction_right(capsys):
    checks.check_party_symmetry_prediction("対称にならない")
    out = capsys.readouterr().out
    assert out.startswith("✓ 正解です。") and "行の合計" in out  # the reason comes with the ✓


@pytest.mark.parametrize(
    "answer, words",
    [
        ("対称になる", "何で割るのでしょう"),
        ("人による", "何と何が等しくなければ"),
        ("", "まだ答えが入っていません"),
        (None, "まだ答えが入っていません"),
        ("たぶん", "選択肢にありません"),
    ],
)
def test_symmetry_prediction_wrong(answer, words):
    with pytest.raises(AssertionError, match=words):
        checks.check_party_symmetry_prediction(answer)


# ---------------------------------------------------------------- table-driven (issue 11)


def max_without_keepdims(Q, K):
    S = Q @ K.T
    e = np.exp(S - S.max(axis=1))
    return e / e.sum(axis=1, keepdims=True)


def stable_but_unnormalised(Q, K):
    S = Q @ K.T
    return np.exp(S - S.max(axis=1, keepdims=True))


def stable_no_keepdims_on_sum(Q, K):
    S = Q @ K.T
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return e / e.sum(axis=1)


@pytest.mark.parametrize("fn", [right, lambda Q, K: reference.softmax(Q @ K.T, axis=1),
                                lambda Q, K: reference.softmax(Q @ K.T)])
def test_right_party_weights_pass(fn, capsys):
    checks.check_party_weights(fn)
    assert capsys.readouterr().out.startswith("✓ 正解です")


@pytest.mark.parametrize("fn, hint", [
    (lambda Q, K: Q @ K.T, "そのまま返して"),
    (lambda Q, K: np.exp(Q @ K.T), "np.exp を取ったところで止まって"),
    (stable_but_unnormalised, "最大値を引いて np.exp を取るところまでは正しい"),
    (max_without_keepdims, "最大値を引くところで keepdims が抜けて"),
    (stable_no_keepdims_on_sum, "keepdims を忘れて"),
    (lambda Q, K: reference.softmax(Q @ K.T, axis=0), "列の方向"),
    (lambda Q, K: reference.softmax(K @ Q.T, axis=1), "Q と K の役目が逆"),
    (lambda Q, K: reference.softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=1), "√d_k"),
    (lambda Q, K: np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(axis=1, keepdims=True), "オーバーフロー"),
    (lambda Q, K: None, "return を書き忘れて"),
])
def test_each_party_mistake_gets_its_hint(fn, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_party_weights(fn)


@pytest.mark.parametrize("answer", ["対称にならない", "対称にならない。", " 対称にならない　", "非対称", "対称ではない",
                                    "対称になりません"])
def test_symmetry_prediction_accepts(answer, capsys):
    checks.check_party_symmetry_prediction(answer)
    assert "✓" in capsys.readouterr().out


@pytest.mark.parametrize("answer, hint", [
    ("対称になる", "何で割るのでしょう"), ("対称", "何で割るのでしょう"), ("左右対称", "何で割るのでしょう"),
    ("人による", "何と何が等しくなければ"), ("わからない", "選択肢にありません"), ("", "まだ答えが"),
])
def test_symmetry_prediction_rejects_with_hint(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        checks.check_party_symmetry_prediction(answer)


def test_hidden_test_is_silent_on_the_right_answer_and_names_a_mistake(capsys):
    checks.check_party_weights(right, hidden=True)
    assert capsys.readouterr().out == ""
    with pytest.raises(CheckFailed):
        checks.check_party_weights(max_without_keepdims, hidden=True)


@pytest.mark.parametrize("answer", ["対称になる", "人による"])
def test_symmetry_hints_do_not_state_the_rule(answer):
    with pytest.raises(CheckFailed) as info:
        checks.check_party_symmetry_prediction(answer)
    for rule in ("どちらも q_i · q_j", "入れ替えても同じ", "結論は同じ", "対称にならない", "合計が違", "分母が違",
                 "そろっていない"):
        assert rule not in str(info.value)



# ------------------------------------ 練習 3: the attention each person receives from the others


def received_right(Q, K):
    S = Q @ K.T
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A.sum(axis=0) - np.diag(A)


def received_loop(Q, K):
    A = reference.softmax(Q @ K.T)
    return np.array([sum(A[i, j] for i in range(len(A)) if i != j) for j in range(len(A))])


@pytest.mark.parametrize("fn", [received_right, received_loop])
def test_check_received_passes_right_answers(fn, capsys):
    checks.check_received(fn)
    assert "✓" in capsys.readouterr().out
    checks.check_received(fn, hidden=True)


def _masked_first(Q, K):
    S = Q @ K.T + np.where(np.eye(len(Q), dtype=bool), -np.inf, 0.0)
    return reference.softmax(S).sum(axis=0)


@pytest.mark.parametrize("mistake, fn", [
    ("with_self", lambda Q, K: reference.softmax(Q @ K.T).sum(axis=0)),
    ("row_sums", lambda Q, K: reference.softmax(Q @ K.T).sum(axis=1) - np.diag(reference.softmax(Q @ K.T))),
    ("row_sums_with_self", lambda Q, K: reference.softmax(Q @ K.T).sum(axis=1)),  # all 1: not "rounded"
    ("scores", lambda Q, K: (Q @ K.T).sum(axis=0) - np.diag(Q @ K.T)),
    ("masked_before", _masked_first),
    ("swapped", lambda Q, K: (lambda A: A.sum(axis=0) - np.diag(A))(reference.softmax(K @ Q.T))),
    ("mean", lambda Q, K: (lambda A: (A.sum(axis=0) - np.diag(A)) / len(A))(reference.softmax(Q @ K.T))),
    ("minus_one", lambda Q, K: reference.softmax(Q @ K.T).sum(axis=0) - 1),
])
def test_check_received_names_each_mistake(mistake, fn):
    with pytest.raises(CheckFailed) as info:
        checks.check_received(fn)
    assert info.value.mistake == mistake
    assert checks.RECEIVED_HINTS[mistake] in str(info.value)


def test_row_max_then_the_tables_sum_is_named_whole():
    def whole_after_row_max(Q, K):
        S = Q @ K.T
        e = np.exp(S - S.max(axis=1, keepdims=True))
        return e / e.sum()

    with pytest.raises(CheckFailed) as info:
        checks.check_party_weights(whole_after_row_max)
    assert info.value.mistake == "whole" and checks.PARTY_HINTS["whole"] in str(info.value)
