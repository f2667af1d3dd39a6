"""Calling the learner's function: each way it can stumble a hint; its result read as numbers."""

from __future__ import annotations

import builtins
import contextlib
import difflib
import dis
import functools
import inspect
import linecache
import re
import sys
import types
from collections.abc import Callable, Sequence

import numpy as np

from ... import attention, heads
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


def _learner_frame(err: Exception, fn: Callable) -> types.FrameType | None:
    """The innermost frame of the error in the learner's own code (`fn`'s module), not in numpy's."""
    module, found = getattr(fn, "__module__", None), None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") == module:
            found = tb.tb_frame
        tb = tb.tb_next
    return found


def _where(err: Exception, fn: Callable) -> str:
    """The learner's own line the error stopped at, as 「my_attention の 3 行め `w = e / e.sum`」."""
    module, found = getattr(fn, "__module__", None), None
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") == module:
            found = tb
        tb = tb.tb_next
    if found is None:
        return ""
    code = found.tb_frame.f_code
    source = linecache.getline(code.co_filename, found.tb_lineno, found.tb_frame.f_globals).strip()
    line = found.tb_lineno - code.co_firstlineno + 1
    return f"止まったのは {code.co_name} の {line} 行め" + (f" `{source}` です。" if source else "です。")


def _close_match(name: str, known: list[str]) -> str | None:
    """The known name `name` was probably meant to be: the same but for case, else difflib's."""
    known = [k for k in known if k != name]
    same_but_case = [k for k in known if k.lower() == name.lower()]
    if same_but_case:
        return same_but_case[0]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    return close[0] if close else None


def _owner_name(obj, frame: types.FrameType | None) -> str:
    """How the learner wrote the object an attribute was looked up on: `np`, `helpers`, or its kind."""
    if frame is not None:
        for name, value in {**frame.f_globals, **frame.f_locals}.items():
            if value is obj and not name.startswith("_"):
                return name
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    shape = f"shape {obj.shape} の" if isinstance(obj, np.ndarray) else ""
    return f"{shape} {type(obj).__name__}".strip()


_NO_ATTRIBUTE = re.compile(r"has no attribute '(\w+)'")


def misspelt_name(err: Exception, fn: Callable, call: str) -> str | None:
    """A note for a NameError or AttributeError in the learner's code: the name that is not
    there and, if one is close, the name it was probably meant to be. None for other errors."""
    frame = _learner_frame(err, fn)
    if isinstance(err, NameError):
        name = getattr(err, "name", None) or next(iter(re.findall(r"'(\w+)'", str(err))), None)
        if name is None:
            return None
        known = [*dir(builtins)]
        if frame is not None:
            known += [*frame.f_code.co_varnames, *frame.f_globals]
        where = f"名前 {name} が見つかりません(NameError)"
    elif isinstance(err, AttributeError):
        name = getattr(err, "name", None)
        if name is None and (m := _NO_ATTRIBUTE.search(str(err))):
            name = m.group(1)
        obj = getattr(err, "obj", None)
        if name is None or obj is None:
            return None
        known = [n for n in dir(obj) if not n.startswith("_")]
        where = f"{_owner_name(obj, frame)} に {name} という名前はありません(AttributeError)"
    else:
        return None
    close = _close_match(name, known)
    guess = (f"{close} の打ち間違いではありませんか?" if close
             else "打ち間違いか、まだ定義していない名前です。")
    return f"{call} の中で、{where}。{guess}"


#: The modules whose every public function `forbid` may name at once ("heads": all of them).
_MODULES = {"attention": attention, "heads": heads}


def _forbidden(names: Sequence[str]) -> dict[Callable, str]:
    """The `helpers` functions `names` stand for, each with the name a message gives it: a name
    of helpers.attention ("softmax" → helpers.softmax), a module ("heads" → every public function
    of helpers.heads, helpers.heads.masked_softmax …) or one of its functions ("heads.causal_mask")."""
    found: dict[Callable, str] = {}
    for name in names:
        module_name, _, function = name.rpartition(".") if "." in name else ("", "", name)
        if not module_name and function in _MODULES:
            module = _MODULES[function]
            found.update({getattr(module, n): f"{function}.{n}" for n in module.__all__
                          if inspect.isfunction(getattr(module, n))})
        elif module_name:
            found[getattr(_MODULES[module_name], function)] = name
        else:
            found[getattr(attention, function)] = function
    return found


