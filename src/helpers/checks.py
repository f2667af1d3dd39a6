"""Exercise checks, shared by self-learners and by nbgrader's autograder.

Each `check_*` prints a line starting with ✓ when the answer is right, and otherwise raises
`AssertionError` whose Japanese message names the likely mistake, so a learner knows what to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .data import foods


def passed(message: str) -> None:
    print(f"✓ 正解です。{message}")


def fail(message: str) -> None:
    raise AssertionError(f"✗ {message}")


def _call(fn: Callable, *args, what: str):
    """Call the learner's function, turning the usual stumbles into hints."""
    if not callable(fn):
        fail(f"{what} には関数を渡してください({type(fn).__name__} が来ました)。")
    try:
        return fn(*args)
    except NotImplementedError:
        fail(f"{what} はまだ書かれていません。`raise NotImplementedError` の行を消して、中身を書きましょう。")


def _as_number(value, what: str) -> float:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        fail(f"{what} は数を返してください({type(value).__name__} が返ってきました)。")
    if arr.size != 1:
        fail(f"{what} は数を 1 つ返してください。shape {arr.shape} の配列が返ってきました。")
    return float(arr.reshape(-1)[0])


def check_cosine(fn: Callable) -> None:
    """Chapter 01: `fn(a, b)` returns the cosine similarity of two 1-D vectors."""
    cases = [
        (np.array([2.0, 0.2]), np.array([1.0, 0.1])),   # same direction, different lengths
        (np.array([0.3, 1.8]), np.array([2.0, 0.2])),
        (np.array([1.0, 0.0]), np.array([-1.0, 0.0])),  # opposite
        (np.array([3.0, 4.0]), np.array([4.0, -3.0])),  # perpendicular
    ]
    for a, b in cases:
        got = _as_number(_call(fn, a, b, what="cosine"), "cosine")
        want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        if np.isclose(got, want, atol=1e-6):
            continue
        if np.isclose(got, a @ b):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。これは内積そのものです。"
                 "長さで割る(a の長さ × b の長さで割る)のを忘れていませんか?")
        if np.isclose(got, a @ b / np.linalg.norm(a)) or np.isclose(got, a @ b / np.linalg.norm(b)):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。片方の長さでしか割っていないようです。"
                 "両方の長さの積で割ります。")
        if np.isclose(got, a @ b / (a @ a * (b @ b))):
            fail(f"a={a}, b={b} で {got:.3f} が返りました。長さの 2 乗で割っていませんか?"
                 "長さは np.linalg.norm(a)、つまり平方根を取った値です。")
        fail(f"a={a}, b={b} のとき {want:.3f} になるはずが、{got:.3f} でした。"
             "式 cos = (a·b) / (|a| |b|) を見直しましょう。")
    passed("向きが同じなら 1、直交なら 0、逆向きなら -1 になっています。")


def check_choice(answer, correct: str, choices: Sequence[str], hints: dict[str, str]) -> None:
    """A prediction question: `answer` must be one of `choices`; a wrong one gets its own hint."""
    if answer is None or answer == "":
        fail(f"まだ答えが入っていません。{'、'.join(choices)} のどれかを文字列で書いてください。")
    if answer not in choices:
        fail(f"「{answer}」は選択肢にありません。{'、'.join(choices)} のどれかを書いてください。")
    if answer != correct:
        fail(hints.get(answer, f"「{answer}」ではありません。図と表を見直してみましょう。"))
    passed(hints.get(correct, ""))


def check_pudding_prediction(answer) -> None:
    """Chapter 01 prediction: with Q = K = X and the plain dot product, whom does プリン pick?"""
    emb = foods()
    scores = emb["プリン"] @ emb.vectors.T
    correct = emb.words[int(np.argmax(scores))]
    check_choice(
        answer,
        correct,
        emb.words,
        {
            "プリン": "自分自身を選ぶと思いましたか? コサイン類似度ならそうなります。"
                      "でも内積は長さも効くので、同じ向きでもっと長い語があると、そちらの得点が上回ります。",
            correct: f"プリンの行で一番大きいのは「{correct}」です。同じ向きで長さが 2 倍なので、"
                     "内積も自分自身より大きくなります。",
        },
    )


