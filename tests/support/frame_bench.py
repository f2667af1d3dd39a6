"""Key press → the next painted frame that shows the new picture, for every explorable, in a real
JupyterLab and in the built book: one harness for both (`make bench` runs it).

    python tests/support/frame_bench.py [--lab-only | --book-only] [--before DIR]

`--before DIR` measures another checkout beside this one, chapter by chapter in the same run (a
shared machine's load then weighs on both alike): in JupyterLab each chapter a second time with
DIR/src first on the kernel's path (the explorables' modules come from the kernel), in the book
DIR/book/_build/html (skipped if DIR has no built book). Its rows say `before`.

In the page, a capture listener notes when the key goes down on the explorable's first control (a
slider: → and ←; radio buttons: → and ←; a checkbox: Space); the time ends when the picture's
panels have changed and the frame that shows them has been painted (a message posted from that
frame's requestAnimationFrame callback runs after its paint). In JupyterLab the explorables run
after Run All, as a learner's do; in the book they run from file:// on the book's model shim.

The reference, in the same JupyterLab and the same run: the kernel path the explorables replaced,
chapter 02's picture (a plane and three bar charts) drawn by matplotlib in the kernel and sent as a
PNG to an ipywidgets Image on every slider step (REFERENCE_CODE). Budget: p50 ≤ 16.7 ms (one
frame), p90 ≤ 33 ms; reported, never asserted (a shared machine's timing is no test).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import lab_server
import nbformat

from helpers import widgets

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
PRESSES = 40
TIMEOUT_S = 240
REFERENCE = "02_library_search_kernel_reference.ipynb"

#: The old design, for comparison: every step redrawn by matplotlib in the kernel, sent as a PNG.
REFERENCE_CODE = """\
import io
import ipywidgets
import numpy as np
from matplotlib.figure import Figure

_fig = Figure(figsize=(11.0, 3.4), dpi=120, layout="constrained")
_axes = _fig.subplots(1, 4, width_ratios=[1.15, 1, 1, 0.8])
_image = ipywidgets.Image(format="png", layout=ipywidgets.Layout(width="880px"))

def _draw(angle):
    q = helpers.geometry.question_vector(angle)
    s = (q @ catalog.keys.T).reshape(-1)
    w = helpers.softmax(s)
    for ax in _axes:
        ax.clear()
    helpers.plotting.plot_vectors(catalog.keys, list(catalog.names), ax=_axes[0], limits=(-2.6, 2.6))
    _axes[0].annotate("", xy=q.reshape(-1), xytext=(0, 0), arrowprops={"arrowstyle": "-|>"})
    _axes[1].bar(range(len(s)), s)
    _axes[2].bar(range(len(w)), w)
    _axes[3].bar(range(3), w @ catalog.values)
    buffer = io.BytesIO()
    _fig.savefig(buffer, format="png")
    _image.value = buffer.getvalue()

