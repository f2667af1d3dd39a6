"""Chapter 05's exercises: one cell of the scores Q Kᵀ alone, the fused product, the product cut in
two along its shared axis, and the order of cells."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _base


def _cell_cases(hidden: bool = False):
    """((Q, K), (i, j)) for one cell of the scores Q Kᵀ: a square case (n = d_k, where a column of
    K, swapped indices and a column of Q show in the value) and a rectangular one (2 queries, 3
    keys, d_k = 4: a column of K does not even fit). Every cell has three or more decimals, as the
    hidden test's have, so a cell rounded by int(...) or round(..., 2) is not right; `hidden`: a
    square pair and a 4 × 5 Q with a 3 × 5 K the notebook never shows, in the visible order (square
    first), so a mistake that crashes on the rectangular pair is named by the square one first."""
    if hidden:
        square, wide = ((np.round(Q, 1) + 0.05, np.round(K, 1) - 0.05)  # small, with four decimals a cell
                        for Q, K in _base.hidden_cases("matmul_cell", ((3, 3), (3, 3)), ((4, 5), (3, 5))))
        return [(square, (2, 0)), (wide, (1, 0)), (wide, (3, 2))]
    square = (np.array([[1.0, 2.0, 0.0], [-1.0, 3.0, 1.0], [2.0, 0.0, 4.0]]) + 0.25,
              np.array([[2.0, -1.0, 1.0], [0.0, 1.0, 3.0], [1.0, 2.0, -2.0]]) - 0.125)
    wide = (np.array([[1.0, 2.0, 0.0, -1.0], [0.0, 1.0, 3.0, 2.0]]) + 0.25,
            np.array([[1.0, 0.0, 2.0, 1.0], [-1.0, 3.0, 0.0, 2.0], [2.0, 1.0, -1.0, 0.0]]) - 0.125)
    return [(square, (0, 2)), (square, (2, 1)), (wide, (1, 0)), (wide, (0, 2))]


def _cell_kinds(case) -> set[str]:
    """A cell's value with three or more decimals (rounding to two is then seen)."""
    (Q, K), (i, j) = case
    value = float(Q[i, :] @ K[j, :])
    return {"a cell with 3+ decimals"} if not np.isclose(value, round(value, 2), rtol=0, atol=1e-9) else set()


class _Watched(np.ndarray):
    """A learner's input that notes every matrix product taken with it (shapes of both sides).

    Results come back as plain arrays, so only products that start from the input are seen.
    """

    products: list[tuple[tuple[int, ...], ...]]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        plain = [np.asarray(i) if isinstance(i, _Watched) else i for i in inputs]
        if ufunc is np.matmul and any(isinstance(i, _Watched) for i in inputs):
            _Watched.products.append(tuple(np.shape(i) for i in plain))
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        plain = [np.asarray(a) if isinstance(a, _Watched) else a for a in args]
        if func in (np.dot, np.inner, np.matmul, np.tensordot):
            _Watched.products.append(tuple(np.shape(a) for a in plain[:2]))
        return func(*plain, **kwargs)

    def dot(self, other, *args, **kwargs):
        return np.dot(self, other, *args, **kwargs)


def _watched(X: np.ndarray) -> np.ndarray:
    return X.copy().view(_Watched)


def _cell_mistakes(Q, K, i: int, j: int) -> dict[str, float]:
    """The value each typical mistake gives for cell (i, j) of Q Kᵀ, where it can be computed."""
    n_q, d_k = Q.shape
    n_k = K.shape[0]
    found: dict[str, float] = {}
    found["row_off_by_one"] = float(Q[i - 1, :] @ K[j, :])  # i = 0 reads the last row, as Python does
    found["col_off_by_one"] = float(Q[i, :] @ K[j - 1, :])
    if n_k == d_k and j < n_k:
        found["column_of_K"] = float(Q[i, :] @ K[:, j])  # the column of K, not of Kᵀ
    if n_q == d_k and i < d_k:
        found["column_of_Q"] = float(Q[:, i] @ K[j, :])
    if n_q == n_k == d_k and i < d_k and j < d_k:
        found["columns_of_both"] = float(Q[:, i] @ K[:, j])  # Q Kᵀ read as if it were Qᵀ K
    if j < n_q and i < n_k:
        found["swapped"] = float(Q[j, :] @ K[i, :])
    return found