#: Chapter 06: the hint for each typical mistake in `my_attention(Q, K, V)`.
ATTENTION_HINTS = {
    "no_sqrt": "得点を √d_k で割り忘れています。ソフトマックスに渡す前に、Q @ K.T を "
               "np.sqrt(d_k) で割ります(d_k は Q の列数 Q.shape[1])。",
    "by_d": "得点を d_k そのもので割っています。割るのは d_k の平方根、np.sqrt(d_k) です。",
    "axis0": "ソフトマックスを列の方向(axis=0)にかけています。重みは「問いひとつ(1 行)ごとに"
             "和が 1」なので、行ごと(axis=-1)にかけます。",
    "whole": "重みの表全体の和が 1 になっています。正規化は表全体ではなく、行ごと(axis=-1)です。",
    "transposed": "得点表が転置になっています。K @ Q.T ではなく Q @ K.T です。"
                  "行 = 問い(見る側)、列 = 見出し(見られる側)になるように掛けます。",
    "no_softmax": "重みの各行の和が 1 になっていません。"
                  "得点にソフトマックスをかけ忘れていませんか?",
    "unnormalised": "重みの各行の和が 1 になっていません。np.exp を取ったあと、"
                    "行の和(axis=-1, keepdims=True)で割るのを忘れていませんか?",
    "not_normalised": "重みの各行の和が 1 になっていません。重みは、得点を行ごとにソフトマックスに"
                      "通したもの(どの行も和が 1)です。",
    "swapped": "返す順番が逆です。(output, weights) の順、つまり出力が先、重みが後です。",
    "weights_as_output": "出力のところに重みをそのまま返しています。出力は、重みで中身を混ぜた "
                         "weights @ V(形は 語の数 × d_v)です。",
    "bad_output": "重みは合っていますが、出力が違います。出力は weights @ V です"
                  "(V @ weights や weights * V ではありません)。",
}


