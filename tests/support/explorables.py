"""Shared by the explorables' tests: run their ES modules in Node, and compare numbers with numpy.

`run_module(source, function, cases)` imports one module (as JupyterLab gets it, shared modules
inlined) in Node and calls an exported function on each case; `same_numbers` compares what the
browser computed with what numpy computes, key by key, within floating-point noise.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re

import explorable_pictures  # tools/: the same Node runner `make sync` uses
import numpy as np
import traitlets

from helpers.widgets import explorables
from helpers.widgets._base import Choice, Explorable, Flag, Number
from helpers.widgets.sources import js_source, module_source


def run_module(source: str, function: str, cases: list[list]) -> list[dict]:
    """Call `function(*args)` of the module `source` for every `args` in `cases`, in Node."""
    return explorable_pictures.run_module(source, function, cases, default=_jsonable)


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(type(value).__name__)


def _floats(value):
    if isinstance(value, str) and value in ("Infinity", "-Infinity", "NaN"):
        return float(value.replace("Infinity", "inf").replace("NaN", "nan"))
    return value


def same_numbers(page, numpy, path: str = "", rtol: float = 1e-9, atol: float = 1e-12) -> list[str]:
    """Where `page` (JSON from the browser) and `numpy` (Python/numpy values) differ: [] if nowhere."""
    numpy = numpy.tolist() if isinstance(numpy, np.ndarray) else numpy
    numpy = numpy.item() if isinstance(numpy, np.generic) else numpy
    page = _floats(page)
    if isinstance(numpy, dict):
        if not isinstance(page, dict) or set(page) != set(numpy):
            return [f"{path}: keys {sorted(page) if isinstance(page, dict) else page} ≠ {sorted(numpy)}"]
        return [d for k in numpy for d in same_numbers(page[k], numpy[k], f"{path}.{k}", rtol, atol)]
    if isinstance(numpy, (list, tuple)):
        if not isinstance(page, list) or len(page) != len(numpy):
            return [f"{path}: {page!r} ≠ {numpy!r}"]
        return [d for i, (a, b) in enumerate(zip(page, numpy, strict=True))
                for d in same_numbers(a, b, f"{path}[{i}]", rtol, atol)]
    if isinstance(numpy, bool) or isinstance(numpy, str) or numpy is None:
        return [] if page == numpy else [f"{path}: {page!r} ≠ {numpy!r}"]
    if isinstance(numpy, (int, float)):
        if page is None and math.isnan(numpy):
            return []  # the page's JSON.stringify writes NaN (a cosine of a zero vector) as null
        if not isinstance(page, (int, float)) or isinstance(page, bool):
            return [f"{path}: {page!r} ≠ {numpy!r}"]
        if math.isnan(numpy) or math.isnan(page):
            return [] if math.isnan(numpy) and math.isnan(page) else [f"{path}: {page} ≠ {numpy}"]
        ok = math.isclose(page, numpy, rel_tol=rtol, abs_tol=atol) or page == numpy
        return [] if ok else [f"{path}: {page} ≠ {numpy}"]
    return [f"{path}: cannot compare {type(numpy).__name__}"]


def assert_refused(explorer: Explorable, name: str, value, error: type, words: str) -> None:
    """Setting control `name` to `value` from Python raises `error` with a message matching
    `words`, and neither the state the browser gets nor the numbers the picture shows change."""
    import pytest

    before = explorer.get_state()[name]
    numbers = json.dumps(explorer.numbers(), default=_jsonable, sort_keys=True)
    with pytest.raises(error, match=words):
        setattr(explorer, name, value)
    assert explorer.get_state()[name] == before
    assert json.dumps(explorer.numbers(), default=_jsonable, sort_keys=True) == numbers


def random_controls(cls: type[Explorable], explorer: Explorable, rng: np.random.Generator) -> dict:
    """A random setting of every control of `explorer` (numbers anywhere in their range)."""
    values = {}
    for name, trait in cls.control_traits().items():
        if isinstance(trait, Number):
            values[name] = float(rng.uniform(trait.lo, trait.hi))
        elif isinstance(trait, Flag):
            values[name] = bool(rng.integers(2))
        elif isinstance(trait, Choice):
            options = getattr(explorer, trait.options)
            values[name] = options[int(rng.integers(len(options)))]
    return values


def explorable_classes() -> dict[str, type[Explorable]]:
    return explorables()


# ------------------------------------------------------------------ in a browser (book and Lab)


def class_for(state: dict) -> type[Explorable]:
    """The explorable class whose traits are exactly the keys of a state the page shows."""
    for cls in explorable_classes().values():
        names = {n for n, t in cls.class_traits(sync=True).items()
                 if n in cls.control_traits() or isinstance(t, traitlets.Any)}
        if names == set(state):
            return cls
    raise AssertionError(f"この状態に合う explorable がありません: {sorted(state)}")


def explorer_for(state: dict) -> Explorable:
    """The Python explorable for a state the browser shows (the data first: a choice is checked
    against the options the data lists)."""
    cls = class_for(state)
    controls = cls.control_traits()
    explorer = cls(**{k: v for k, v in state.items() if k not in controls})
    for name in controls:
        setattr(explorer, name, state[name])
    return explorer


def numpy_numbers(state: dict) -> dict:
    """What numpy computes for a state the browser shows."""
    return explorer_for(state).numbers()


def shown(explorable) -> tuple[dict, dict, str]:
    """(state, numbers, picture) of an explorable in the page: a Playwright locator of `.qkv-ex`.
    The state is every trait: the controls' (`data-qkv-state`) and the data's (`data-qkv-data`)."""
    state = {**json.loads(explorable.get_attribute("data-qkv-data")),
             **json.loads(explorable.get_attribute("data-qkv-state"))}
    numbers = json.loads(explorable.get_attribute("data-qkv-numbers"))
    picture = explorable.locator(".qkv-panels").evaluate(
        "p => [...p.querySelectorAll('.qkv-host')].map(h => h.innerHTML).join('') + p.getAttribute('aria-label')")
    return state, numbers, picture


#: Which panels in the page differ from the same SVG parsed afresh (mount updates a panel in place).
#: (The runtime's own marks on items are left out: the one in the tab order, the lit ones, and
#: the cell the pointer last framed.)
_PANELS_NOT_AS_DRAWN = """(p, panels) => {
  const hosts = [...p.querySelectorAll('.qkv-host')];
  const fresh = document.createElement('template');
  const drawn = (host) => {
    const svg = host.firstElementChild?.cloneNode(true);
    svg?.querySelectorAll('[data-item]').forEach((n) => n.setAttribute('tabindex', '-1'));
    svg?.querySelectorAll('[data-item], [data-cell]').forEach((n) => {
      n.classList.remove('qkv-lit', 'qkv-lit-cell');
      if (!n.classList.length) n.removeAttribute('class');
    });
    return svg;
  };
  return panels.flatMap((svg, k) => {
    fresh.innerHTML = svg;
    return hosts.length === panels.length && drawn(hosts[k])?.isEqualNode(fresh.content.firstElementChild) ? [] : [k];
  });
}"""


#: How far each part of an explorable in the flow ends below the box it is drawn in (its
#: content box, px), once two frames have passed: the first one's ResizeObserver has then written
#: the height of what the last change moved (mount's `fitHeight`).
_PARTS_BELOW_THE_BOX = """async (ex) => {
  for (let i = 0; i < 2; i++) await new Promise((r) => requestAnimationFrame(r));
  const style = getComputedStyle(ex);
  const end = ex.getBoundingClientRect().bottom - parseFloat(style.paddingBottom)
    - parseFloat(style.borderBottomWidth);
  return [...ex.children].filter((c) => getComputedStyle(c).position !== 'absolute')
    .map((c) => c.getBoundingClientRect().bottom - end);
}"""


def check_fits(explorable, where: str) -> None:
    """The explorable's box ends where its last part ends: its height is measured, not laid out
    from its content (its size is contained on a screen), so a part that grew (a fold opened, a
    readout on more lines) would be cut off by its paint containment if the height lagged."""
    below = explorable.evaluate(_PARTS_BELOW_THE_BOX)
    assert max(below) <= 1 and abs(below[-1]) <= 1, f"{where}: 図の箱の下端が中身と合いません {below}"


def check_numbers(explorable, where: str) -> dict:
    """The numbers the picture states equal numpy's for the state it shows, and every panel is
    what the module draws for that state (a redraw patches the page's SVG in place)."""
    # a choice or checkbox just changed: its picture glides there (300 ms) before it is the state's
    explorable.page.wait_for_function("ex => !ex.dataset.qkvGliding", arg=explorable.element_handle())
    state, numbers, _ = shown(explorable)
    differences = same_numbers(numbers, numpy_numbers(state))
    assert differences == [], f"{where}: 図の数と numpy の数が違います {differences[:3]}(状態 {state})"
    drawn = run_module(module_source(class_for(state).module), "picture", [[state]])[0]["ok"]["panels"]
    wrong = explorable.locator(".qkv-panels").evaluate(_PANELS_NOT_AS_DRAWN, drawn)
    assert wrong == [], f"{where}: パネル {wrong} が、この状態で描くべき図と違います(状態 {state})"
    return state


#: What a screen reader must never be given to read: symbols with underscores.
UNSPOKEN = re.compile(r"W_[QKVO]|d_k")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: A symbol as the modules write it (W_Q, d_k): shown as a letter with a <sub>, read as words.
SYMBOL = re.compile(r"([A-Za-z])_([A-Za-z0-9]+)")


#: The text an explorable shows outside its pictures (its buttons, labels, values, readout) that
#: writes a symbol with an underscore, and how many symbols it writes with a <sub> instead.
SHOWN_SYMBOLS = r"""ex => {
  const underscored = [];
  const walk = document.createTreeWalker(ex, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode())
    if (!n.parentElement.closest('svg, .qkv-live') && /[A-Za-z]_[A-Za-z0-9]/.test(n.data))
      underscored.push(n.data);
  return [underscored, ex.querySelectorAll('sub').length];
}"""


def presets_of(module: str) -> list[dict]:
    """The states a chapter module offers as buttons (its PRESETS), read by running it in Node
    once per module and test process (a fresh copy each call)."""
    return json.loads(_presets_json(module))


@functools.cache
def _presets_json(module: str) -> str:
    source = module_source(module)
    if "export const PRESETS" not in source:
        return "[]"
    (result,) = run_module(source + "\nexport function presets_() { return PRESETS; }", "presets_", [[]])
    return json.dumps(result["ok"])


def landed(page, explorable, want: dict, timeout: float = 5000) -> None:
    """Wait until the explorable's state holds `want` (a preset glides there in 300 ms)."""
    page.wait_for_function(
        "([el, want]) => { const s = JSON.parse(el.dataset.qkvState);"
        " return Object.entries(want).every(([t, v]) => s[t] === v); }",
        arg=[explorable.element_handle(), want], timeout=timeout)


def _widget_ms(name: str) -> int:
    """A time constant of the shared runtime (qkv_widget.js `const NAME = 300;`)."""
    return int(re.search(rf"const {name} = (\d+);", js_source("qkv_widget")).group(1))


#: A preset's glide (GLIDE_MS) and the live region's timer after its last step (SYNC_AFTER_MS),
#: with a few frames' slack: how far a paused page clock is run on after each press.
SETTLE_MS = _widget_ms("GLIDE_MS") + _widget_ms("SYNC_AFTER_MS") + 100


@contextlib.contextmanager
def _paused(page, on: bool):
    """The page's (fake) clock paused inside, flowing again after; nothing when not `on`."""
    if not on:
        yield
        return
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)  # in seconds; due timers fire
    try:
        yield
    finally:
        page.clock.resume()


