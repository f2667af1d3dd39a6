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


def case_kinds(case: Sequence) -> set[str]:
    """The kinds of input a case puts to the learner's function, for comparing what a visible
    check and its hidden test cover: each array's number of dimensions, a vector's (or a single
    row's) number of components, a table square or not, and values with three or more decimals."""
    kinds = set()
    for at, value in enumerate(case):
        if not isinstance(value, np.ndarray):
            continue
        kinds.add(f"arg{at}: {value.ndim}-D")
        if value.ndim == 1 or value.shape[0] == 1:
            kinds.add(f"arg{at}: {value.shape[-1]} components")
        elif value.ndim == 2:
            kinds.add(f"arg{at}: {'square' if value.shape[0] == value.shape[1] else 'not square'}")
        if not np.allclose(value, np.round(value, 2), rtol=0, atol=1e-9):
            kinds.add("3+ decimals")
    return kinds