def _attention_cases() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Two small problems: a square one (4 words attend to 4) and a rectangular one (3 to 5).

    d_v differs from the number of keys, so weights (n_q × n_k) and output (n_q × d_v) never
    share a shape, and d_k = 4 tells √d_k = 2 apart from d_k itself.
    """
    rng = np.random.default_rng(6)
    square = (rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 3)))
    wide = (rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2)))
    return [square, wide]


def attention_variants(Q, K, V) -> dict[str, np.ndarray]:
    """The weights that scaled dot-product attention gives ("right") and those of each mistake."""
    from .attention import softmax

    S = Q @ K.T
    root = np.sqrt(Q.shape[1])
    return {
        "right": softmax(S / root),
        "no_sqrt": softmax(S),
        "by_d": softmax(S / Q.shape[1]),
        "axis0": softmax(S / root, axis=0),
        "whole": np.exp(S / root) / np.exp(S / root).sum(),
        "transposed": softmax(K @ Q.T / root),
        "no_softmax": S / root,
        "unnormalised": np.exp(S / root),
    }


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.allclose(a, b, atol=1e-6)


def check_attention(fn: Callable) -> None:
    """Chapter 06: `fn(Q, K, V)` returns `(output, weights)` of softmax(Q Kᵀ / √d_k) V."""
    for Q, K, V in _attention_cases():
        try:
            result = _call(fn, Q.copy(), K.copy(), V.copy(), what="my_attention")
        except AssertionError:
            raise
        except Exception as err:  # the learner's code crashed: show what and where to look
            fail(f"my_attention(Q, K, V) がエラーで止まりました({type(err).__name__}: {err})。"
                 f"Q {Q.shape}, K {K.shape}, V {V.shape} のときの途中の形を "
                 "print して確かめましょう。")
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            fail("(output, weights) の 2 つを、この順の組(タプル)で返してください。"
                 f"{type(result).__name__} が返ってきました。")
        try:
            out, w = (np.asarray(r, dtype=float) for r in result)
        except (TypeError, ValueError):
            fail("返した 2 つを数の配列にできませんでした。"
                 "output も weights も numpy 配列で返します。")
        variants = attention_variants(Q, K, V)
        want_w = variants["right"]
        want_out = want_w @ V
        if _same(out, want_out) and _same(w, want_w):
            continue
        if out.shape == want_w.shape and w.shape == want_out.shape:
            fail(ATTENTION_HINTS["swapped"])
        if _same(out, want_w):
            fail(ATTENTION_HINTS["weights_as_output"])
        if _same(w, want_w):
            fail(f"{ATTENTION_HINTS['bad_output']} "
                 f"形は {want_out.shape} のはずが {out.shape} でした。")
        for name, wrong in variants.items():
            if name != "right" and _same(w, wrong):
                fail(ATTENTION_HINTS[name])
        if w.shape != want_w.shape:
            fail(f"weights の形は (問いの数, 見出しの数) = {want_w.shape} のはずですが、"
                 f"{w.shape} でした。")
        if not np.allclose(w.sum(axis=-1), 1.0):
            fail(ATTENTION_HINTS["not_normalised"])
        fail(f"Q {Q.shape}, K {K.shape}, V {V.shape} で、weights の 1 行目は {want_w[0]} に"
             f"なるはずが {w[0]} でした。softmax(Q @ K.T / np.sqrt(d_k)) を順に確かめましょう。")
    passed("重みはどの行も和が 1、出力は 語の数 × d_v の形です。正方形でない場合(3 語が 5 語を見る)"
           "でも合っています。")


def check_identical_keys_prediction(answer) -> None:
    """Chapter 06 prediction: if every key is the same vector, what do the weights look like?"""
    check_choice(
        answer,
        "均等",
        ("均等", "自分", "先頭", "問い次第"),
        {
            "均等": "見出しが全部同じなら、1 つの行の中の得点はすべて同じ値です。ソフトマックスは"
                    "同じ得点に同じ重みを配るので、どの行も 1/n ずつ。"
                    "出力はどの行も V の平均になります。",
            "自分": "自分を選ぶのは、問いと見出しが同じ(Q = K = X)ときの話でした(第 1 章)。"
                    "ここでは見出しが全部同じなので、自分の見出しも"
                    "他の語の見出しと区別がつきません。",
            "先頭": "argmax なら同点のとき先頭を選びますが、ソフトマックスは同点を均等に分けます。",
            "問い次第": "問いが変わると得点の大きさは変わります。"
                        "でも 1 つの行の中では全部同じ値です。ソフトマックスは行の中の"
                        "「差」だけを見るので、差がなければどの見出しにも同じ重みです。",
        },
    )


#: Chapter 03: the hint for each typical mistake in `party_weights(Q, K)`.
PARTY_HINTS = {
    "no_softmax": "得点の表 Q @ K.T をそのまま返しています。各行の和が 1 になっていません。"
                  "得点を重みにするには、行ごとにソフトマックスを通します。",
    "unnormalised": "np.exp を取ったところで止まっています(各行の和が 1 になっていません)。"
                    "そのあと行の和(axis=1, keepdims=True)で割ります。",
    "no_keepdims": "行の和で割るときに keepdims=True を忘れていませんか? "
                   "e / e.sum(axis=1) だと、形 (n,) の和が列の方向に並んで、i 行 j 列が "
                   "j 行目の和で割られます。e.sum(axis=1, keepdims=True) なら形 (n, 1) で、行ごとに割れます。",
    "whole": "表全体の和で割っています(全マスの合計が 1)。重みは「探す人ひとり(1 行)ごとに和が 1」"
             "なので、行の和(axis=1, keepdims=True)で割ります。",
    "axis0": "ソフトマックスを列の方向(axis=0)にかけています(各列の和が 1)。"
             "列の和が 1 だと、探される人(列)ごとの配分になってしまいます。"
             "配分を決めるのは探す人(行)なので、axis=1(または axis=-1)です。",
    "swapped": "Q と K が逆です。K @ Q.T だと、行が探される人(K)、列が探す人(Q)になってしまいます。"
               "行 = 探す人(見る側, Q)、列 = 探される人(見られる側, K)なので Q @ K.T です。",
    "transposed": "答えが転置になっています(K @ Q.T のうえで列ごとにソフトマックス)。"
                  "Q @ K.T を作り、行ごと(axis=1)に正規化します。",
    "scaled": "得点を √d_k で割っていませんか? それは第 6 章で出てくる工夫です。"
              "この章では割らずに、Q @ K.T をそのままソフトマックスに通します。",
    "overflow": "得点がとても大きいと np.exp があふれて inf や nan になります。"
                "各行から、その行の最大値を引いてから exp を取りましょう"
                "(S - S.max(axis=1, keepdims=True))。引いても重みは変わりません。",
}


def party_weight_variants(Q, K) -> dict[str, np.ndarray]:
    """The weights softmax(Q Kᵀ) row by row ("right"), and what each typical mistake returns."""
    from .attention import softmax

    S = Q @ K.T
    e = np.exp(S - S.max())
    with np.errstate(over="ignore", invalid="ignore"):  # huge scores: the naive versions overflow
        raw = np.exp(S)
        variants = {
            "right": softmax(S, axis=1),
            "no_softmax": S,
            "unnormalised": raw,
            "whole": e / e.sum(),
            "axis0": softmax(S, axis=0),
            "swapped": softmax(S.T, axis=1),
            "transposed": softmax(S.T, axis=0),
            "scaled": softmax(S / np.sqrt(Q.shape[1]), axis=1),
        }
        if S.shape[0] == S.shape[1]:
            variants["no_keepdims"] = raw / raw.sum(axis=1)
    return variants


def check_party_weights(fn: Callable) -> None:
    """Chapter 03: `fn(Q, K)` returns the weight table softmax(Q Kᵀ) (softmax over each row)."""
    from .data import party

    guests = party()
    Q, K = guests.Q, guests.K
    cases = [
        ("交流会の 5 人", Q, K),
        ("探す人が 3 人、名札が 5 枚", Q[:3], K),
        ("得点が千を超える場合", Q * 200, K),
    ]
    for label, q, k in cases:
        try:
            got = _call(fn, q.copy(), k.copy(), what="party_weights")
        except AssertionError:
            raise
        except Exception as err:  # the learner's code crashed: say where to look
            fail(f"{label}(Q {q.shape}, K {k.shape})で party_weights がエラーで止まりました"
                 f"({type(err).__name__}: {err})。途中の形を print して確かめましょう。")
        try:
            w = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            fail(f"party_weights は数の表(numpy 配列)を返してください。{type(got).__name__} が返ってきました。")
        variants = party_weight_variants(q, k)
        want = variants["right"]
        if _same(w, want):
            continue
        if w.shape == want.T.shape and w.shape != want.shape:
            fail(f"{label}: 形が {w.shape} です。行 = 探す人 {q.shape[0]} 人、列 = 名札 {k.shape[0]} 枚で "
                 f"{want.shape} のはずです。{PARTY_HINTS['swapped']}")
        if w.shape != want.shape:
            fail(f"{label}: 重みの表の形は (探す人の数, 名札の数) = {want.shape} のはずですが、"
                 f"{w.shape} でした。")
        if not np.all(np.isfinite(w)):
            fail(f"{label}: 重みに inf か nan が混ざっています。{PARTY_HINTS['overflow']}")
        for name, wrong in variants.items():
            if name != "right" and _same(w, wrong):
                fail(f"{label}: {PARTY_HINTS[name]}")
        if not np.allclose(w.sum(axis=1), 1.0):
            fail(f"{label}: 各行の和が 1 になっていません(行の和 {np.round(w.sum(axis=1), 3)})。"
                 "重みは、得点を行ごとにソフトマックスに通したものです。")
        fail(f"{label}: 各行の和は 1 ですが、値が違います。1 行目は {np.round(want[0], 3)} の"
             f"はずが {np.round(w[0], 3)} でした。得点 Q @ K.T から順に確かめましょう。")
    passed("どの行も和が 1 で、行 = 探す人(見る側)、列 = 探される人(見られる側)の表になっています。"
           "探す人と名札の数が違っても、得点が大きくても大丈夫です。")


def check_party_symmetry_prediction(answer) -> None:
    """Chapter 03 prediction: if everyone's name tag were their own Q (K = Q), is S symmetric?"""
    from .data import party

    Q = party().Q
    S = Q @ Q.T
    correct = "対称になる" if np.allclose(S, S.T) else "対称にならない"
    check_choice(
        answer,
        correct,
        ("対称になる", "対称にならない", "人による"),
        {
            "対称になる": "K = Q なら S[i, j] = q_i · q_j = q_j · q_i = S[j, i] です。誰のどんな "
                          "Q でも成り立つので、表は必ず対称になります。探す顔と探される顔が同じ"
                          "ベクトルだと、第 1 章の Q = K = X と同じ行き止まりに戻ります。",
            "対称にならない": "Q そのものは X と違うので、非対称になりそうに見えます。でも S[i, j] は "
                              "q_i と k_j の内積で、K = Q なら q_i · q_j です。内積は順番を入れ替えても"
                              "同じ値なので……?",
            "人による": "参加者の好みや人数を変えても結論は同じです。S[i, j] と S[j, i] が "
                        "どちらも q_i · q_j になることを、式で確かめてみましょう。",
        },
    )


