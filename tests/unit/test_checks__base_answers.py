"""helpers.checks._base.answers: typed answers read by one rule."""


import numpy as np
import pytest

from helpers.checks._base import (
    CheckFailed,
    answers,
    check_choice,
    normalise_answer,
)


def test_check_choice(capsys):
    hints = {"A": "A の説明", "B": "B ではありません"}
    check_choice("A", "A", ("A", "B", "C"), hints)
    assert capsys.readouterr().out == "✓ 正解です。A の説明\n"
    with pytest.raises(AssertionError, match="B ではありません"):
        check_choice("B", "A", ("A", "B", "C"), hints)
    with pytest.raises(AssertionError, match="「C」ではありません"):
        check_choice("C", "A", ("A", "B", "C"), hints)
    with pytest.raises(AssertionError, match="選択肢にありません.*\"A\"、\"B\"、\"C\""):
        check_choice("D", "A", ("A", "B", "C"), hints)
    for empty in (None, ""):
        with pytest.raises(AssertionError, match="まだ答えが入っていません"):
            check_choice(empty, "A", ("A", "B", "C"), hints)


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


@pytest.mark.parametrize("typed, meant", [
    ("変わりません", "変わらない"), ("変わります", "変わる"), ("対称になります。", "対称になる"),
    ("壊れます", "壊れる"), ("エラーです", "エラー"), ("けーき", "ケーキ"), ("ケーキです", "ケーキ"),
    ("変わらないと思います", "変わらない"), ("均等になります", "均等"), ("発散します", "発散する"),
    ("エラーになると思います", "エラー"), ("対称になりません", "対称にならない"),
])
def test_a_polite_or_hiragana_answer_means_its_choice(typed, meant):
    choices = ("変わる", "変わらない", "対称になる", "対称にならない", "壊れる", "エラー", "ケーキ",
               "均等", "発散する")
    assert answers.normalise_answer(typed, choices) == meant
