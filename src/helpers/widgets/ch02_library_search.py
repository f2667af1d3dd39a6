"""Chapter 02's explorable: the library search counter, from exact lookup to soft lookup.

Drawn in the browser (js/ch02_library_search.js); this class keeps the catalog and the two
controls as traits, so `explorer.angle = 45` in a cell turns the picture's question too.
"""

from __future__ import annotations

import numpy as np

from .._validate import HelpersError, HelpersTypeError, arg, public
from ..attention import softmax
from ..data import Catalog, library_catalog
from ..geometry import question_vector
from ._base import MAX_COORD, MAX_ITEMS, Explorable, Number, at_most, data_trait, on_the_plane

__all__ = ["library_search_explorer", "LibrarySearchExplorer"]

#: The temperature's range (the slider moves on a log scale): from almost one-hot to almost uniform.
T_MIN, T_MAX = 0.05, 20.0


class LibrarySearchExplorer(Explorable):
    """Turn the question and change the temperature; scores, weights and the mixed answer follow."""

    module = "ch02_library_search"
    title = "検索カウンター"
    angle = Number(30.0, "angle(問いの向き、度)", lo=-90.0, hi=180.0)
    temperature = Number(1.0, "temperature(温度)", lo=T_MIN, hi=T_MAX)
    names = data_trait([], "text", ("books",))
    book_keys = data_trait([], "number", ("books", 2), lim=MAX_COORD)
    book_values = data_trait([], "number", ("books", "contents"), lim=MAX_COORD)
    key_axes = data_trait([], "text", (2,))
    value_axes = data_trait([], "text", ("contents",))

    @classmethod
    def example(cls) -> LibrarySearchExplorer:
        return library_search_explorer(angle=0, temperature=0.05)

    def numbers(self) -> dict:
        """What the picture shows now: the question, scores, weights, the answer, the best book."""
        K, V = np.array(self.book_keys), np.array(self.book_values)
        q = question_vector(self.angle)
        scores = (q @ K.T).reshape(-1)
        weights = softmax(scores, temperature=self.temperature)
        return {"question": q.reshape(-1), "scores": scores, "weights": weights,
                "answer": weights @ V, "best": self.names[int(np.argmax(weights))]}


def _a_catalog_on_the_plane(catalog, name: str) -> Catalog:
    """A spec: `catalog` (None: the chapter's five books), 2-D keys, a few books, drawable."""
    cat = library_catalog() if catalog is None else catalog
    if not isinstance(cat, Catalog):
        raise HelpersTypeError(f"{name} には helpers.data.Catalog を渡してください。{type(cat).__name__} が来ました。")
    if cat.keys.shape[1] != 2:
        raise HelpersError(f"この図は見出しが 2 次元の目録用です。d_k = {cat.keys.shape[1]} が来ました。")
    at_most(len(cat.names), MAX_ITEMS, "目録の本")
    at_most(len(cat.value_axes), MAX_ITEMS, "中身の軸(value_axes)")
    on_the_plane(cat.keys, "目録の見出し(keys)")
    on_the_plane(cat.values, "目録の中身(values)")
    return cat


@public(catalog=arg(_a_catalog_on_the_plane), draws=True)
def library_search_explorer(
    catalog: Catalog | None = None, angle: float = 30, temperature: float = 1.0, **controls
) -> LibrarySearchExplorer:
    """The search counter for `catalog` (None: the chapter's five books). The question has the
    labels' length (2), so only its direction and the temperature decide how sharp the weights are."""
    cat = catalog
    return LibrarySearchExplorer.starting_at(
        "library_search_explorer", {"angle": angle, "temperature": temperature, **controls},
        names=list(cat.names), book_keys=cat.keys.tolist(),
        book_values=cat.values.tolist(), key_axes=list(cat.key_axes), value_axes=list(cat.value_axes),
    )
