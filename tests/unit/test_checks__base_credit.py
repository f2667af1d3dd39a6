"""helpers.checks._base.credit: partial credit for nbgrader."""

import inspect
import threading

import numpy as np
import pytest
import reference
from IPython.core.interactiveshell import InteractiveShell

from helpers import checks
from helpers.checks._base import (
    CheckFailed,
    credit,
)

EXERCISES = [n for n in checks.__all__ if n.startswith("check_") and n != "check_choice"]


@pytest.fixture
def autograde(monkeypatch):
    """As `nbgrader autograde` runs a notebook; every test starts with no credits noted."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(credit, "_records", {})


def test_outside_autograding_a_wrong_answer_still_raises(monkeypatch, capsys):
    monkeypatch.setattr(credit, "_records", {})
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
    monkeypatch.setattr(credit, "_cell", lambda: 7)  # an answer cell calls a check...
    checks.check_pudding_prediction("ケーキ")
    monkeypatch.setattr(credit, "_cell", lambda: 8)  # ...the grade cell runs none
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


def test_each_verdict_leaves_a_record_for_the_class_report_under_autograding(monkeypatch):
    """A display_data with only the verdict mimetype (which nothing renders), the mistake's id
    (its hint key) included; outside autograding no record at all."""
    shell = InteractiveShell.instance()
    published = []
    monkeypatch.setattr(shell.display_pub, "publish", lambda data, **kw: published.append(data))
    shell.run_cell("from helpers import checks\nchecks.check_pudding_prediction('プリン')")
    assert published == []  # a learner's notebook: nothing new
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    shell.run_cell("checks.check_pudding_prediction('プリン')\ncheck_pudding_prediction = None\n"
                   "checks.check_pudding_prediction('ケーキ')\n"
                   "import numpy as np\nchecks.check_attention(lambda Q, K, V: "
                   "((w := np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(1, keepdims=True)) @ V, w))")
    assert [list(d) for d in published] == [[credit.VERDICT_MIME]] * 3
    wrong, right, no_sqrt = (d[credit.VERDICT_MIME] for d in published)
    assert wrong["check"] == "check_pudding_prediction" and wrong["credit"] == 0.0
    assert wrong["message"].startswith("自分自身を選ぶと") and "✗" not in wrong["message"]
    assert right == {"check": "check_pudding_prediction", "credit": 1.0, "mistake": None, "message": ""}
    assert no_sqrt["check"] == "check_attention" and no_sqrt["mistake"] == "no_sqrt"
    assert no_sqrt["message"] == checks.ATTENTION_HINTS["no_sqrt"]
