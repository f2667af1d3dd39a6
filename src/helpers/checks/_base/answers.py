"""Typed answers: one normalisation rule for every prediction question, checked against choices."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .verdicts import fail, passed

#: Marks a learner may type around an answer: quotes and brackets, and a closing 。 or .
_WRAPPERS = "「」『』\"'“”‘’"
TRAILING = "。.、,!?"

#: Polite endings a learner of a です・ます book types, rewritten in this order until the answer
#: is a choice: 変わらないと思います → 変わらない, 変わりません → 変わらない, 対称になります →
#: 対称になる, 壊れます → 壊れる, エラーです → エラー (and then a trailing になる: 均等になります → 均等).
_POLITE_ENDINGS = (("だと思います", ""), ("だと思う", ""), ("と思います", ""), ("と思う", ""), ("りません", "らない"), ("ります", "る"),
                   ("れません", "れない"), ("れます", "れる"), ("します", "する"), ("です", ""))


#: Hiragana read as katakana on both sides of a comparison: けーき is ケーキ, and a choice such as
#: ときどき変わる still equals itself.
_HIRAGANA_AS_KATAKANA = {code: code + 0x60 for code in range(0x3041, 0x3097)}


#: A choice written with kanji may be typed as its reading: いっさつ is 一冊 (and イッサツ too,
#: since hiragana and katakana are one). Every kanji choice of every prediction is here, and a
#: kanji synonym's (一番 for 一冊).
READINGS = {"一冊": "いっさつ", "平均": "へいきん", "均等": "きんとう", "変わる": "かわる",
            "変わらない": "かわらない", "ときどき変わる": "ときどきかわる", "壊れる": "こわれる",
            "速くなる": "はやくなる", "対称になる": "たいしょうになる", "人による": "ひとによる",
            "対称にならない": "たいしょうにならない", "自分": "じぶん", "先頭": "せんとう",
            "問い次第": "といしだい", "照り焼き": "てりやき", "一番": "いちばん"}

#: A shape typed as text: (5, 3), [5, 3], 5×3, 5x3, 5*3, 5、3, 5行3列, with or without brackets
#: (after NFKC).
_SHAPE_TEXT = re.compile(r"[(\[]?(\d+)(?:[,、x×*]|行)(\d+)列?[)\]]?")

#: Characters that look like the long-vowel mark ー after a katakana: the kanji 一, hyphens, dashes.
_LOOK_ALIKE_BAR = re.compile(r"(?<=[ァ-ヺー])[一\-−‐‑–—―~〜]")

#: Okurigana written short: 変る, 変らない, 変ります are 変わる, 変わらない, 変わります.
_SHORT_OKURIGANA = re.compile(r"変(?=[らりるれろ])")


def canonical_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)  # ｹｰｷ → ケーキ, full-width space → space
    text = _SHORT_OKURIGANA.sub("変わ", text)     # before kana are folded: 変らない → 変わらない
    text = text.replace("無い", "ない")           # 変わら無い → 変わらない
    text = re.sub(r"(?<![\d.])1(?=[冊つ人])", "一", text)  # 1冊 → 一冊: a counter read either way
    text = text.translate(_HIRAGANA_AS_KATAKANA)
    text = _LOOK_ALIKE_BAR.sub("ー", text)        # ケ一キ (the kanji 一), ケ-キ → ケーキ
    text = text.casefold()                        # Error → error
    text = re.sub(r"\s+", "", text)             # surrounding and inner spaces, IME's included
    text = re.sub(r"^1/\d+$", "1/n", text)       # 1/7 (one over the number of keys) → 1/n
    text = text.strip(_WRAPPERS).rstrip(TRAILING).strip(_WRAPPERS)
    return text


def _peel_once(key: str) -> str:
    """`key` with one outer layer taken off: quotes or a closing mark, else a polite ending, else a
    trailing になる; `key` itself when there is nothing left to take off."""
    bare = key.strip(_WRAPPERS).rstrip(TRAILING).strip(_WRAPPERS)
    if bare != key:
        return bare
    for polite, plain in _POLITE_ENDINGS:
        polite, plain = canonical_text(polite), canonical_text(plain)
        if key.endswith(polite):
            return key[: -len(polite)] + plain
    for suffix in ("になる", "する"):  # 均等になる → 均等, 一冊に集中する → 一冊に集中
        if key.endswith(canonical_text(suffix)) and len(key) > len(canonical_text(suffix)):
            return key[: -len(canonical_text(suffix))]
    return key


def _peelings(answer: str):
    """The typed answer, then each form left as its layers come off, outermost first, so the rules
    combine: 「ケーキ」です → 「ケーキ」 → ケーキ, 「(1, 3)」です。 → … → (1,3)."""
    key, seen = canonical_text(answer), set()
    while key not in seen:
        seen.add(key)
        yield key
        key = _peel_once(key)


def normalise_answer(answer, choices: Sequence[str],
                     synonyms: Mapping[str, str] | None = None) -> str | None:
    """The choice a typed answer means, or None when it is none of them.

    One rule for every prediction: NFKC (half-width kana, full-width letters and digits), spaces
    anywhere (the IME's full-width one too), quotes around it, a closing 「。」, hiragana for
    katakana, a kanji choice's reading (`READINGS`), short okurigana (変らない) and a polite ending
    (`_POLITE_ENDINGS`) do not count, in any combination (「ケーキ」です); `synonyms` maps other
    words a learner may use (e.g. 発散 → 壊れる) to a choice. A shape is read by `shape_answer`
    first, so (5, 3) and "5×3" are the same answer.
    """
    if not isinstance(answer, str):
        return None
    table = _answer_table(tuple(choices), tuple((synonyms or {}).items()))
    return next((table[key] for key in _peelings(answer) if key in table), None)


@functools.cache
def _answer_table(choices: tuple[str, ...], synonyms: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """Each accepted word in canonical form (peeled as an answer is) → the choice it means."""
    written = {**{c: c for c in choices}, **dict(synonyms)}
    forms = [*written.items(), *((READINGS[w], c) for w, c in written.items() if w in READINGS)]
    table = {canonical_text(c): c for c in choices}
    for word, choice in forms:  # every accepted word by the same rule as the answer, peeled too
        for key in _peelings(word):
            table.setdefault(key, choice)
    return table


@dataclass(frozen=True)
class Prediction:
    """A prediction question as its check reads it: the page's choices in their order, the right
    one, and other words a learner may use for a choice. Its check passes these to `check_choice`
    (or `read_choice`), and `@asks` notes them on the check, so what the check accepts is said once."""

    choices: tuple[str, ...]
    correct: str
    synonyms: Mapping[str, str] = field(default_factory=dict)

    def accepted(self) -> set[str]:
        """Every written form the check reads as the right choice, in `canonical_text`'s form."""
        table = _answer_table(tuple(self.choices), tuple(self.synonyms.items()))
        return {key for key, choice in table.items() if choice == self.correct}


def asks(*questions: Prediction) -> Callable[[Callable], Callable]:
    """Notes on a prediction check the questions it asks, in its arguments' order (`check.asks`),
    so a test can look for their accepted answers in what a learner reads before the question."""

    def note(check: Callable) -> Callable:
        check.asks = questions
        return check

    return note


def shape_answer(answer):
    """A shape as the text "(5, 3)", whether typed as a tuple (5, 3), a list, an array [5, 3],
    `Q.shape`, or a string such as "(5,3)", "５×３", "5x3" or "5行3列です"; "" for an empty
    tuple (nothing typed yet); anything else unchanged."""
    if isinstance(answer, np.ndarray) and answer.ndim == 1:
        answer = answer.tolist()
    if isinstance(answer, (tuple, list)):
        if not answer:
            return ""
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in answer):
            return str(tuple(int(v) for v in answer))
        return str(tuple(answer))  # e.g. ("1", "3"): not a shape, and not one of the choices
    if isinstance(answer, str):
        for text in _peelings(answer):
            if m := _SHAPE_TEXT.fullmatch(text.replace("X", "x")):
                return f"({m.group(1)}, {m.group(2)})"
    return answer


