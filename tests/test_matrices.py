"""Chapters 04–05 helpers: products taken apart (helpers.matmul), matrix pictures, W as a turn.

Every piece is compared with plain numpy; every bad input must give a Japanese message.
"""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Polygon

import helpers
from helpers import matmul
from helpers.geometry import rotation_scale_matrix
from helpers.plotting import plot_lines, plot_matmul_shapes, plot_plane_transform, plot_tiles


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def XW(rng):
    return rng.normal(size=(5, 3)), rng.normal(size=(3, 4))


# ------------------------------------------------------------------ helpers.matmul


def test_one_cell_is_a_row_times_a_column(XW):
    X, W = XW
    for i in range(5):
        for j in range(4):
            assert matmul.matmul_cell(X, W, i, j) == pytest.approx((X @ W)[i, j])


def test_cellwise_in_any_order_is_the_same_matrix_bit_for_bit(XW, rng):
    X, W = XW
    plain = matmul.cellwise_matmul(X, W)
    np.testing.assert_allclose(plain, X @ W)
    for _ in range(3):
        assert np.array_equal(matmul.cellwise_matmul(X, W, rng.permutation(20)), plain)


def test_tiles_cover_every_cell_once_even_when_sizes_do_not_divide():
    for shape, tile in [((6, 8), (3, 4)), ((5, 7), 2), ((1, 1), 3), ((4, 4), (1, 4))]:
        ids = matmul.tile_map(shape, tile)
        counts = np.zeros(shape, dtype=int)
        for rows, cols in matmul.tile_slices(shape, tile):
            counts[rows, cols] += 1
        assert (counts == 1).all()
        assert ids.shape == shape
        assert set(np.unique(ids)) == set(range(len(matmul.tile_slices(shape, tile))))
    np.testing.assert_array_equal(matmul.tile_map((2, 4), (1, 2)), [[0, 0, 1, 1], [2, 2, 3, 3]])


def test_tiled_product_equals_numpy_in_any_tile_order(XW, rng):
    X, W = XW
    for tile in (1, 2, (2, 3), (5, 4), 10):
        n_tiles = len(matmul.tile_slices((5, 4), tile))
        np.testing.assert_allclose(matmul.tiled_matmul(X, W, tile), X @ W)
        np.testing.assert_allclose(
            matmul.tiled_matmul(X, W, tile, order=rng.permutation(n_tiles)), X @ W
        )
    Xi = rng.integers(-3, 4, size=(6, 4)).astype(float)
    Wi = rng.integers(-3, 4, size=(4, 8)).astype(float)
    assert np.array_equal(matmul.tiled_matmul(Xi, Wi, (3, 4), order=[3, 1, 0, 2]), Xi @ Wi)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: matmul.cellwise_matmul(np.ones((2, 3)), np.ones((2, 2))), ValueError, "形が合いません"),
        (lambda: matmul.cellwise_matmul(np.ones(3), np.ones((3, 2))), ValueError, "2 次元"),
        (lambda: matmul.cellwise_matmul([[np.nan]], [[1.0]]), ValueError, "NaN"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0, 1, 2]),
         ValueError, "並べ替え"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0, 0, 1, 2]),
         ValueError, "1 回ずつ"),
        (lambda: matmul.cellwise_matmul(np.ones((2, 2)), np.ones((2, 2)), order=[0.0, 1, 2, 3]),
         TypeError, "整数"),
        (lambda: matmul.matmul_cell(np.ones((2, 2)), np.ones((2, 2)), 2, 0), ValueError, "範囲"),
        (lambda: matmul.matmul_cell(np.ones((2, 2)), np.ones((2, 2)), 0, 1.0), TypeError, "整数"),
        (lambda: matmul.tile_slices((4, 4), 0), ValueError, "1 以上"),
        (lambda: matmul.tile_slices((4, 4), (2, 2, 2)), TypeError, "行数, 列数"),
        (lambda: matmul.tile_slices((4, 4), 1.5), TypeError, "正の整数"),
        (lambda: matmul.tile_map((0, 4), 2), ValueError, "1 以上の整数"),
        (lambda: matmul.tiled_matmul(np.ones((2, 3)), np.ones((2, 2)), 1), ValueError, "形が合いません"),
        (lambda: matmul.tiled_matmul(np.ones((2, 2)), np.ones((2, 2)), 1, order=[1, 2]),
         ValueError, "並べ替え"),
    ],
)
def test_bad_inputs_get_japanese_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ------------------------------------------------------------------ rotation_scale_matrix


