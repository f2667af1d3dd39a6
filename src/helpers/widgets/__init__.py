"""The explorables, one `chNN_<notebook>` module per chapter, each drawn by its own ES module in
the browser (`js/chNN_<notebook>.js`).

This module only re-exports. `_base` holds what every explorable shares (`Explorable`, the trait
types, the modules' loader). Only notebooks import widgets; nothing else in `helpers` does.
"""

from ._base import Explorable
from .ch00_introduction import AttentionPreviewExplorer, attention_preview_explorer
from .ch01_one_vector import SimilarityExplorer, similarity_explorer
from .ch02_library_search import LibrarySearchExplorer, library_search_explorer
from .ch03_three_roles import PartyExplorer, party_explorer
from .ch04_three_matrices import ThreeFacesExplorer, three_faces_explorer
from .ch06_attention import ScalingExplorer, scaling_explorer
from .ch07_how_w_learns import TrainingExplorer, training_explorer
from .ch08_going_further import HeadsExplorer, heads_explorer

__all__ = [
    "Explorable",
    "AttentionPreviewExplorer", "SimilarityExplorer", "LibrarySearchExplorer", "PartyExplorer",
    "ThreeFacesExplorer", "ScalingExplorer", "TrainingExplorer", "HeadsExplorer",
    "attention_preview_explorer", "similarity_explorer", "library_search_explorer",
    "party_explorer", "three_faces_explorer", "scaling_explorer", "training_explorer",
    "heads_explorer",
]
