"""helpers.checks._base.hidden: a hidden test's inputs."""


import numpy as np

from helpers.checks._base import hidden


def test_hidden_cases_draw_the_same_arrays_of_each_shape_and_keep_numbers():
    first = hidden.hidden_cases("ex", ((1, 4), (6, 4), 0.7), ((3,), 2.0))
    again = hidden.hidden_cases("ex", ((1, 4), (6, 4), 0.7), ((3,), 2.0))
    assert [[np.shape(v) for v in case] for case in first] == [[(1, 4), (6, 4), ()], [(3,), ()]]
    assert first[0][2] == 0.7 and first[1][1] == 2.0
    for case, same_case in zip(first, again, strict=True):
        for a, b in zip(case, same_case, strict=True):
            assert np.array_equal(a, b)
    other = hidden.hidden_cases("other", ((1, 4),))
    assert not np.allclose(other[0][0], first[0][0])
