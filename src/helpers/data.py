"""The toy worlds of the book. Everything is small enough to print and read.

The 2-D plane has two named axes, as in the article's embedding chapter:
x axis 甘いもの好き度 (how much it is about sweet things), y axis 辛いもの好き度 (spicy).
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    HelpersError,
    HelpersKeyError,
    HelpersTypeError,
    arg,
    instance,
    number,
    public,
    record,
    require_same_length,
    said,
    text,
)
from ._validate import as_array as _as_array
from ._validate import as_matrix as _as_matrix
from .attention import project as _project
from .attention import softmax

AXES = ("甘いもの好き度", "辛いもの好き度")


def _names(names, what: str) -> tuple[str, ...]:
    """A tuple of strings (words, axis names, titles), or a Japanese TypeError."""
    if isinstance(names, str) or not isinstance(names, (tuple, list)) or not all(
        isinstance(n, str) for n in names
    ):
        raise HelpersTypeError(f"{what} には文字列の並び(タプルかリスト)を渡してください。{said(names)} が来ました。")
    return tuple(names)


#: The spec of a field of names (words, axes, titles).
_STRINGS = arg(_names)
#: The spec of a field of numbers: a finite matrix, copied (the learner's array stays theirs).
_TABLE = arg(lambda a, name: _as_matrix(a, name).copy())


def _shaped(M: np.ndarray, name: str, rows: int, cols: int, because: str) -> None:
    """`M` has `rows` × `cols`; `because` says where those sizes come from."""
    if M.shape != (rows, cols):
        raise HelpersError(f"{because}なので {name} は shape ({rows}, {cols}) のはずですが、{M.shape} でした。")


def _one_of(among: str, argument: str, missing: str):
    """A relation of a method: `argument` is one of `self.<among>`; else `missing`, which names
    the unknown one ({0}) and lists the known ones ({1})."""
    def relation(a: dict) -> None:
        known = getattr(a["self"], among)
        if a[argument] not in known:
            raise HelpersKeyError(missing.format(a[argument], "、".join(known)))
    return relation


def _one_row_per_word(a: dict) -> None:
    n, d = len(a["words"]), len(a["axes"])
    _shaped(a["vectors"], "vectors", n, d, f"語が {n} 個、軸が {d} 本")


def _one_number_per_axis(a: dict) -> None:
    a["vector"] = a["vector"].reshape(-1)
    if a["vector"].size != len(a["self"].axes):
        raise HelpersError(
            f"vector は {len(a['self'].axes)} 個の数(軸ごとに 1 つ)にしてください。{a['vector'].size} 個が来ました。"
        )


_A_WORD = _one_of("words", "word", "「{0}」はこの語彙にありません。使える語: {1}")


@record(_one_row_per_word, words=_STRINGS, vectors=_TABLE, axes=_STRINGS)
class Embedding:
    """Named row vectors: `vectors[i]` is the embedding of `words[i]` (shape n × d_model)."""

    words: tuple[str, ...]
    vectors: np.ndarray
    axes: tuple[str, ...] = AXES

    @public(_A_WORD, word=arg(text), always=True)
    def __getitem__(self, word: str) -> np.ndarray:
        """The embedding of one word as a 1 × d_model row."""
        return self.vectors[self.words.index(word)][None, :]

    @public(_A_WORD, word=arg(text), always=True)
    def index(self, word: str) -> int:
        return self.words.index(word)

    @public(_A_WORD, _one_number_per_axis, word=arg(text), vector=arg(_as_array), always=True)
    def with_vector(self, word: str, vector) -> Embedding:
        """A copy with one word moved (the original stays untouched)."""
        v = self.vectors.copy()
        v[self.words.index(word)] = vector
        return Embedding(self.words, v, self.axes)


def foods() -> Embedding:
    """Five foods on the 甘い/辛い plane (chapter 01).

    プリン points the same way as ケーキ but is half as long: equal direction, different length,
    which is exactly where the dot product and the cosine disagree.
    """
    words = ("ケーキ", "プリン", "カレー", "キムチ", "照り焼き")
    vectors = np.array([[2.0, 0.2],
                        [1.0, 0.1],
                        [0.3, 1.8],
                        [0.5, 1.3],
                        [1.2, 1.1]])
    return Embedding(words, vectors)


#: What a book of the library catalog holds (chapter 02): tablespoons per recipe.
VALUE_AXES = ("砂糖", "唐辛子", "しょうゆ")


def _rows_belong_together(a: dict) -> None:
    n = len(a["names"])
    if len(a["titles"]) != n:
        raise HelpersError(f"書名が {len(a['titles'])} 個、短い名前が {n} 個です。同じ数にしてください。")
    for face, axes, what in (("keys", "key_axes", "見出し"), ("values", "value_axes", "中身")):
        d = len(a[axes])
        _shaped(a[face], face, n, d, f"本が {n} 冊、{what}の軸が {d} 本")


@record(_rows_belong_together, titles=_STRINGS, names=_STRINGS, keys=_TABLE, values=_TABLE,
        key_axes=_STRINGS, value_axes=_STRINGS)
class Catalog:
    """A tiny library (chapter 02). Book i has a label vector `keys[i]` and contents `values[i]`.

    keys:   n × d_k, where the book sits on the 甘い/辛い plane (its 見出し, key)
    values: n × d_v, what the book actually holds (its 中身, value); d_v may differ from d_k.
    """

    titles: tuple[str, ...]
    names: tuple[str, ...]
    keys: np.ndarray
    values: np.ndarray
    key_axes: tuple[str, ...] = AXES
    value_axes: tuple[str, ...] = VALUE_AXES

    @public(_one_of("names", "name", "「{0}」という本はありません。ある本: {1}"), name=arg(text), always=True)
    def index(self, name: str) -> int:
        return self.names.index(name)

    def shelf(self) -> dict[str, np.ndarray]:
        """An ordinary Python dict: short name → contents (a 1-D row of `values`)."""
        return {name: self.values[i] for i, name in enumerate(self.names)}


def library_catalog() -> Catalog:
    """Five cookbooks (chapter 02). Every key has length 2, so the best dot product q·k is also
    the label nearest to the question; the values are tablespoons of 砂糖, 唐辛子, しょうゆ."""
    return Catalog(
        titles=("和菓子のこころ", "ふわふわケーキ入門", "照り焼き名人", "キムチの季節", "激辛カレー道"),
        names=("和菓子", "ケーキ", "照り焼き", "キムチ", "カレー"),
        keys=np.array([[1.6, -1.2],
                       [2.0, 0.0],
                       [1.6, 1.2],
                       [1.2, 1.6],
                       [0.0, 2.0]]),
        values=np.array([[3.0, 0.0, 1.0],
                         [4.0, 0.0, 0.0],
                         [2.0, 0.0, 3.0],
                         [1.0, 3.0, 0.0],
                         [0.0, 4.0, 1.0]]),
    )


#: The axes of the chapter-06 phrase: the food plane plus one axis for "is it a thing to eat".
PHRASE_AXES = ("甘いもの好き度", "辛いもの好き度", "食べ物らしさ")


def phrase() -> Embedding:
    """「辛い カレー の 後 に 甘い ケーキ」, one row per token (chapter 06, d_model = 3).

    カレー and ケーキ keep their chapter-01 taste (first two numbers) and are clearly foods; the
    adjectives 辛い and 甘い carry taste only; the small words の・後・に are short vectors.
    """
    words = ("辛い", "カレー", "の", "後", "に", "甘い", "ケーキ")
    vectors = np.array([[0.0, 1.5, 0.0],
                        [0.3, 1.8, 1.5],
                        [0.1, 0.1, 0.0],
                        [0.2, 0.2, 0.0],
                        [0.1, 0.1, 0.0],
                        [1.5, 0.0, 0.0],
                        [2.0, 0.2, 1.5]])
    return Embedding(words, vectors, PHRASE_AXES)


def _faces_fit(a: dict) -> None:
    names, X = a["names"], a["X"]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise HelpersError(f"参加者の名前が重複しています: {'、'.join(dup)}。名前は一人ひとり違うものにしてください。")
    _shaped(X, "X", len(names), len(a["axes"]), f"参加者が {len(names)} 人、好みの軸が {len(a['axes'])} 本")
    for label in ("W_Q", "W_K", "W_V"):
        W = a[label]
        if W.shape[0] != X.shape[1]:
            raise HelpersError(
                f"{label} の行数は d_model = {X.shape[1]}(好みの軸の数)でなければなりませんが、"
                f"{label} は shape {W.shape}({W.shape[0]} 行)です。"
            )
    require_same_length(a["W_Q"], a["W_K"], "W_Q", "W_K", dim="列数 d_k")


_A_GUEST = _one_of("names", "name", "「{0}」という参加者はいません。参加者: {1}")


@record(_faces_fit, names=arg(_names, "names(参加者の名前)"), X=_TABLE, W_Q=_TABLE, W_K=_TABLE,
        W_V=_TABLE, axes=_STRINGS)
class Party:
    """A networking party (chapter 03): guest i has a taste `X[i]` on the 甘い/辛い plane and
    three faces made from it by small hand-made tables (row vectors, `x @ W`):

    - `Q = X W_Q`: 探している相手像 (who I am looking for)
    - `K = X W_K`: 名札 (my name tag: how I present myself)
    - `V = X W_V`: 持ってきた中身 (what I bring: the taste of my 手土産)
    """

    names: tuple[str, ...]
    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    axes: tuple[str, ...] = AXES

    @property
    def Q(self) -> np.ndarray:
        """探している相手像, one row per guest: `X @ W_Q` (n × d_k)."""
        return _project(self.X, self.W_Q, "W_Q")

    @property
    def K(self) -> np.ndarray:
        """名札, one row per guest: `X @ W_K` (n × d_k)."""
        return _project(self.X, self.W_K, "W_K")

    @property
    def V(self) -> np.ndarray:
        """持ってきた中身, one row per guest: `X @ W_V` (n × d_v)."""
        return _project(self.X, self.W_V, "W_V")

    @public(_A_GUEST, name=arg(text), always=True)
    def index(self, name: str) -> int:
        return self.names.index(name)

    @public(_A_GUEST, name=arg(text), always=True)
    def faces(self, name: str) -> dict[str, np.ndarray]:
        """One guest's taste and three faces, each a 1 × d row: keys `x`, `q`, `k`, `v`."""
        i = self.names.index(name)
        return {"x": self.X[i:i + 1], "q": self.Q[i:i + 1], "k": self.K[i:i + 1],
                "v": self.V[i:i + 1]}

    def one_vector(self) -> Party:
        """The same guests with one vector for everything: Q = K = V = X (chapter 01's world)."""
        eye = np.eye(self.X.shape[1])
        return Party(self.names, self.X, eye, eye, eye, self.axes)


