"""helpers.geometry: turns and stretches of the plane, and questions on it."""

import numpy as np
import pytest

from helpers.geometry import question_vector, rotation_scale_matrix


@pytest.mark.parametrize("angle, length", [(0, 2.0), (90, 2.0), (30, 1.0), (-45, 3.0)])
def test_question_vector_matches_cos_sin(angle, length):
    a = np.deg2rad(angle)
    np.testing.assert_allclose(question_vector(angle, length),
                               [[length * np.cos(a), length * np.sin(a)]], atol=1e-12)
    assert question_vector(angle, length).shape == (1, 2)


@pytest.mark.parametrize(
    "args, error, words",
    [
        (("30",), TypeError, "angle_deg は数で"),
        ((True,), TypeError, "angle_deg は数で"),
        ((np.nan,), ValueError, "有限"),
        ((30, np.inf), ValueError, "有限"),
        ((30, 0.0), ValueError, "正の数"),
        ((30, -1.0), ValueError, "正の数"),
    ],
)
def test_question_vector_bad_inputs(args, error, words):
    with pytest.raises(error, match=words):
        question_vector(*args)


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
