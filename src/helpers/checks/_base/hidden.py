"""A hidden test's inputs: arrays no notebook shows, the same every run, different per exercise.

Every chapter's check draws them the same way, `hidden_cases("exercise", shapes...)`, between
nbgrader's BEGIN/END HIDDEN TESTS.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _rng(exercise: str) -> np.random.Generator:
    """The generator of an exercise's hidden inputs, seeded by the exercise's name."""
    return np.random.default_rng([len(exercise), *exercise.encode()])


def hidden_cases(exercise: str, *cases: Sequence) -> list[tuple]:
    """A hidden test's inputs: each case's shapes become standard-normal arrays drawn from
    `_rng(exercise)`, in order; a plain number in a case (a learning rate) stays as it is.
    `hidden_cases("x", ((1, 4), (6, 4), 0.7))` → `[(array 1×4, array 6×4, 0.7)]`."""
    rng = _rng(exercise)
    return [tuple(rng.normal(size=s) if isinstance(s, tuple) else s for s in case)
            for case in cases]
