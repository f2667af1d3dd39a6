"""Input validation shared by every public helper.

Messages are Japanese because learners read them; each names what was expected and what came.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "HelpersError",
    "HelpersTypeError",
    "HelpersKeyError",
    "HelpersVersionError",
    "MAX_CELLS",
    "guard_size",
    "as_array",
    "as_matrix",
    "integer",
    "number",
    "flag",
    "matmul_operands",
    "require_same_length",
    "public",
    "record",
    "trusted",
    "learner_code",
    "arg",
    "instance",
    "one_of",
    "mask",
    "mask_fits",
    "said",
]


class _ShortTraceback:
    """Shown by IPython/JupyterLab as the message alone: no traceback through `helpers`.

    IPython calls `_render_traceback_()` instead of formatting the stack, so a learner sees one
    red line that says what was expected and what came. Plain Python still prints the full
    traceback, and `except ValueError` / `pytest.raises(ValueError)` still catch these.
    """

    def _render_traceback_(self) -> list[str]:
        return [self._one_line()]

    def _one_line(self) -> str:
        """The line shown: the built-in kind in red, then the message (a subclass may say less)."""
        kind = next(c.__name__ for c in type(self).__mro__ if c.__module__ == "builtins")
        return f"\x1b[0;31m{kind}\x1b[0m: {self}"


class HelpersError(_ShortTraceback, ValueError):
    """A value the package cannot use (a shape that does not fit, a number out of range)."""


class HelpersTypeError(_ShortTraceback, TypeError):
    """An argument of the wrong kind (a string where a number belongs, a list for an array)."""


class HelpersKeyError(_ShortTraceback, KeyError):
    """A name that is not there (a word not in the vocabulary); printed without quotes."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class HelpersVersionError(_ShortTraceback, ImportError):
    """The installed helpers is older than the chapter needs (`helpers.setup(needs=...)`)."""


#: The most cells (numbers) one learner-facing call may build: 10 million floats are 80 MB.
MAX_CELLS = 10_000_000


def guard_size(shape, what: str, limit: int = MAX_CELLS, by: str = "") -> None:
    """Refuse, before allocating, a result of `shape` with more than `limit` cells; `by` names
    the learner's arguments that set the size."""
    cells = math.prod(int(n) for n in shape)  # Python ints: no overflow, however large the request
    if cells > limit:
        dims = " × ".join(str(int(n)) for n in shape)
        raise HelpersError(
            f"{what}は {dims} = {cells:,} 個の数になり、大きすぎます(上限 {limit:,} 個)。"
            f"この本の計算は小さな行列で十分です。{_object(by) if by else 'サイズを'}小さくしてください。"
        )


def _object(words: str) -> str:
    """`words` followed by を: a space after a name (`n を`), none after Japanese (`数を`)."""
    return f"{words} を" if words[-1].isascii() else f"{words}を"


def as_matrix(a, name: str, optional: bool = False) -> np.ndarray | None:
    """Return `a` as a finite 2-D float array, or raise a Japanese ValueError/TypeError; None
    passes too when `optional`."""
    if a is None and optional:
        return None
    arr = as_array(a, name)
    if arr.ndim == 1:
        raise HelpersError(
            f"{name} は 2 次元の配列(行列)で渡してください。1 次元の配列 shape {arr.shape} が来ました。"
            f"1 本のベクトルなら {name}.reshape(1, -1) で 1×{arr.shape[0]} の横一列にできます。"
        )
    if arr.ndim != 2:
        raise HelpersError(
            f"{name} は 2 次元の配列(行列)であるべきですが、{arr.ndim} 次元 shape {arr.shape} が来ました。"
        )
    return arr


