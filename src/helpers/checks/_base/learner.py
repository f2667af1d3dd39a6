"""Calling the learner's function: each way it can stumble a hint; its result read as numbers."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from .numpy_errors import crash_in_japanese
from .verdicts import fail


def _parameter_names(fn: Callable) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _unchanged(now: np.ndarray, then: np.ndarray) -> bool:
    """The same shape and values as before the call; NaN where there was NaN counts as unchanged."""
    return np.array_equal(now, then, equal_nan=now.dtype.kind in "fc")


def call_learner(fn: Callable, *args, what: str, call: str | None = None,
                 on_error: str | Callable[[Exception], str] = "途中の値と形を print して確かめましょう。"):
    """Call the learner's function `what`; every way it can stumble becomes a hint.

    Not a function, not written yet, a crash (`on_error` says where to look), a forgotten
    `return` and an argument changed in place (`W -= …`) each get their own message; numpy's
    warnings about a wrong formula stay quiet.
    """
    if not callable(fn):
        fail(f"{what} には関数を渡してください({type(fn).__name__} が来ました)。")
    call = call or f"{what}(...)"
    before = [a.copy() if isinstance(a, np.ndarray) else None for a in args]
    try:
        with np.errstate(all="ignore"):  # a wrong formula may divide by 0; the hint says why
            result = fn(*args)
    except NotImplementedError:
        fail(f"{what} はまだ書かれていません。`raise NotImplementedError` の行を消して、中身を書きましょう。")
    except Exception as err:  # the learner's code crashed: say what and where to look
        advice = on_error(err) if callable(on_error) else on_error
        fail(f"{call} がエラーで止まりました({crash_in_japanese(err)})。{advice}")
    if result is None:
        fail(f"{what} が何も返していません(None)。関数の最後に return を書き忘れていませんか?")
    names = _parameter_names(fn)
    for i, (arg, old) in enumerate(zip(args, before, strict=True)):
        if old is not None and not _unchanged(arg, old):
            name = names[i] if i < len(names) else f"{i + 1} 番目の引数"
            fail(f"{what} が、受け取った {name} の中身を書き換えています(`{name} -= …` や "
                 f"`{name}[...] = …` のような、その場での書き換え)。呼び出した側の {name} まで"
                 f"変わってしまいます。`{name} = {name} / …` や `new = {name} - …` のように、"
                 "新しい配列を作る書き方にしましょう。")
    return result


def as_float_array(value, what: str) -> np.ndarray:
    """The learner's result as a float array, or a hint that it is not numbers."""
    if isinstance(value, (str, bytes)):
        fail(f"{what} は数の配列を返してください(文字列 {value!r} が返ってきました)。")
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


def three_arrays(result, what: str, names: str = "(Q, K, V)") -> tuple[np.ndarray, ...]:
    """The learner's three returned faces, each as a float array."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"{what} は 3 つの配列を {names} の順に返してください"
             f"(return q, k, v のように)。{type(result).__name__} が返ってきました。")
    return tuple(as_float_array(r, what) for r in result)


