"""Each formula is written once in src/ (issue 25): the softmax, the masked softmax, its backward
pass and the cutting into heads each have one definition, which every chapter, check and training loop calls.

Found by the shape of the code (AST), not by name, so a copy under another name is caught too.
The checks' deliberate mistakes (a softmax over the wrong axis, without keepdims, over the whole
table) are other formulas and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

HELPERS = Path(__file__).resolve().parents[1] / "src" / "helpers"


def _keepdims(node: ast.AST) -> bool:
    return any(k.arg == "keepdims" and getattr(k.value, "value", None) is True
               for k in getattr(node, "keywords", []))


def _method(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "attr", "") == name


def _reaching(fn: ast.AST):
    """`reaches(expr, test)`: whether a node of `expr` passes `test`, following the names `fn`
    binds to what they were given (z = s + mask; … z …), `s += mask` as s + mask."""
    bound: dict[str, list[ast.AST]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    bound.setdefault(t.id, []).append(n.value)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            bound.setdefault(n.target.id, []).append(ast.BinOp(n.target, n.op, n.value))

    def reaches(expr: ast.AST, test, seen=()) -> bool:
        for n in ast.walk(expr):
            if test(n):
                return True
            if isinstance(n, ast.Name) and n.id in bound and n.id not in seen:
                if any(reaches(value, test, (*seen, n.id)) for value in bound[n.id]):
                    return True
        return False

    return reaches


def _stable_softmax(fn: ast.AST) -> bool:
    """e / e.sum(…, keepdims=True) where e = exp(scores − scores.max(…, keepdims=True)), also
    through intermediate names (z = …; e = np.exp(z))."""
    reaches = _reaching(fn)

    def row_max(n):
        return _method(n, "max") and _keepdims(n)

    def stable_exp(n):
        return _method(n, "exp") and reaches(n.args[0], row_max)

    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)
               and _method(n.right, "sum") and _keepdims(n.right)
               and ast.dump(n.left) == ast.dump(n.right.func.value) and reaches(n.left, stable_exp)
               for n in ast.walk(fn))


def _softmax_backward(fn: ast.AST) -> bool:
    """a ⊙ (da − sum(da ⊙ a)): the Jacobian of the softmax applied to a gradient."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)
               and isinstance(n.right, ast.BinOp) and isinstance(n.right.op, ast.Sub)
               and _method(n.right.right, "sum") and _keepdims(n.right.right)
               for n in ast.walk(fn))


def _masked_softmax(fn: ast.AST) -> bool:
    """softmax(… + …): scores and a mask added for a softmax call (chapter 08's mask), inside
    the call or through names (z = s + mask; softmax(z); s += mask; np.add(s, mask))."""
    reaches = _reaching(fn)

    def added(m):
        return isinstance(m, ast.BinOp) and isinstance(m.op, ast.Add) or _method(m, "add")

    return any(isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", "")) == "softmax"
               and any(reaches(a, added) for a in n.args)
               for n in ast.walk(fn))


def _head_cut(fn: ast.AST) -> bool:
    """A reshape followed at once by an axis swap: rows cut into heads (or heads put back)."""
    return any(_method(n, name) and _method(n.func.value, "reshape")
               for n in ast.walk(fn) for name in ("transpose", "swapaxes"))


def _definitions(found) -> list[str]:
    where = []
    for path in sorted(HELPERS.rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            inner = isinstance(fn, ast.FunctionDef) and not any(
                isinstance(n, ast.FunctionDef) and n is not fn and found(n) for n in ast.walk(fn))
            if inner and found(fn):
                where.append(f"{path.relative_to(HELPERS)}:{fn.name}")
    return where


def test_one_softmax():
    assert _definitions(_stable_softmax) == ["attention.py:softmax"]


def test_one_softmax_backward():
    assert _definitions(_softmax_backward) == ["attention.py:softmax_backward"]


def test_one_masked_softmax():
    assert _definitions(_masked_softmax) == ["attention.py:masked_softmax"]


def test_one_cut_into_heads():
    assert _definitions(_head_cut) == ["heads.py:split_heads"]


def test_the_detectors_find_the_copies_the_review_found():
    """Chapter 08's check kept its own softmax and split (main ecd40a8): the detectors see them."""
    copy = ast.parse(
        "def _softmax_rows(S):\n"
        "    e = np.exp(S - S.max(axis=-1, keepdims=True))\n"
        "    return e / e.sum(axis=-1, keepdims=True)\n"
        "def _split(M, h):\n"
        "    n, width = M.shape\n"
        "    return M.reshape(n, h, width // h).transpose(1, 0, 2)\n"
        "def _evaluate(A, dA):\n"
        "    return A * (dA - np.sum(dA * A, axis=-1, keepdims=True))\n"
        "def forward(X, W_Q, W_K, mask):\n"
        "    scores = attention_scores(X @ W_Q, X @ W_K)\n"
        "    return softmax(scores if mask is None else scores + mask)\n")
    softmax, split, backward, masked = (n for n in copy.body)
    assert _masked_softmax(masked) and not _masked_softmax(softmax)
    assert _stable_softmax(softmax) and not _stable_softmax(split)
    assert _head_cut(split) and not _head_cut(softmax)
    assert _softmax_backward(backward) and not _softmax_backward(softmax)


def test_the_masked_softmax_is_found_written_through_names():
    """The sum of scores and mask made before the call, under any name, is the same formula."""
    copies = ast.parse(
        "def through_a_name(s, mask):\n"
        "    z = s + mask\n"
        "    return softmax(z, axis=-1)\n"
        "def through_two(Q, K, mask):\n"
        "    s = Q @ K.T\n"
        "    z = s + mask\n"
        "    w = z\n"
        "    return helpers.softmax(w)\n"
        "def added_in_place(s, mask):\n"
        "    s += mask\n"
        "    return softmax(s)\n"
        "def with_numpy(s, mask):\n"
        "    return softmax(np.add(s, mask))\n").body
    plain = ast.parse(
        "def unmasked(Q, K):\n"
        "    z = Q @ K.T / 2\n"
        "    n = len(z) + 1\n"
        "    return softmax(z), n\n").body[0]
    assert all(_masked_softmax(fn) for fn in copies), [fn.name for fn in copies if not _masked_softmax(fn)]
    assert not _masked_softmax(plain)