def _as_typed(answer) -> str:
    """An answer as the learner would recognise it, with invisible characters made visible."""
    if not isinstance(answer, str):
        return f"{answer!r}({type(answer).__name__})"
    if answer != answer.strip() or re.search(r"[^\S ]", answer):
        return repr(answer)
    return f"「{answer}」"


def read_choice(answer, choices: Sequence[str], synonyms: Mapping[str, str] | None = None,
                label: str = "") -> str:
    """The choice `answer` means; a hint if it is empty, not a string or none of `choices`."""
    shapes = [c for c in choices if _SHAPE_TEXT.fullmatch(c.replace(" ", ""))]
    listed = "、".join(c if c in shapes else f'"{c}"' for c in choices)
    how = "(形は (4, 5) のような組で)" if shapes else "を文字列で"
    to, of = (f"{label} に", f"{label} の") if label else ("", "")
    if answer is None or (isinstance(answer, str) and canonical_text(answer) == ""):
        fail(f"{to}まだ答えが入っていません。{listed} のどれか{how}書いてください。", mistake="no_answer")
    if not isinstance(answer, str):
        fail(f"{of}答えは {listed} のどれかを、引用符 \" でかこんだ文字列で書いてください。"
             f"{_as_typed(answer)} が来ました。", mistake="not_text")
    choice = normalise_answer(answer, choices, synonyms)
    if choice is None:
        fail(f"{of}{_as_typed(answer)}は選択肢にありません。{listed} のどれかを書いてください。",
             mistake="not_a_choice")
    return choice


def check_choice(answer, correct: str, choices: Sequence[str], hints: Mapping[str, str],
                 synonyms: Mapping[str, str] | None = None) -> None:
    """A prediction question: `answer` must mean one of `choices`; a wrong one gets its own hint."""
    choice = read_choice(answer, choices, synonyms)
    if choice != correct:  # the id says which choice, by its place on the page: chose_1, chose_2 …
        fail(hints.get(choice, f"「{choice}」ではありません。図と表を見直してみましょう。"),
             mistake=f"chose_{list(choices).index(choice) + 1}")
    passed(hints.get(correct, ""))




def check_shape_choice(answer, correct: str, choices: Sequence[str], hints: Mapping[str, str],
                       synonyms: Mapping[str, str] | None = None) -> None:
    """A shape prediction: `answer` is read by `shape_answer` (a tuple or text), then as a choice."""
    shape = shape_answer(answer)
    if shape is not None and not isinstance(shape, str):
        fail("形は (4, 5) のような組(タプル)か、\"4×5\" のような文字列で書いてください。"
             f"{_as_typed(answer)} が来ました。", mistake="not_a_shape")
    check_choice(shape, correct, choices, hints, synonyms)
