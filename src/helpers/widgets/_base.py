"""What every widget shares: `Explorable`, a picture computed and drawn in the browser.

An explorable is one plain ES module (`js/chNN_<notebook>.js`) that draws SVG from the model's
traits, plus a thin Python class (anywidget) that keeps the data and the state as synced traits:
a learner reads `explorer.angle` in the next cell or sets it, and the picture follows. The same
module runs in JupyterLab and, through a small model shim (book/_ext), in the static book.

`numbers()` gives, in numpy, the numbers the picture shows for the current traits (tests hold the
browser's numbers to them). The modules' text comes from `sources`; in JupyterLab every
explorable imports the shared modules through the kernel's one `SharedModules` widget, so that a
saved notebook keeps their text once.
"""

from __future__ import annotations

import hashlib
import html
import json

import anywidget
import numpy as np
import traitlets
from ipywidgets import widget_serialization

from .._mode import static_mode
from .._validate import HelpersError, HelpersTypeError, flag, integer, number, one_of, text
from ..data import Embedding, foods
from .sources import lab_esm, shared_sources, stylesheet


class SharedModules(anywidget.AnyWidget):
    """The shared modules (maths, drawing, widget runtime) once per kernel, for JupyterLab: each
    explorable's state refers to this one model and its module reads their text from it, so a
    saved notebook keeps that text once, not in every explorable (37-52 KB each)."""

    _esm = "export default {};"  # the text below is data, linked by each explorable (`lab_esm`)
    _css = stylesheet()  # the explorables' CSS, added to the page once with this model
    sources = traitlets.Dict().tag(sync=True)
    #: Names the text: one copy per page of each text, however many kernels made this model.
    key = traitlets.Unicode().tag(sync=True)

    @traitlets.default("sources")
    def _the_sources(self) -> dict[str, str]:
        return shared_sources()

    @traitlets.default("key")
    def _the_key(self) -> str:
        text = json.dumps(shared_sources(), sort_keys=True).encode()
        return hashlib.sha256(text).hexdigest()[:16]


_shared: SharedModules | None = None


def shared_modules() -> SharedModules:
    """The kernel's one `SharedModules` (made again if it was closed)."""
    global _shared
    if _shared is None or _shared.comm is None:
        _shared = SharedModules()
    return _shared


class Number(traitlets.TraitType):
    """A synced number trait that refuses, in Japanese, what is not a number in `lo` … `hi`."""

    def __init__(self, default: float, what: str, lo: float, hi: float):
        self.what, self.lo, self.hi = what, lo, hi
        super().__init__(default_value=float(default))
        self.tag(sync=True)

    def validate(self, obj, value):
        return number(value, self.what, lo=self.lo, hi=self.hi)


class Flag(traitlets.TraitType):
    """A synced True/False trait (a checkbox), refused in Japanese when it is anything else."""

    def __init__(self, default: bool, what: str):
        self.what = what
        super().__init__(default_value=bool(default))
        self.tag(sync=True)

    def validate(self, obj, value):
        return flag(value, self.what)


class Choice(traitlets.TraitType):
    """A synced trait that takes one of the values listed in the object's trait `options`
    (a data trait, so the browser draws the same choices). `labels`, the name of a trait listing
    what the buttons say, makes the refusal name each value with its label (頭 1 is head 0).
    The chapter's function passes its starting value here too: one check, one line."""

    def __init__(self, default, what: str, options: str, labels: str | None = None):
        self.what, self.options, self.labels = what, options, labels
        super().__init__(default_value=default)
        self.tag(sync=True)

    def validate(self, obj, value):
        labels = getattr(obj, self.labels) if self.labels else None
        return one_of(value, self.what, getattr(obj, self.options), labels)


class DataError(HelpersError, traitlets.TraitError):
    """Data refused. Also a TraitError, so that traitlets puts back whatever a
    `with explorer.hold_trait_notifications():` block had set before it."""


class Data(traitlets.Any):
    """A synced trait for the data the picture is drawn from, plain JSON: values of `kind`
    ("text", "number", "integer"; "any" is not checked) in nested lists of `shape`, each entry a
    length or a name. Every data trait of an explorable that names the same length must have it
    (1 … the class's `SIZES[name]`, MAX_ITEMS unless said), and each number is finite, within
    ±`lim` if given. Checked whenever set (from Python, after construction too), with the other
    data traits and the choices that read them, before the browser draws anything."""

    allow_none = False  # traitlets.Any lets None through unchecked: None is checked like any value

    def __init__(self, default, kind: str = "any", shape: tuple = (), lim: float | None = None):
        self.kind, self.shape, self.lim = kind, tuple(shape), lim
        super().__init__(default_value=default)
        self.tag(sync=True)

    def _cross_validate(self, obj, value):
        value = super()._cross_validate(obj, value)
        obj.check_data(self.name, value)
        return value