#: Chapter 05: the hint for each typical mistake in `score_cell(Q, K, i, j)` (one cell of Q Kᵀ).
CELL_HINTS = {
    "row_off_by_one": "Q の行が 1 つずれています(行 i-1 を使っています)。Python の番号が 0 から"
                      "始まることを思い出しましょう。",
    "col_off_by_one": "K の行が 1 つずれています(行 j-1 を使っています)。Python の番号が 0 から"
                      "始まることを思い出しましょう。",
    "column_of_K": "K の j 列め K[:, j] を使っています。マス (i, j) に要るのは Kᵀ の j 列めです。"
                   "転置で行と列を入れ替えると、Kᵀ の j 列めは K のどこになるでしょう。",
    "column_of_Q": "Q の i 列め Q[:, i] を使っています。「一つのマスは、一つの行と一つの列で決まる」の節で、"
                   "マス (i, j) に左の行列のどこを使うかを見直しましょう。",
    "columns_of_both": "Q の i 列め Q[:, i] と K の j 列め K[:, j] を掛けています。マス (i, j) の問いは Q の"
                       "一行で、列ではありません。そして右の行列は K ではなく Kᵀ です。転置で行と列を入れ替えると、"
                       "Kᵀ の j 列めは K のどこになるでしょう。",
    "swapped": "i と j が入れ替わっています(マス (j, i) の値です)。得点表の行は問い、列は見出しです。",
    "whole_product": "値は合っていますが、先に Q @ K.T の全部のマスを計算してから 1 つ取り出しています。"
                     "この練習は、Q @ K.T を計算せずに、そのマスに要る数だけから計算する練習です"
                     "(ほかのマスは要らない、がこの節の要点です)。",
}


def _cell_on_error(Q: np.ndarray, K: np.ndarray):
    """A crash of `score_cell`: an index past the end (i and j each number their own matrix's
    rows), or, on the rectangular case, a column of K (length n_k) met a row of Q (length d_k)."""
    shapes = f"Q は {Q.shape}(問いの数 × d_k)、K は {K.shape}(見出しの数 × d_k)です。"

    def advice(err: Exception) -> str:
        if isinstance(err, IndexError):
            return (f"{shapes}i は問いの番号(Q の行、0 〜 {Q.shape[0] - 1})、j は見出しの番号"
                    f"(K の行、0 〜 {K.shape[0] - 1})です。それぞれの番号で、どの行列のどこを取り出しているかを"
                    "確かめましょう。")
        return (f"{shapes}K[:, j] は K の j 列めで、長さは見出しの数 {K.shape[0]} です。"
                "Kᵀ の j 列めが K のどこにあたるかを考えましょう。")
    return advice


