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
    ("ｶﾜﾗﾅｲ", "変わらない"), ("こわれる", "壊れる"), ("変わらない!", "変わらない"), ("こわれない", None), ("", None), (3, None),
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


@pytest.mark.parametrize("typed, choices, meant", [
    ("いっさつ", ("一冊", "平均"), "一冊"), ("きんとう", ("均等", "自分"), "均等"),
    ("へいきん", ("一冊", "平均"), "平均"), ("たいしょうになります", ("対称になる", "人による"), "対称になる"),
    ("ときどきかわる", ("変わる", "ときどき変わる"), "ときどき変わる"), ("テリヤキ", ("照り焼き",), "照り焼き"),
])
def test_a_kanji_choice_may_be_typed_as_its_reading(typed, choices, meant):
    assert normalise_answer(typed, choices) == meant


@pytest.mark.parametrize("typed", ["(5, 3)", "(5,3)", "５×３", "5x3", "5 X 3", "5行3列", "5行3列です",
                                   "「(5, 3)」", (5, 3), [5, 3], np.array([5, 3])])
def test_a_shape_is_one_answer_however_it_is_typed(typed):
    assert answers.shape_answer(typed) == "(5, 3)"


def test_every_kanji_choice_of_every_prediction_has_its_reading():
    """The rule says a kanji choice may be typed in hiragana: every such choice is in READINGS."""
    import inspect
    import re

    from helpers import checks
    kanji = re.compile(r"[\u4e00-\u9fff]")
    source = "".join(inspect.getsource(m) for m in (checks.ch02_library_search, checks.ch03_three_roles,
                                                     checks.ch05_all_matmul, checks.ch06_attention,
                                                     checks.ch07_how_w_learns))
    quoted = set(re.findall(r'\(("[^"]+"(?:, "[^"]+")+)\)', source))
    choices = {c for group in quoted for c in re.findall(r'"([^"]+)"', group)}
    assert "一冊" in choices and "均等" in choices
    missing = {c for c in choices if kanji.search(c) and "(" not in c} - set(answers.READINGS)
    assert not missing


@pytest.mark.parametrize("typed, meant", [
    ("「ケーキ」です", "ケーキ"), ("「対称になる」です", "対称になる"), ("『ケーキ』です。", "ケーキ"),
    ("「変わらない」と思います。", "変わらない"), ("変らない", "変わらない"), ("変ります", "変わる"),
    ("「変りません」", "変わらない"), ("「けーき」です", "ケーキ"), ("「エラー」になります", "エラー"),
])
def test_the_rules_combine(typed, meant):
    """Brackets, a polite ending and a spelling variant pass together as they pass alone."""
    choices = ("変わる", "変わらない", "対称になる", "対称にならない", "ケーキ", "エラー")
    assert normalise_answer(typed, choices) == meant


@pytest.mark.parametrize("typed", ["「(1, 3)」です。", "(1、3)", "「1、3」", "(1, 3)です。",
                                   "「1×3」になると思います"])
def test_a_shape_combines_the_rules_too(typed):
    assert answers.shape_answer(typed) == "(1, 3)"


@pytest.mark.parametrize("typed, choices, synonyms, meant", [
    ("一冊に集中します", ("一冊", "平均"), {"一冊に集中": "一冊"}, "一冊"),
    ("たいしょう", ("対称になる", "対称にならない"), {}, "対称になる"),
    ("1/7", ("均等", "自分"), {"1/n": "均等"}, "均等"), ("１／７", ("均等", "自分"), {"1/n": "均等"}, "均等"),
    ("ケ一キ", ("ケーキ", "プリン"), {}, "ケーキ"), ("ケ-キ", ("ケーキ", "プリン"), {}, "ケーキ"),
    ("変わら無い", ("変わる", "変わらない"), {}, "変わらない"),
    ("Error", ("(1, 3)", "エラー"), {"error": "エラー"}, "エラー"), ("ＥＲＲＯＲ", ("エラー",), {"error": "エラー"}, "エラー"),
])
def test_the_issue_36_answers_are_read_by_the_one_rule(typed, choices, synonyms, meant):
    assert normalise_answer(typed, choices, synonyms) == meant


def test_a_shape_in_square_brackets_is_a_shape():
    assert answers.shape_answer("[5, 3]") == "(5, 3)" == answers.shape_answer("［５，３］")


def _synonym_tables():
    from helpers.checks import (
        ch00_introduction,
        ch02_library_search,
        ch03_three_roles,
        ch05_all_matmul,
        ch06_attention,
        ch07_how_w_learns,
    )
    modules = (ch00_introduction, ch02_library_search, ch03_three_roles, ch05_all_matmul, ch06_attention,
               ch07_how_w_learns)
    return [(m.__name__.rsplit(".", 1)[1], name, table) for m in modules
            for name, table in vars(m).items() if name.endswith("_SYNONYMS")]


@pytest.mark.parametrize("module, name, table", _synonym_tables(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_accepted_word_is_read_by_the_same_rule_as_a_choice(module, name, table):
    """Each synonym, typed politely, in full width, in quotes or spaced, means its choice."""
    choices = sorted(set(table.values()))

    def full_width(text):
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    for word, choice in table.items():
        for typed in (word, f"「{word}」です。", full_width(word), f" {word} と思います", word.upper()):
            assert normalise_answer(typed, choices, table) == choice, (typed, choice)


def test_a_prediction_says_what_its_check_accepts():
    """`Prediction.accepted`: every form `normalise_answer` reads as the right choice, and no other."""
    question = answers.Prediction(CHOICES, "壊れる", SYNONYMS)
    accepted = question.accepted()
    assert {"壊レル", "コワレル", "発散", "爆発", "爆発スル"} <= accepted  # the choice, its reading, synonyms
    assert all(normalise_answer(form, CHOICES, SYNONYMS) == "壊れる" for form in accepted)
    assert not {"変ワラナイ", "速クナル"} & accepted


def test_asks_notes_the_questions_on_a_check_through_exercise():
    from helpers.checks import _base, check_temperature_prediction

    question = answers.Prediction(CHOICES, "壊れる")

    @_base.exercise
    @answers.asks(question)
    def check(answer):
        _base.check_choice(answer, question.correct, question.choices, {})

    assert check.asks == (question,)
    assert [q.correct for q in check_temperature_prediction.asks] == ["一冊", "平均"]
