"""Every learner-facing function answers a bad input with the package's Japanese message.

Hypothesis calls each public function (maths, data, figures and explorables' factories alike,
and the public methods of the objects learners build) with arguments drawn from a pool of good,
bad and edge values. Whatever happens, the call either returns or raises one of the package's
own errors (`HelpersError`, `HelpersTypeError`, `HelpersKeyError`), which IPython shows as one
Japanese line: never a raw numpy, matplotlib or Python error. A call that returns must not warn
(numpy's overflow or ComplexWarning: a silent cut; a matplotlib warning) nor return NaN or +inf.
Every one of them declares its arguments at the one boundary, `@_validate.public`, and a scan of
the source checks that every error the package raises on purpose is one of its own. Beside the
random draws, `test_every_argument_answers_each_bad_kind` sends each argument of each maths
function, with the others good, every kind of bad value the review of issue 25 found (complex,
True/False or 1/0 masks, ragged lists, numbers near float's limit, sizes far too large, counts
that are text or floats) and reads the message: one Japanese line that names the argument.
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import helpers
from helpers import checks, data, descent, geometry, heads, learning, matmul, scaling
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError, _finite

OURS = (HelpersError, HelpersTypeError, HelpersKeyError)

_TASK = learning.palate_task()
_PARAMS = learning.initial_weights(np.random.default_rng(0))
_HISTORY = learning.train(_TASK, _PARAMS, lr=0.5, steps=3)
_HEADS_TASK = heads.two_lookups_task()
_HEADS_PARAMS = heads.initial_heads(np.random.default_rng(0), h=2, d_k=2)


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
        dict(_PARAMS), {**_PARAMS, "W_Q": np.ones((3, 2))}, {**_PARAMS, "W_V": np.ones((2, 3))},
        {**_PARAMS, "W_K": np.ones((2, 3))}, _TASK, _HISTORY, rng, np.random.default_rng,
        data.foods(), data.party(), data.library_catalog(), data.phrase(),
        lambda W: float(np.sum(W)), print,
        np.ones((2, 2)) + 1j, np.ones((2, 2), dtype=bool), np.eye(2, dtype=int), [[0.0], [0.0, 0.0]],
        np.full((2, 2), 1e308), heads.causal_mask(2), np.ones((2, 2, 4)), 2.0, "2", 10**9,
        _HEADS_TASK, dict(_HEADS_PARAMS), {**_HEADS_PARAMS, "W_O": np.ones((3, 4))},
    ]


POOL = _pool()


MATHS = (helpers.attention, data, geometry, matmul, scaling, descent, learning, heads)

#: What public functions build and a learner reads (a task, a training history, a forward
#: pass): their input was checked by the function that built them. Every other exported class
#: is one a learner builds (`Embedding`, `Party`, ...), its constructor at the boundary.
RESULTS = (descent.Forward, learning.Menu, learning.PalateTask, learning.Snapshot, learning.History,
           learning.StartSurvey, heads.TwoLookupsTask, heads.HeadsHistory, scaling.ScalingRun)


def _exported(*modules):
    for module in modules:
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name)
            home = getattr(obj, "__module__", "")
            if home.split(".")[0] == "helpers" and not home.endswith("._validate"):
                yield f"{module.__name__}.{name}", obj


def _public_functions(*modules):
    """The functions, and the constructors of the classes a learner builds."""
    return [pytest.param(obj, id=where) for where, obj in _exported(*modules)
            if inspect.isfunction(obj) or (inspect.isclass(obj) and obj not in RESULTS)]


def _classes():
    return {obj for _, obj in _exported(*MATHS) if inspect.isclass(obj)}


def _taking_arguments(cls) -> list[str]:
    """The public methods of `cls` (and `obj[key]`) that take an argument besides self."""
    return [name for name, member in vars(cls).items()
            if inspect.isfunction(member) and (not name.startswith("_") or name == "__getitem__")
            and len(inspect.signature(member).parameters) > 1]


def _objects() -> list:
    """One of each kind of object whose methods take arguments."""
    return [data.foods(), data.party(), data.library_catalog(),
            scaling.random_scores(2, np.random.default_rng(0), n_sentences=2, n_words=3)]


def _methods():
    return [pytest.param(getattr(obj, name), id=f"{type(obj).__name__}.{name}")
            for obj in _objects() for name in _taking_arguments(type(obj))]


def _call(func, args: list, kwargs: dict) -> None:
    """Call; our own error passes when its message is one Japanese line, and what returns is
    finite and came without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow or ComplexWarning: an answer nobody reads
        try:
            result = func(*args, **kwargs)
        except OURS as err:
            _one_japanese_line(err)
            return
    assert _finite(result) or func in MISTAKES_MAY_OVERFLOW, f"NaN or inf returned: {result!r:.200}"


