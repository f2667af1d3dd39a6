"""Chapter 04's exercises: the three faces of one word from a library's saved matrices, a hand-made
2 × 3 W_Q, the shape of Q, and undoing W_Q."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..data import foods
from . import _base

#: Chapter 04, 練習 3: q = (spiciness − sweetness, half the sweetness, sweetness + spiciness),
#: for q = x @ W: a d_model × d_k = 2 × 3 matrix.
QUESTION_MATRIX = np.array([[-1.0, 0.5, 1.0],
                            [1.0, 0.0, 1.0]])


def _face_cases(hidden: bool = False):
    """(x, W_Q, W_K, W_V) with each W as a library saves it, (d_k × d_model), the transpose of the
    book's: a square case (the book's own x @ W runs and is wrong), a d_k = 3 case (x @ W fails)
    and a word of three components (d_model = 3), as the hidden test has; `hidden`: two the
    notebook never shows, square first as the visible ones (so x @ W is named before it crashes)."""
    if hidden:
        cases = _base.hidden_cases("three_faces", ((1, 3), (3, 4), (3, 4), (3, 4)),
                                   ((1, 3), (3, 3), (3, 3), (3, 3)))[::-1]
        return [(x, *(W.T for W in Ws)) for x, *Ws in cases]
    x = np.array([[0.3, 1.8]])
    square = (x, np.array([[0.0, -0.5], [1.0, 0.0]]).T, np.array([[1.5, 0.2], [0.0, 0.5]]).T,
              np.array([[1.0, 0.0], [0.8, 1.0]]).T)
    wide = (np.array([[2.0, 0.2]]), np.array([[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]]).T,
            np.array([[0.0, 1.0, 1.0], [1.0, -1.0, 0.5]]).T,
            np.array([[0.3, 0.0, 2.0], [0.0, 1.0, -0.4]]).T)
    deep = (np.array([[1.5, -0.5, 0.875]]), np.array([[0.5, 1.0], [0.0, -1.0], [2.0, 0.25]]).T,
            np.array([[1.0, 0.5, 0.0, 1.0], [0.2, 0.0, 1.0, -1.0], [0.0, 1.0, 0.5, 0.0]]).T,
            np.array([[0.0, 1.0, 0.4], [1.0, 0.0, 0.0], [0.5, -0.5, 1.0]]).T)
    return [square, wide, deep]


def _unused_arguments(fn: Callable, x: np.ndarray, Ws: list, got: np.ndarray, face: int) -> str:
    """"" or a hint when face `face` of `fn`'s answer stays `got` for another x or other W: the
    function then reads a variable of the notebook (a global `x` or `W_Q`), not its arguments."""
    def same_answer(*args) -> bool:
        try:
            with np.errstate(all="ignore"):
                other = fn(*args)
            other = np.asarray(other[face], dtype=float)
            return other.shape == got.shape and np.array_equal(other, got)
        except Exception:  # noqa: BLE001 (any failure means: not the same answer)
            return False
    unused = [name for name, args in (("x", (x + 1.0, *Ws)), (f"W_{'QKV'[face]}_saved", (x, *(2.0 * W for W in Ws))))
              if same_answer(*args)]
    if not unused:
        return ""
    return (f"引数の {unused[0]} を変えても、この答えが変わりません。関数の中では、外のセルで作った変数ではなく、"
            "受け取った引数を使います。")


@_base.exercise
def check_three_faces(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 04: `fn(x, W_Q_saved, W_K_saved, W_V_saved)` returns the three faces `(q, k, v)` of
    one word from matrices saved as a library saves them, (d_k × d_model): q = x @ W_Q_saved.T."""
    names = ("q", "k", "v")
    for x, *Ws in _face_cases(hidden):
        got = _base.three_arrays(
            _base.call_learner(fn, x, *Ws, what="three_faces",
                               call="three_faces(x, W_Q_saved, W_K_saved, W_V_saved)",
                               on_error=f"x は {x.shape}、W_Q_saved は {Ws[0].shape}(出る次元 d_k × 入る次元 d_model)"
                                        "です。かける順番と、行列の形が何を表すかを見比べましょう。",
                               forbid=("project", "qkv")),
            "three_faces", "(q, k, v)",
        )
        want = [x @ W.T for W in Ws]
        if all(_base.same(g, want[0]) for g in got):
            _base.fail("q, k, v の三つとも q と同じ値です。k と v は、それぞれ別の行列を掛けて作ります。",
                       mistake="one_matrix_thrice")
        for name, g, w, W in zip(names, got, want, Ws, strict=True):
            if g.shape == w.shape and np.allclose(g, w):
                continue
            for other, w2 in zip(names, want, strict=True):
                if other != name and g.shape == w2.shape and np.allclose(g, w2):
                    _base.fail(f"{name} のところに {other} が入っています。返す順番は (q, k, v) です。",
                               mistake="order")
            unused = _unused_arguments(fn, x, Ws, g, names.index(name))
            if g.shape == w.reshape(-1).shape and np.allclose(g, w.reshape(-1)):
                _base.fail(f"{name} の値は合っていますが、shape {g.shape} の 1 次元の配列です。"
                           f"この本では 1 語も 1×d_k の横一列(shape {w.shape})で扱います。"
                           "どこで 1 次元になったか、途中の形を print して確かめましょう。", mistake="flat")
            if g.shape == (W.shape[0], 1) and np.allclose(g, W @ x.T):
                _base.fail(f"{name} の値は合っていますが、縦一列(shape {g.shape})です。保存された行列を左から"
                           "縦ベクトルにかける流儀です。この本では 1 語は 1×d_k の横一列(shape "
                           f"{w.shape})で返します。", mistake="column_convention")
            square = W.shape[0] == W.shape[1]
            if square and g.shape == w.shape and np.allclose(g, x @ W):
                _base.fail(f"{name} が、保存された行列をそのまま右からかけた x @ W になっています。形が正方形なので"
                           "計算はできてしまいますが、保存された行列は (出る次元, 入る次元) の形で、この本の "
                           "W (入る次元, 出る次元) とは行と列の役目が逆です。保存された行列の 1 行めは何を"
                           "表しているでしょう。", mistake="book_layout")
            if x.shape[1] == W.shape[1] and g.shape == W.shape and np.allclose(g, x * W):  # x * W broadcasts
                _base.fail(f"{name} が x * W(成分ごとの掛け算)になっています。* は行列の積ではありません。",
                           mistake="elementwise")
            if g.shape != w.shape:
                _base.fail(f"{name} の形が違います: shape {w.shape}(1 × d_k)のはずが {g.shape} でした。{unused}",
                           mistake="global_variable" if unused else "wrong_shape")
            if unused:
                _base.fail(f"{name} の値が違います。{unused}", mistake="global_variable")
            if _base.rounded_to(g, w) is not None:
                _base.fail_on_wrong_values(w, g, name, said=f"{name} の値が違います。x = {np.round(x, 3).tolist()} のとき、")
            _base.fail(f"{name} の値が違います(x = {np.round(x, 3).tolist()} で {np.round(g, 3).tolist()} が返りました)。"
                       f"保存された行列の 1 行めは、{name} の 1 成分めを作る重み(x の各成分をどれだけ受け取るか)"
                       f"の並びです。{name} の各成分は、x と保存された行列のどこを組にした内積になるでしょう。",
                       mistake="wrong_values")
    _base.passed("保存された (出る次元 × 入る次元) の行列から、この本の流儀の横一列の三つの顔 q, k, v が"
                 "できました。", quiet=hidden)