def test_rotation_scale_matrix_turns_row_vectors_counter_clockwise():
    W = rotation_scale_matrix(90, 2.0)
    np.testing.assert_allclose(np.array([[1.0, 0.0]]) @ W, [[0.0, 2.0]], atol=1e-12)
    np.testing.assert_allclose(np.array([[0.0, 1.0]]) @ W, [[-2.0, 0.0]], atol=1e-12)
    x = np.array([[0.3, 1.8]])
    for angle, scale in [(0, 1.0), (-90, 1.0), (45, 0.5), (180, 1.5)]:
        y = x @ rotation_scale_matrix(angle, scale)
        assert np.linalg.norm(y) == pytest.approx(scale * np.linalg.norm(x))
        turned = np.arctan2(y[0, 1], y[0, 0]) - np.arctan2(x[0, 1], x[0, 0])
        assert np.cos(turned - np.deg2rad(angle)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args, error, message",
    [(("90",), TypeError, "数で"), ((np.inf,), ValueError, "有限"), ((10, np.nan), ValueError, "有限"),
     ((True,), TypeError, "数で")],
)
def test_rotation_scale_matrix_rejects_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        rotation_scale_matrix(*args)


# ------------------------------------------------------------------ pictures


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


def test_plot_lines_draws_one_line_per_entry_on_log_axes():
    ax = plot_lines([4, 8, 16], {"遅い": [1e-3, 8e-3, 6e-2], "速い": [1e-6, 2e-6, 3e-6]},
                    logx=True, logy=True, title="時間", highlight="速い")
    assert len(ax.lines) == 2 and ax.get_yscale() == "log" and ax.get_xscale() == "log"
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [1e-6, 2e-6, 3e-6])
    assert ax.lines[1].get_linewidth() > ax.lines[0].get_linewidth()


@pytest.mark.parametrize(
    "x, ys, kwargs, message",
    [([1, 2], {"a": [1, 2, 3]}, {}, "同じ数"), ([1, 2], {}, {}, "1 つ以上"),
     ([1, 2], {"a": [0, 1]}, {"logy": True}, "正の値"), ([0, 2], {"a": [1, 1]}, {"logx": True}, "正の値"),
     ([1, 2], {"a": [1, 1]}, {"highlight": "b"}, "ありません"),
     ([1, 2], {"a": [1, 1]}, {"colors": ["r", "g"]}, "同じ数")],
)
def test_plot_lines_rejects_bad_input(x, ys, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_lines(x, ys, **kwargs)


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


def test_tiles_and_lines_take_the_requested_text_sizes():
    ax = plot_tiles((6, 4), (4, 8), (3, 4), highlight=0, label_size=13)
    sizes = {t.get_text(): t.get_fontsize() for t in ax.texts}
    assert sizes["8"] == 13 and sizes["0"] == 17 and sizes["3"] == 14
    ax = plot_lines([1, 2], {"a": [1, 2]}, legend_size=12)
    assert ax.get_legend().get_texts()[0].get_fontsize() == 12


@pytest.mark.parametrize("bad", [0, -1, float("nan"), True, "大"])
def test_text_sizes_must_be_positive_numbers(bad):
    with pytest.raises((TypeError, ValueError), match="label_size"):
        plot_tiles((6, 4), (4, 8), (3, 4), label_size=bad)
    with pytest.raises((TypeError, ValueError), match="legend_size"):
        plot_lines([1, 2], {"a": [1, 2]}, legend_size=bad)