#: Variants whose naive mistakes overflow on purpose for huge scores (`@public(finite=False)`).
MISTAKES_MAY_OVERFLOW = (checks.party_weight_variants,)


JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _one_japanese_line(err: Exception, name: str | None = None) -> None:
    message = str(err)
    assert "\n" not in message and JAPANESE.search(message), message
    if name is not None:
        assert name in message, f"{name} not named: {message}"


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


def _variants():
    return [pytest.param(getattr(checks, name), id=f"checks.{name}")
            for name in checks.__all__ if name.endswith("_variants")]


@pytest.mark.parametrize("func", _public_functions(*MATHS) + _variants())
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
    IPython, no traceback), the building blocks hypothesis does not drive too. The one exception: a package's `__getattr__` (helpers, helpers.widgets) must raise
    AttributeError (PEP 562)."""
    import ast
    import builtins
    from pathlib import Path

    python_errors = {name for name in dir(builtins) if isinstance(getattr(builtins, name), type)
                     and issubclass(getattr(builtins, name), BaseException)}
    package = Path(helpers.__file__).parent
    found, allowed = [], []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        pep562 = [range(n.lineno, n.end_lineno + 1) for n in tree.body
                  if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"]
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                error = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(error, ast.Name) and error.id in python_errors:
                    where = f"{path.relative_to(package)}:{node.lineno} {error.id}"
                    in_getattr = error.id == "AttributeError" and any(node.lineno in r for r in pep562)
                    (allowed if in_getattr else found).append(where)
    assert found == [], found
    assert sorted(where.split(":")[0] for where in allowed) == ["__init__.py", "widgets/__init__.py"]


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


def test_every_public_function_declares_its_arguments_at_the_one_boundary():
    """One way to check what a learner passes: maths, figures and explorables' factories are all
    `@_validate.public`, with no check of their own at the top of the body."""
    funcs = [p.values[0] for p in _public_functions(helpers, *MATHS) + _drawing_functions()]
    plain = sorted(f.__name__ for f in funcs if inspect.isfunction(f)
                   and inspect.signature(f).parameters and not getattr(f, "at_the_boundary", False))
    assert plain == [], f"declare their arguments with @public: {plain}"


def test_every_constructor_and_method_declares_its_arguments_at_the_one_boundary():
    """The objects a learner builds check what they are given in their constructor, declared
    with `@_validate.record` (the fields' specs), and their methods with `@public`: no
    `__post_init__`, no `__init__` or method body that checks by hand."""
    plain = []
    for cls in sorted(_classes(), key=lambda c: c.__name__):
        if "__post_init__" in vars(cls):
            plain.append(f"{cls.__name__}.__post_init__")
        if cls not in RESULTS and not getattr(cls.__init__, "at_the_boundary", False):
            plain.append(f"{cls.__name__}.__init__")
        plain += [f"{cls.__name__}.{name}" for name in _taking_arguments(cls)
                  if not getattr(vars(cls)[name], "at_the_boundary", False)]
    assert plain == [], f"declare their arguments with @record / @public: {plain}"
    shown = {type(obj) for obj in _objects()}
    untried = sorted(c.__name__ for c in _classes() if _taking_arguments(c) and c not in shown)
    assert untried == [], f"add one of each to _objects (bad input for their methods): {untried}"


def test_a_result_object_keeps_the_constructor_its_dataclass_wrote():
    """A result (RESULTS) is built by a public function from checked input: a constructor of
    its own would check outside the boundary (or the class is one a learner builds)."""
    import ast

    own = []
    for cls in RESULTS:
        tree = ast.parse(inspect.getsource(cls))
        own += [f"{cls.__name__}.{n.name}" for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef) and n.name in ("__init__", "__post_init__", "__new__")]
    assert own == [], own


def test_objects_built_inside_a_public_function_are_converted_too():
    """Inside a public body, public functions trust their arguments; a constructor must not (the
    object keeps them): what internal code builds is converted and checked like a learner's."""
    from helpers._validate import trusted

    emb = trusted(lambda: data.Embedding(["a"], [[1, 2]]))()  # as if built inside a public body
    assert emb.words == ("a",) and emb.vectors.dtype == float
    with pytest.raises(HelpersError, match=r"vectors は shape \(1, 2\)"):
        trusted(lambda: data.Embedding(("a",), [[1, 2, 3]]))()
    with pytest.raises(HelpersKeyError, match="「タロウ」という参加者はいません"):
        data.party_attention(data.party(), "タロウ")  # a method called inside a maths body checks too


@pytest.mark.parametrize("func", _drawing_functions())
@_settings(12)  # each call may build a figure: fewer examples, the same pool
@given(data=st.data())
def test_plots_and_widgets_answer_in_japanese(func, data):
    import matplotlib.pyplot as plt

    try:
        _check(func, data.draw)
    finally:
        plt.close("all")


# --------------------------------------------------------------------------------------------
# Each argument of each maths function, with the others good, against each kind of bad value.


def _good_calls() -> dict:
    """A good call of every public maths function and exported variants (fresh each time)."""
    rng = np.random.default_rng
    X = rng(1).normal(size=(3, 2))
    params = learning.initial_weights(rng(0))
    heads_params = heads.initial_heads(rng(0), h=2, d_k=2)
    faces = {"W_Q": params["W_Q"], "W_K": params["W_K"], "W_V": params["W_V"]}
    fused = {"W_Q": np.ones((2, 4)), "W_K": np.ones((2, 4)), "W_V": np.ones((2, 4))}
    return {
        helpers.attention.softmax: dict(scores=X, axis=-1, temperature=1.0),
        helpers.attention.project: dict(x=X, W=params["W_Q"], name="W_Q"),
        helpers.attention.qkv: dict(X=X, **faces),
        helpers.attention.attention_scores: dict(Q=X, K=X, scale=True),
        helpers.attention.scaled_dot_product_attention: dict(Q=X, K=X, V=X, scale=True, temperature=1.0),
        helpers.attention.cosine_similarity: dict(A=X, B=X),
        data.Embedding: dict(words=("甘", "辛"), vectors=np.eye(2), axes=("x", "y")),
        data.Catalog: dict(titles=("甘い本", "辛い本"), names=("甘", "辛"), keys=np.eye(2),
                           values=np.ones((2, 3)), key_axes=("x", "y"), value_axes=("a", "b", "c")),
        data.Party: dict(names=("a", "b", "c"), X=X, **faces, axes=("x", "y")),
        data.party_attention: dict(guests=data.party(), person="アオイ"),
        data.preview_w_q: dict(mix=0.5),
        geometry.rotation_scale_matrix: dict(angle_deg=30.0, scale=1.0),
        geometry.question_vector: dict(angle_deg=30.0, length=2.0),
        matmul.tile_slices: dict(shape=(4, 4), tile=2),
        matmul.tile_map: dict(shape=(4, 4), tile=2),
        scaling.random_scores: dict(d_k=2, rng=rng(0), n_sentences=2, n_words=3),
        scaling.scaling_experiment: dict(d_ks=[1, 2], rng=rng(0), n_sentences=2, n_words=3),
        scaling.relative_histogram: dict(values=X, edges=np.array([-1.0, 0.0, 1.0])),
        learning.palate_task: dict(embedding=data.Embedding(("甘", "辛"), np.array([[2.0, 0.1], [0.2, 1.5]]))),
        learning.find_partner: dict(X=X, i=0),
        learning.initial_weights: dict(rng=rng(0), d_model=2, d_k=2, scale=0.3),
        descent.forward: dict(X=X, **faces, mask=heads.causal_mask(3)),
        descent.backward: dict(X=X, fwd=descent.forward(X, **faces), d_output=np.ones((3, 2))),
        learning.loss_and_gradients: dict(task=_TASK, params=params),
        learning.accuracy: dict(task=_TASK, params=params),
        descent.numerical_gradient: dict(f=lambda M: float(np.sum(M**2)), W=params["W_Q"], eps=1e-5),
        descent.relative_error: dict(a=X, b=X),
        learning.train: dict(task=_TASK, params=params, lr=0.5, steps=3, save_at=[0], blowup=1e6, frozen=()),
        learning.weight_split: dict(task=_TASK, params=params),
        learning.best_value_matrix: dict(task=_TASK, W_Q=params["W_Q"], W_K=params["W_K"]),
        learning.start_weights: dict(rng=rng(0), kind="この章の出発点", scale=0.3),
        learning.survey_starts: dict(task=_TASK, rng=rng(0), n=2, lr=0.5, steps=3,
                                     kinds=["この章の出発点"], scale=0.3),
        heads.causal_mask: dict(n=3),
        helpers.attention.masked_softmax: dict(scores=np.zeros((3, 3)), mask=heads.causal_mask(3)),
        heads.split_heads: dict(M=np.ones((3, 4)), h=2),
        heads.merge_heads: dict(H=np.ones((2, 3, 2))),
        heads.multi_head_attention: dict(X=X, W_Q=heads_params["W_Q"], W_K=heads_params["W_K"], W_V=heads_params["W_V"],
                                         W_O=np.ones((4, 2)), mask=heads.causal_mask(3)),
        heads.initial_heads: dict(rng=rng(0), h=2, d_k=2, d_model=2, d_out=4, scale=0.3),
        heads.lookups_loss_and_gradients: dict(task=_HEADS_TASK, params=heads_params),
        heads.train_heads: dict(task=_HEADS_TASK, params=heads_params, lr=0.1, steps=3, save_at=(0,)),
        checks.party_weight_variants: dict(Q=X, K=X),
        checks.attention_variants: dict(Q=X, K=X, V=X),
        checks.gradient_step_variants: dict(W_Q=np.ones((2, 2)), X=np.stack([X, 2 * X]), dQ=np.ones((2, 3, 2)), lr=0.5),
        checks.multi_head_variants: dict(X=X, **fused, W_O=np.ones((4, 2)), h=2),
    }


def _bad_kinds(name: str, good) -> dict:
    """What the review sent to an argument like `good`: kind → (value, must it be refused?)."""
    if name == "mask":
        hidden = np.isneginf(good)
        return {"true_false": (~hidden, True), "one_zero": ((~hidden).astype(int), True),
                "ragged": ([[0.0]] + [[0.0] * len(good)] * (len(good) - 1), True),
                "huge": (np.where(hidden, 1e308, 0.0), True), "complex": (good + 0j, True)}
    if isinstance(good, np.ndarray):
        return {"complex": (good + 1j, True), "nan": (np.where(good == good.flat[0], np.nan, good), True),
                "huge": (np.full(good.shape, 1e200), False), "bool": (np.ones(good.shape, bool), False),
                "words": (np.ones((100_000, *good.shape[1:])), False)}
    if isinstance(good, dict) and all(isinstance(v, np.ndarray) for v in good.values()):
        first = next(iter(good))
        return {"complex": ({**good, first: good[first] + 1j}, True),
                "huge": ({k: np.full(v.shape, 1e200) for k, v in good.items()}, False)}
    if isinstance(good, bool):
        return {"text": ("True", True), "number": (1, True)}
    if isinstance(good, int):
        return {"text": (str(good), True), "float": (float(good), True), "bool": (True, True),
                "negative": (-1, False), "zero": (0, False), "size": (10**9, False)}
    if isinstance(good, float):
        return {"text": (str(good), True), "complex": (complex(good), True), "nan": (np.nan, True),
                "inf": (np.inf, True), "huge": (1e308, False)}
    if isinstance(good, str):
        return {"number": (5, True), "none": (None, name != "name")}
    return {"none": (None, name not in ("save_at", "embedding")), "text": ("abc", True)}  # None: the default


def _cases():
    cases = []
    for func, kwargs in _good_calls().items():
        for name, good in kwargs.items():
            for kind, (_, refuse) in _bad_kinds(name, good).items():
                cases.append(pytest.param(func, name, kind, refuse, id=f"{func.__name__}-{name}-{kind}"))
    return cases


@pytest.mark.parametrize("func, name, kind, refuse", _cases())
def test_every_argument_answers_each_bad_kind(func, name, kind, refuse):
    kwargs = _good_calls()[func]
    kwargs[name] = _bad_kinds(name, kwargs[name])[kind][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning or numpy's overflow warning: silent
        try:
            result = func(**kwargs)
        except OURS as err:
            _one_japanese_line(err, name)
            return
    assert not refuse, f"{func.__name__}({name}={kind}) was accepted"
    assert _finite(result) or func in MISTAKES_MAY_OVERFLOW, f"{func.__name__}({name}={kind}) returned NaN or inf"


def test_a_start_too_large_is_blamed_on_w_not_on_the_learning_rate():
    huge = {name: M * 1e200 for name, M in _HEADS_PARAMS.items()}
    with pytest.raises(HelpersError, match="W の最初の値"):
        heads.train_heads(_HEADS_TASK, huge, lr=0.1, steps=3)
    history = learning.train(_TASK, {name: M * 1e200 for name, M in _PARAMS.items()}, lr=0.5, steps=3)
    with pytest.raises(HelpersError, match="W の最初の値"):
        _ = history.final


def test_every_maths_function_has_a_good_call():
    """So that the bad kinds above reach a new function as soon as it is exported."""
    funcs = {p.values[0] for p in _public_functions(*MATHS) + _variants()}
    made = (data.foods, data.library_catalog, data.phrase, data.party, heads.two_lookups_task)
    missing = {f.__name__ for f in funcs if f not in made} - {
        f.__name__ for f in _good_calls()}
    assert not missing, f"add a good call to _good_calls: {sorted(missing)}"