_slider = ipywidgets.IntSlider(value=0, min=-90, max=180, step=5, continuous_update=True)
_slider.observe(lambda change: _draw(change.new), "value")
_draw(0)
ipywidgets.VBox([_slider, _image])
"""

#: Arms the measurement of one key press on explorable `index` (or, for the reference, on the
#: ipywidgets slider whose image follows): resolves with the time stamps once the new picture has
#: been painted, or with null when nothing changed within 5 s.
_ARM = """
async ([index, reference]) => {
  const nextPaint = () => new Promise(r => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); }));
  let control, picture;
  if (reference) {
    const boxes = document.querySelectorAll('.jp-OutputArea-output .widget-vbox');
    const box = boxes[boxes.length - 1];
    control = box.querySelector('.noUi-handle, input[type=range]');
    picture = box.querySelector('img');
  } else {
    const ex = document.querySelectorAll('.qkv-ex')[index];
    // a radio group answers the arrow keys from its checked button
    control = ex.querySelector('.qkv-control input:checked[type=radio]') ?? ex.querySelector('.qkv-control input');
    picture = ex.querySelector('.qkv-panels');
  }
  const t = {};
  control.addEventListener('keydown', () => { t.key = performance.now(); }, {capture: true, once: true});
  window.__qkvChanged = new Promise(resolve => {
    const seen = new MutationObserver(() => { seen.disconnect(); resolve(true); });
    seen.observe(picture, {childList: true, subtree: true, attributes: true, characterData: true});
    setTimeout(() => { seen.disconnect(); resolve(false); }, 5000);
  }).then(changed => changed && picture.tagName === 'IMG' ? picture.decode().then(() => true, () => true) : changed)
    .then(changed => changed ? nextPaint().then(() => { t.painted = performance.now(); return t; }) : null);
  control.focus();
  return control.type || 'slider';
}
"""


def _keys(kind: str, press: int) -> str:
    if kind == "checkbox":
        return "Space"
    return "ArrowRight" if (press // 5) % 2 == 0 else "ArrowLeft"


def _measure_page(page, count: int, reference: bool = False) -> list[list[float]]:
    """Key press → painted frame, PRESSES times for each of `count` explorables on the page."""
    results = []
    for index in range(count):
        if not reference:
            page.locator(".qkv-ex").nth(index).scroll_into_view_if_needed()
        times = []
        for press in range(PRESSES):
            kind = page.evaluate(_ARM, [index, reference])
            page.keyboard.press(_keys(kind, press))
            stamps = page.evaluate("() => window.__qkvChanged")
            if stamps and stamps.get("key") is not None:
                times.append(stamps["painted"] - stamps["key"])
        results.append(times)
    return results


def _before(argv: list[str]) -> Path | None:
    """The checkout `--before DIR` names, or None."""
    return Path(argv[argv.index("--before") + 1]).resolve() if "--before" in argv else None


def _pairs(chapters: list[str], before: bool) -> list[tuple[str, bool]]:
    """(chapter, measured on the other checkout) in the order to measure them: each chapter's two
    back to back, which one first alternating, so that a change in the machine's load falls on both."""
    if not before:
        return [(c, False) for c in chapters]
    return [p for i, c in enumerate(chapters) for p in ([(c, False), (c, True)][:: 1 if i % 2 else -1])]


def _chapters_with_explorables() -> list[str]:
    """Each chapter with an explorable, from helpers.widgets' one list (`chNN_<notebook>`)."""
    return [f"{module.removeprefix('ch')}.ipynb" for module in widgets.explorables()]


def measure_lab(before: Path | None = None) -> tuple[dict[tuple[str, bool], list[list[float]]], list[float]]:
    """{(chapter, before): [times per explorable]} in JupyterLab, and the kernel reference's times."""
    chapters = _chapters_with_explorables()
    out: dict[tuple[str, bool], list[list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "notebooks"
        shutil.copytree(ROOT / "notebooks", copy)
        reference = nbformat.read(copy / "02_library_search.ipynb", 4)
        reference.cells.append(nbformat.v4.new_code_cell(REFERENCE_CODE))
        nbformat.write(reference, copy / REFERENCE)
        for name in chapters if before else []:  # the same chapter, its helpers from `before`
            other = nbformat.read(copy / name, 4)
            other.cells.insert(0, nbformat.v4.new_code_cell(f"import sys\nsys.path.insert(0, {str(before / 'src')!r})"))
            nbformat.write(other, copy / _before_name(name))
        # Lab as `make lab` starts it: its default windowing (cells out of view are not rendered),
        # not the tests' every-cell-in-the-page (no news prompt: lab_settings/overrides.json).
        learner = {k: v for k, v in lab_server.SETTINGS.items() if "notebook-extension" not in k}
        with lab_server.running(copy, settings=learner) as lab, lab_server.browser() as browser:
            for chapter, other in [*_pairs(chapters, before is not None), (REFERENCE, False)]:
                name = _before_name(chapter) if other else chapter
                page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=2)
                # ?reset: a fresh workspace, so the notebooks opened before are not restored beside it.
                page.goto(lab.url(f"lab/tree/{name}?reset"), timeout=120_000)
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
                lab_server.run_all(lab, page, name)
                try:
                    page.wait_for_selector(".jp-OutputArea-output .qkv-ex", state="attached",
                                           timeout=TIMEOUT_S * 1000)
                except Exception:
                    page.screenshot(path=str(Path(tempfile.gettempdir()) / "qkv-frame-bench.png"))
                    raise
                if name == REFERENCE:
                    page.wait_for_selector(".jp-OutputArea-output .widget-vbox img", timeout=TIMEOUT_S * 1000)
                    page.locator(".jp-OutputArea-output .widget-vbox").last.scroll_into_view_if_needed()
                    page.wait_for_timeout(2000)
                    kernel = _measure_page(page, 1, reference=True)[0]
                else:
                    page.wait_for_timeout(2000)
                    out[chapter, other] = _measure_page(page, page.locator(".jp-OutputArea-output .qkv-ex").count())
                page.close()
    return out, kernel


def measure_book(before: Path | None = None) -> dict[tuple[str, bool], list[list[float]]]:
    """{(chapter page, before): [times per explorable]} in the built book, opened from disk."""
    out = {}
    with lab_server.browser() as browser:
        for name, other in _pairs(_chapters_with_explorables(), before is not None):
            html = (before / HTML.relative_to(ROOT) if other else HTML) / "notebooks" / name.replace(".ipynb", ".html")
            page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=2)
            page.goto(html.as_uri())
            page.wait_for_selector(".qkv-ex", timeout=60_000)
            page.wait_for_timeout(1000)  # settled, as a reader's page is by the first press (fonts, far text skipped)
            out[name, other] = _measure_page(page, page.locator(".qkv-ex").count())
            page.close()
    return out


