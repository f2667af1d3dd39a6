"""Exercise checks, shared by self-learners and by nbgrader's autograder.

Each `check_*` prints a line starting with ✓ when the answer is right, and otherwise raises
`AssertionError` whose Japanese message names the likely mistake, so a learner knows what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .data import foods


def passed(message: str) -> None:
    print(f"✓ 正解です。{message}")


def fail(message: str) -> None:
    raise AssertionError(f"✗ {message}")


def _call(fn: Callable, *args, what: str):
    """Call the learner's function, turning the usual stumbles into hints."""
    if not callable(fn):
        fail(f"{what} には関数を渡してください({type(fn).__name__} が来ました)。")
    try:
        return fn(*args)
    except NotImplementedError:
        fail(f"{what} はまだ書かれていません。`raise NotImplementedError` の行を消して、中身を書きましょう。")


def _as_number(value, what: str) -> float:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        fail(f"{what} は数を返してください({type(value).__name__} が返ってきました)。")
    if arr.size != 1:
        fail(f"{what} は数を 1 つ返してください。shape {arr.shape} の配列が返ってきました。")
    return float(arr.reshape(-1)[0])


def check_cosine(fn: Callable) -> None:
    """Chapter 01: `fn(a, b)` returns the cosine similarity of two 1-D vectors."""
    cases = [
        (np.array([2.0, 0.2]), np.array([1.0, 0.1])),   # same direction, different lengths
        (np.array([0.3, 1.8]), np.array([2.0, 0.2])),
        (np.array([1.0, 0.0]), np.array([-1.0, 0.0])),  # opposite
        (np.array([3.0, 4.0]), np.array([4.0, -3.0])),  # perpendicular
    ]
    for a, b in cases:
        got = _as_number(_call(fn, a, b, what="cosine"), "cosine")
        want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        if np.isclose(got, want, atol=1e-6):
            continue
        if np.isclose(got, a @ b):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。これは内積そのものです。"
                 "長さで割る(a の長さ × b の長さで割る)のを忘れていませんか?")
        if np.isclose(got, a @ b / np.linalg.norm(a)) or np.isclose(got, a @ b / np.linalg.norm(b)):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。片方の長さでしか割っていないようです。"
                 "両方の長さの積で割ります。")
        if np.isclose(got, a @ b / (a @ a * (b @ b))):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。長さの 2 乗で割っていませんか?"
                 "長さは np.linalg.norm(a)、つまり平方根を取った値です。")
        fail(f"a={a}, b={b} のとき {want:.3f} になるはずが、{got:.3f} でした。"
             "式 cos = (a·b) / (|a| |b|) を見直しましょう。")
    passed("向きが同じなら 1、直交なら 0、逆向きなら -1 になっています。")


def check_choice(answer, correct: str, choices: Sequence[str], hints: dict[str, str]) -> None:
    """A prediction question: `answer` must be one of `choices`; a wrong one gets its own hint."""
    if answer is None or answer == "":
        fail(f"まだ答えが入っていません。{'、'.join(choices)} のどれかを文字列で書いてください。")
    if answer not in choices:
        fail(f"「{answer}」は選択肢にありません。{'、'.join(choices)} のどれかを書いてください。")
    if answer != correct:
        fail(hints.get(answer, f"「{answer}」ではありません。図と表を見直してみましょう。"))
    passed(hints.get(correct, ""))


def check_pudding_prediction(answer) -> None:
    """Chapter 01 prediction: with Q = K = X and the plain dot product, whom does プリン pick?"""
    emb = foods()
    scores = emb["プリン"] @ emb.vectors.T
    correct = emb.words[int(np.argmax(scores))]
    check_choice(
        answer,
        correct,
        emb.words,
        {
            "プリン": "自分自身を選ぶと思いましたか? コサイン類似度ならそうなります。"
                      "でも内積は長さも効くので、同じ向きでもっと長い語があると、そちらの得点が上回ります。",
            correct: f"プリンの行で一番大きいのは「{correct}」です。同じ向きで長さが 2 倍なので、"
                     "内積も自分自身より大きくなります。",
        },
    )