@_base.exercise
def check_matmul_cell(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 05: `fn(Q, K, i, j)` returns the single cell (i, j) of the scores `Q @ K.T` as a
    number, computed from row i of Q and column j of Kᵀ (row j of K) only, not the whole product."""
    wrong: list[tuple] = []
    for (Q, K), (i, j) in _cell_cases(hidden):
        _Watched.products = []
        try:
            result = _base.call_learner(
                fn, _watched(Q), K.copy(), i, j, what="score_cell", call=f"score_cell(Q, K, {i}, {j})",
                on_error=_cell_on_error(Q, K),
            )
        except _base.CheckFailed:
            if wrong:  # a wrong index that crashes on the rectangular case: the cells before say which
                break
            raise
        got = _base.as_float_array(result, "score_cell", asked="数")
        want = float(Q[i, :] @ K[j, :])
        if got.size == Q.shape[1] and np.allclose(got.reshape(-1), Q[i, :] * K[j, :]):
            _base.fail(f"成分ごとの積を並べた配列(長さ {Q.shape[1]})が返ってきました。掛け算はできていますが、"
                       "足し合わせていません。", mistake="no_sum")
        if got.size == K.shape[0] and np.allclose(got.reshape(-1), Q[i, :] @ K.T):
            _base.fail(f"行 i の全部のマス(1 行ぶん、長さ {K.shape[0]})を返しています。返すのはマス (i, j) の"
                       "数 1 つです。", mistake="whole_row")
        value = _base.as_number(result, "score_cell")
        if _base.rounded_to(value, want) is not None:
            _base.fail_on_wrong_values(want, value, "", said=f"score_cell(Q, K, {i}, {j}) が {value} を返しました。")
        if not np.isclose(value, want):
            wrong.append((i, j, want, value, _cell_mistakes(Q, K, i, j), Q.shape, K.shape))
        elif any(len(shapes) == 2 and shapes == (Q.shape, K.T.shape) for shapes in _Watched.products):
            _base.fail(CELL_HINTS["whole_product"], mistake="whole_product")
    if wrong:
        # The mistake that explains every wrong cell and the most of them (one that cannot
        # happen in a case is not ruled out there), so a coincidence in one case never names it.
        support = {name: 0 for name in CELL_HINTS if name != "whole_product"}
        for _, _, _, value, mistakes, _, _ in wrong:
            for name, v in mistakes.items():
                if name in support and np.isclose(value, v):
                    support[name] += 1
                else:
                    support.pop(name, None)
        best = sorted(support.items(), key=lambda kv: -kv[1])
        if best and best[0][1] > 0 and (len(best) == 1 or best[1][1] < best[0][1]):
            _base.fail(CELL_HINTS[best[0][0]], mistake=best[0][0])
        i, j, want, value, _, q_shape, k_shape = wrong[0]
        _base.fail(f"Q {q_shape}、K {k_shape} の score_cell(Q, K, {i}, {j}) は "
                   f"{_base.first_difference(want, value)}(番号は 0 から数えます)。", mistake="wrong_values")
    _base.passed("Kᵀ の j 列めは K の j 行めです。得点表の一マスは、問い i と見出し j の内積だけで決まります。",
                 quiet=hidden)


def _fused_cases(hidden: bool = False) -> list[tuple[np.ndarray, ...]]:
    """(X, W_Q, W_K, W_V) with d_v ≠ d_k, as chapter 06 has them: a split into three equal parts is
    then impossible, and only cutting at the column numbers works (the chapter's text). Two
    shapes (d_k = 3 and 2), so cuts typed as numbers for one shape are seen; `hidden`: one the
    notebook never shows."""
    if hidden:
        return _base.hidden_cases("fused_qkv", ((6, 3), (3, 2), (3, 2), (3, 3)))
    rng = np.random.default_rng(5)
    return [(np.round(rng.normal(size=(n, d_model)), decimals),
             *(np.round(rng.normal(size=(d_model, cols)), decimals) for cols in (d_k, d_k, d_v)))
            for n, d_model, d_k, d_v, decimals in ((5, 2, 3, 4, 1), (4, 3, 2, 3, 3))]


def _fused_kinds(case) -> set[str]:
    """The widths of the cut: d_k, and d_v ≠ d_k."""
    _, W_Q, _, W_V = case
    return {f"d_k = {W_Q.shape[1]}", *(["d_v ≠ d_k"] if W_V.shape[1] != W_Q.shape[1] else [])}


def _fused_on_error(err: Exception, X: np.ndarray, Ws: list[np.ndarray]) -> str:
    """Where a crash of `fused_qkv` comes from, read off numpy's message and the sizes: the three
    W cut into equal thirds though d_v ≠ d_k, stacked as rows (vstack), transposed, or X
    (n × d_model) on the right (the order)."""
    n, d_model = X.shape
    d_k, d_v = Ws[0].shape[1], Ws[2].shape[1]
    width = f"d_model × (2d_k + d_v) = {d_model} × {2 * d_k + d_v}"
    if "equal division" in str(err):
        return (f"三等分できませんでした。ここでは d_k = {d_k}、d_v = {d_v} で、並べた行列は {width} です。"
                "Q・K・V の列の数がそろっていないと、等分では切れません。問題文のヒントを見直しましょう。")
    if "concatenation axis must match" in str(err):
        if "along dimension 1" in str(err):
            return (f"縦に積もうとしています(np.vstack)。W_Q, W_K, W_V は列の数が {d_k}, {d_k}, {d_v} と"
                    "違うので、縦には積めません。")
        return f"W を転置していませんか? W_Q, W_K, W_V はどれも d_model = {d_model} 行です。"
    sizes = _base.matmul_sizes(err)
    if sizes is None:
        return f"途中の形を print して確かめましょう。三つの W を並べた行列は {width} です。"
    left_cols, right_rows = sizes
    if right_rows == n and left_cols != d_model:  # something @ X
        return ("掛ける順番を確かめましょう。X が積の右側に来ています。"
                f"X は n × d_model = {n} × {d_model} で、1 行が 1 語です。")
    if right_rows in (d_k, d_v, 2 * d_k + d_v):
        return (f"X の右に来た行列が {right_rows} 行です。W を転置していませんか? W_Q, W_K, W_V は"
                f"どれも d_model = {d_model} 行です。")
    return f"X(列 {d_model})の右に来た行列が {right_rows} 行です。三つの W を並べた行列は {width} のはずです。"


@_base.exercise
def check_fused_qkv(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 05: `fn(X, W_Q, W_K, W_V)` returns Q, K, V from one product with [W_Q W_K W_V].

    The products the learner's own code takes are counted while it runs (`counting_products`:
    `@`, np.matmul, np.dot, np.einsum …, however X was copied), and more than one is refused."""
    products = []
    for X, *Ws in _fused_cases(hidden):
        with _base.counting_products(fn) as count:
            result = _base.call_learner(fn, X.copy(), *(W.copy() for W in Ws), what="fused_qkv",
                                        call="fused_qkv(X, W_Q, W_K, W_V)",
                                        on_error=lambda err, X=X, Ws=Ws: _fused_on_error(err, X, Ws))
        products.append(count[0])
        _check_fused_faces(_base.three_arrays(result, "fused_qkv"), X, Ws)
    if max(products) > 1:
        _base.fail(f"値は合っていますが、X との掛け算を {max(products)} 回しています(行列の積を数えました)。この練習は、その掛け算を"
                   "一回だけにする練習です。「三つの W を一枚にまとめる」の節を見直しましょう。",
                   mistake="several_products")
    if min(products) == 1:
        _base.passed("一回の掛け算 X @ [W_Q W_K W_V] で、三つの顔がまとめて出てきました。", quiet=hidden)
    else:  # no product seen in the learner's own code (e.g. a function of another module did it)
        _base.passed("Q, K, V の値と形が、X @ W_Q, X @ W_K, X @ W_V と合っています。", quiet=hidden)


def _check_fused_faces(got, X: np.ndarray, Ws: list[np.ndarray]) -> None:
    """Each of the learner's Q, K, V against X @ W: a swap, a transposed or misplaced cut."""
    want = [X @ W for W in Ws]
    names = ("Q", "K", "V")
    for name, g, w in zip(names, got, want, strict=True):
        if g.shape == w.shape and np.allclose(g, w):
            continue
        for other, w2 in zip(names, want, strict=True):
            if other != name and g.shape == w2.shape and np.allclose(g, w2):
                _base.fail(f"{name} のところに {other} が入っています。返す順番は (Q, K, V) です。", mistake="order")
        if g.shape == w.shape[::-1] != w.shape and np.allclose(g.T, w):
            _base.fail(f"{name} の値は合っていますが、転置した形 {g.shape} で返っています。{name} は "
                       f"{w.shape}(語の数 × W_{name} の列の数)で、1 行が 1 語です。切り分けたあとに .T を"
                       "つけていないか確かめましょう。", mistake="transposed")
        if g.shape != w.shape and (g.ndim != 2 or g.shape[0] != w.shape[0]):
            _base.fail(f"{name} の形が {g.shape} です。{w.shape}(語の数 × W_{name} の列の数)のはずです。"
                       "行の方向(axis=0)に分けていませんか? それでは 1 語の行が切れてしまいます。",
                       mistake="split_rows")
        if g.shape[1] == sum(W.shape[1] for W in Ws):
            _base.fail(f"{name} の形が {g.shape} で、三つ分の列が入ったままです。切り分けていません。",
                       mistake="not_cut")
        if g.shape[1] != w.shape[1]:
            _base.fail(f"{name} の形が {g.shape} で、列の数が W_{name} の列の数 {w.shape[1]} ではありません。"
                       f"分ける位置がずれています(ここでは d_k = {Ws[0].shape[1]}、d_v = {Ws[2].shape[1]})。"
                       "切る位置を数で書いていませんか? W の列の数から求めましょう。", mistake="cut_misplaced")
        _base.fail(f"{name} の値が X @ W_{name[0]} と合いません({_base.first_difference(w, g, name)})。"
                   "np.hstack で並べた順と、np.split で分けた順が同じか確かめましょう。", mistake="wrong_values")


#: Other words a learner may use for the order prediction's choices.
ORDER_SYNONYMS = {"同じ": "変わらない", "変わらず": "変わらない", "変化しない": "変わらない",
                  "変化する": "変わる", "違う": "変わる", "時々変わる": "ときどき変わる"}


#: The order prediction: the page's choices, in its order.
ORDER = _base.Prediction(("変わる", "変わらない", "ときどき変わる"), "変わらない", ORDER_SYNONYMS)


@_base.exercise
@_base.asks(ORDER)
def check_order_prediction(answer) -> None:
    """Chapter 05 prediction: does computing the cells of X @ W in another order change it?"""
    _base.check_choice(
        answer,
        ORDER.correct,
        ORDER.choices,
        {
            "変わらない": "どのマスも自分の行と列だけを読み、ほかのマスの答えを使いません。"
                          "だから順番を変えても、一斉に計算しても、同じ行列になります。",
            "変わる": "マス (i, j) の計算に、ほかのマスの結果は出てくるでしょうか? "
                      "上の一マスの計算で、マス (i, j) に何を使っているかを確かめましょう。",
            "ときどき変わる": "逆順にしたとき、あるマス (i, j) の計算に使う数は変わるでしょうか? "
                              "上の一マスの計算で、マス (i, j) に何を使っているかを確かめましょう。",
        },
        ORDER.synonyms,
    )



#: Chapter 05, 練習 4: the hint for each typical mistake in `matmul_in_two(X, W, p)`.
IN_TWO_HINTS = {
    "hstack": "二つの部分の積を横に並べています(答えの列が倍になっています)。一つのマスは、内積の足し算を"
              "途中で二つに分けたものの和です。並べるのではなく、足しましょう。",
    "one_half": "片方の部分の積しか使っていません。一つのマスの内積は、共通の軸の全部の項の和です。"
                "残りの項の部分も足しましょう。",
    "product": "二つの部分の積をマスごとに掛けています。内積は項の「和」なので、二つに分けた部分どうしも"
               "足し合わせます。",
    "term_twice": "共通の軸の項のうち一つを、二度足しています(二つの部分が一項だけ重なっています)。"
                  "前の部分がどの番号で終わり、後ろの部分がどの番号から始まるかを、スライスの書き方で"
                  "数え直しましょう。",
    "term_missing": "共通の軸の項のうち一つが、どちらの部分にも入っていません(二つの部分のあいだに一項の"
                    "すき間があります)。前の部分がどの番号で終わり、後ろの部分がどの番号から始まるかを、"
                    "スライスの書き方で数え直しましょう。",
    "rows_cut": "値は合っていますが、X を行(語)で二つに分けています。この練習で分けるのは共通の軸(X の列と W の"
                "行)です。X は列で、W は行で分けましょう。",
    "whole_product": "値は合っていますが、X @ W を一度に計算しています。この練習は、共通の軸を p で二つに"
                     "分け、短い二つの積から組み立てる練習です。",
}


def _in_two_variants(X, W, p: int) -> dict[str, np.ndarray]:
    """X @ W from the shared axis cut at p ("right"), and each mistake's result (an off-by-one
    slice such as X[:, :p + 1] with X[:, p:] adds the term at the cut twice, one with X[:, p + 1:]
    leaves it out)."""
    first, second = X[:, :p] @ W[:p], X[:, p:] @ W[p:]
    variants = {"right": first + second, "hstack": np.hstack([first, second]), "one_half": first,
                "one_half:second": second, "product": first * second}
    for t in {p - 1, p} & set(range(W.shape[0])):  # an off-by-one slice: the term at the cut counted twice or not at all
        term = np.outer(X[:, t], W[t])
        variants |= {f"term_twice:{t}": first + second + term, f"term_missing:{t}": first + second - term}
    return variants


def _in_two_cases(hidden: bool = False):
    """A 3 × 3 by 3 × 2 product cut after 1 of the 3 shared entries, and 2 × 5 by 5 × 3 cut after 3
    (a square X and a wide one, as the hidden test has); `hidden`: two the notebook never shows."""
    if hidden:
        return _base.hidden_cases("matmul_in_two", ((4, 6), (6, 2), 2), ((3, 3), (3, 4), 1))
    rng = np.random.default_rng(54)
    return [(rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), 1),
            (rng.normal(size=(2, 5)), rng.normal(size=(5, 3)), 3)]


@_base.exercise
def check_matmul_in_two(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 05, 練習 4: `fn(X, W, p)` returns X @ W built from X[:, :p] @ W[:p] and the rest,
    without the whole product."""
    for X, W, p in _in_two_cases(hidden):
        call = f"matmul_in_two(X, W, {p})"
        _Watched.products = []
        with _base.counting_products(fn) as count:  # survives np.array(X) and einsum, unlike the watcher
            got = _base.as_float_array(
                _base.call_learner(fn, _watched(X), W.copy(), p, what="matmul_in_two", call=call,
                                   on_error=f"X {X.shape}, W {W.shape}, p = {p} のとき、二つの部分の形を "
                                            "print して確かめましょう。"),
                "matmul_in_two")
        variants = _in_two_variants(X, W, p)
        if _base.same(got, variants["right"]):
            full_axis = [p[0][0] for p in _Watched.products if len(p) == 2 and len(p[0]) == 2 and p[0][1] == X.shape[1]]
            if X.shape[0] in full_axis or (count[0] == 1 and not _Watched.products):
                _base.fail(IN_TWO_HINTS["whole_product"], 0.5, mistake="whole_product")
            if full_axis:  # X[:p] @ W: the words cut, the shared axis whole
                _base.fail(IN_TWO_HINTS["rows_cut"], 0.5, mistake="rows_cut")
            continue
        _base.fail_on_typical_mistake(got, variants, IN_TWO_HINTS)
        want = variants["right"]
        if got.shape != want.shape:
            _base.fail(f"X {X.shape}, W {W.shape} のとき、答えの形は {want.shape} のはずが {got.shape} "
                       "でした。", mistake="shape")
        _base.fail_on_wrong_values(want, got, "答え", said=f"X {X.shape}, W {W.shape}, p = {p} のとき、")
    _base.passed("共通の軸を二つに分けた二つの積の和が、X @ W と同じになりました。", quiet=hidden)