@contextlib.contextmanager
def _watching(fn: Callable, names: Sequence[str]):
    """While the learner's `fn` runs, the `helpers` functions `names` (see `_forbidden`) note each
    call (in their module, in the package, and under any name `fn`'s module gave them); yields
    the list of the names called, as a message writes them after "helpers."."""
    used: list[str] = []

    def spy(name: str, original: Callable) -> Callable:
        @functools.wraps(original)
        def noted(*args, **kwargs):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if caller != "helpers" and not caller.startswith("helpers."):  # not helpers' own use
                used.append(name)
            return original(*args, **kwargs)
        return noted

    originals = {f: spy(label, f) for f, label in _forbidden(names).items()}
    spaces = [vars(attention), vars(heads), vars(sys.modules["helpers"]), getattr(fn, "__globals__", {})]
    swapped = [(space, key, value) for space in spaces for key, value in list(space.items())
               if callable(value) and not isinstance(value, type) and value in originals]
    for space, key, value in swapped:
        space[key] = originals[value]
    try:
        yield used
    finally:
        for space, key, value in swapped:
            space[key] = value


def call_learner(fn: Callable, *args, what: str, call: str | None = None,
                 on_error: str | Callable[[Exception], str] = "途中の値と形を print して確かめましょう。",
                 forbid: Sequence[str] = ()):
    """Call the learner's function `what`; every way it can stumble becomes a hint.

    Not a function, not written yet, a misspelt name (`misspelt_name`: that note alone), a
    crash (`on_error` says where to look), a forgotten
    `return`, an argument changed in place (`W -= …`) and a call of a `helpers` function the
    exercise asks the learner to write (`forbid`, e.g. ("softmax",)) each get their own message;
    numpy's warnings about a wrong formula stay quiet.
    """
    if not callable(fn):
        fail(f"{what} には関数を渡してください({type(fn).__name__} が来ました)。", mistake="not_a_function")
    call = call or f"{what}(...)"
    before = [a.copy() if isinstance(a, np.ndarray) else None for a in args]
    try:
        with np.errstate(all="ignore"), _watching(fn, forbid) as used:  # a wrong formula may divide by 0
            result = fn(*args)
    except NotImplementedError:
        fail(f"{what} はまだ書かれていません。`raise NotImplementedError` の行を消して、中身を書きましょう。",
             mistake="not_written")
    except Exception as err:  # the learner's code crashed: say what and where to look
        if note := misspelt_name(err, fn, call):
            fail(note, mistake="misspelt_name")  # a typo: nothing else is wrong yet, so no advice about shapes or order
        advice = on_error(err) if callable(on_error) else on_error
        fail(f"{call} がエラーで止まりました({crash_in_japanese(err)})。{_where(err, fn)}{advice}",
             mistake="crashed")
    used = [label for f, label in _forbidden(forbid).items() if f is fn] + used  # the helper itself passed
    if used:
        fail(f"{what} の中で helpers.{used[0]} を使っています。この練習は、それを自分で numpy で書く練習です。"
             f"helpers.{used[0]} を使わずに書いてみましょう。", mistake="forbidden_helper")
    if result is None:
        fail(f"{what} が何も返していません(None)。関数の最後に return を書き忘れていませんか?",
             mistake="no_return")
    names = _parameter_names(fn)
    for i, (arg, old) in enumerate(zip(args, before, strict=True)):
        if old is not None and not _unchanged(arg, old):
            name = names[i] if i < len(names) else f"{i + 1} 番目の引数"
            fail(f"{what} が、受け取った {name} の中身を書き換えています(`{name} -= …` や "
                 f"`{name}[...] = …` のような、その場での書き換え)。呼び出した側の {name} まで"
                 f"変わってしまいます。`{name} = {name} - …` や `new = {name} - …` のように、"
                 "新しい配列を作る書き方にしましょう(`/=` や `*=` も同じです)。", mistake="changed_argument")
    return result


