"""helpers.widgets._base: what every explorable shares, driven headlessly (no browser)."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
import traitlets
from explorables import assert_refused

import helpers
from helpers._validate import HelpersError, HelpersKeyError, HelpersTypeError
from helpers.widgets import Explorable, explorables
from helpers.widgets._base import (
    Choice,
    Flag,
    Number,
    SharedModules,
    at_most,
    data_trait,
    on_the_plane,
    planar_embedding,
)
from helpers.widgets.sources import SHARED_MODULES, js_source, lab_esm, module_source, stylesheet


class Toy(Explorable):
    """One of each trait kind, as a chapter's explorable declares them."""

    module = "ch02_library_search"  # any real module: the class only needs a name to load
    title = "テスト"
    size = Number(1.0, "size(大きさ)", lo=0.0, hi=2.0)
    on = Flag(False, "on(切り替え)")
    pick = Choice("a", "pick(選ぶもの)", options="letters")
    letters = data_trait(["a", "b"])

    def numbers(self) -> dict:
        return {"size": self.size}


@pytest.fixture
def toy():
    return Toy()


def test_the_list_of_explorables_is_every_chapter_module_and_its_class():
    """explorables() (one table, read by the tests, the book and the bench) names each
    js/chNN_*.js module once, with the class that declares that module."""
    js = Path(helpers.widgets._base.__file__).with_name("js")
    assert list(explorables()) == sorted(p.stem for p in js.glob("ch[0-9][0-9]_*.js"))
    for module, cls in explorables().items():
        assert issubclass(cls, Explorable) and cls.module == module, (module, cls)




def test_in_lab_each_explorable_carries_its_own_module_and_refers_to_the_one_shared_model():
    """A saved notebook keeps the shared modules' text and the CSS once, in the kernel's one
    SharedModules model, which every explorable's state refers to ("IPY_MODEL_<id>"): an
    explorable's own module is its chapter's text and a loader (ch04: 51.8 KB with the shared
    code inlined, and 7 KB of CSS each)."""
    made = [cls.example() for cls in explorables().values()]
    refs = {e.get_state()["_qkv_shared"] for e in made}
    (ref,) = refs
    shared = made[0]._qkv_shared
    assert isinstance(shared, SharedModules) and ref == f"IPY_MODEL_{shared.model_id}"
    state = shared.get_state()
    assert state["sources"] == {name: js_source(name) for name in SHARED_MODULES}
    assert len(state["key"]) == 16 and state["key"] == SharedModules().key  # names the text
    assert len(shared._esm) < 100  # the text is data, not the shared model's own module
    assert state["_css"] == stylesheet()  # added to the page once, by this model
    for explorer in made:
        esm = explorer.get_state()["_esm"]
        assert esm == lab_esm(explorer.module)
        assert json.dumps(re.sub(r'^import\s*\{[^}]*\}\s*from\s*"[^"]*";\s*$', "",
                                 js_source(explorer.module), flags=re.M), ensure_ascii=False) in esm
        assert "function softmax" not in esm and "function mount" not in esm, explorer.module
        assert len(esm) < len(js_source(explorer.module)) + 2000, (explorer.module, len(esm))
        assert not explorer.get_state().get("_css"), explorer.module
    assert "_qkv_shared" not in made[0].state_for_page()  # the book's shim needs no widget
    made[0]._qkv_shared.close()  # closed (a learner's Widget.close_all()): the next one makes it again
    assert type(made[0]).example()._qkv_shared not in (None, shared)












@pytest.mark.parametrize("name, value, error, words", [
    ("size", 3.0, HelpersError, r"size\(大きさ\) は 0 以上 2 以下"),
    ("size", "1", HelpersTypeError, "数で指定"),
    ("size", float("inf"), HelpersError, "有限の数"),
    ("on", 1, HelpersTypeError, "True か False"),
    ("pick", "c", HelpersKeyError, "a、b のどれか"),
])
def test_a_trait_set_out_of_range_is_refused_and_nothing_changes(toy, name, value, error, words):
    assert_refused(toy, name, value, error, words)


def test_choices_follow_their_data_trait(toy):
    toy.letters = ["a", "b", "c"]
    toy.pick = "c"
    assert toy.get_state()["pick"] == "c"


def test_control_traits_are_the_three_kinds(toy):
    assert set(Toy.control_traits()) == {"size", "on", "pick"}


def test_live_mode_is_a_widget_with_a_japanese_text(toy, monkeypatch):
    monkeypatch.delenv(helpers.STATIC_ENV_VAR, raising=False)
    data, _ = toy._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == "<テスト>"


def test_static_mode_is_a_box_for_the_books_shim(toy, monkeypatch):
    monkeypatch.setenv(helpers.STATIC_ENV_VAR, "1")
    toy.size = 1.5
    html = toy._repr_mimebundle_()["text/html"]
    assert 'data-qkv-module="ch02_library_search"' in html
    state = json.loads(re.search(r'class="qkv-state">(.*?)</script>', html).group(1))
    assert state == {"size": 1.5, "on": False, "pick": "a", "letters": ["a", "b"]}


