"""numpy's English shape errors (a product's, a broadcast's), and the Python errors a beginner
meets (a method used without its (), a shape called like a function, an axis or index out of
range, a misspelt keyword, a removed numpy name), read back and said in Japanese."""

from __future__ import annotations

import difflib
import re

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


#: The keywords a learner passes to numpy's reductions and builders, for a misspelt one.
_KEYWORDS = ("axis", "keepdims", "dtype", "out", "where", "initial", "k", "ord", "temperature")

_PYTHON_ERRORS = (  # (kind, message pattern, the Japanese, written with the pattern's groups)
    (TypeError, r"unsupported operand type\(s\) for (\S+): .*'(?:builtin_function_or_method|method)'",
     "計算({0})の中に、呼び出していない関数があります。メソッドや関数の名前のあとに、かっこ () を"
     "つけ忘れていませんか(.sum と .sum() は別物です)"),
    (TypeError, r"can't multiply sequence by non-int",
     "リスト(またはタプル)に小数を掛けています。リストのままでは数の計算になりません。np.array(...) にしてから"
     "計算しましょう"),
    (TypeError, r"unsupported operand type\(s\) for (\S+): '(?:list|tuple)'",
     "リストやタプルのまま計算({0})しています。np.array(...) にしてから計算しましょう"),
    (TypeError, r"'(\w+)' object is not subscriptable",
     "{0} に [番号] をつけて取り出そうとしています。その値は配列ではありません"),
    (ValueError, r"truth value of an array with more than one element is ambiguous",
     "いくつもの数が入った配列を、if や and・or でそのまま「正しいか」として使っています。"
     "どの数を比べたいのかを確かめましょう"),
    (OverflowError, r"math range error",
     "math.exp の結果が大きすぎて、あふれました(オーバーフロー)"),
    (TypeError, r"'tuple' object is not callable",
     "タプル(shape など)を、関数のように () で呼び出しています。タプルの中の数は [番号] で取り出します"),
    (TypeError, r"'(\w+)' object is not callable",
     "{0} を、関数のように () で呼び出しています。関数ではないので呼び出せません"),
    (ValueError, r"axis (-?\d+) is out of bounds for array of dimension (\d+)",
     "axis={0} を指定しましたが、この配列は {1} 次元です(axis に使えるのは 0 から {1} − 1 まで)"),
    (IndexError, r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)",
     "番号 {0} は範囲の外です(軸 {1} の長さは {2} で、番号は 0 から {2} − 1 まで)"),
    (IndexError, r"too many indices for array: array is (\d+)-dimensional, but (\d+) were indexed",
     "{0} 次元の配列に、番号を {1} つ指定しています"),
    (IndexError, r"(\w+) index out of range", "{0} の番号が範囲の外です(番号は 0 から数えて長さより 1 小さい数まで)"),
    (AttributeError, r"`np\.(\w+)` was removed in the NumPy 2\.0 release\. Use `np\.(\w+)`",
     "np.{0} は NumPy 2.0 でなくなりました。代わりに np.{1} を使います"),
)


def _python_error(err: Exception) -> str | None:
    """A beginner's Python error said in Japanese (`_PYTHON_ERRORS`, a misspelt keyword), or None."""
    text = str(err)
    if isinstance(err, TypeError) and (m := re.search(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'", text)):
        func, word = m.group(1).lstrip("_"), m.group(2)
        close = difflib.get_close_matches(word, _KEYWORDS, n=1, cutoff=0.6)
        guess = f"{close[0]} の打ち間違いではありませんか" if close else "引数の名前を確かめましょう"
        return f"{func}() に {word} という名前の引数はありません。{guess}"
    for kind, pattern, said in _PYTHON_ERRORS:
        if isinstance(err, kind) and (m := re.search(pattern, text)):  # "n − 1" worked out
            said = re.sub(r"(\d+) − 1", lambda k: str(int(k.group(1)) - 1), said.format(*m.groups()))
            return said.replace("0 から 0 まで", "0 だけ")
    return None


def crash_in_japanese(err: Exception) -> str:
    """numpy's commonest shape errors (a product's, a broadcast's) and a beginner's Python errors
    (`_python_error`) said in Japanese, with the sizes; any other error as it is, cut at 300
    characters.

    numpy's English (e.g. "gufunc signature (n?,k),(k,m?)->(n?,m?)") means nothing to a learner
    who wrote `Q @ K` for `Q @ K.T`.
    """
    text = str(err)
    if said := _python_error(err):
        return said
    if sizes := matmul_sizes(err):
        left_cols, right_rows = sizes
        return (f"行列の積(@ や np.dot)の形が合いません: 左の列の数が {left_cols}、右の行の数が {right_rows} です。"
                "A @ B は、A の列の数と B の行の数がそろっているときだけ計算できます")
    if isinstance(err, ValueError) and (m := _NOT_BROADCAST.match(text)):
        return (f"形 {m.group(1)} と {m.group(2)} の配列は、成分ごとの計算(+ - * /)で組み合わせられません。"
                "どちらかの形が思っていたものと違います")
    return f"{type(err).__name__}: {text[:300]}"