def real_array(value) -> np.ndarray | None:
    """`value` as a float array, or None when it is not real numbers: ragged, objects, text
    (which numpy would read as numbers), or complex (which numpy would cast with only a
    warning, dropping the imaginary part)."""
    try:
        if np.asarray(value).dtype.kind in "cUS":
            return None
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def as_float_array(value, what: str, asked: str = "数の配列") -> np.ndarray:
    """The learner's result as a float array, or a hint that it is not numbers (`asked`: what
    the task asks for, "数" where it is one number)."""
    if isinstance(value, (str, bytes)):
        fail(f"{what} は{asked}を返してください(文字列 {value!r} が返ってきました)。", mistake="not_numbers")
    arr = real_array(value)
    if arr is None:
        fail(f"{what} は{asked}を返してください({type(value).__name__} が返ってきました)。",
             mistake="not_numbers")
    return arr


def as_number(value, what: str) -> float:
    """The learner's result as one number, or a hint that it is not one: an array, even one of
    shape (1,) or (1, 1), is not a number (the task asks for one)."""
    arr = as_float_array(value, what, asked="数")
    if arr.ndim:
        fail(f"{what} は数を 1 つ返してください(配列ではなく、ただの数です)。"
             f"shape {arr.shape} の配列が返ってきました。", mistake="not_a_number")
    return float(arr)


def three_arrays(result, what: str, names: str = "(Q, K, V)") -> tuple[np.ndarray, ...]:
    """The learner's three returned faces, each as a float array."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"{what} は 3 つの配列を {names} の順に返してください"
             f"(return q, k, v のように)。{type(result).__name__} が返ってきました。", mistake="not_three")
    return tuple(as_float_array(r, what) for r in result)


#: What makes a matrix product in the learner's code: the `@` operator, and loading a function or
#: method of these names (np.matmul, np.dot, X.dot, np.einsum, a `from numpy import matmul` …).
_PRODUCT_NAMES = {"matmul", "dot", "einsum", "tensordot", "inner", "multi_dot", "vdot", "__matmul__", "__rmatmul__"}
_MATMUL_OP = "@"


@functools.lru_cache(maxsize=256)
def _product_offsets(code: types.CodeType) -> frozenset[int]:
    """The bytecode offsets in `code` that take a matrix product (see `_PRODUCT_NAMES`)."""
    return frozenset(ins.offset for ins in dis.get_instructions(code)
                     if (ins.opname.startswith("BINARY_OP") and ins.argrepr.startswith(_MATMUL_OP))
                     or ins.opname == "BINARY_MATRIX_MULTIPLY"
                     or (ins.opname.startswith("LOAD_") and ins.argval in _PRODUCT_NAMES))


@functools.lru_cache(maxsize=256)
def _loop_offsets(code: types.CodeType) -> frozenset[int]:
    """The bytecode offsets in `code` that take a loop's next turn (`for`, a comprehension)."""
    return frozenset(ins.offset for ins in dis.get_instructions(code) if ins.opname == "FOR_ITER")


@contextlib.contextmanager
def _counting(fn: Callable, offsets: Callable[[types.CodeType], frozenset[int]]):
    """While the learner's `fn` runs, count the opcodes at `offsets(code)` that its own code (in
    `fn`'s module: its helpers too) runs. Yields a one-item list, the count."""
    module, count = getattr(fn, "__module__", None), [0]

    def per_opcode(frame, event, arg):
        if event == "opcode" and frame.f_lasti in offsets(frame.f_code):
            count[0] += 1
        return per_opcode

    def per_call(frame, event, arg):
        if event != "call" or frame.f_globals.get("__name__") != module:
            return None
        frame.f_trace_opcodes = True
        return per_opcode

    before = sys.gettrace()
    sys.settrace(per_call)
    try:
        yield count
    finally:
        sys.settrace(before)


def counting_products(fn: Callable):
    """While the learner's `fn` runs, count the matrix products its own code takes (in `fn`'s
    module: its helpers too), however the arrays were made: `@`, np.matmul, np.dot, X.dot,
    np.einsum … each time one runs (a loop counts every turn). Yields a one-item list, the count."""
    return _counting(fn, _product_offsets)


def counting_loop_turns(fn: Callable):
    """While the learner's `fn` runs, count the turns of the Python loops its own code takes
    (`for`, comprehensions, generators; its helpers too): 0 for an answer written with whole
    arrays. Yields a one-item list, the count."""
    return _counting(fn, _loop_offsets)