def _settle(page, on: bool) -> None:
    if on:
        page.clock.run_for(SETTLE_MS)


def press_every_preset(page, explorable, module: str, where: str, quick: bool = False,
                       clock: bool = False) -> int:
    """Press every preset button of one explorable (`module`'s PRESETS, each shown: its symbols
    with a <sub>, not an underscore) as a learner does, a fold opened first (its buttons hidden
    until then), then 「最初に戻す」. Each puts the controls at its state, the numbers numpy's for
    it, marks its button pressed, and the live region then says the result, symbols as words; the
    reset puts back the state the explorable showed before. Returns how many were pressed.
    `quick` (JupyterLab's test) leaves out what the book's test checks of the same module: each
    panel as the module draws it for the state (`check_numbers`' Node run) and the live region
    (a wait for its timer): the state, pressed, numpy's numbers and the buttons' places stay.
    `clock` (the book's test; the caller installed Playwright's fake clock on the page): time is
    paused while the buttons are pressed and run on by SETTLE_MS after each press, so every frame
    of each glide and the live region's timer run as they would with no real wait; the same
    conditions are then waited for. Time flows again afterwards."""
    first = json.loads(explorable.get_attribute("data-qkv-state"))
    buttons = explorable.locator(".qkv-presets button")
    assert buttons.count() >= 1 and buttons.last.inner_text() == "最初に戻す", where
    live, readout = explorable.locator(".qkv-live"), explorable.locator(".qkv-readout")
    assert live.get_attribute("aria-live") == "polite", where
    offered = presets_of(module)
    by_label = {SYMBOL.sub(r"\1\2", p["label"]): p for p in offered}
    shown_labels = buttons.evaluate_all("bs => bs.map(b => b.textContent)")[:-1]  # folded ones too
    assert sorted(shown_labels) == sorted(by_label), f"{where}: ボタン {shown_labels}(PRESETS {sorted(by_label)})"
    folds = explorable.locator(".qkv-presets details")
    for f in range(folds.count()):
        inside = folds.nth(f).locator("button")
        assert inside.count() and not inside.first.is_visible(), f"{where}: たたんだボタンが見えています"
        folds.nth(f).locator("summary").click()
        inside.first.wait_for(state="visible")
        check_fits(explorable, f"{where}: たたんだボタンを開いたあと")
    # Where each button is: pressing one moves none (a pressed one that grew would wrap the row
    # anew and move the picture under a dragging finger: chapter 04 at 390 px).
    boxes = """bs => bs.map(b => { const r = b.getBoundingClientRect();
      const o = b.closest('.qkv-presets').getBoundingClientRect();
      return [r.x - o.x, r.y - o.y, r.width, r.height].map(Math.round); })"""
    laid_out = buttons.evaluate_all(boxes)
    with _paused(page, clock):
        for k in range(buttons.count() - 1):
            button = buttons.nth(k)
            preset = by_label[button.inner_text()]
            want = preset["state"]
            assert button.locator("sub").count() == len(SYMBOL.findall(preset["label"])), f"{where}: {preset['label']}"
            # Its name is its visible text (WCAG 2.5.3); a symbol's reading in words is its description.
            assert button.get_attribute("aria-label") is None, where
            reading = button.get_attribute("aria-description") or button.inner_text()
            assert not UNSPOKEN.search(reading), f"{where}: ボタンの読み {reading!r}"
            before, shown_before = live.text_content(), readout.text_content()
            button.click()
            _settle(page, clock)
            landed(page, explorable, want)  # a preset glides there (reduced motion: at once)
            # pressed once it has landed (in Lab the kernel hears of it after the glide: let it settle)
            page.wait_for_function("b => b.getAttribute('aria-pressed') === 'true'",
                                   arg=button.element_handle(), timeout=5000)
            state = json.loads(explorable.get_attribute("data-qkv-state"))
            assert {t: state[t] for t in want} == want, f"{where}: 「{button.inner_text()}」で {state}"
            if not quick:
                check_numbers(explorable, f"{where}「{button.inner_text()}」")
            else:
                state, numbers, _ = shown(explorable)
                differences = same_numbers(numbers, numpy_numbers(state))
                assert differences == [], f"{where}「{button.inner_text()}」: 図の数と numpy の数が違います {differences[:3]}"
            assert buttons.evaluate_all(boxes) == laid_out, f"{where}: 「{button.inner_text()}」でボタンが動きました"
            if quick:
                continue
            # The region speaks once the control settles (a timer): wait for it. A preset whose
            # result reads as the one before (chapter 00's t = 0.47 and 0.54, or a first preset equal
            # to the opening state) is said too, but need not change what was said before.
            moved = readout.text_content() != shown_before
            page.wait_for_function("([l, b, moved]) => l.textContent && (!moved || l.textContent !== b)",
                                   arg=[live.element_handle(), before, moved], timeout=5000)
            said = live.text_content()
            assert JAPANESE.search(said) and not UNSPOKEN.search(said), f"{where}: 読み上げ {said!r}"
        buttons.last.click()
        _settle(page, clock)
        landed(page, explorable, first)
        assert json.loads(explorable.get_attribute("data-qkv-state")) == first, where
    return buttons.count()


