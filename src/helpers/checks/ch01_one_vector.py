"""Chapter 01's exercises: the cosine similarity, and whom プリン picks with Q = K = X."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..data import foods
from . import _base


def _cosine_cases(hidden: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs of vectors with two and with three components, as the hidden test has; the first
    pair tells every wrong formula below apart (a parallel pair would not); `hidden`: two pairs the
    notebook never shows, two components first as the visible ones."""
    if hidden:
        return _base.hidden_cases("cosine", ((3,), (3,)), ((2,), (2,)))[::-1]
    return [
        (np.array([0.3, 1.8]), np.array([2.0, 0.2])),
        (np.array([2.0, 0.2]), np.array([1.0, 0.1])),   # same direction, different lengths
        (np.array([1.0, 0.0]), np.array([-1.0, 0.0])),  # opposite
        (np.array([3.0, 4.0]), np.array([4.0, -3.0])),  # perpendicular
        (np.array([1.25, -0.375, 2.1]), np.array([0.7, 1.5, -0.3])),  # three components, 3 decimals
    ]


@_base.exercise
def check_cosine(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 01: `fn(a, b)` returns the cosine similarity of two 1-D vectors."""
    for a, b in _cosine_cases(hidden):
        shown = f"a={np.round(a, 3)}, b={np.round(b, 3)}"  # a hidden pair's numbers, to three decimals
        result = _base.call_learner(fn, a, b, what="cosine", call=f"cosine({np.round(a, 3)}, {np.round(b, 3)})",
                                    forbid=("cosine_similarity",))
        lengths = np.linalg.norm(a) * np.linalg.norm(b)
        want = float(a @ b / lengths)
        products = _base.as_float_array(result, "cosine", asked="数")
        if _base.same(products, a * b) or _base.same(products, a * b / lengths):  # a * b where a @ b was meant
            _base.fail(f"{shown} で、数ではなく配列 {np.round(products, 3)} が返りました。a * b は成分ごとの掛け算で、"
                       "掛けたあとの数が並んだままです。内積は、成分ごとに掛けたものを足し合わせた一つの数でした"
                       "(「似ている度合いを測る:内積」の節)。numpy で内積を取る書き方を見直しましょう。",
                       mistake="elementwise")
        got = _base.as_number(result, "cosine")
        if np.isclose(got, want, atol=1e-6):
            continue
        if np.isclose(got, a @ b):
            _base.fail(f"{shown} で {got:.3f} が返りました。これは内積そのものです。"
                       "長さで割っていません。「向きだけを見る:コサイン類似度」の節の式を見直しましょう。", mistake="dot_only")
        if np.isclose(got, a @ b / np.linalg.norm(a) * np.linalg.norm(b)):
            _base.fail(f"{shown} で {got:.3f} が返りました。これは、内積を a の長さで割ってから、"
                       "b の長さを掛けた値です(/ と * は左から順に計算されます)。式の分母を見直しましょう。", mistake="left_to_right")
        if np.isclose(got, a @ b / np.linalg.norm(a)) or np.isclose(got, a @ b / np.linalg.norm(b)):
            _base.fail(f"{shown} で {got:.3f} が返りました。片方の長さでしか割っていないようです。"
                       "式の分母を見直しましょう。", mistake="one_length")
        if np.isclose(got, a @ b / (np.linalg.norm(a) + np.linalg.norm(b))):
            _base.fail(f"a={a}, b={b} で {got:.3f} が返りました。二本の長さの和で割っていませんか? "
                       "コサインの式の分母は、二本の長さの積です(同じ向きなら、積で割ったときだけ 1 になります)。",
                       mistake="sum_of_lengths")
        if np.isclose(got, np.linalg.norm(a - b)):
            _base.fail(f"{shown} で {got:.3f} が返りました。これは a と b の距離(差の長さ)です。"
                       "「向きだけを見る:コサイン類似度」の節の式を見直しましょう。", mistake="distance")
        if np.isclose(got, a @ b / (a @ a * (b @ b))):
            _base.fail(f"{shown} で {got:.3f} が返りました。長さの 2 乗で割っていませんか?"
                       "「似ている度合いを測る:内積」の節で、矢印の長さをどう測ったかを見直しましょう。", mistake="squared_lengths")
        _base.fail_on_wrong_values(want, got, "", said=f"{shown}({a.size} 成分のベクトル)のとき、")
    _base.passed("向きが同じなら 1、直交なら 0、逆向きなら -1 になっています。", quiet=hidden)


def _pudding_prediction() -> _base.Prediction:
    """The five foods as choices; the right one is the largest dot product of プリン's row."""
    emb = foods()
    return _base.Prediction(emb.words, emb.words[int(np.argmax(emb["プリン"] @ emb.vectors.T))])


#: The pudding prediction: whom プリン picks, computed from the foods.
PUDDING = _pudding_prediction()


@_base.exercise
@_base.asks(PUDDING)
def check_pudding_prediction(answer) -> None:
    """Chapter 01 prediction: with Q = K = X and the plain dot product, whom does プリン pick?"""
    correct = PUDDING.correct
    _base.check_choice(
        answer,
        correct,
        PUDDING.choices,
        {
            "プリン": "自分自身を選ぶと思いましたか? コサイン類似度で比べるなら、自分は上限の 1 で一番です"
                      "(まったく同じ向きの語があれば、その語も 1 で同点です)。ここで比べるのは内積です。「似ている度合いを測る:内積」の節で、内積が何で大きく"
                      "なるかを見直しましょう。",
            correct: f"プリンの行で一番大きいのは「{correct}」です。同じ向きで長さが 2 倍なので、"
                     "内積も自分自身より大きくなります。",
            "照り焼き": "照り焼きの矢印はプリンより長いですが、向きが 37° ほど上にずれています。"
                        "内積は長さと向きの近さの両方で決まります。最初の矢印の図で、プリンの行の"
                        " 5 語を長さと向きの両方から見比べてみましょう。",
            "カレー": "カレーの矢印は辛い側(上)を向き、右を向くプリンから 70° 以上離れています。"
                      "向きが離れるほど内積は小さくなります(直角なら 0)。プリンと同じような向きの矢印を"
                      "探しましょう。",
            "キムチ": "キムチの矢印は辛い側(上)寄りで、右を向くプリンから 60° 以上離れています。"
                      "向きが離れるほど内積は小さくなります(直角なら 0)。プリンと同じような向きの矢印を"
                      "探しましょう。",
        },
    )



#: Chapter 01, 練習 3: the hint for each typical mistake in `cosine_table(A, B)`.
COSINE_TABLE_HINTS = {
    "dot": "内積の表をそのまま返しています。どのマスも、二本の長さで割ってコサインにします。",
    "whole_norm": "表全体の大きさ(行列 A と B 全体の長さ)で割っています。割るのは、マスごとに、"
                  "A の i 行めの長さと B の j 行めの長さです。",
    "rows_only": "A の行の長さでしか割っていません。B の行の長さでも割りましょう。",
    "cols_only": "B の行の長さでしか割っていません。A の行の長さでも割りましょう。",
    "no_keepdims": "長さの並びを縦と横に置き分けていません。行ごとの長さを並べた配列は形 (n,) の"
                   "一列なので、そのまま表を割ると、i 行 j 列が j 番めの長さで割られます。A の長さは縦一列"
                   "(n × 1)、B の長さは横一列(1 × m)にしてから割りましょう。",
    "transposed": "表の行と列が入れ替わっています。行が A の語、列が B の語です。",
    "swapped_lengths": "長さの縦と横が逆です。B の長さを縦一列(m × 1)、A の長さを横一列に置いたので、"
                       "i 行 j 列が B の i 行めと A の j 行めの長さで割られています。i 行めは A の語なので、"
                       "縦一列に並べるのは A の長さです。",
    "squared": "長さの 2 乗(成分の 2 乗の和)で割っています。長さは、その平方根です。",
}


#: Chapter 01, 練習 3: said after the ✓ when the table was made one pair at a time in a Python loop.
COSINE_TABLE_LOOP_NOTE = ("ただ、ループで一組ずつ計算しています。答えは正しいのですが、この練習のねらいは、ループを"
                          "使わずに表を一度に作ることです。長さの並びを縦一列と横一列に置けば、一回の割り算で"
                          "全部のマスが割れます。解答例と見比べてみましょう。")


def _cosine_table_variants(A, B) -> dict[str, np.ndarray]:
    """The table of cosines (row i of A against row j of B, "right") and each mistake's."""
    dots = A @ B.T
    a, b = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    variants = {"right": dots / np.outer(a, b),
                "dot": dots,
                "whole_norm": dots / (np.linalg.norm(A) * np.linalg.norm(B)),
                "rows_only": dots / a[:, None],
                "cols_only": dots / b[None, :],
                "squared": dots / np.outer(a ** 2, b ** 2)}
    if len(A) == len(B):  # a square table: these run, wrongly
        variants |= {"no_keepdims": dots / (a * b), "transposed": (dots / np.outer(a, b)).T,
                     "swapped_lengths": dots / np.outer(b, a)}
    return variants


def _cosine_table_cases(hidden: bool = False):
    """Three words against three (the square slips run) and two against four, in 3-D; `hidden`:
    two the notebook never shows, square first as the visible ones (the square slips named there)."""
    if hidden:
        return _base.hidden_cases("cosine_table", ((4, 2), (5, 2)), ((3, 4), (3, 4)))[::-1]
    rng = np.random.default_rng(13)
    return [(rng.normal(size=(3, 2)), rng.normal(size=(3, 2))),
            (rng.normal(size=(2, 3)), rng.normal(size=(4, 3)))]


@_base.exercise
def check_cosine_table(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 01, 練習 3: `fn(A, B)` returns the n × m table whose (i, j) entry is the cosine
    similarity of row i of A and row j of B."""
    looped = False
    for A, B in _cosine_table_cases(hidden):
        call = "cosine_table(A, B)"
        with _base.counting_loop_turns(fn) as turns:  # a loop is right, but not what the exercise practises
            result = _base.call_learner(fn, A.copy(), B.copy(), what="cosine_table", call=call,
                                        forbid=("cosine_similarity",),
                                        on_error=f"A {A.shape}, B {B.shape} のとき、途中の形を print して確かめましょう。")
        got = _base.as_float_array(result, "cosine_table")
        variants = _cosine_table_variants(A, B)
        looped = looped or turns[0] > 0
        _base.fail_unless_right(
            got, variants, COSINE_TABLE_HINTS, name="表", said=f"A {A.shape}, B {B.shape} のとき、",
            wrong_shape=f"A {A.shape}, B {B.shape} のとき、表の形は (A の行の数, B の行の数) = "
                        f"{variants['right'].shape} のはずが {got.shape} でした。")
    _base.passed("どのマスも、二本の長さで割った内積になりました。表の形は (A の語の数, B の語の数) です。"
                 + (COSINE_TABLE_LOOP_NOTE if looped else ""), quiet=hidden)
