"""helpers.checks._base: how every check calls the learner's code and names a mistake."""

import inspect
import re
import threading

import numpy as np
import pytest
import reference
from IPython.core.interactiveshell import InteractiveShell

from helpers import checks
from helpers.checks import _base
from helpers.checks._base import (
    CheckFailed,
    as_number,
    call_learner,
    check_choice,
    fail,
    normalise_answer,
    passed,
    same,
    three_arrays,
    typical_mistake,
)


def test_passed_and_fail_say_the_verdict(capsys):
    passed("よくできました。")
    assert capsys.readouterr().out == "✓ 正解です。よくできました。\n"
    with pytest.raises(AssertionError, match="^✗ 違います$"):
        fail("違います")


def test_call_learner_returns_the_result():
    assert call_learner(lambda a, b: a + b, 2, 3, what="add") == 5


def test_call_learner_is_quiet_about_numpy_warnings(recwarn):
    got = call_learner(lambda a: np.array([1.0]) / a, 0.0, what="divide")
    assert np.isinf(got[0])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _stub(x):
    raise NotImplementedError


@pytest.mark.parametrize(
    "fn, kwargs, words",
    [
        ("add", {}, "add には関数を渡して.*str"),
        (_stub, {}, "add はまだ書かれていません"),
        (lambda x: {}["k"], {}, r"add\(\.\.\.\) がエラーで止まりました\(KeyError.*print して"),
        (lambda x: 1 / 0, {"call": "add(x)", "on_error": "割り算を見ましょう。"},
         r"add\(x\) がエラーで止まりました\(ZeroDivisionError.*割り算を見ましょう。"),
        (lambda x: None, {}, "何も返していません.*return"),
    ],
)
def test_call_learner_turns_each_stumble_into_a_hint(fn, kwargs, words):
    with pytest.raises(AssertionError, match=words):
        call_learner(fn, 1.0, what="add", **kwargs)


def test_as_number_wants_exactly_one_number():
    assert as_number(np.array([[2.5]]), "f") == 2.5
    with pytest.raises(AssertionError, match=r"数を 1 つ.*shape \(2,\)"):
        as_number([1.0, 2.0], "f")
    with pytest.raises(AssertionError, match="数の配列を返して"):
        as_number("二", "f")


def test_same_needs_the_shape_and_the_values():
    assert same([1.0, 2.0], np.array([1.0, 2.0 + 1e-9]))
    assert not same([1.0, 2.0], [[1.0, 2.0]])
    assert not same([1.0, 2.0], [1.0, 2.1])


def test_typical_mistake_names_the_first_match_but_never_right():
    variants = {"right": np.ones(2), "half": np.full(2, 0.5), "also_half": np.full(2, 0.5)}
    assert typical_mistake(np.full(2, 0.5), variants) == "half"
    assert typical_mistake(np.ones(2), variants) is None
    assert typical_mistake(np.zeros(2), variants) is None


def test_fail_on_typical_mistake_says_its_hint_after_what_came():
    variants = {"right": np.ones(2), "half:rounded": np.full(2, 0.5)}
    hints = {"half": "半分です。"}
    with pytest.raises(AssertionError, match="^✗ 2 番目: 半分です。$"):
        _base.fail_on_typical_mistake(np.full(2, 0.5), variants, hints, said="2 番目: ")
    _base.fail_on_typical_mistake(np.zeros(2), variants, hints)  # no known mistake: no verdict


def test_hidden_cases_draw_the_same_arrays_of_each_shape_and_keep_numbers():
    first = _base.hidden_cases("ex", ((1, 4), (6, 4), 0.7), ((3,), 2.0))
    again = _base.hidden_cases("ex", ((1, 4), (6, 4), 0.7), ((3,), 2.0))
    assert [[np.shape(v) for v in case] for case in first] == [[(1, 4), (6, 4), ()], [(3,), ()]]
    assert first[0][2] == 0.7 and first[1][1] == 2.0
    for case, same_case in zip(first, again, strict=True):
        for a, b in zip(case, same_case, strict=True):
            assert np.array_equal(a, b)
    other = _base.hidden_cases("other", ((1, 4),))
    assert not np.allclose(other[0][0], first[0][0])


