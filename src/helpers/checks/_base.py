"""What every exercise check shares: how a verdict is said, how the learner's function is
called, and how a wrong answer is matched to the typical mistake it is.

A check prints one line starting with ✓ when the answer is right, and otherwise raises
`AssertionError` whose Japanese message names the likely mistake, so a learner knows what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np


def passed(message: str) -> None:
    print(f"✓ 正解です。{message}")


def fail(message: str) -> None:
    raise AssertionError(f"✗ {message}")


def call_learner(fn: Callable, *args, what: str, call: str | None = None,
                 on_error: str = "途中の値と形を print して確かめましょう。"):
    """Call the learner's function `what`; every way it can stumble becomes a hint.

    Not a function, not written yet, a crash (`on_error` says where to look) and a forgotten
    `return` each get their own message; numpy's warnings about a wrong formula stay quiet.
    """
    if not callable(fn):
        fail(f"{what} には関数を渡してください({type(fn).__name__} が来ました)。")
    call = call or f"{what}(...)"
    try:
        with np.errstate(all="ignore"):  # a wrong formula may divide by 0; the hint says why
            result = fn(*args)
    except NotImplementedError:
        fail(f"{what} はまだ書かれていません。`raise NotImplementedError` の行を消して、中身を書きましょう。")
    except Exception as err:  # the learner's code crashed: say what and where to look
        fail(f"{call} がエラーで止まりました({type(err).__name__}: {err})。{on_error}")
    if result is None:
        fail(f"{what} が何も返していません(None)。関数の最後に return を書き忘れていませんか?")
    return result


def as_float_array(value, what: str) -> np.ndarray:
    """The learner's result as a float array, or a hint that it is not numbers."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        fail(f"{what} は数の配列を返してください({type(value).__name__} が返ってきました)。")


def as_number(value, what: str) -> float:
    """The learner's result as one number, or a hint that it is not one."""
    arr = as_float_array(value, what)
    if arr.size != 1:
        fail(f"{what} は数を 1 つ返してください。shape {arr.shape} の配列が返ってきました。")
    return float(arr.reshape(-1)[0])


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape and equal values (to rounding)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=1e-6))


def typical_mistake(got: np.ndarray, variants: Mapping[str, np.ndarray]) -> str | None:
    """The name of the first wrong variant (every key but "right") that `got` equals, or None."""
    for name, wrong in variants.items():
        if name != "right" and same(got, wrong):
            return name
    return None


def check_choice(answer, correct: str, choices: Sequence[str], hints: dict[str, str]) -> None:
    """A prediction question: `answer` must be one of `choices`; a wrong one gets its own hint."""
    if answer is None or answer == "":
        fail(f"まだ答えが入っていません。{'、'.join(choices)} のどれかを文字列で書いてください。")
    if answer not in choices:
        fail(f"「{answer}」は選択肢にありません。{'、'.join(choices)} のどれかを書いてください。")
    if answer != correct:
        fail(hints.get(answer, f"「{answer}」ではありません。図と表を見直してみましょう。"))
    passed(hints.get(correct, ""))


def three_arrays(result, what: str, names: str = "(Q, K, V)") -> tuple[np.ndarray, ...]:
    """The learner's three returned faces, each as a float array."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"{what} は 3 つの配列を {names} の順に返してください"
             f"(return q, k, v のように)。{type(result).__name__} が返ってきました。")
    return tuple(as_float_array(r, what) for r in result)
