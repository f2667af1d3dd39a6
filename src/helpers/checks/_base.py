"""What every exercise check shares: how a verdict is said, how the learner's function is
called, how a typed answer is read, and how a wrong answer is matched to the typical mistake it is.

A check prints one line starting with ✓ when the answer is right, and otherwise raises
`CheckFailed` (an `AssertionError`) whose Japanese message names the likely mistake, so a learner
knows what to fix. IPython, and therefore JupyterLab, nbclient, nbval and nbgrader's feedback, asks
an exception for `_render_traceback_()` before printing a traceback: `CheckFailed` answers with its
hint alone, so a wrong answer is one ✗ line with no checker code and no path of the machine.

Partial credit (nbgrader): every public check is an `@exercise`, which notes a credit in [0, 1]
for the cell it runs in (1 right, 0 wrong, or the `credit` a `fail` gives, e.g. ½ for attention
weights that are right with a wrong output). Only while nbgrader autogrades
(NBGRADER_EXECUTION=autograde) does a wrong answer print its ✗ line on stdout instead of raising,
so that the cell runs on to its last line, `score(points)`, which `qkv_classroom build` puts in the
hidden tests of every grade cell: points × the mean credit of that cell's checks, the number
nbgrader reads as the cell's partial credit. Anywhere else nothing changes: a wrong answer raises.
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .._mode import autograding
from .._validate import _ShortTraceback


class CheckFailed(_ShortTraceback, AssertionError):
    """A wrong answer, worth `credit` (0 to 1) of the exercise. IPython shows its ✗ hint only."""

    def __init__(self, message: str, credit: float = 0.0) -> None:
        super().__init__(message)
        self.credit = credit

    def _one_line(self) -> str:
        return str(self)  # the ✗ hint says it all: no exception name in front


def passed(message: str, *, quiet: bool = False) -> None:
    """Say ✓ (a hidden test, `quiet`, passes without a word: the visible check already spoke)."""
    if not quiet:
        print(f"✓ 正解です。{message}")


def hidden_rng(exercise: str) -> np.random.Generator:
    """Random inputs for an exercise's hidden test (nbgrader BEGIN/END HIDDEN TESTS): inputs that
    no notebook shows, the same on every run, different for each exercise."""
    return np.random.default_rng([len(exercise), *exercise.encode()])


def hidden_cases(exercise: str, *cases: Sequence) -> list[tuple]:
    """A hidden test's inputs: each case's shapes become standard-normal arrays drawn from
    `hidden_rng(exercise)`, in order; a plain number in a case (a learning rate) stays as it is.
    `hidden_cases("x", ((1, 4), (6, 4), 0.7))` → `[(array 1×4, array 6×4, 0.7)]`."""
    rng = hidden_rng(exercise)
    return [tuple(rng.normal(size=s) if isinstance(s, tuple) else s for s in case)
            for case in cases]


def fail(message: str, credit: float = 0.0) -> None:
    raise CheckFailed(f"✗ {message}", credit)


#: Credits noted by the checks of the cell that ran one last ({IPython execution count: [credit]}).
_records: dict[int | None, list[float]] = {}
_running = False  # a check is running: one called from inside it (the learner's code) notes nothing


def _cell() -> int | None:
    """The execution count of the running cell (None outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python
        return None
    shell = get_ipython()
    return None if shell is None else shell.execution_count


def _note(credit: float) -> None:
    cell = _cell()
    if cell not in _records:
        _records.clear()  # only the running cell's checks count
    _records.setdefault(cell, []).append(credit)


def exercise(check: Callable) -> Callable:
    """A public check: notes its credit for `score`; under autograding a wrong answer prints its
    ✗ line (stdout) and the cell goes on, anywhere else it raises `CheckFailed` as usual."""

    @functools.wraps(check)
    def run(*args, **kwargs):
        global _running
        if _running or threading.current_thread() is not threading.main_thread():
            return check(*args, **kwargs)  # from the learner's code: inside a check, or a thread
        _running = True
        try:
            check(*args, **kwargs)
        except CheckFailed as wrong:
            _note(wrong.credit)
            if not autograding():
                raise
            print(wrong)
        else:
            _note(1.0)
        finally:
            _running = False

    return run


def score(points: float) -> float:
    """What a grade cell earns: `points` × the mean credit of the checks run in this cell (0 if
    none ran), to 0.01. The last line of every grade cell's hidden tests; nbgrader takes the
    number a grade cell outputs as its partial credit."""
    credits = _records.pop(_cell(), [])
    return round(points * sum(credits) / len(credits), 2) if credits else 0.0


def _parameter_names(fn: Callable) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _unchanged(now: np.ndarray, then: np.ndarray) -> bool:
    if now.shape != then.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.all((now == then) | ((now != now) & (then != then))))


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