@_base.exercise
def check_question_matrix(W, *, hidden: bool = False) -> None:
    """Chapter 04: a 2 × 3 W_Q with q₁ = spiciness − sweetness, q₂ = half the sweetness and
    q₃ = sweetness + spiciness (q = x @ W_Q)."""
    if W is None:
        _base.fail("まだ W_mine が入っていません。`W_mine = np.array([[…, …, …], […, …, …]])` の形で、"
                   "数を書いてから実行しましょう。", mistake="no_answer")
    arr = _base.real_array(W)
    if arr is None:
        if any(v is Ellipsis for v in np.asarray(W, dtype=object).ravel()):
            _base.fail("W_mine にまだ ... が残っています。... のところを数に書き換えて、"
                       "np.array([[1 行め], [2 行め]]) にしましょう。", mistake="ellipsis")
        _base.fail(f"W_mine は数を並べた配列にしてください(行の長さがそろっていないか、{type(W).__name__} の中に実数でないもの(文字や複素数など)があります)。",
                   mistake="not_numbers")
    if arr.shape == QUESTION_MATRIX.T.shape:
        _base.fail(f"W_mine の形が {arr.shape} です。q = x W_mine の W_mine は (x の成分の数, q の成分の数) の形でした。"
                   "行と列の役目を「W の読み方:各行は「行き先」」の節で見直しましょう(行と列を入れ替えた、"
                   "転置の形になっています)。", mistake="transposed")
    if arr.shape != QUESTION_MATRIX.shape:
        _base.fail(f"W_mine の形は (2, 3) です(入る次元 d_model = 2 → 出る次元 d_k = 3)。shape {arr.shape} が来ました。",
                   mistake="wrong_shape")
    if not np.all(np.isfinite(arr)):
        _base.fail("W_mine に NaN か inf が入っています。有限の数だけにしましょう。", mistake="not_finite")
    X = foods().vectors
    if hidden:  # other foods than the chapter's five; the one shown in a hint is the third
        [(X,)] = _base.hidden_cases("question_matrix", ((6, 2),))
        X = np.round(X, 1)
    want = X @ QUESTION_MATRIX
    got = X @ arr
    if np.allclose(got, want):
        _base.passed("1 行めは「甘さ 1 がどこへ行くか」、2 行めは「辛さ 1 がどこへ行くか」、各列が q の"
                     "一つの成分です。", quiet=hidden)
        return
    if np.allclose(arr, QUESTION_MATRIX[::-1]):
        _base.fail("甘さの行と辛さの行が入れ替わっています。W の 1 行めは、x の 1 成分め(甘いもの好き度)の"
                   "行き先でした。", mistake="rows_swapped")
    if np.allclose(arr, QUESTION_MATRIX[:, [1, 0, 2]]):
        _base.fail("q の 1 成分めと 2 成分めが入れ替わっています。問題文で、q の各成分に何が入るかを"
                   "見直しましょう。", mistake="components_swapped")
    if np.allclose(arr[:, 1:], QUESTION_MATRIX[:, 1:]) and np.allclose(arr[:, 0], -QUESTION_MATRIX[:, 0]):
        _base.fail("q の 1 成分めの符号が逆です(甘さから辛さを引いています)。引く向きを見直しましょう。",
                   mistake="sign")
    if np.allclose(arr, -QUESTION_MATRIX):
        _base.fail("W_mine の数が、どれも符号だけ逆になっています(q の三つの成分がそろって逆向きです)。"
                   "問題文の三つの成分を、足す・引くの向きに気をつけて見直しましょう。", mistake="sign_all")
    differs = ~np.isclose(got, want).all(axis=1)
    row = 2 if differs[2] else int(np.argmax(differs))  # カレー (the third) if its q differs
    food = "" if hidden else foods().words[row]
    # the component that differs and what came, not the value it should be (that is the exercise)
    c = int(np.flatnonzero(~np.isclose(got[row], want[row]))[0])
    _base.fail(f"たとえば{food} x = {X[row].tolist()} では、q の成分 {c}({c + 1} 番め)は問題文の決まりどおりの数になるはずが、"
               f"{got[row, c]:.3f} でした。問題文で q の {c + 1} 番めの成分に何が入るかと、それを作るのが W_mine の {c + 1} 列め"
               "(上の数は甘さから、下の数は辛さから受け取る量)であることを見比べましょう。", mistake="wrong_values")