def move_every_control(page, explorable, where: str) -> list[str]:
    """Move each control of one explorable as a learner would (keyboard on sliders, clicks on
    boxes and buttons); after each move the state, the picture and the numbers must change,
    and the numbers must equal numpy's for the new state; then the explorable's box still ends
    where its last part ends (`check_fits`). Returns the traits moved."""
    moved = []
    controls = explorable.locator(".qkv-control")
    for i in range(controls.count()):
        control = controls.nth(i)
        before_state, _, before_picture = shown(explorable)
        control.scroll_into_view_if_needed()
        slider = control.locator("input[type=range]")
        if slider.count():
            slider.focus()
            page.keyboard.press("End" if float(slider.input_value()) < float(slider.get_attribute("max"))
                                else "Home")
        elif control.locator("input[type=checkbox]").count():
            control.locator("label").click()
        else:
            labels = control.locator(".qkv-choice label")
            checked = control.locator("input:checked").get_attribute("id") if control.locator("input:checked").count() else ""
            target = next(j for j in range(labels.count()) if labels.nth(j).get_attribute("for") != checked)
            labels.nth(target).click()
        after_state, _, after_picture = shown(explorable)
        changed = [k for k in after_state if after_state[k] != before_state[k]]
        assert changed, f"{where}: コントロール {i} を動かしても状態が変わりません"
        assert after_picture != before_picture, f"{where}: コントロール {i} を動かしても図が変わりません"
        check_numbers(explorable, f"{where}(コントロール {i} のあと)")
        moved += changed
    check_fits(explorable, f"{where}(コントロールを全部動かしたあと)")
    return moved


