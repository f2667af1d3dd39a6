"""Every learner-facing function answers a bad input with the package's Japanese message.

Hypothesis calls each public function (and the public methods of the objects learners build)
with arguments drawn from a pool of good, bad and edge values. Whatever happens, the call
either returns or raises one of the package's own errors (`HelpersError`, `HelpersTypeError`,
`HelpersKeyError`), which IPython shows as one Japanese line: never a raw numpy or Python error.

The maths and data layers (chapter 08's heads included) are driven here; plotting's and widgets'
building blocks (which take matplotlib axes) are not, but a scan of the source checks that every
error the package raises on purpose, there too, is one of its own.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import helpers
from helpers import data, geometry, heads, learning, matmul, scaling
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError

OURS = (HelpersError, HelpersTypeError, HelpersKeyError)

_TASK = learning.palate_task()
_W = learning.initial_weights(np.random.default_rng(0))
_HISTORY = learning.train(_TASK, _W, lr=0.5, steps=3)


def _pool() -> list:
    """Good values, wrong kinds, and the edges of float."""
    rng = np.random.default_rng(1)
    return [
        None, "abc", "ケーキ", "", b"x", True, -1, 0, 1, 2, 3, 7, 0.5, -0.5, 1e-310, 1e308,
        float("nan"), float("inf"), -float("inf"), 10**400, 1j,
        [], [1.0, 2.0], [[1.0, 2.0]], [[1, 2], [3, 4]], [[1], [2, 3]], [["a", "b"]],
        np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 3)), np.ones((1, 3)), np.zeros((2, 2)),
        np.ones((2, 2, 2)), np.array([[np.nan, 1.0]]), np.array([[-np.inf, 0.0]]),
        np.full((2, 2), 1e200), np.arange(4), np.array(["a", "b"]),
        (2, 2), (1, 2), (0, 3), ("ケーキ", "カレー"), ["W_V"], {"a": 1},
        dict(_W), {**_W, "W_Q": np.ones((3, 2))}, {**_W, "W_V": np.ones((2, 3))},
        {**_W, "W_K": np.ones((2, 3))}, _TASK, _HISTORY, rng, np.random.default_rng,
        data.foods(), data.party(), data.library_catalog(), data.phrase(),
        lambda W: float(np.sum(W)), print,
    ]


POOL = _pool()


def _public_functions(*modules):
    found = []
    for module in modules:
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            home = getattr(obj, "__module__", "")
            if not home.startswith("helpers.") or home.endswith("._validate"):
                continue
            if inspect.isfunction(obj) or any(obj is c for c in (data.Embedding, data.Catalog, data.Party)):
                found.append(pytest.param(obj, id=f"{module.__name__}.{name}"))
    return found


def _methods():
    emb, party, cat = data.foods(), data.party(), data.library_catalog()
    run = scaling.random_scores(2, np.random.default_rng(0), n_sentences=2, n_words=3)
    return [pytest.param(m, id=f"{type(m.__self__).__name__}.{m.__name__}") for m in (
        emb.index, emb.with_vector, emb.__getitem__, party.index, party.faces, cat.index,
        run.scored, run.weights, run.max_weights,
    )]


def _call(func, args: list, kwargs: dict) -> None:
    try:
        func(*args, **kwargs)
    except OURS:
        pass


def _arguments(func):
    params = [p for p in inspect.signature(func).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = [p for p in params if p.default is p.empty]
    optional = [p for p in params if p.default is not p.empty]
    return required, optional


def _check(func, draw) -> None:
    required, optional = _arguments(func)
    values = st.sampled_from(POOL)
    args = [draw(values) for p in required if p.kind != p.KEYWORD_ONLY]
    kwargs = {p.name: draw(values) for p in required if p.kind == p.KEYWORD_ONLY}
    for p in optional:
        if draw(st.booleans()):
            kwargs[p.name] = draw(values)
    _call(func, args, kwargs)


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize(
    "func", _public_functions(helpers.attention, data, geometry, matmul, scaling, learning, heads))
@_settings(60)
@given(data=st.data())
def test_maths_and_data_answer_in_japanese(func, data):
    _check(func, data.draw)


@pytest.mark.parametrize("method", _methods())
@_settings(60)
@given(data=st.data())
def test_public_methods_answer_in_japanese(method, data):
    _check(method, data.draw)


def test_no_module_raises_a_bare_python_error():
    """Everything helpers raises on purpose is one of its own errors (one Japanese line in
    IPython, no traceback), so the parts hypothesis does not drive (plotting, widgets) keep to it
    too. The one exception: `helpers.__getattr__` must raise AttributeError (PEP 562)."""
    import ast
    import builtins
    from pathlib import Path

    python_errors = {name for name in dir(builtins) if isinstance(getattr(builtins, name), type)
                     and issubclass(getattr(builtins, name), BaseException)}
    package = Path(helpers.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                error = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(error, ast.Name) and error.id in python_errors:
                    found.append(f"{path.relative_to(package)}:{node.lineno} {error.id}")
    assert found == ["__init__.py:36 AttributeError"], found


def _drawing_functions():
    """The public plotting and widget functions (what a learner can call from a cell)."""
    import helpers.plotting
    import helpers.widgets

    found = []
    for module in (helpers.plotting, helpers.widgets):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found.append(pytest.param(obj, id=f"{module.__name__}.{name}"))
    return found


@pytest.mark.parametrize("func", _drawing_functions())
@_settings(12)  # each call may build a figure: fewer examples, the same pool
@given(data=st.data())
def test_plots_and_widgets_answer_in_japanese(func, data):
    import matplotlib.pyplot as plt

    try:
        _check(func, data.draw)
    finally:
        plt.close("all")
