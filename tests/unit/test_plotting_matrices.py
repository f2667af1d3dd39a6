"""helpers.plotting.matrices: matrix shapes, W as a map of the plane, tiles (chapters 04–05)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Polygon

import helpers
from helpers._validate import HelpersError, HelpersTypeError
from helpers.plotting import plot_matmul_shapes, plot_plane_transform, plot_tiles


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_matmul_shapes_writes_every_size_and_the_result():
    ax = plot_matmul_shapes(left=(5, 2), right=(2, 3), names=("X", "W_Q", "Q"),
                            dims=("n", r"$d_{model}$", r"$d_k$"), title="形")
    texts = _texts(ax)
    assert "n = 5" in texts and r"$d_{model}$ = 2" in texts and r"$d_k$ = 3" in texts
    assert {"$X$", "$W_{Q}$", "$Q$"} <= set(texts)
    assert ax.get_title() == "形"
    # the result box is n × d_k, proportional: 3 wide and 5 high
    widths = sorted({(round(p.get_width(), 6), round(p.get_height(), 6)) for p in ax.patches})
    assert (3.0, 5.0) in widths and (2.0, 5.0) in widths and (3.0, 2.0) in widths


def test_matmul_shapes_marks_a_mismatch_in_red_and_draws_no_result():
    ax = plot_matmul_shapes(left=(1, 3), right=(2, 2))
    assert any("形が合いません" in t for t in _texts(ax))
    sizes = {(round(p.get_width()), round(p.get_height())) for p in ax.patches}
    assert sizes == {(3, 1), (2, 2)}


@pytest.mark.parametrize(
    "kwargs, error",
    [({"left": (1, 0)}, ValueError), ({"left": (1.0, 2)}, TypeError), ({"right": 2}, TypeError),
     ({"names": ("x", "W")}, TypeError), ({"names": "xWq"}, TypeError),
     ({"dims": ("n", "d")}, TypeError)],
)
def test_matmul_shapes_rejects_bad_input(kwargs, error):
    with pytest.raises(error):
        plot_matmul_shapes(**kwargs)


def test_plane_transform_draws_the_image_of_the_grid_under_x_W():
    W = np.array([[0.0, -0.5], [1.0, 0.0]])
    ax = plot_plane_transform(W, name="W_Q", points=helpers.data.foods().vectors,
                              labels=helpers.data.foods().words, title="変換")
    square = [p for p in ax.patches if isinstance(p, Polygon)][0]
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float) @ W
    np.testing.assert_allclose(square.get_xy()[:4], corners)
    tips = sorted(tuple(np.round(a.xy, 6)) for a in ax.texts if hasattr(a, "arrow_patch") and a.arrow_patch)
    assert tips == sorted([tuple(W[0]), tuple(W[1])])
    # the words' images are plotted where x @ W puts them
    img = helpers.data.foods().vectors @ W
    offsets = np.vstack([c.get_offsets() for c in ax.collections])
    assert any(np.allclose(offsets[i:i + 5], img) for i in range(len(offsets) - 4))
    assert "カレー" in " ".join(_texts(ax))


@pytest.mark.parametrize(
    "W, kwargs, error, message",
    [(np.ones((2, 3)), {}, ValueError, "2×2"), (np.eye(2), {"extent": 0}, ValueError, "extent"),
     (np.eye(2), {"step": 5.0}, ValueError, "step"), ([[np.inf, 0], [0, 1]], {}, ValueError, "inf"),
     (np.eye(2), {"points": np.ones((3, 3))}, ValueError, "n×2"),
     (np.eye(2), {"points": np.ones((3, 2)), "labels": ["a"]}, ValueError, "同じ数"),
     (np.eye(2), {"label_size": 0}, ValueError, "label_size"),
     (np.eye(2), {"label_size": "大"}, TypeError, "label_size")],
)
def test_plane_transform_rejects_bad_input(W, kwargs, error, message):
    with pytest.raises(error, match=message):
        plot_plane_transform(W, **kwargs)


def test_tiles_number_every_tile_and_highlight_its_bands():
    ax = plot_tiles((6, 4), (4, 8), (3, 4), highlight=1)
    assert [t for t in _texts(ax) if t.isdigit() and len(t) == 1 and t in "0123"] == ["0", "1", "2", "3"]
    # highlighted: the band of X (3 rows × 4 cols) and of W (4 rows × 4 cols) that tile 1 reads
    sizes = [(round(p.get_width()), round(p.get_height())) for p in ax.patches]
    assert sizes.count((4, 3)) >= 5  # 4 tiles of Y (4 wide, 3 high) + X's band
    assert (4, 4) in sizes


@pytest.mark.parametrize(
    "args, kwargs, error",
    [(((6, 4), (3, 8), 2), {}, ValueError), (((6, 4), (4, 8), 2), {"highlight": 99}, ValueError),
     (((6, 4), (4, 8), 0), {}, ValueError), (((6, 4), (4, 8), 2), {"highlight": True}, TypeError)],
)
def test_tiles_reject_bad_input(args, kwargs, error):
    with pytest.raises(error):
        plot_tiles(*args, **kwargs)


def test_plane_transform_key_explains_grey_and_colour_and_the_line_styles():
    foods = helpers.data.foods()
    ax = plot_plane_transform(np.array([[0.0, -0.5], [1.0, 0.0]]), name="W_Q", points=foods.vectors,
                              labels=foods.words, key=True)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["元の方眼", "元の縦線の行き先", "元の横線の行き先", "元の $x$", "行き先 $xW_{Q}$"]
    # without points or the original grid, the key only explains what is drawn
    ax = plot_plane_transform(np.eye(2), show_original=False, key=True)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["元の縦線の行き先", "元の横線の行き先"]
    assert plot_plane_transform(np.eye(2)).get_legend() is None


def test_plane_transform_word_labels_have_a_halo_and_sit_beyond_the_image():
    foods = helpers.data.foods()
    W = np.array([[0.0, -0.5], [1.0, 0.0]])
    ax = plot_plane_transform(W, points=foods.vectors, labels=foods.words)
    labels = {t.get_text(): t for t in ax.texts if t.get_text() in foods.words}
    assert set(labels) == set(foods.words)
    for word, text in labels.items():
        assert text.get_path_effects(), f"{word} has no white halo"
        x, q = foods[word][0], foods[word][0] @ W
        # the label is pushed away from where its dotted line comes in
        assert np.dot(np.array(text.xyann), q - x) > 0


def test_tile_colours_never_look_like_q_k_v():
    ax = plot_tiles((6, 4), (4, 8), (3, 2))
    from matplotlib.colors import to_hex

    fills = {to_hex(p.get_facecolor(), keep_alpha=False) for p in ax.patches}
    qkv = {c.lower() for c in (helpers.plotting.COLORS[f] for f in "QKV")}
    assert not fills & qkv


def test_plane_transform_arrow_labels_take_the_requested_size():
    ax = plot_plane_transform(np.eye(2), name="W_K", label_size=14)
    arrow_labels = [t for t in ax.texts if "W_{K}" in t.get_text()]
    assert len(arrow_labels) == 2
    assert all(t.get_fontsize() == 14 for t in arrow_labels)


def test_tiles_take_the_requested_text_sizes():
    ax = plot_tiles((6, 4), (4, 8), (3, 4), highlight=0, label_size=13)
    sizes = {t.get_text(): t.get_fontsize() for t in ax.texts}
    assert sizes["8"] == 13 and sizes["0"] == 17 and sizes["3"] == 14


@pytest.mark.parametrize(
    "call, error, word",
    [
        pytest.param(lambda: plot_matmul_shapes(names=5), HelpersTypeError, "3 つ", id="names-number"),
        pytest.param(lambda: plot_matmul_shapes(dims=5), HelpersTypeError, "3 つ", id="dims-number"),
        pytest.param(lambda: plot_matmul_shapes(dims=("n", 2, None)), HelpersTypeError, "文字列",
                     id="dims-symbol-number"),
        pytest.param(lambda: plot_matmul_shapes(left=(1, 10**400)), HelpersError, "範囲", id="side-huge"),
        pytest.param(lambda: plot_matmul_shapes(color=None), HelpersError, "色", id="color-none"),
        pytest.param(lambda: plot_matmul_shapes(title=3), HelpersTypeError, "文字列", id="title-number"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), extent=1000, step=0.001), HelpersError, "方眼",
                     id="grid-too-fine"),
        pytest.param(lambda: plot_plane_transform(np.full((2, 2), 1e300)), HelpersError, "大きすぎて",
                     id="W-beyond-the-plane"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), points=[[1e300, 0.0]]), HelpersError, "大きすぎて",
                     id="points-beyond-the-plane"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), name=3), HelpersTypeError, "文字列",
                     id="name-number"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), show_original="yes"), HelpersTypeError,
                     "True か False", id="show-original-text"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), limits=(0, np.inf)), HelpersError, "有限",
                     id="limits-inf"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), axis_labels=("a",)), HelpersError, "2 個",
                     id="one-axis-label"),
        pytest.param(lambda: plot_plane_transform(np.eye(2), labels=[1, 2], points=np.eye(2)),
                     HelpersTypeError, "文字列", id="labels-numbers"),
        pytest.param(lambda: plot_tiles((6, 4), (4, 8), 2, names=5), HelpersTypeError, "3 つ", id="tile-names"),
        pytest.param(lambda: plot_tiles((40, 4), (4, 30), 1), HelpersError, "大きすぎます", id="too-many-tiles"),
        pytest.param(lambda: plot_tiles((6, 4), (4, 8), 2, title=5), HelpersTypeError, "文字列",
                     id="tile-title-number"),
        pytest.param(lambda: plot_tiles((1, 10**400), (10**400, 2), 1), HelpersError, "範囲", id="tile-side-huge"),
    ],
)
def test_matrix_plots_refuse_bad_input_in_japanese(call, error, word):
    figures = plt.get_fignums()
    with pytest.raises(error, match=word):
        call()
    assert plt.get_fignums() == figures  # refused before a figure was made


def test_a_bare_row_count_stays_upright_and_a_phrase_runs_along_the_side():
    ax = plot_matmul_shapes(left=(1, 2), right=(2, 3), names=("x", "W_Q", "q"),
                            dims=("1", "2", "3"))
    upright = [t for t in ax.texts if t.get_text() == "1"]
    assert upright and all(t.get_rotation() == 0 for t in upright)  # a turned 1 reads as 一
    ax = plot_matmul_shapes(left=(5, 2), right=(2, 3), names=("X", "W_Q", "Q"),
                            dims=("$n$", "$d_{model}$", "$d_k$"))
    along = [t for t in ax.texts if t.get_text().startswith("$n$")]
    assert along and all(t.get_rotation() == 90 for t in along)
    plt.close("all")
