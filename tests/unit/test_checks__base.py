"""What every check shares: a wrong answer renders as its hint alone; one normaliser for typed
answers; the learner's function is called the same way everywhere."""

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from helpers.checks import _base
from helpers.checks._base import CheckFailed, call_learner, check_choice, normalise_answer


def test_check_failed_is_an_assertion_error_that_renders_as_its_hint_only():
    with pytest.raises(AssertionError) as info:
        _base.fail("ヒント")
    assert isinstance(info.value, CheckFailed)
    assert info.value._render_traceback_() == ["✗ ヒント"]


def test_ipython_shows_one_line_and_no_checker_code(capsys):
    shell = InteractiveShell.instance()
    shell.run_cell("from helpers.checks import check_pudding_prediction\n"
                   "check_pudding_prediction('プリン')")
    err = capsys.readouterr()
    shown = (err.out + err.err).strip().splitlines()
    assert len(shown) <= 3, shown
    assert shown[-1].startswith("✗ "), shown
    text = "\n".join(shown)
    assert "check_choice" not in text and ".py" not in text and "Traceback" not in text


CHOICES = ("速くなる", "変わらない", "壊れる")
SYNONYMS = {"発散": "壊れる", "爆発する": "壊れる"}


@pytest.mark.parametrize("typed, meant", [
    ("壊れる", "壊れる"), ("壊れる　", "壊れる"), (" 壊れる ", "壊れる"), ("壊れる。", "壊れる"),
    ("「壊れる」", "壊れる"), ("発散", "壊れる"), ("爆発する。", "壊れる"), ("変わらない\n", "変わらない"),
    ("ｶﾜﾗﾅｲ", None), ("変わらない!", "変わらない"), ("こわれない", None), ("", None), (3, None),
])
def test_one_normaliser_for_every_typed_answer(typed, meant):
    assert normalise_answer(typed, CHOICES, SYNONYMS) == meant


def test_half_width_kana_are_read_as_full_width():
    assert normalise_answer("ｹｰｷ", ("ケーキ", "プリン")) == "ケーキ"


def test_an_invisible_space_is_shown_in_the_hint():
    with pytest.raises(CheckFailed, match="'ケーキ\\\\u200b'|ケーキ\\u200b"):
        check_choice("ケーキ\u200b", "ケーキ", ("ケーキ", "プリン"), {})


@pytest.mark.parametrize("answer, hint", [
    (None, "まだ答えが入っていません"), ("  ", "まだ答えが入っていません"),
    (np.array([1, 2]), "文字列で"), (5, "文字列で"), ("ラーメン", "選択肢にありません"),
])
def test_what_is_not_a_choice_gets_a_hint_and_never_crashes(answer, hint):
    with pytest.raises(CheckFailed, match=hint):
        check_choice(answer, "ケーキ", ("ケーキ", "プリン"), {})


def test_forgotten_return_is_named():
    def no_return(a):
        a + 1

    with pytest.raises(CheckFailed, match="return を書き忘れて"):
        call_learner(no_return, np.zeros(2), what="f")


def test_changing_an_argument_in_place_is_named_with_its_name():
    def in_place(W_Q, lr):
        W_Q -= lr
        return W_Q

    with pytest.raises(CheckFailed, match="W_Q の中身を書き換えて"):
        call_learner(in_place, np.ones((2, 2)), 0.5, what="update")


def test_a_crash_becomes_a_hint_with_the_advice_for_it():
    def crash(a):
        raise ValueError("boom")

    with pytest.raises(CheckFailed, match=r"ValueError: boom.*形を見て") as info:
        call_learner(crash, 1, what="f", on_error=lambda err: "形を見て")
    assert info.value.__cause__ is None or isinstance(info.value.__context__, ValueError)