def as_array(a, name: str, allow_neg_inf: bool = False) -> np.ndarray:
    """Return `a` as a finite, non-empty float array of any dimension.

    With `allow_neg_inf`, `-inf` passes (attention scores: `-inf` means "masked", weight 0).
    """
    if isinstance(a, (str, bytes, dict, set)) or a is None:
        raise HelpersTypeError(f"{name} には数の配列を渡してください。{type(a).__name__} が来ました。")
    if _kind(a) == "c":  # float() would keep the real part only, with a mere warning
        raise HelpersTypeError(
            f"{name} には実数の配列を渡してください。複素数が来ました(この本の計算は実数だけで行います)。"
        )
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError, OverflowError) as err:
        raise HelpersTypeError(
            f"{name} を数の配列に変換できません({type(a).__name__} が来ました)。"
            "数だけを並べたリストか numpy 配列を渡してください。"
        ) from err
    if arr.size == 0:
        raise HelpersError(f"{name} が空です(shape {arr.shape})。少なくとも 1 つの数が必要です。")
    finite = np.isfinite(arr)
    if allow_neg_inf:
        finite |= arr == -np.inf
    if not np.all(finite):
        bad = "NaN" if np.any(np.isnan(arr)) else "inf(無限大)"
        hint = "(マスクには -inf だけが使えます)" if allow_neg_inf and bad != "NaN" else ""
        raise HelpersError(
            f"{name} に {bad} が含まれています{hint}。計算に混ざると結果全体が壊れるので、"
            "有限の数だけを渡してください。"
        )
    return arr


def _kind(a) -> str:
    """numpy's dtype kind of `a` ("f", "i", "b", "c", …), or "" when it is no rectangular array."""
    try:
        return np.asarray(a).dtype.kind
    except (TypeError, ValueError, OverflowError):  # ragged lists: as_array says so in Japanese
        return ""


def mask(value, name: str, optional: bool = False) -> np.ndarray | None:
    """An additive attention mask: 0 where a query may look, -inf where it may not (None passes
    too when `optional`).

    True/False (or 1/0) tables are refused: PyTorch reads True as "may look" in
    scaled_dot_product_attention and as "hidden" in nn.MultiheadAttention, so either reading
    would silently be wrong for someone; the message shows how to write both as numbers.
    """
    how = ("「見てよい」が True の表なら np.where(mask, 0, -np.inf)、"
           "「隠す」が True の表なら np.where(mask, -np.inf, 0) で作れます。")
    if value is None and optional:
        return None
    if _kind(value) == "b":
        raise HelpersTypeError(
            f"{name} には 0(見てよい)か -inf(隠す)の数を入れてください。True/False の表が来ました。{how}"
        )
    arr = as_array(value, name, allow_neg_inf=True)
    odd = arr[(arr != 0) & (arr != -np.inf)]
    if odd.size:
        raise HelpersError(
            f"{name} には 0(見てよい)か -inf(隠す)だけを入れてください。{odd.flat[0]:g} が入っています。{how}"
        )
    return arr


def mask_fits(value: np.ndarray | None, n_q: int, n_k: int, of: str) -> None:
    """A mask (or None) of shape (n_q, n_k); `of` says where that shape comes from."""
    if value is not None and value.shape != (n_q, n_k):
        raise HelpersError(f"mask は {of} shape ({n_q}, {n_k}) にしてください。shape {value.shape} が来ました。")


def require_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str,
                        dim: str = "次元") -> None:
    """The rows of `a` and of `b` must have the same length `dim` (to take their dot products):
    the one message for Q and K, and for W_Q and W_K (dim="列数 d_k")."""
    if a.shape[-1] != b.shape[-1]:
        spaced = dim + " " if dim[-1].isascii() else dim  # 「列数 d_k が」, 「次元が」
        raise HelpersError(
            f"{name_a} と {name_b} の{spaced}が違います: {name_a} は shape {a.shape}({dim} {a.shape[-1]})、"
            f"{name_b} は shape {b.shape}({dim} {b.shape[-1]})です。内積を取るには同じ{spaced}が必要です。"
        )