def party() -> Party:
    """Five guests at a networking party (chapter 03), from the sweetest to the spiciest.

    Their tastes lie on an arc of radius about 2, so with Q = K = X everyone picks themself.
    The hand-made faces: q looks for the *other* taste (sweetness in x asks for spiciness
    with weight 1.3, spiciness asks for sweetness with weight 0.9, so the interest is lopsided);
    k writes one's taste a little bolder (1.2) and the other taste as a small minus (-0.3);
    v, the 手土産, is one's taste a little toned down, and spicy fans add something sweet.
    """
    return Party(
        names=("アオイ", "ユイ", "ミオ", "ソウタ", "ケン"),
        X=np.array([[2.0, 0.2],
                    [1.8, 0.8],
                    [1.4, 1.4],
                    [0.8, 1.8],
                    [0.2, 2.0]]),
        W_Q=np.array([[0.0, 1.3], [0.9, 0.0]]),
        W_K=np.array([[1.2, -0.3], [-0.3, 1.2]]),
        W_V=np.array([[0.9, 0.0], [0.2, 0.8]]),
    )


@public(guests=arg(instance, cls=Party, made_by="helpers.data.Party"), person=arg(text))
def party_attention(guests: Party, person: str) -> dict:
    """Everything one guest's row of the party computes, as plain numbers.

    Returns q (d_k,), scores = q Kᵀ and weights = softmax(scores) (n,), take_home = weights V
    (d_v,), and pick (the name with the largest weight).
    """
    i = guests.index(person)
    q = guests.Q[i]
    scores = q @ guests.K.T
    weights = softmax(scores)
    return {"person": person, "q": q, "scores": scores, "weights": weights,
            "take_home": weights @ guests.V, "pick": guests.names[int(np.argmax(weights))]}


#: The swap matrix: 甘さ and 辛さ change places. Chapter 00's preview W_Q, and chapter 07's
#: "cheating" W_V of the second valley.
SWAP = np.array([[0.0, 1.0], [1.0, 0.0]])


@public(mix=arg(number, "mix(入れ替え度 t)", lo=0.0, hi=1.0))
def preview_w_q(mix: float) -> np.ndarray:
    """Chapter 00's W_Q, `(1 - t) I + t SWAP`: t = 0 leaves x as it is, t = 1 swaps sweet and spicy."""
    return (1.0 - mix) * np.eye(2) + mix * SWAP
