"""Thin ipywidgets wrappers over the plotting functions, one `chNN_<notebook>` module per chapter.

This module only re-exports. `_base` holds what every widget shares (`Explorable`, the live
artists). Only notebooks import widgets; nothing else in `helpers` does.
"""

from ._base import Explorable, FrameExplorable, LiveArrow, LiveBars, LiveHeatmap, canvas_png, slider
from .ch00_introduction import AttentionPreviewExplorer, attention_preview_explorer
from .ch01_one_vector import similarity_explorer
from .ch02_library_search import library_search_explorer
from .ch03_three_roles import party_explorer
from .ch04_three_matrices import three_faces_explorer
from .ch06_attention import ScalingExplorer as ScalingExplorer  # re-exported beside the function
from .ch06_attention import scaling_explorer
from .ch07_how_w_learns import training_explorer
from .ch08_going_further import heads_explorer

__all__ = [
    "Explorable", "FrameExplorable", "LiveArrow", "LiveBars", "LiveHeatmap", "canvas_png", "slider",
    "AttentionPreviewExplorer",
    "attention_preview_explorer", "similarity_explorer", "library_search_explorer",
    "party_explorer", "three_faces_explorer", "scaling_explorer", "training_explorer",
    "heads_explorer",
]