def _before_name(chapter: str) -> str:
    return chapter.replace(".ipynb", ".before.ipynb")


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def report(where: str, results: dict[tuple[str, bool], list[list[float]]]) -> dict[bool, list[float]]:
    """Print a row per explorable (the other checkout's, `before`, under each chapter's own); return
    every time measured, by checkout (True: the other one)."""
    every: dict[bool, list[float]] = {False: [], True: []}
    for (chapter, before), explorables in sorted(results.items()):
        label = f"{where}<" if before else where
        for index, times in enumerate(explorables):
            if not times:
                print(f"  {label:<5} {chapter:<28} {index:>2}   0  (図が変わりませんでした)")
                continue
            every[before] += times
            print(f"  {label:<5} {chapter:<28} {index:>2} {len(times):>3} "
                  f"{statistics.median(times):7.1f} {percentile(times, 0.9):7.1f}")
    return every


def _figures(where: str, every: dict[bool, list[float]]) -> dict[str, float]:
    figures = {}
    for before, times in every.items():
        if times:
            name = f"{where}_before" if before else where
            figures |= {f"{name}_frame_p50_ms": statistics.median(times),
                        f"{name}_frame_p90_ms": percentile(times, 0.9)}
    return figures


def main(argv: list[str]) -> dict[str, float]:
    """Measure, print the table, and return the figures for the bench: line."""
    before = _before(argv)
    print(f"  {'where':<5} {'chapter':<28} {'#':>2} {'n':>3} {'p50_ms':>7} {'p90_ms':>7}"
          + ("   (lab<, book<: --before)" if before else ""))
    figures = {}
    if "--book-only" not in argv:
        lab, kernel = measure_lab(before)
        figures |= _figures("lab", report("lab", lab))
        print(f"  {'lab':<5} {'kernel reference (matplotlib)':<28} {'':>2} {len(kernel):>3} "
              f"{statistics.median(kernel):7.1f} {percentile(kernel, 0.9):7.1f}")
        figures["kernel_ref_p50_ms"] = statistics.median(kernel)
    if "--lab-only" not in argv:
        if not (HTML / "index.html").exists():
            print("  本がまだ書き出されていません(make book)。本での計測は飛ばします。")
        else:
            other = before if before and (before / HTML.relative_to(ROOT) / "index.html").exists() else None
            figures |= _figures("book", report("book", measure_book(other)))
    return figures


if __name__ == "__main__":
    print(" ".join(f"{k}={v:.1f}" for k, v in main(sys.argv[1:]).items()))