# ---------------------------------------------------------------- chapter 00: first steps


def _learner_result(fn: Callable, *args, what: str, call: str) -> np.ndarray:
    """Run the learner's function; a crash or a non-number becomes a hint, not a traceback."""
    try:
        with np.errstate(all="ignore"):  # a wrong formula may divide by 0; the hint says why
            result = _call(fn, *args, what=what)
    except AssertionError:
        raise
    except Exception as err:
        fail(f"{call} がエラーで止まりました({type(err).__name__}: {err})。"
             "途中の値と形を print して確かめましょう。")
    try:
        return np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        fail(f"{what} は数の配列を返してください({type(result).__name__} が返ってきました)。")


#: Chapter 00: the hint for each typical mistake in `to_weights(scores)`.
FIRST_SOFTMAX_HINTS = {
    "raw": "得点をそのまま返しています。まず np.exp(scores) で全部を正の数にし、その合計で割ります。",
    "no_exp": "得点を得点の合計で割っただけで、np.exp を取っていません。"
              "得点がマイナスだと重みもマイナスになってしまいます。先に np.exp を取ります。",
    "unnormalised": "np.exp(scores) のあと、合計で割るのを忘れています。重みは合計が 1 になるように"
                    "割ります: e = np.exp(scores); e / e.sum()",
    "by_score_sum": "割る数が違います。割るのは元の得点の合計ではなく、np.exp を取った後の合計です。",
    "by_max": "一番大きい値で割っています。重みの合計を 1 にするには、最大値ではなく合計で割ります。",
}


