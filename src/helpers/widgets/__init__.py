"""The explorables, one `chNN_<notebook>` module per chapter, each drawn by its own ES module in
the browser (`js/chNN_<notebook>.js`).

This module only re-exports, each chapter's module on first use (PEP 562): a chapter's kernel
loads its own explorable, not all eight (they cost ~3 MiB together). `explorables()` lists them all
from its one table, for the tests, the book and the bench. `_base` holds what every
explorable shares (`Explorable`, the trait types); `sources`, the ES modules' text for JupyterLab,
Node and the book's extension. Only notebooks import widgets; nothing else in `helpers` does.
"""

import importlib

from ._base import Explorable

#: Every explorable, listed once: its chapter module (`chNN_<notebook>`, beside
#: `js/chNN_<notebook>.js`), its class and the chapter's function that makes it.
_CHAPTERS = {
    "ch00_introduction": ("AttentionPreviewExplorer", "attention_preview_explorer"),
    "ch01_one_vector": ("SimilarityExplorer", "similarity_explorer"),
    "ch02_library_search": ("LibrarySearchExplorer", "library_search_explorer"),
    "ch03_three_roles": ("PartyExplorer", "party_explorer"),
    "ch04_three_matrices": ("ThreeFacesExplorer", "three_faces_explorer"),
    "ch06_attention": ("ScalingExplorer", "scaling_explorer"),
    "ch07_how_w_learns": ("TrainingExplorer", "training_explorer"),
    "ch08_going_further": ("HeadsExplorer", "heads_explorer"),
}

#: Each name this module shows, and the chapter module it comes from.
_CHAPTER_OF = {name: module for module, names in _CHAPTERS.items() for name in names}

__all__ = ["Explorable", *_CHAPTER_OF]


def explorables() -> dict[str, type[Explorable]]:
    """Every explorable class by its module's name, in chapter order, each chapter module imported:
    the one list the tests, the book's build and the frame bench take them from (not a
    learner's name, so not in `__all__`)."""
    return {module: getattr(importlib.import_module(f".{module}", __name__), names[0])
            for module, names in _CHAPTERS.items()}


def __getattr__(name: str):
    if name in _CHAPTER_OF:
        return getattr(importlib.import_module(f".{_CHAPTER_OF[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:  # what a learner's Tab completion lists
    return sorted({*globals(), *__all__})