def matmul_operands(
    a, b, names: tuple[str, str], inner: str = "d", inner_meaning: str = "", out: str = "m"
) -> tuple[np.ndarray, np.ndarray]:
    """`a` (n × inner) and `b` (inner × out) as finite matrices whose inner sizes agree.

    The message names both shapes and, with `inner_meaning`, what the shared size is.
    """
    na, nb = names
    a = as_matrix(a, na)
    b = as_matrix(b, nb)
    if a.shape[1] != b.shape[0]:
        raise HelpersError(
            f"{na} @ {nb} の形が合いません。{na} は shape {a.shape}({a.shape[1]} 列)ですが、"
            f"{nb} は shape {b.shape}({b.shape[0]} 行)です。{nb} の行数は {na} の列数 {inner}"
            f"{inner_meaning}{'' if inner_meaning else ' '}と同じ {a.shape[1]} でなければなりません: "
            f"(n×{inner}) · ({inner}×{out}) → (n×{out})。"
        )
    return a, b


def integer(value, name: str, lo: int | None = None, hi: int | None = None,
            optional: bool = False) -> int | None:
    """`value` as a plain int (bool refused), optionally within `lo` … `hi` inclusive; None
    passes too when `optional`."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise HelpersTypeError(f"{name} は整数で指定してください。{said(value)}({type(value).__name__})が来ました。")
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        where = (f"{lo} から {hi} の範囲" if lo is not None and hi is not None
                 else f"{lo} 以上" if lo is not None else f"{hi} 以下")
        raise HelpersError(f"{name} は {where}の整数にしてください。{_shown(value)} が来ました。")
    return value


def said(value) -> str:
    """What came, for a one-line message: a huge int by its size, anything else on one line
    (an array's repr spans several) and cut at 80 characters."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return _shown(int(value))
    shown = " ".join(repr(value).split())
    return shown if len(shown) <= 80 else shown[:79] + "…"


def _shown(value: int) -> str:
    """An int as a message shows it: in full up to 15 digits, else its size (Python refuses to
    print an int of more than 4,300 digits, and 400 digits say nothing)."""
    if abs(value) < 10**15:
        return str(value)
    digits = int(abs(value).bit_length() * 0.30103) + 1  # log10(2): about the number of digits
    return f"{'-' if value < 0 else ''}約 {digits} 桁の数"


def flag(value, name: str) -> bool:
    """`value` as a plain bool (True/False): a switch such as `scale`."""
    if not isinstance(value, (bool, np.bool_)):
        raise HelpersTypeError(f"{name} は True か False で指定してください。{said(value)}({type(value).__name__})が来ました。")
    return bool(value)


def number(value, name: str, lo: float | None = None, hi: float | None = None,
           positive: bool = False, optional: bool = False) -> float | None:
    """`value` as a finite float (bool and strings refused), optionally within `lo` … `hi` or > 0;
    None passes too when `optional`."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise HelpersTypeError(f"{name} は数で指定してください。{said(value)}({type(value).__name__})が来ました。")
    try:
        value = float(value)
    except OverflowError:  # an int too large for a float (10**400)
        raise HelpersError(f"{name} は有限の数にしてください。{_shown(int(value))} が来ました。") from None
    if not np.isfinite(value):
        raise HelpersError(f"{name} は有限の数にしてください。{value} が来ました。")
    if positive and value <= 0:
        raise HelpersError(f"{name} は正の数にしてください。{value} が来ました。")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        where = (f"{lo:g} 以上 {hi:g} 以下" if lo is not None and hi is not None
                 else f"{lo:g} 以上" if lo is not None else f"{hi:g} 以下")
        raise HelpersError(f"{name} は {where}にしてください。{value} が来ました。")
    return value


def text(value, name: str, optional: bool = False) -> str | None:
    """`value` as a str (a title, a label); None passes too when `optional`."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        allowed = "文字列か None " if optional else "文字列"
        raise HelpersTypeError(f"{name} は{allowed}で指定してください。{said(value)}({type(value).__name__})が来ました。")
    return value


#: What a figure's labels are counted by, unless a caller says otherwise (`texts(counted=...)`).
FIGURE_COUNT = "図の行・列・点の数と同じ"


def texts(values, name: str, count: int | None = None, counted: str = FIGURE_COUNT) -> list[str]:
    """`values` as a list of str (labels, one per row or column), `count` of them when given;
    `counted` says in the message what the count is (the rows, the two axes, ...)."""
    if isinstance(values, (str, bytes, dict, set)) or not isinstance(values, (list, tuple, np.ndarray)):
        raise HelpersTypeError(
            f"{name} には文字列のリスト(例: [\"ケーキ\", \"カレー\"])を渡してください。"
            f"{type(values).__name__} が来ました。"
        )
    values = list(np.asarray(values).ravel()) if isinstance(values, np.ndarray) else list(values)
    if not all(isinstance(v, (str, np.str_)) for v in values):
        odd = next(v for v in values if not isinstance(v, (str, np.str_)))
        raise HelpersTypeError(f"{name} の要素はすべて文字列にしてください。{said(odd)} が入っています。")
    if count is not None and len(values) != count:
        raise HelpersError(f"{name} は {count} 個にしてください({counted})。{len(values)} 個が来ました。")
    return [str(v) for v in values]


def pair(values, name: str, optional: bool = False) -> tuple[float, float] | None:
    """`values` as two finite numbers (lo, hi) with lo < hi: axis limits, a colour range; None
    passes too when `optional`."""
    if values is None and optional:
        return None
    if isinstance(values, (str, bytes, dict, set)) or not isinstance(values, (list, tuple, np.ndarray)) \
            or len(values) != 2:
        raise HelpersTypeError(f"{name} は (下限, 上限) の 2 つの数で指定してください。{said(values)} が来ました。")
    lo, hi = (number(v, name) for v in values)
    if not lo < hi:
        raise HelpersError(f"{name} は下限 < 上限にしてください。({lo}, {hi}) が来ました。")
    return lo, hi


def one_of(value, name: str, options, labels=None):
    """The option of `options` equal to `value` (a True/False never stands for a 1/0); else say
    which ones there are, each with its label from `labels` when given (頭 1 is head 0). What an
    explorable's choice trait and its chapter's function both answer."""
    for option in options:
        if isinstance(value, bool) == isinstance(option, bool) and _equal(value, option):
            return option
    shown = "、".join(f"{o}({label})" for o, label in zip(options, labels, strict=True)
                     ) if labels is not None else "、".join(map(str, options))
    raise HelpersKeyError(f"{name} は {shown} のどれかにしてください。{said(value)} が来ました。")


def _equal(value, option) -> bool:
    """`value == option` as one True/False (an array compared with a number is neither)."""
    try:
        return bool(value == option)
    except (TypeError, ValueError):
        return False


def instance(value, name: str, cls: type, made_by: str):
    """`value` itself when it is a `cls` (a task, a generator, …); else say what makes one."""
    if not isinstance(value, cls):
        raise HelpersTypeError(f"{name} には {made_by} を渡してください。{type(value).__name__} が来ました。")
    return value


# --------------------------------------------------------------------------------------------
# The boundary: every public maths function is a plain numpy body wrapped by `public`.

#: True while a public function's body runs: the calls it makes were checked where it was called.
_inside = contextvars.ContextVar("helpers_inside", default=False)


def arg(convert: Callable, label: str | None = None, **options) -> Callable:
    """A spec for `public`: the argument becomes `convert(value, label or its name, **options)`."""
    def spec(value, name):
        return convert(value, label or name, **options)
    return spec


def public(*relations: Callable, finite: bool = True, draws: bool = False, always: bool = False,
           **specs: Callable):
    """The one learner boundary, as a decorator over a plain body: maths, figures and widgets.

    Each argument named in `specs` is converted by its spec (`arg(as_matrix)`, …); then each of
    `relations` sees all arguments (a dict it may update: shapes that must fit, sizes to guard).
    The body runs with numpy's overflow and invalid operations raising, so a number past float's
    range is answered in one Japanese line naming the learner's arguments instead of spreading
    as inf or NaN. Inside another public function, the body runs as it is: its arguments were
    made by code already checked, and a message must name what the learner passed, not them.
    `finite=False` lets a result hold inf or NaN on purpose (a check's overflowing mistakes).

    `draws=True` (a figure or an explorable's factory): the arguments are checked the same way,
    then the body draws with matplotlib or builds a widget as plain code: matplotlib's own
    arithmetic is not the learner's, and the maths the body calls checks its arguments again.

    `always=True` (a constructor or a method of a learner's object, see `record`; `setup`): the arguments
    are checked on every call, from inside another public function too (an object keeps what it
    is given, so what internal code builds is converted the same way), then the body runs as
    plain code.
    """
    def wrap(body):
        signature = inspect.signature(body)

        @functools.wraps(body)
        def call(*args, **kwargs):
            if _inside.get() and not always:
                return body(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                raise HelpersTypeError(
                    f"{_called_as(body, signature)} の形で呼んでください(引数の数か名前が合いません)。"
                ) from None
            bound.apply_defaults()
            values = bound.arguments
            for name, spec in specs.items():
                values[name] = spec(values[name], name)
            for relation in relations:
                relation(values)
            if draws or always:
                return body(*bound.args, **bound.kwargs)
            token = _inside.set(True)
            try:
                with np.errstate(over="raise", invalid="raise", divide="raise"):
                    result = body(*bound.args, **bound.kwargs)
            except FloatingPointError:
                raise HelpersError(_overflow(body.__name__, values)) from None
            finally:
                _inside.reset(token)
            if finite and not _finite(result):  # a product numpy does not watch (einsum) can still overflow
                raise HelpersError(_overflow(body.__name__, values))
            return result

        call.at_the_boundary = True  # tests/test_api_errors.py: every public function is one of these
        return call
    return wrap


def _called_as(body: Callable, signature: inspect.Signature) -> str:
    """How to call `body`, as a message shows it: a constructor by its class, a method without self."""
    parameters = [p for name, p in signature.parameters.items() if name != "self"]
    if body.__name__ == "__init__":
        signature = signature.replace(return_annotation=inspect.Signature.empty)
    return f"{body.__qualname__.removesuffix('.__init__')}{signature.replace(parameters=parameters)}"


def record(*relations: Callable, **specs: Callable):
    """A frozen dataclass a learner builds (`Embedding`, `Party`, ...), its constructor a boundary.

    Each field named in `specs` is stored as its spec converts it, after `relations` saw all of
    them; with `public(always=True)`, so an object built inside the package is converted too.
    Its methods that take arguments are `@public(..., always=True)` the same way.
    """
    def wrap(cls):
        cls = dataclass(frozen=True)(cls)
        cls.__init__ = public(*relations, always=True, **specs)(cls.__init__)
        return cls
    return wrap


def _overflow(function: str, values: dict) -> str:
    numbers = [n for n, v in values.items() if isinstance(v, (np.ndarray, dict, float))] or ["入力"]
    return (f"{function} の計算で数が大きくなりすぎ、float の範囲(約 1.8e308)を超えました。"
            f"{', '.join(numbers)} の値をもっと小さくしてください。")


def _finite(result) -> bool:
    """No NaN or +inf in a result of numbers (-inf is a mask's "hidden"); other results pass."""
    if isinstance(result, (tuple, list)):
        return all(_finite(r) for r in result)
    if isinstance(result, dict):
        return all(_finite(r) for r in result.values())
    if isinstance(result, float) or (isinstance(result, np.ndarray) and result.dtype.kind == "f"):
        return not (np.any(np.isnan(result)) or np.any(result == np.inf))
    return True


def trusted(body):
    """A private entry point whose callers pass arrays they made: it runs inside the boundary."""
    @functools.wraps(body)
    def call(*args, **kwargs):
        token = _inside.set(True)
        try:
            return body(*args, **kwargs)
        finally:
            _inside.reset(token)
    return call


def learner_code(fn: Callable, *args):
    """Call the learner's own function from inside a public body, as if from outside: its calls
    into helpers are checked (and name its arguments). Its own overflow raises like ours, so the
    public function answers it in one line instead of passing inf along."""
    token = _inside.set(False)
    try:
        return fn(*args)
    finally:
        _inside.reset(token)
