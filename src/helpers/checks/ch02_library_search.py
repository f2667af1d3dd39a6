"""Chapter 02's exercises: the soft lookup, and the temperature at its two ends."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..attention import softmax
from ..data import library_catalog
from . import _base

#: Chapter 02: the hint for each typical mistake in `soft_lookup(q, K, V, temperature, on_shelf)`.
SOFT_LOOKUP_HINTS = {
    "ignores_shelf": "貸し出し中の本の中身も混ざっています(全部の本で検索した答えです)。on_shelf が False の本には、"
                     "重みを配らないようにしましょう。",
    "zeroed_after": "貸し出し中の本の重みを 0 にしたところで止まっていて、残りの重みの合計が 1 になっていません"
                    "(答えが小さく縮んでいます。貸し出し中の本の中身を 0 にしたときも、同じ答えになります)。"
                    "棚にある本だけで、合計 1 の重みを配り直しましょう。",
    "zero_score": "貸し出し中の本の得点を 0 にしていませんか? 得点 0 でも、ソフトマックスは e⁰ = 1 に比例する"
                  "重みを配ります。重みがちょうど 0 になるのは、どんな得点のときでしょう。",
    "inverted": "貸し出し中の本だけを混ぜています。on_shelf が True の本が、棚にある本です。",
    "zeroed_rows": "貸し出し中の本の見出しと中身を 0 にしていませんか? 見出しが 0 だと得点は 0 で、"
                   "ソフトマックスは e⁰ = 1 に比例する重みをその本にも配ります。中身が 0 なので答えには"
                   "何も足されませんが、棚にある本の重みの合計が 1 より小さくなり、答えが縮みます。"
                   "貸し出し中の本は、重みを配る前に数から外しましょう。",
    "weights": "重み(ソフトマックスの結果)をそのまま返しています。返した値の長さは本の数で、答えは中身 1 冊ぶん"
               "(長さ d_v)のはずです。重みは、中身を混ぜる割合でした。重みで中身を混ぜる手順を見直しましょう。",
    "keys": "見出し K を重みで混ぜています。見出しは「どれだけ合うか」の得点を出すためのものでした。"
            "重みで中身を混ぜる手順を見直しましょう。",
    "axis0": "重みが全部 1 になっています(答えが、棚にある本の中身の合計と同じです)。ソフトマックスが、"
             "得点を 1 つずつ別々に割っています。得点の並び(横一列か縦一列か)と、ソフトマックスをかける"
             "向きが合っていません。途中の得点と重みの形を print して確かめましょう。",
    "raw": "得点 q·k をそのまま重みにしています。得点はマイナスにもなり、合計も 1 ではありません。"
           "得点を重みにする手順を見直しましょう。",
    "no_exp": "得点を得点の合計で割っただけで、np.exp を取っていません。得点を重みにする手順"
              "(ソフトマックス)を見直しましょう。",
    "unnormalised": "np.exp(得点 / 温度) を取ったところで止まっていて、重みの合計が 1 になっていません。"
                    "得点を重みにする手順(ソフトマックス)を見直しましょう。",
    "no_temperature": "温度 temperature が効いていません(温度 1 のときの答えになっています)。"
                      "得点を重みにする手順と「4. 温度」の節を見直しましょう。",
    "times_temperature": "得点に温度を掛けています。「4. 温度」の節で、温度を得点にどう効かせたかを"
                         "見直しましょう。",
    "sqrt": "得点を √d_k で割っています。それは第 6 章のアテンションで出てくる工夫で、"
            "この練習の手順にはありません。",
    "mean": "棚にある本が、どれも同じ重み(中身の平均)になっています。得点が重みに効いていません。"
            "得点を重みにする手順を見直しましょう。",
    "argmax": "棚にある本のうち、いちばん得点の高い本の中身だけを返しています。それは 2 節の「いちばん合う"
              "見出し」の検索です。「3. やわらかい検索」の節を見直しましょう。",
}


def _soft_lookup_advice(q, K, V) -> Callable[[Exception], str]:
    """What to say when `soft_lookup` crashes on (q, K, V): the sizes that came and the shape the
    answer should have; scores made a column (n×1) are named as such. No code is given."""
    sizes = (f"この問いでは q が {q.shape}、K が {K.shape}、V が {V.shape}(本 {K.shape[0]} 冊)、on_shelf が"
             f"長さ {K.shape[0]} の True/False の並びで、答えは中身 1 冊ぶんの {(1, V.shape[1])} になるはずです。")

    def advice(err: Exception) -> str:
        got = _base.matmul_sizes(err)
        if got and got[0] == 1 and got[1] == K.shape[0] > 1:  # (n×1) @ (n×d_v): scores were a column
            return (f"得点が {K.shape[0]}×1 の縦一列になっていませんか。得点は本 {K.shape[0]} 冊ぶんの"
                    f"横一列 {(1, K.shape[0])} になるはずです。{sizes}途中の得点の形を print して"
                    "確かめましょう。")
        return f"{sizes}どの行で形が合わなくなるか、途中の形を print して確かめましょう。"
    return advice


def _soft_lookup_cases(hidden: bool = False) -> list[tuple]:
    """(q, K, V, temperature, on_shelf): the book's catalog with its best book on loan, then with
    two on loan at another temperature, and a random one where n, d_k, d_v all differ (`hidden`:
    two random ones the notebook never shows, with questions of as many components as the shown
    ones)."""
    if hidden:
        cases = _base.hidden_cases("soft_lookup", ((1, 3), (6, 3), (6, 4), 0.7), ((1, 2), (3, 2), (3, 5), 3.0))
        shelves = (np.array([True, False, True, True, False, True]), np.array([False, True, True]))
        return [(*case, shelf) for case, shelf in zip(cases, shelves, strict=True)]
    cat = library_catalog()
    rng = np.random.default_rng(2)
    return [
        (np.array([[1.8, 0.9]]), cat.keys, cat.values, 1.0, np.array([True, True, False, True, True])),
        (np.array([[0.3, 1.9]]), cat.keys, cat.values, 0.5, np.array([True, False, True, True, False])),
        (rng.normal(size=(1, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), 2.0,
         np.array([True, True, False, True])),
    ]


def _soft_lookup_variants(q, K, V, temperature: float, on_shelf) -> dict[str, np.ndarray]:
    """The answer of a soft lookup over the books on the shelf ("right") and what each typical
    mistake returns instead."""
    s = q @ K.T
    shelf = np.asarray(on_shelf, dtype=bool)[None, :]
    masked = np.where(shelf, s, -np.inf)
    w = softmax(masked, temperature=temperature)
    e = np.where(shelf, np.exp(s / temperature), 0.0)
    return {
        "right": w @ V,
        "ignores_shelf": softmax(s, temperature=temperature) @ V,
        "zeroed_after": (softmax(s, temperature=temperature) * shelf) @ V,
        "zero_score": softmax(np.where(shelf, s, 0.0), temperature=temperature) @ V,
        "inverted": softmax(np.where(shelf, -np.inf, s), temperature=temperature) @ V,
        "zeroed_rows": softmax(np.where(shelf, s, 0.0), temperature=temperature) @ (V * shelf.T),
        "weights": w,
        "weights:on_shelf": w[:, shelf[0]],
        "keys": w @ K,
        "axis0": shelf.astype(float) @ V,
        "raw": (s * shelf) @ V,
        "no_exp": (s * shelf) / (s * shelf).sum() @ V,
        "unnormalised": e @ V,
        "no_temperature": softmax(masked) @ V,
        "times_temperature": softmax(np.where(shelf, s * temperature, -np.inf)) @ V,
        "sqrt": softmax(masked / np.sqrt(K.shape[1]), temperature=temperature) @ V,
        "argmax": V[int(np.argmax(masked))],
        "mean": V[shelf[0]].mean(axis=0, keepdims=True),
    }


@_base.exercise
def check_soft_lookup(fn: Callable, *, hidden: bool = False) -> None:
    """Chapter 02: `fn(q, K, V, temperature, on_shelf)` returns softmax(q Kᵀ / T) V over the books
    on the shelf only (the others get weight 0), for a 1 × d_k question."""
    for q, K, V, T, shelf in _soft_lookup_cases(hidden):
        call = f"soft_lookup(q, K, V, temperature={T}, on_shelf={shelf.tolist()})"
        got = _base.as_float_array(_base.call_learner(fn, q.copy(), K.copy(), V.copy(), T, shelf.copy(),
                                                      what="soft_lookup", call=call,
                                                      on_error=_soft_lookup_advice(q, K, V)),
                                   "soft_lookup")
        with np.errstate(all="ignore"):
            variants = _soft_lookup_variants(q, K, V, T, shelf)
        want = variants["right"]
        if _base.same(got, want):
            continue
        flat = got.reshape(-1)
        if flat.size == want.size and _base.same(flat, want.reshape(-1)):
            _base.fail(f"値は合っていますが、shape {got.shape} で返ってきました。問い q が 1×d_k の横一列"
                       f"なので、答えも中身 1 冊ぶんと同じ 1×d_v の横一列 {want.shape} で返します"
                       "([0] や .T、reshape は要りません)。", mistake="flattened")
        _base.fail_on_typical_mistake(flat, {k: v.reshape(-1) for k, v in variants.items()},
                                      SOFT_LOOKUP_HINTS, said=f"{call} で {np.round(flat, 3)} が返りました。")
        if flat.size != want.size:
            _base.fail(f"答えの形は中身 1 冊ぶんと同じ (1, d_v) = {want.shape} のはずですが、"
                       f"shape {got.shape} が返ってきました。", mistake="wrong_shape")
        _base.fail_on_wrong_values(want, got, "答え", said=f"q={np.round(q, 3)}, temperature={T}(本 {K.shape[0]} 冊、"
                                   f"棚にあるのは {int(shelf.sum())} 冊、中身の次元 {V.shape[1]})のとき、")
    _base.passed("棚にある本だけに合計 1 の重みを配り、その重みで中身を混ぜられています。"
                 "貸し出し中の本の重みはちょうど 0 です。", quiet=hidden)


#: Other words a learner may use for the temperature prediction's choices.
TEMPERATURE_SYNONYMS = {"1冊": "一冊", "一つ": "一冊", "1つ": "一冊", "集中": "一冊", "一冊に集中": "一冊", "一番": "一冊",
                        "平均になる": "平均", "均等": "平均", "0": "ゼロ", "零": "ゼロ",
                        "同じ": "変わらない", "変わらず": "変わらない"}


#: Chapter 02's temperature prediction: the hints shared by both ends (questions, not the rule).
ZERO_HINT = ("答えは、重みで中身を混ぜたものです。3 節のセルが出した重みを全部足すと、いくつになるでしょう。"
             "重みが全部 0 に近づくことはあるでしょうか。")
SAME_HINT = ("温度は得点を割る数です。T を変えると、割ったあとの得点どうしの差は変わるでしょうか。"
             "3 節の scores で、helpers.softmax(scores, temperature=0.05) と temperature=100 を print して"
             "見比べてみましょう。")


#: The temperature prediction's two questions: the mixed answer at a tiny and at a huge temperature.
_TEMPERATURE_CHOICES = ("一冊", "平均", "ゼロ", "変わらない")
SMALL_T = _base.Prediction(_TEMPERATURE_CHOICES, "一冊", TEMPERATURE_SYNONYMS)
LARGE_T = _base.Prediction(_TEMPERATURE_CHOICES, "平均", TEMPERATURE_SYNONYMS)


#: The temperature prediction's choices as the stable ids of a wrong one (`small_mean` …).
_CHOICE_IDS = {"一冊": "one_book", "平均": "mean", "ゼロ": "zero", "変わらない": "unchanged"}


@_base.exercise
@_base.asks(SMALL_T, LARGE_T)
def check_temperature_prediction(small, large) -> None:
    """Chapter 02 prediction: the mixed answer when the temperature is tiny and when it is huge."""
    hints = {
        ("small", "平均"): "温度をとても小さく(たとえば T = 0.01 に)すると、得点を T で割った値どうしの差は、"
                           "割る前と比べてどうなるでしょう。3 節の scores で helpers.softmax(scores, temperature=0.05) を "
                           "print してみましょう。",
        ("small", "ゼロ"): ZERO_HINT,
        ("small", "変わらない"): SAME_HINT,
        ("large", "一冊"): "温度をとても大きく(たとえば T = 1000 に)すると、得点を T で割った値どうしの差は"
                           "どのくらいになるでしょう。3 節の scores で helpers.softmax(scores, temperature=100) を "
                           "print してみましょう。",
        ("large", "ゼロ"): ZERO_HINT,
        ("large", "変わらない"): SAME_HINT,
    }
    for which, answer, label, question in (("small", small, "small_T", SMALL_T), ("large", large, "large_T", LARGE_T)):
        choice = _base.read_choice(answer, question.choices, question.synonyms, label=label)
        if choice != question.correct:
            _base.fail(f"{label}:{hints[(which, choice)]}", mistake=f"{which}_{_CHOICE_IDS[choice]}")
    _base.passed("温度 → 0 で重みは一番の本に集中し(答え = その本の中身)、温度 → 大で全部の本に "
                 "1/n ずつ(答え = 中身の平均)になります。")