def check_first_softmax(fn: Callable) -> None:
    """Chapter 00: `fn(scores)` turns a 1-D array of scores into weights: exp, then divide by the sum."""
    cases = [np.array([2.0, 1.0, 0.0]), np.array([0.5, -1.0, 3.0, 0.0]), np.array([0.0, 0.0])]
    for s in cases:
        got = _learner_result(fn, s.copy(), what="to_weights", call=f"to_weights({s})")
        e = np.exp(s)
        want = e / e.sum()
        if _same(got, want):
            continue
        with np.errstate(all="ignore"):
            wrong = {"raw": s, "no_exp": s / s.sum(), "unnormalised": e,
                     "by_score_sum": e / s.sum(), "by_max": e / e.max()}
        for name, w in wrong.items():
            if _same(got, w):
                fail(f"scores={s} で {got} が返りました。{FIRST_SOFTMAX_HINTS[name]}")
        if got.shape != want.shape:
            fail(f"scores={s}(shape {s.shape})に対して、重みも同じ shape {want.shape} で返します。"
                 f"shape {got.shape} が返ってきました。得点 1 つにつき重みが 1 つです。")
        fail(f"scores={s} のとき {want} になるはずが、{got} でした。"
             "式 w_i = exp(s_i) / (exp(s_1) + … + exp(s_n)) を見直しましょう。")
    passed("重みはどれも正で、合計は 1 です。得点が同じなら重みも同じ(0.5 ずつ)になります。")