_MATMUL_MISMATCH = re.compile(r"^matmul: Input operand 1 has a mismatch in its core dimension 0.*"
                              r"\(size (\d+) is different from (\d+)\)")
_NOT_BROADCAST = re.compile(r"^operands could not be broadcast together with shapes (\S+) (\S+)")
_DOT_NOT_ALIGNED = re.compile(r"^shapes \((\d+),(\d+)\) and \((\d+),(\d+)\) not aligned")


def matmul_sizes(err: Exception) -> tuple[int, int] | None:
    """(columns on the left, rows on the right) when `err` is numpy's product mismatch, from
    `@`/np.matmul or from np.dot."""
    if not isinstance(err, ValueError):
        return None
    if m := _MATMUL_MISMATCH.match(str(err)):
        return int(m.group(2)), int(m.group(1))
    if m := _DOT_NOT_ALIGNED.match(str(err)):
        return int(m.group(2)), int(m.group(3))
    return None


def broadcast_shapes(err: Exception) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The two shapes when `err` is numpy's "operands could not be broadcast together"."""
    m = _NOT_BROADCAST.match(str(err)) if isinstance(err, ValueError) else None
    if not m:
        return None
    return tuple(tuple(int(d) for d in re.findall(r"\d+", g)) for g in m.groups())


def crash_in_japanese(err: Exception) -> str:
    """numpy's commonest shape errors (a product's, a broadcast's) said in Japanese, with the
    sizes; any other error as it is, cut at 300 characters.

    numpy's English (e.g. "gufunc signature (n?,k),(k,m?)->(n?,m?)") means nothing to a learner
    who wrote `Q @ K` for `Q @ K.T`.
    """
    text = str(err)
    if sizes := matmul_sizes(err):
        left_cols, right_rows = sizes
        return (f"行列の積(@ や np.dot)の形が合いません: 左の列の数が {left_cols}、右の行の数が {right_rows} です。"
                "A @ B は、A の列の数と B の行の数がそろっているときだけ計算できます")
    if isinstance(err, ValueError) and (m := _NOT_BROADCAST.match(text)):
        return (f"形 {m.group(1)} と {m.group(2)} の配列は、成分ごとの計算(+ - * /)で組み合わせられません。"
                "どちらかの形が思っていたものと違います")
    return f"{type(err).__name__}: {text[:300]}"


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


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shape and equal values (to rounding)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=1e-6))


def typical_mistake(got: np.ndarray, variants: Mapping[str, np.ndarray]) -> str | None:
    """The name of the first wrong variant (every key but "right") that `got` equals, or None.

    Several spellings of one mistake share its name: "no_keepdims:stable" is reported as
    "no_keepdims", so a hint table needs one entry per mistake.
    """
    for name, wrong in variants.items():
        if name != "right" and same(got, wrong):
            return name.split(":")[0]
    return None


#: The hints for `keepdims_slips`, shared by every chapter that asks for a row-wise softmax.
KEEPDIMS_HINTS = {
    "no_keepdims": "行の和で割るときに keepdims=True を忘れていませんか? "
                   "e / e.sum(axis=1) だと、形 (n,) の和が列の方向に並んで、i 行 j 列が "
                   "j 行めの和で割られます。e.sum(axis=1, keepdims=True) なら形 (n, 1) で、行ごとに割れます。",
    "max_no_keepdims": "各行の最大値を引くところで keepdims=True が抜けています。S - S.max(axis=1) だと、"
                       "形 (n,) の最大値が列の方向に並んで、i 行 j 列から j 行めの最大値が引かれます。"
                       "S - S.max(axis=1, keepdims=True) なら形 (n, 1) で、行ごとに引けます"
                       "(和で割るところも同じです)。",
}