#: The shape prediction of Q for five words: the page's choices, in its order.
Q_SHAPE = _base.Prediction(("(5, 3)", "(3, 5)", "(5, 2)", "(2, 3)", "(1, 3)"), "(5, 3)")


@_base.exercise
@_base.asks(Q_SHAPE)
def check_q_shape_prediction(answer) -> None:
    """Chapter 04 prediction: the shape of Q for 5 words, d_model = 2, d_k = 3.

    The shape may be typed as text or as a tuple (`_base.shape_answer`: one rule for every chapter).
    """
    _base.check_shape_choice(
        answer,
        Q_SHAPE.correct,
        Q_SHAPE.choices,
        {
            "(5, 3)": "(5×2) · (2×3) → (5×3)。語の数が行に、d_k が列に残ります。",
            "(3, 5)": "X では 1 行が 1 語でした。Q でも 1 行が 1 語なら、行の数はいくつでしょう。",
            "(5, 2)": "それは X の形です。W_Q を掛けると、列の数はどうなるでしょう。W_Q の形 (2, 3) を見てみましょう。",
            "(2, 3)": "それは W_Q の形です。Q の行の数は、何の数だけあるでしょう。",
            "(1, 3)": "それは 1 語ぶんの q の形です。5 語を縦に積んだ Q では、行の数はどうなるでしょう。",
        },
    )