def check_matmul_shape_prediction(answer) -> None:
    """Chapter 00 prediction: x is 1 × 2 and W is 2 × 3; what is the shape of x @ W?"""
    hints = {
        "(1, 3)": "(1×2) · (2×3) → (1×3)。内側の 2 と 2 がそろって消え、外側の 1 と 3 が残ります。"
                  "1 本の横一列が、長さ 3 の横一列に変わりました。",
        "(1, 2)": "x と同じ形のまま、と考えましたか? 結果の列の数は W の列の数(3)から来ます。",
        "(2, 3)": "それは W の形そのものです。結果の行の数は x の行の数(1)から来ます。",
        "(3, 1)": "行と列が逆です。結果は (x の行の数, W の列の数) です。",
        "(2, 2)": "内側の数(x の列 2 と W の行 2)は、かけ算の中で使われて消えます。"
                  "残るのは外側の数です。",
        "エラー": "x の列の数(2)と W の行の数(2)が同じなので、かけ算はできます。"
                  "エラーになるのは、この 2 つが違うときです。",
    }
    if isinstance(answer, str):
        key = answer.strip()
        if key not in ("", "エラー"):
            # e.g. "1,3" or "(1, 3)": the content may be right, the type is not.
            fail(f"\"{answer}\" は文字列です(引用符 \" でかこまれています)。形は引用符をつけずに、"
                 "prediction = (4, 5) のような数の組(タプル)で書いてください。"
                 "文字列で書くのは、かけ算できないと思ったときの \"エラー\" だけです。")
    elif isinstance(answer, (tuple, list)) and all(
        isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in answer
    ):
        key = str(tuple(int(a) for a in answer)) if answer else ""
    else:
        fail(f"答えは (1, 2) のような整数の組(タプル)か、\"エラー\" で書いてください。"
             f"{answer!r}({type(answer).__name__})が来ました。")
    if key == "":
        fail("まだ答えが入っていません。(行の数, 列の数) の組か \"エラー\" を書いてください。")
    if key not in hints:
        fail(f"{key} ではありません。(n×d) · (d×m) の結果は (n×m):行の数は x から、"
             "列の数は W から来ます。")
    if key != "(1, 3)":
        fail(hints[key])
    passed(hints[key])


# ---------------------------------------------------------------- chapter 02: the library


#: Chapter 02: the hint for each typical mistake in `soft_lookup(q, K, V, temperature)`.
SOFT_LOOKUP_HINTS = {
    "weights": "重み(ソフトマックスの結果)をそのまま返しています。答えは、その重みで中身 V を"
               "混ぜたもの、weights @ V です。",
    "keys": "見出し K を混ぜています。混ぜるのは中身 V です。見出しは「どれだけ合うか」の"
            "得点を出すためだけに使います。",
    "axis0": "重みが全部 1 になっています(答えが中身の合計 V.sum(axis=0) と同じです)。"
             "得点 q @ K.T は 1×n の横一列なので、ソフトマックスは axis=0(縦)ではなく "
             "axis=-1(横、本の並び)にかけます。",
    "raw": "得点 q·k をそのまま重みにしています。得点はマイナスにもなり、合計も 1 ではありません。"
           "ソフトマックスを通してから混ぜます。",
    "no_exp": "得点を得点の合計で割っただけで、np.exp を取っていません。先に np.exp を取ります。",
    "unnormalised": "np.exp(得点 / 温度) のあと、合計で割り忘れています。重みの合計が 1 でないと、"
                    "答えが中身の混ぜ合わせではなくなります。",
    "no_temperature": "温度 temperature が効いていません。得点を temperature で割ってから"
                      "ソフトマックスにかけます(helpers.softmax(scores, temperature=temperature) でも同じ)。",
    "times_temperature": "得点に温度を掛けています。温度では割ります。温度が小さいほど得点の差が"
                         "広がり、重みが一冊に集中します。",
    "sqrt": "得点を √d_k で割っています。それは第 6 章のアテンションで出てくる工夫です。"
            "この練習では、温度で割るだけにします。",
    "argmax": "いちばん得点の高い本の中身だけを返しています。それは前の節の「いちばん合う見出し」"
              "の検索です。ここでは全部の本に重みを配り、混ぜます。",
}