#: Resolves after the next two frames: a resize's or a fold's observers (an explorable writes its
#: measured height on itself) and the layout they change are done. The book's and Lab's tests use it.
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"

#: Opens (true) or closes (false) every fold of preset buttons on the page (chapter 00's
#: 「答え:入れ替わる t」), as a reader's click on its name does; returns how many there are.
OPEN_FOLDS = "o => { const fs = document.querySelectorAll('.qkv-preset-fold'); fs.forEach(f => f.open = o); return fs.length; }"

#: Pairs of an explorable's controls' parts (labels, sliders, values, buttons) that overlap, and
#: parts that stick out of the explorable, as shown now.
CONTROL_OVERLAPS = r"""() => {
  const bad = [];
  for (const ex of document.querySelectorAll(".qkv-ex")) {
    const edge = ex.getBoundingClientRect();
    const shown = ".qkv-control label, .qkv-control input:not(.qkv-choice input), .qkv-control output, .qkv-preset";
    const parts = [...ex.querySelectorAll(shown)]  // a choice's radios are hidden: its labels show
      // a closed fold's buttons are not drawn, yet Chromium still measures them where they would be
      .filter((n) => n.checkVisibility())
      .map((n) => [n, n.getBoundingClientRect()]).filter(([, r]) => r.width && r.height);
    for (const [n, r] of parts)
      if (r.left < edge.left - 0.5 || r.right > edge.right + 0.5) bad.push(`${n.tagName} ${n.textContent} はみ出し`);
    for (let i = 0; i < parts.length; i++)
      for (let j = i + 1; j < parts.length; j++) {
        const [a, p] = parts[i], [b, q] = parts[j];
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 0.5 && h > 0.5) bad.push(`${a.tagName}「${a.textContent}」と ${b.tagName}「${b.textContent}」`);
      }
  }
  return bad;
}"""