def data_trait(value, kind: str = "any", shape: tuple = (), lim: float | None = None) -> Data:
    """A synced trait for the data the picture is drawn from (see `Data`)."""
    return Data(value, kind, shape, lim)


#: Each kind of data entry, checked by the `_validate` function the boundary uses for it.
_ENTRY = {"text": text, "number": number, "integer": integer}


def _form_of(value, trait: Data, where: str, depth: int, lengths: dict, sizes: dict) -> None:
    """Refuse `value` (at `depth` in `trait`'s shape) unless it has `trait`'s kind and shape,
    the named lengths agreeing with `lengths` (name → (length, where seen)), which it extends."""
    shape = trait.shape[depth:]
    if shape:
        if not isinstance(value, (list, tuple)):
            raise DataError(f"{where} はリストにしてください。{type(value).__name__} が来ました。")
        n, dim = len(value), shape[0]
        if isinstance(dim, int) and n != dim:
            raise DataError(f"{where} の長さは {dim} にしてください。長さ {n} が来ました。")
        if isinstance(dim, str):
            if dim in lengths and lengths[dim][0] != n:
                want, seen = lengths[dim]
                raise DataError(
                    f"{where} の長さ({n})が {seen} の長さ({want})と合いません。"
                    "データを取り替えるときは、図を作る関数をもう一度呼んでください。"
                )
            most = sizes.get(dim, MAX_ITEMS)
            if not 1 <= n <= most:
                raise DataError(f"{where} は 1 個以上 {most} 個までにしてください。{n} 個が来ました。")
            lengths.setdefault(dim, (n, where))
        for i, item in enumerate(value):
            _form_of(item, trait, f"{where}[{i}]", depth + 1, lengths, sizes)
    elif trait.kind in _ENTRY:
        lim = {} if trait.lim is None else {"lo": -trait.lim, "hi": trait.lim}
        try:  # the same check, and the same line, as a learner's argument at `@public`
            _ENTRY[trait.kind](value, where, **lim)
        except (HelpersError, HelpersTypeError) as refused:
            raise DataError(str(refused)) from None


#: ipywidgets' and anywidget's own traits: not part of an explorable's state.
_PLUMBING = {"_esm", "_css", "_anywidget_id", "_qkv_shared", "layout", "tabbable", "tooltip", "_dom_classes",
             "_model_module", "_model_module_version", "_model_name", "_view_module",
             "_view_module_version", "_view_name", "_view_count", "comm", "keys", "log"}