def test_state_for_the_page_cannot_close_its_script(monkeypatch):
    monkeypatch.setenv(helpers.STATIC_ENV_VAR, "1")
    toy = Toy(letters=["</script><b>", "b"], pick="b")
    assert "</script><b>" not in toy.static_html()


def test_planar_embedding_and_limits():
    assert planar_embedding(None, "embedding", most=12).vectors.shape[1] == 2
    with pytest.raises(HelpersTypeError, match="Embedding"):
        planar_embedding([[1, 2]], "embedding", most=12)
    with pytest.raises(HelpersError, match="2 個まで"):
        at_most(3, 2, "語")
    with pytest.raises(HelpersError, match="絶対値 1000 以下"):
        on_the_plane(np.array([[2000.0, 0.0]]), "x の")


def test_only_the_books_own_explorables_are_registered():
    class Helper(Explorable):
        pass

    assert Helper not in explorables().values() and Toy not in explorables().values()
    assert len(explorables()) == 8
    assert isinstance(Toy.class_traits()["size"], traitlets.TraitType)


def _short_history():
    task = helpers.learning.palate_task()
    start = helpers.learning.initial_weights(np.random.default_rng(0), scale=0.3)
    return helpers.learning.train(task, start, lr=0.5, steps=4, save_at=[0, 2, 4])


def _heads_args():
    ex = helpers.widgets.HeadsExplorer.example()
    return [ex.X, ex.words, ex.W_Q, ex.W_K, ex.W_V, ex.W_O, ex.head_names, ex.out_labels]


#: Every chapter's function, called on its chapter's data (or a short run), with `controls`.
FACTORIES = {
    "attention_preview_explorer": lambda **c: helpers.widgets.attention_preview_explorer(**c),
    "similarity_explorer": lambda **c: helpers.widgets.similarity_explorer(**c),
    "library_search_explorer": lambda **c: helpers.widgets.library_search_explorer(**c),
    "party_explorer": lambda **c: helpers.widgets.party_explorer(**c),
    "three_faces_explorer": lambda **c: helpers.widgets.three_faces_explorer(**c),
    "scaling_explorer": lambda **c: helpers.widgets.scaling_explorer(**c),
    "training_explorer": lambda **c: helpers.widgets.training_explorer(_short_history(), **c),
    "heads_explorer": lambda **c: helpers.widgets.heads_explorer(*_heads_args(), **c),
}


def test_a_chapter_loads_only_its_own_explorable_and_every_name_is_listed():
    """helpers.widgets imports a chapter's module on first use (a kernel pays for one, not eight)."""
    import subprocess
    import sys

    code = ("import sys, helpers.widgets as w\n"
            "w.library_search_explorer\n"
            "print(sorted(m for m in sys.modules if m.startswith('helpers.widgets.ch')))\n"
            "print(all(name in dir(w) and getattr(w, name) for name in w.__all__))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.split("\n")[:2] == ["['helpers.widgets.ch02_library_search']", "True"]
    with pytest.raises(AttributeError, match="no_such_explorer"):
        helpers.widgets.no_such_explorer  # noqa: B018  (the lookup is what is tested)


def test_every_chapter_function_is_tried_below():
    assert set(FACTORIES) == {n for n in helpers.widgets.__all__ if n.endswith("_explorer")}


@pytest.mark.parametrize("name", FACTORIES)
def test_a_chapter_function_starts_each_control_where_the_learner_says(name):
    from explorables import random_controls

    first = FACTORIES[name]()
    # the first random setting that moves every control away from where the chapter starts it
    settings = (random_controls(type(first), first, np.random.default_rng(seed)) for seed in range(50))
    wanted = next(w for w in settings if all(getattr(first, k) != v for k, v in w.items()))
    explorer = FACTORIES[name](**wanted)
    assert {k: getattr(explorer, k) for k in wanted} == wanted


@pytest.mark.parametrize("name", FACTORIES)
def test_a_chapter_function_names_its_controls_when_given_another(name):
    with pytest.raises(HelpersTypeError, match=rf"{name} で最初の値を決められるつまみは .* です。colour が来ました"):
        FACTORIES[name](colour=1)


def test_a_control_out_of_range_is_refused_in_japanese_at_the_start():
    with pytest.raises(HelpersError, match="q_angle.*-180 以上 180 以下.*999"):
        helpers.widgets.three_faces_explorer(q_angle=999)
    with pytest.raises(HelpersKeyError, match="d_k.*のどれか.*5 が来ました"):
        helpers.widgets.scaling_explorer(d_k=5)


def _bad_values(trait) -> list:
    """Values a learner might give a control that its trait refuses."""
    if isinstance(trait, Number):
        return ["1", None, True, float("nan"), trait.hi + 1, trait.lo - 1]
    if isinstance(trait, Flag):
        return [1, "True", None]
    return ["ない", 10**6, None, [0]]


@pytest.mark.parametrize("name", FACTORIES)
def test_a_control_set_later_is_refused_with_the_chapter_functions_own_line(name):
    """One way to check what a learner passes: a control's bad value given to the chapter's
    function, or set on its explorable in a later cell, is refused with the same Japanese line
    (each trait checks with the `_validate` function `@public` uses), and nothing changes."""
    explorer = FACTORIES[name]()
    tried = 0
    for control, trait in type(explorer).control_traits().items():
        for bad in _bad_values(trait):
            with pytest.raises((HelpersError, HelpersTypeError, HelpersKeyError)) as at_start:
                FACTORIES[name](**{control: bad})
            assert_refused(explorer, control, bad, type(at_start.value), f"^{re.escape(str(at_start.value))}$")
            tried += 1
    assert tried >= 3


#: Every explorable class, from the one list of them.
CLASSES = list(helpers.widgets.explorables().values())


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.module)
def test_every_data_trait_is_checked_when_set_after_construction(cls):
    """A data trait set from Python is refused in Japanese, before anything is drawn, when it
    is not of its form; the state the browser gets and the numbers do not change."""
    from helpers.widgets._base import Data, DataError

    explorer = cls.example()
    checked = {n: t for n, t in explorer.traits().items() if isinstance(t, Data) and t.kind != "any"}
    assert checked, f"{cls.module}: 形を言うデータがありません"
    for name, trait in checked.items():
        wrong, words = ("abc", "リストにしてください") if trait.shape else (
            (3, "文字列で指定してください") if trait.kind == "text" else ("3", "数で指定してください"))
        assert_refused(explorer, name, wrong, DataError, words)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.module)