def _attention_variants(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    e = np.exp(S - S.max(axis=1, keepdims=True))
    return {"right": e / e.sum(axis=1, keepdims=True)}


_MIX_UP_HINTS = {"swapped": "逆です。", "weights_as_output": "重みです。", "bad_output": "出力が違います。"}


def test_wrong_attention_weights_is_none_when_right_and_the_weights_when_wrong():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    variants = _attention_variants(Q, K, V)
    right = variants["right"]

    def attention(Q, K, V):
        return right @ V, right

    assert _base.wrong_attention_weights(attention, Q, K, V, "f", variants, _MIX_UP_HINTS) is None
    got = _base.wrong_attention_weights(lambda Q, K, V: (V[:3] * 0, right * 2), Q, K, V, "f",
                                        variants, _MIX_UP_HINTS)
    assert np.allclose(got, right * 2)
    with pytest.raises(AssertionError, match="逆です"):
        _base.wrong_attention_weights(lambda Q, K, V: (right, right @ V), Q, K, V, "f",
                                      variants, _MIX_UP_HINTS)
    with pytest.raises(AssertionError, match="出力が違います"):
        _base.wrong_attention_weights(lambda Q, K, V: (right @ V + 1, right), Q, K, V, "f",
                                      variants, _MIX_UP_HINTS)


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


def test_three_arrays():
    q, k, v = three_arrays(([1], [2], [3]), "faces")
    assert q.dtype == float and v.tolist() == [3.0]
    with pytest.raises(AssertionError, match=r"faces は 3 つの配列を \(Q, K, V\) の順に.*tuple"):
        three_arrays(([1], [2]), "faces")
    with pytest.raises(AssertionError, match="数の配列"):
        three_arrays(([1], "k", [3]), "faces")


# ---------------------------------------------------------------- table-driven (issue 11)


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


# ---------------------------------------------------------------- partial credit (nbgrader)


#: Every exercise check the notebooks call (check_choice is the shared helper they build on).
EXERCISES = [n for n in checks.__all__ if n.startswith("check_") and n != "check_choice"]


@pytest.fixture
def autograde(monkeypatch):
    """As `nbgrader autograde` runs a notebook; every test starts with no credits noted."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(_base, "_records", {})


def test_check_failed_shares_the_short_traceback_of_the_package_errors():
    from helpers._validate import HelpersError, _ShortTraceback

    assert issubclass(CheckFailed, _ShortTraceback) and issubclass(CheckFailed, AssertionError)
    assert CheckFailed._render_traceback_ is HelpersError._render_traceback_  # one mechanism
    assert HelpersError("x")._render_traceback_() == ["\x1b[0;31mValueError\x1b[0m: x"]


def test_outside_autograding_a_wrong_answer_still_raises(monkeypatch, capsys):
    monkeypatch.setattr(_base, "_records", {})
    for mode in (None, "validate"):
        if mode:
            monkeypatch.setenv("NBGRADER_EXECUTION", mode)
        with pytest.raises(CheckFailed, match="^✗ 自分自身"):
            checks.check_pudding_prediction("プリン")
    assert capsys.readouterr().out == ""


def test_autograding_prints_the_hint_on_stdout_and_scores_the_mean(autograde, capsys):
    checks.check_pudding_prediction("ケーキ")
    checks.check_pudding_prediction("プリン")  # no exception: the cell goes on to its score
    out = capsys.readouterr()
    assert out.err == "" and out.out.splitlines()[-1].startswith("✗ 自分自身を選ぶと")
    assert checks.score(2) == 1.0
    assert checks.score(2) == 0.0  # the credits were used up: nothing ran since


def test_no_check_run_scores_zero(autograde):
    assert checks.score(3) == 0.0


def test_right_weights_with_a_wrong_output_earn_half(autograde):
    def mixes_keys(Q, K, V):
        w = reference.softmax(Q @ K.T / np.sqrt(Q.shape[1]))
        return w @ K, w

    checks.check_attention(mixes_keys)
    checks.check_attention(mixes_keys, hidden=True)
    assert checks.score(3) == 1.5
    checks.check_attention(lambda Q, K, V: reference.attention(Q, K, V))
    checks.check_attention(mixes_keys, hidden=True)
    assert checks.score(3) == 2.25  # visible right (1), hidden half (½): 3 × ¾


def test_only_the_checks_of_the_grade_cell_itself_count(autograde, monkeypatch):
    monkeypatch.setattr(_base, "_cell", lambda: 7)  # an answer cell calls a check...
    checks.check_pudding_prediction("ケーキ")
    monkeypatch.setattr(_base, "_cell", lambda: 8)  # ...the grade cell runs none
    assert checks.score(1) == 0.0


def test_a_check_called_by_the_learners_function_notes_nothing(autograde, capsys):
    def cosine(a, b):
        checks.check_pudding_prediction("ケーキ")  # trying to add passes to the grade cell
        return float(a @ b)

    checks.check_cosine(cosine)
    assert checks.score(2) == 0.0
    assert "これは内積そのもの" in capsys.readouterr().out


def test_a_check_run_in_a_thread_notes_nothing(autograde):
    passes = threading.Thread(target=checks.check_pudding_prediction, args=("ケーキ",))
    passes.start()  # an answer cell's thread, passing checks while the grade cell runs
    passes.join()
    assert checks.score(1) == 0.0


@pytest.mark.parametrize("name", EXERCISES)
def test_every_exercise_check_notes_a_credit_instead_of_raising(autograde, name, capsys):
    fn = getattr(checks, name)
    required = [p for p in inspect.signature(fn).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind != p.KEYWORD_ONLY]
    fn(*[None] * len(required))
    assert checks.score(1) == 0.0
    assert capsys.readouterr().out.startswith("✗ ")


def test_the_score_line_in_a_real_ipython_cell(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    shell = InteractiveShell.instance()
    shell.run_cell("from helpers import checks", store_history=True)
    shell.run_cell("checks.check_pudding_prediction('ケーキ')", store_history=True)  # an answer cell
    assert shell.run_cell("checks.score(1)", store_history=True).result == 0.0
    graded = shell.run_cell("checks.check_pudding_prediction('ケーキ')\n"
                            "checks.check_pudding_prediction('プリン')\nchecks.score(1)",
                            store_history=True)
    assert graded.success and graded.result == 0.5


@pytest.mark.parametrize("typed, meant", [
    ("変わりません", "変わらない"), ("変わります", "変わる"), ("対称になります。", "対称になる"),
    ("壊れます", "壊れる"), ("エラーです", "エラー"), ("けーき", "ケーキ"), ("ケーキです", "ケーキ"),
    ("変わらないと思います", "変わらない"), ("均等になります", "均等"), ("発散します", "発散する"),
    ("エラーになると思います", "エラー"), ("対称になりません", "対称にならない"),
])
def test_a_polite_or_hiragana_answer_means_its_choice(typed, meant):
    choices = ("変わる", "変わらない", "対称になる", "対称にならない", "壊れる", "エラー", "ケーキ",
               "均等", "発散する")
    assert _base.normalise_answer(typed, choices) == meant


@pytest.mark.parametrize("crash, said", [
    (lambda: np.ones((5, 2)) @ np.ones((5, 2)), "左の列の数が 2、右の行の数が 5"),
    (lambda: np.ones((1, 3)) + np.ones((5, 2)), "形 (1,3) と (5,2) の配列は"),
    (lambda: 1 / 0, "ZeroDivisionError: division by zero"),
    (lambda: np.dot(np.ones((2, 9)), np.ones((5, 2))), "左の列の数が 9、右の行の数が 5"),
])
def test_numpys_shape_errors_are_said_in_japanese(crash, said):
    with pytest.raises(CheckFailed, match=re.escape(said)) as caught:
        _base.call_learner(lambda: crash(), what="f")
    assert "gufunc" not in str(caught.value) and "broadcast" not in str(caught.value)