#: Chapter 04, 練習 4: the hint for each typical mistake in `x_from_q(q, W_Q)`.
UNDO_HINTS = {
    "forward": "もう一度 W_Q をかけています。それでは問いの姿からさらに先へ進むだけです。かけた変換を"
               "元に戻す行列をかけましょう。",
    "transpose": "W_Q の転置をかけています。転置は、回転のような特別な行列でなければ、変換を元に戻しません。"
                 "逆行列を使いましょう。",
    "transposed_inverse": "返した x に W_Q をかけても q に戻りません。逆行列の転置(転置の逆行列と同じものです)を"
                          "かけた形になっています。転置が一つ余分に入ると、この形になります。q = x W_Q の両辺に"
                          "右から何をかければ x だけが残るかを、式で確かめましょう。",
    "column": "答えが縦一列(d × 1)になっています。この本では一語は横一列(1 × d)です。逆行列を左から"
              "かけていませんか。",
    "elementwise": "q を W_Q で成分ごとに割っています(/ は成分ごとの割り算なので、答えが W_Q と同じ形の表に"
                   "なっています)。q = x W_Q は成分ごとの掛け算ではなく行列の積なので、割り算では元に戻りません。"
                   "W_Q をかけた変換を元に戻す行列は、問題文で紹介した numpy の関数で作れます。",
    "reciprocal": "`1 / W_Q`(成分ごとの逆数)をかけていませんか? それは逆行列ではありません(0 の成分は "
                  "inf になります)。W_Q をかけた変換を元に戻す行列は、問題文で紹介した numpy の関数で作れます。",
}


def _undo_variants(q, W) -> dict[str, np.ndarray]:
    """The x with x W = q ("right"), and what each mistake gives (all 1 × d)."""
    inverse = np.linalg.inv(W)
    with np.errstate(divide="ignore", invalid="ignore"):  # 1 / W: a zero entry gives inf
        reciprocal = q @ (1 / W)
        elementwise = q / W
    return {"elementwise": elementwise, "right": q @ inverse, "forward": q @ W, "transpose": q @ W.T,
            "transposed_inverse": q @ inverse.T, "reciprocal": reciprocal}


def _undo_cases(hidden: bool = False):
    """Curry's question through the chapter's W_Q, and a random 3 × 3 (a formula written for 2 × 2
    only fails here as in the hidden test); `hidden`: another 3 × 3."""
    if hidden:
        [(q, W)] = _base.hidden_cases("undo_W", ((1, 3), (3, 3)))
        return [(q, W + 3 * np.eye(3))]  # well away from a matrix with no inverse
    W_Q = np.array([[0.0, -0.5], [1.0, 0.0]])
    rng = np.random.default_rng(44)
    return [(foods()["カレー"] @ W_Q, W_Q), (rng.normal(size=(1, 3)), rng.normal(size=(3, 3)) + 3 * np.eye(3))]


@_base.exercise
def check_undo_W(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 04, 練習 4: `fn(q, W_Q)` returns the embedding x (1 × d_model) with x @ W_Q = q."""
    for q, W in _undo_cases(hidden):
        got = _base.as_float_array(
            _base.call_learner(fn, q.copy(), W.copy(), what="x_from_q", call="x_from_q(q, W_Q)",
                               on_error=f"q {q.shape}, W_Q {W.shape} のとき、途中の形を print して確かめましょう。"),
            "x_from_q")
        variants = _undo_variants(q, W)
        want = variants["right"]
        if _base.same(got, want):
            continue
        if got.shape == want.T.shape and np.allclose(got.T, variants["transposed_inverse"]):
            _base.fail(UNDO_HINTS["column"], mistake="column")
        _base.fail_on_typical_mistake(got, variants, UNDO_HINTS)
        if got.shape != want.shape:
            _base.fail(f"x の形は 1 × d_model = {want.shape} のはずが {got.shape} でした。", mistake="shape")
        _base.fail(f"q = {np.round(q, 3).tolist()}、W_Q = {np.round(W, 3).tolist()} のとき、x = "
                   f"{np.round(want, 3).tolist()} になるはずが {np.round(got, 3).tolist()} でした(確かめ: "
                   "x に W_Q をかけて q に戻るか)。", mistake="wrong_values")
    _base.passed("x に W_Q をかけると、q に戻りました。逆行列は、かけた変換を元に戻す行列です。", quiet=hidden)