class Explorable(anywidget.AnyWidget):
    """An explorable: subclasses set `module` (the ES module's name) and `title`, declare their
    controls as `Number`, `Flag` or `Choice` traits and their data as `data_trait`s, and define
    `numbers()` (what the picture shows now, computed with numpy) and the classmethod
    `example()` (the explorable as its chapter shows it; tests start from there)."""

    module = ""
    title = ""
    #: The kernel's one `SharedModules`, which this explorable's module imports through.
    _qkv_shared = traitlets.Instance(SharedModules).tag(sync=True, **widget_serialization)
    #: The most items a named length of the data may have (see `Data`), MAX_ITEMS unless said.
    SIZES: dict[str, int] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Only where `module` is declared: ipywidgets' add_traits makes a subclass on the fly.
        if "module" in cls.__dict__:
            cls._esm = lab_esm(cls.module)  # a synced trait (anywidget); the CSS: SharedModules

    @traitlets.default("_qkv_shared")
    def _the_shared_modules(self) -> SharedModules:
        return shared_modules()

    def check_data(self, name: str, value) -> None:
        """Refuse `value` for data trait `name` unless every data trait (with it) has its form
        and the named lengths agree, and every choice still has its value among its options."""
        data = {n: getattr(self, n) for n, t in self.traits().items() if isinstance(t, Data)}
        data[name] = value
        lengths: dict = {}
        for n in [*(n for n in data if n != name), name]:  # the new value is the one blamed
            _form_of(data[n], self.traits()[n], n, 0, lengths, self.SIZES)
        for n, t in self.traits().items():
            if isinstance(t, Choice) and t.options == name and getattr(self, n) not in value:
                raise DataError(
                    f"{name} には {n} の今の値 {getattr(self, n)!r} も入れてください"
                    f"(先に {n} を選び直すか、図を作る関数をもう一度呼んでください)。{value!r} が来ました。"
                )

    @classmethod
    def control_traits(cls) -> dict[str, traitlets.TraitType]:
        """The traits the controls move, by name."""
        return {name: t for name, t in cls.class_traits().items()
                if isinstance(t, (Number, Flag, Choice))}

    @classmethod
    def starting_at(cls, factory: str, controls: dict, **data) -> Explorable:
        """The explorable drawn from `data` with its controls at `controls` (the learner's
        keyword arguments to `factory`, the chapter's function; every value validated by its
        trait, so a wrong one is refused in Japanese)."""
        known = cls.control_traits()
        unknown = [name for name in controls if name not in known]
        if unknown:
            raise HelpersTypeError(
                f"{factory} で最初の値を決められるつまみは {'、'.join(known)} です。"
                f"{'、'.join(unknown)} が来ました。"
            )
        return cls(**data, **controls)  # the data first: a Choice is checked against it

    def state_for_page(self) -> dict:
        """The synced traits the module reads, as JSON (the book's model shim starts from it)."""
        state = {}
        for name in self.trait_names(sync=lambda v: v):
            if name in _PLUMBING or name.startswith("_model") or name.startswith("_view"):
                continue
            state[name] = getattr(self, name)
        return json.loads(json.dumps(state, default=_jsonable))

    def static_html(self) -> str:
        """The explorable for the static book: a container the book's shim mounts the same module
        in, with the state as JSON (book/_ext/qkv_book/explorables.py ships the modules and the shim)."""
        state = json.dumps(self.state_for_page(), ensure_ascii=False).replace("</", "<\\/")
        return (f'<div class="qkv-explorable" data-qkv-module="{html.escape(self.module)}" '
                f'aria-label="{html.escape(self.title)}" role="group">'
                f'<script type="application/json" class="qkv-state">{state}</script>'
                f'<p class="qkv-noscript">{html.escape(self.title)}(図は JavaScript で描かれます)</p>'
                "</div>")

    def _repr_mimebundle_(self, **kwargs):
        if static_mode():
            return {"text/html": self.static_html(), "text/plain": f"<{self.title}>"}
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/plain"] = f"<{self.title}>"
        return bundle


def _jsonable(value):
    tolist = getattr(value, "tolist", None)
    if tolist is None:  # json.dumps expects a TypeError here
        raise HelpersTypeError(f"{type(value).__name__} は JSON にできません")
    return tolist()


#: The most words, books, guests or bars one explorable draws: more cannot be told apart on a
#: phone (the book uses at most 8).
MAX_ITEMS = 12

#: The largest coordinate an explorable draws: its planes fit the data (a few units for the book's
#: own), so a point beyond this is a mistake (a forgotten scale), not something to draw.
MAX_COORD = 1000.0


def planar_embedding(embedding, name: str, most: int = MAX_ITEMS, bounded: bool = False) -> Embedding:
    """A spec: `embedding` (None: the foods) as an Embedding of at most `most` words, d_model = 2
    (with `bounded`, every coordinate within ±`MAX_COORD` too)."""
    emb = foods() if embedding is None else embedding
    if not isinstance(emb, Embedding):
        raise HelpersTypeError(
            f"{name} には helpers.data.Embedding(例: helpers.data.foods())を渡してください。"
            f"{type(emb).__name__} が来ました。"
        )
    if emb.vectors.shape[1] != 2:
        raise HelpersError(
            f"この図は平面に描くので、d_model = 2 の埋め込みが必要です。d_model = {emb.vectors.shape[1]}"
            f"(shape {emb.vectors.shape})が来ました。"
        )
    at_most(len(emb.words), most, "埋め込みの語")
    if bounded:
        on_the_plane(emb.vectors, "埋め込みのベクトル")
    return emb


def on_the_plane(M: np.ndarray, what: str) -> None:
    """Refuse coordinates beyond ±`MAX_COORD` (the figures cannot place them)."""
    far = float(np.abs(M).max())
    if far > MAX_COORD:
        raise HelpersError(
            f"{what}の成分は絶対値 {MAX_COORD:g} 以下にしてください(図はデータに合わせて平面を広げますが、それを超える値はたいてい何かの間違いです)。"
            f"絶対値 {far:g} の成分が来ました。"
        )


def at_most(count: int, most: int, what: str) -> None:
    """Refuse more than `most` items (bars, rows, guests): a figure cannot tell more apart, and
    each one costs time on every redraw."""
    if count > most:
        raise HelpersError(
            f"{what}は {most} 個までにしてください(図で見分けられ、すばやく描ける数)。{count} 個が来ました。"
        )
