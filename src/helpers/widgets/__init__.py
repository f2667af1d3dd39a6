"""The explorables, one `chNN_<notebook>` module per chapter, each drawn by its own ES module in
the browser (`js/chNN_<notebook>.js`).

This module only re-exports, each chapter's module on first use (PEP 562): a chapter's kernel
loads its own explorable, not all eight (they cost ~3 MiB together). `_base` holds what every
explorable shares (`Explorable`, the trait types, the modules' loader). Only notebooks import
widgets; nothing else in `helpers` does.
"""

import importlib

from ._base import Explorable

#: Each name this module shows, and the chapter module it comes from.
_CHAPTER_OF = {name: module for module, names in (
    ("ch00_introduction", ("AttentionPreviewExplorer", "attention_preview_explorer")),
    ("ch01_one_vector", ("SimilarityExplorer", "similarity_explorer")),
    ("ch02_library_search", ("LibrarySearchExplorer", "library_search_explorer")),
    ("ch03_three_roles", ("PartyExplorer", "party_explorer")),
    ("ch04_three_matrices", ("ThreeFacesExplorer", "three_faces_explorer")),
    ("ch06_attention", ("ScalingExplorer", "scaling_explorer")),
    ("ch07_how_w_learns", ("TrainingExplorer", "training_explorer")),
    ("ch08_going_further", ("HeadsExplorer", "heads_explorer")),
) for name in names}

__all__ = ["Explorable", *_CHAPTER_OF]


def __getattr__(name: str):
    if name in _CHAPTER_OF:
        return getattr(importlib.import_module(f".{_CHAPTER_OF[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:  # what a learner's Tab completion lists
    return sorted({*globals(), *__all__})