def test_no_data_trait_takes_none_after_construction(cls):
    """`explorer.words = None` is refused in Japanese like any other wrong form (traitlets' Any
    took None unchecked: the picture lost its data and numbers() failed with numpy's error)."""
    from helpers.widgets._base import Data, DataError

    explorer = cls.example()
    for name, trait in explorer.traits().items():
        if isinstance(trait, Data):
            assert_refused(explorer, name, None, DataError, "None|NoneType")


def test_the_library_catalog_set_piece_by_piece_is_refused_and_kept():
    """The cases the chapter's learner met: names of another length, keys that are a string,
    a key beyond what the plane holds; a `hold_trait_notifications` block that replaces the
    catalog as a whole works, and one that leaves it inconsistent puts everything back."""
    from helpers.widgets import library_search_explorer
    from helpers.widgets._base import DataError

    ex = library_search_explorer()
    assert_refused(ex, "names", ["a", "b"], DataError, r"names の長さ\(2\)が book_keys の長さ\(5\)と合いません")
    assert_refused(ex, "book_keys", "abc", DataError, "book_keys はリストにしてください。str が来ました")
    assert_refused(ex, "book_keys", [[0, 1]] * 4 + [[0, 2000]], DataError, r"book_keys\[4\]\[1\] は -1000 以上 1000 以下")
    with ex.hold_trait_notifications():
        ex.names, ex.book_keys, ex.book_values = ["a", "b"], [[1, 0], [0, 1]], [[1, 2, 3], [3, 2, 1]]
    assert ex.numbers()["best"] in ("a", "b")
    with pytest.raises(DataError, match=r"names の長さ\(3\)"), ex.hold_trait_notifications():
        ex.names, ex.book_keys = ["a", "b", "c"], [[1, 0], [0, 1], [1, 1]]
        ex.names = ["a", "b", "c"]
        ex.book_keys = [[1, 0], [0, 1]]
    assert ex.names == ["a", "b"] and ex.book_keys == [[1, 0], [0, 1]]


def test_a_choice_keeps_its_value_among_its_options():
    from helpers.widgets import scaling_explorer
    from helpers.widgets._base import DataError

    ex = scaling_explorer()
    options = list(ex.d_ks)
    assert_refused(ex, "d_ks", [o if o != ex.d_k else o + 1 for o in options], DataError, "d_k の今の値 16")


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.module)
def test_every_preset_is_a_state_the_chapters_explorable_takes(cls):
    """Each button a chapter's module offers (the states its text names) sets traits Python
    accepts for the chapter's own data: a preset can never put the picture where the kernel
    would refuse to follow."""
    from explorables import run_module

    source = module_source(cls.module)
    if "export const PRESETS" not in source:
        pytest.skip(f"{cls.module} の状態はコントロールそのもの(ボタンの列)で選びます")
    (result,) = run_module(source + "\nexport function presets_() { return PRESETS; }", "presets_", [[]])
    presets = result["ok"]
    assert presets and all(p["label"] and p["state"] for p in presets)
    for preset in presets:
        explorer = cls.example()
        for name, value in preset["state"].items():
            assert name in cls.control_traits(), (preset, name)
            setattr(explorer, name, value)
            assert getattr(explorer, name) == value
