"""Pure plotting functions: `ax=None` in, `ax` out. No global state besides `apply_style()`.

This module only re-exports. Shared plots live in `common` and `matrices`; a plot that one
chapter alone uses lives in that chapter's `chNN_<notebook>` module; what the modules share
(colours, axis helpers) lives in `_base`; the style (`apply_style`) in `helpers._style`,
which `helpers.setup()` applies when matplotlib is first imported.
"""

from .._style import apply_style
from ._base import COL_TITLE, COLORS, ROW_TITLE, WORD_COLORS, heatmap_axes, text_colors
from .ch03_three_roles import FACE_LABELS, outline_heatmap, plot_faces
from .ch05_all_matmul import plot_lines
from .ch06_attention import plot_histograms
from .ch07_how_w_learns import (
    PLANE_MARKERS,
    W_ROW_LABELS,
    outline_cells,
    plane_limits,
    plane_map_legend,
    plot_learning_curve,
    plot_plane_map,
    plot_weight_matrix,
)
from .ch08_going_further import (
    MASKED_LOOK,
    hidden_cells,
    plot_head_maps,
    plot_masked_heatmap,
    shade_masked,
)
from .common import finish_plane, plot_bars, plot_heatmap, plot_vectors
from .matrices import plot_matmul_shapes, plot_plane_transform, plot_tiles

__all__ = [
    "COLORS", "WORD_COLORS", "ROW_TITLE", "COL_TITLE", "apply_style", "heatmap_axes", "text_colors",
    "plot_vectors", "finish_plane", "plot_heatmap", "plot_bars",
    "plot_matmul_shapes", "plot_plane_transform",
    "FACE_LABELS", "plot_faces", "outline_heatmap",
    "plot_tiles", "plot_lines",
    "plot_histograms",
    "W_ROW_LABELS", "PLANE_MARKERS", "plot_learning_curve", "outline_cells", "plot_weight_matrix",
    "plane_limits", "plot_plane_map", "plane_map_legend",
    "MASKED_LOOK", "hidden_cells", "shade_masked", "plot_masked_heatmap", "plot_head_maps",
]