def keepdims_slips(S: np.ndarray) -> dict[str, np.ndarray]:
    """What a row-wise softmax of the scores `S` gives when a row's sum or maximum loses
    `keepdims=True`: on a square table the (n,) result lines up with the columns instead of
    crashing. With and without the maximum subtracted; none for a table that is not square."""
    if S.shape[0] != S.shape[1]:
        return {}
    with np.errstate(over="ignore", invalid="ignore"):  # huge scores: the naive versions overflow
        raw = np.exp(S)
        stable = np.exp(S - S.max(axis=1, keepdims=True))
        shifted = np.exp(S - S.max(axis=1))
        return {
            "no_keepdims": raw / raw.sum(axis=1),
            "no_keepdims:stable": stable / stable.sum(axis=1),
            "max_no_keepdims": shifted / shifted.sum(axis=1, keepdims=True),
            "max_no_keepdims:both": shifted / shifted.sum(axis=1),
        }


def fail_on_typical_mistake(got: np.ndarray, variants: Mapping[str, np.ndarray],
                            hints: Mapping[str, str], *, said: str = "") -> None:
    """If `got` is one of the typical mistakes in `variants`, fail with its hint (`said` first)."""
    mistake = typical_mistake(got, variants)
    if mistake:
        fail(f"{said}{hints[mistake]}")


#: Marks a learner may type around an answer: quotes and brackets, and a closing 。 or .
_WRAPPERS = "「」『』\"'“”‘’"
TRAILING = "。.、,!?"

#: Polite endings a learner of a です・ます book types, rewritten in this order until the answer
#: is a choice: 変わらないと思います → 変わらない, 変わりません → 変わらない, 対称になります →
#: 対称になる, 壊れます → 壊れる, エラーです → エラー (and then a trailing になる: 均等になります → 均等).
_POLITE_ENDINGS = (("と思います", ""), ("と思う", ""), ("りません", "らない"), ("ります", "る"),
                   ("れません", "れない"), ("れます", "れる"), ("します", "する"), ("です", ""))


#: Hiragana read as katakana on both sides of a comparison: けーき is ケーキ, and a choice such as
#: ときどき変わる still equals itself.
_HIRAGANA_AS_KATAKANA = {code: code + 0x60 for code in range(0x3041, 0x3097)}


def canonical_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)  # ｹｰｷ → ケーキ, full-width space → space
    text = text.translate(_HIRAGANA_AS_KATAKANA)
    text = re.sub(r"\s+", "", text)             # surrounding and inner spaces, IME's included
    text = text.strip(_WRAPPERS).rstrip(TRAILING).strip(_WRAPPERS)
    return text


def normalise_answer(answer, choices: Sequence[str],
                     synonyms: Mapping[str, str] | None = None) -> str | None:
    """The choice a typed answer means, or None when it is none of them.

    One rule for every prediction: NFKC (half-width kana, full-width letters and digits), spaces
    anywhere (the IME's full-width one too), quotes around it, a closing 「。」, hiragana for
    katakana and a polite ending (`_POLITE_ENDINGS`) do not count; `synonyms` maps other words
    a learner may use (e.g. 発散 → 壊れる) to a choice.
    """
    if not isinstance(answer, str):
        return None
    key = canonical_text(answer)
    table = {canonical_text(c): c for c in choices}
    table.update({canonical_text(word): choice for word, choice in (synonyms or {}).items()})
    for polite, plain in _POLITE_ENDINGS:  # 変わらないと思います → 変わらない → …
        if key in table:
            break
        polite, plain = canonical_text(polite), canonical_text(plain)
        if key.endswith(polite):
            key = key[: -len(polite)] + plain
    if key not in table and key.endswith(becoming := canonical_text("になる")):
        key = key[: -len(becoming)]  # 均等になります → 均等になる → 均等
    return table.get(key)


def _shown(answer) -> str:
    """An answer as the learner would recognise it, with invisible characters made visible."""
    if not isinstance(answer, str):
        return f"{answer!r}({type(answer).__name__})"
    if answer != answer.strip() or re.search(r"[^\S ]", answer):
        return repr(answer)
    return f"「{answer}」"