def _soft_lookup_cases() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
    """The book's catalog at two temperatures, and a random one where n, d_k, d_v all differ."""
    from .data import library_catalog

    cat = library_catalog()
    rng = np.random.default_rng(2)
    return [
        (np.array([[1.8, 0.9]]), cat.keys, cat.values, 1.0),
        (np.array([[0.3, 1.9]]), cat.keys, cat.values, 0.5),
        (rng.normal(size=(1, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), 2.0),
    ]


def soft_lookup_variants(q, K, V, temperature: float) -> dict[str, np.ndarray]:
    """The answer of a soft lookup ("right") and what each typical mistake returns instead."""
    from .attention import softmax

    s = q @ K.T
    w = softmax(s, temperature=temperature)
    e = np.exp(s / temperature)
    return {
        "right": w @ V,
        "weights": w,
        "keys": w @ K,
        "axis0": np.ones_like(s) @ V,
        "raw": s @ V,
        "no_exp": (s / s.sum()) @ V,
        "unnormalised": e @ V,
        "no_temperature": softmax(s) @ V,
        "times_temperature": softmax(s * temperature) @ V,
        "sqrt": softmax(s / np.sqrt(K.shape[1]), temperature=temperature) @ V,
        "argmax": V[int(np.argmax(s))],
    }


def check_soft_lookup(fn: Callable) -> None:
    """Chapter 02: `fn(q, K, V, temperature)` returns softmax(q Kᵀ / T) V for a 1 × d_k question."""
    for q, K, V, T in _soft_lookup_cases():
        call = f"soft_lookup(q, K, V, temperature={T})"
        got = _learner_result(fn, q.copy(), K.copy(), V.copy(), T, what="soft_lookup", call=call)
        variants = soft_lookup_variants(q, K, V, T)
        flat = got.reshape(-1)
        if _same(flat, variants["right"].reshape(-1)):
            continue
        for name, wrong in variants.items():
            if name != "right" and _same(flat, wrong.reshape(-1)):
                fail(f"{call} で {flat} が返りました。{SOFT_LOOKUP_HINTS[name]}")
        want = variants["right"]
        if flat.size != want.size:
            fail(f"答えの形は中身 1 冊ぶんと同じ (1, d_v) = {want.shape} のはずですが、"
                 f"shape {got.shape} が返ってきました。")
        fail(f"q={q}, temperature={T} のとき {want.reshape(-1)} になるはずが、{flat} でした。"
             "得点 → ソフトマックス(温度で割る)→ 中身を混ぜる、の順に確かめましょう。")
    passed("得点をソフトマックスで重みに変え、その重みで中身を混ぜられています。"
           "本の数・見出しの次元・中身の次元が全部違う場合でも合っています。")


def check_temperature_prediction(small, large) -> None:
    """Chapter 02 prediction: the mixed answer when the temperature is tiny and when it is huge."""
    choices = ("一冊", "平均", "ゼロ", "変わらない")
    hints = {
        ("small", "平均"): "温度を小さくすると、得点を小さな数で割るので、得点の差はむしろ広がります。"
                           "広がった差は、ソフトマックスで一番の本への集中になります。",
        ("small", "ゼロ"): "重みの合計はいつでも 1 です。小さくなる重みがあれば、その分どこかが大きくなります。",
        ("small", "変わらない"): "温度は得点を割る数なので、変えると得点の差が変わり、重みも変わります。",
        ("large", "一冊"): "温度を大きくすると、得点を大きな数で割るので、差が 0 に近づきます。"
                           "差がなければ、どの本にも同じ重みが配られます。",
        ("large", "ゼロ"): "重みの合計はいつでも 1 です。全部が小さくなるのではなく、全部が 1/n に近づきます。",
        ("large", "変わらない"): "温度は得点を割る数なので、変えると得点の差が変わり、重みも変わります。",
    }
    for which, answer, label in (("small", small, "small_T"), ("large", large, "large_T")):
        if answer is None or answer == "":
            fail(f"{label} にまだ答えが入っていません。{'、'.join(choices)} のどれかを書いてください。")
        if answer not in choices:
            fail(f"{label} の「{answer}」は選択肢にありません。{'、'.join(choices)} のどれかを書いてください。")
        if (which, answer) in hints:
            fail(f"{label}:{hints[(which, answer)]}")
    passed("温度 → 0 で重みは一番の本に集中し(答え = その本の中身)、温度 → 大で全部の本に "
           "1/n ずつ(答え = 中身の平均)になります。")


# Chapters 04–05 (the three faces; everything is a matrix product) live in their own module.
from .checks_matrices import (  # noqa: E402, F401
    check_fused_qkv,
    check_matmul_cell,
    check_order_prediction,
    check_q_shape_prediction,
    check_question_matrix,
    check_three_faces,
)

# Chapter 07 (learning W by gradient descent) lives in its own module.
# isort: split
from .checks_learning import (  # noqa: E402, F401
    check_gradient_step,
    check_learning_rate_prediction,
)