def read_choice(answer, choices: Sequence[str], synonyms: Mapping[str, str] | None = None,
                label: str = "") -> str:
    """The choice `answer` means; a hint if it is empty, not a string or none of `choices`."""
    listed = "、".join(f'"{c}"' for c in choices)
    to, of = (f"{label} に", f"{label} の") if label else ("", "")
    if answer is None or (isinstance(answer, str) and canonical_text(answer) == ""):
        fail(f"{to}まだ答えが入っていません。{listed} のどれかを文字列で書いてください。")
    if not isinstance(answer, str):
        fail(f"{of}答えは {listed} のどれかを、引用符 \" でかこんだ文字列で書いてください。"
             f"{_shown(answer)} が来ました。")
    choice = normalise_answer(answer, choices, synonyms)
    if choice is None:
        fail(f"{of}{_shown(answer)}は選択肢にありません。{listed} のどれかを書いてください。")
    return choice


def check_choice(answer, correct: str, choices: Sequence[str], hints: Mapping[str, str],
                 synonyms: Mapping[str, str] | None = None) -> None:
    """A prediction question: `answer` must mean one of `choices`; a wrong one gets its own hint."""
    choice = read_choice(answer, choices, synonyms)
    if choice != correct:
        fail(hints.get(choice, f"「{choice}」ではありません。図と表を見直してみましょう。"))
    passed(hints.get(correct, ""))


def three_arrays(result, what: str, names: str = "(Q, K, V)") -> tuple[np.ndarray, ...]:
    """The learner's three returned faces, each as a float array."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        fail(f"{what} は 3 つの配列を {names} の順に返してください"
             f"(return q, k, v のように)。{type(result).__name__} が返ってきました。")
    return tuple(as_float_array(r, what) for r in result)


def attention_pair(fn: Callable, Q, K, V, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Call the learner's attention `what(Q, K, V)`; its `(output, weights)` as float arrays."""
    result = call_learner(fn, Q.copy(), K.copy(), V.copy(), what=what, call=f"{what}(Q, K, V)",
                          on_error=f"Q {Q.shape}, K {K.shape}, V {V.shape} のときの途中の形を "
                                   "print して確かめましょう。")
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        fail("(output, weights) の 2 つを、この順の組(タプル)で返してください。"
             f"{type(result).__name__} が返ってきました。")
    return tuple(as_float_array(r, what) for r in result)


def check_attention_output(out, w, want_out, want_w, V, hints: Mapping[str, str]) -> None:
    """Fail with the hint for a mix-up of the output: the pair swapped, the weights returned as
    the output, the weights transposed before mixing (`transposed_output`, if `hints` has it),
    or right weights with a wrong output (`hints` has "swapped", "weights_as_output",
    "bad_output"). Right weights with a wrong output earn half the credit."""
    if out.shape == want_w.shape and w.shape == want_out.shape:
        fail(hints["swapped"])
    half = 0.5 if same(w, want_w) else 0.0  # right weights, wrong output: half the credit
    if same(out, want_w):
        fail(hints["weights_as_output"], half)
    if half:
        square = want_w.shape[0] == want_w.shape[1]
        if "transposed_output" in hints and square and same(out, want_w.T @ V):
            fail(hints["transposed_output"], half)
        shape = "" if out.shape == want_out.shape else f" 形は {want_out.shape} のはずが {out.shape} でした。"
        fail(f"{hints['bad_output']}{shape}", half)


def wrong_attention_weights(fn: Callable, Q, K, V, what: str, variants: Mapping[str, np.ndarray],
                            hints: Mapping[str, str]) -> np.ndarray | None:
    """Call the learner's attention `what(Q, K, V)`; compare it with `variants["right"]`.

    None when its output and weights are both right; a mix-up of the output fails with its hint
    (`check_attention_output`); what is left is wrong weights, returned for the chapter's hints.
    """
    out, w = attention_pair(fn, Q, K, V, what)
    want_w = variants["right"]
    want_out = want_w @ V
    if same(out, want_out) and same(w, want_w):
        return None
    check_attention_output(out, w, want_out, want_w, V, hints)
    return w
