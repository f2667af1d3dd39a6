"""A slider end to end in a real JupyterLab: key press to the new image on screen.

    python tests/lab_slider_bench.py [03_three_roles.ipynb ...]      (`make bench` runs it too)

For each chapter: open it in the learner's JupyterLab (`lab_server.running`), run all cells,
then for every widget with a slider, focus the slider's handle and press → (then ←) many times.
In the page, a capture listener notes the key press time; the time ends when the widget's image
has a new picture, decoded, and the frame that shows it has been painted (a message posted from
that frame's requestAnimationFrame callback runs after its paint). Reported: the median and p90
per widget, in ms, and where the time goes (the page's WebSocket messages are time-stamped):
in the page until the message to the kernel leaves; the round trip (server, kernel, Python's
redraw and PNG, back); the new picture's message to the <img>'s new src; decoding; painting; and,
for comparison with earlier reports, the time to the next frame after that.
Budget (CONTRIBUTING.md): p50 ≤ 33 ms, p90 ≤ 50 ms.

Beside the chapters, the floor (FLOOR): chapter 00 with one more cell at its end, where chapter
00's widget's own pictures are swapped by a plain slider whose callback draws nothing. So the
same messages, the same PNG to decode and the same paint, in the same page and the same run as
chapter 00's own widget (reported as widget 0; the floor is widget 1). What the chapter's widget
takes above the floor is its drawing; the floor is the widget machinery (kernel round trip,
decode, frame) that no drawing code can make faster.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import lab_server
import nbformat

ROOT = Path(__file__).resolve().parents[1]
FLOOR = "00_introduction_and_floor.ipynb"
DEFAULT = [FLOOR, "03_three_roles.ipynb", "04_three_matrices.ipynb"]

#: The floor's cell, after chapter 00's: two of its widget's pictures, swapped without drawing.
FLOOR_CODE = """\
import ipywidgets as W
from helpers.widgets._base import canvas_png

chapter = helpers.widgets.attention_preview_explorer()
pictures = []
for mix in (0.0, 1.0):
    chapter.render({**chapter.values, "mix": mix})
    pictures.append(canvas_png(chapter.canvas))
image = W.Image(value=pictures[0], format="png", layout=chapter.image.layout)
slider = W.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.1, continuous_update=True)
slider.observe(lambda change: setattr(image, "value", pictures[round(change.new * 10) % 2]), "value")
W.VBox([W.HBox([slider]), image])
"""
PRESSES = 20

#: Before the page loads: note when each WebSocket message leaves and arrives (and its size), so
#: a key press can be split into stages: in the page before the message to the kernel leaves; the
#: round trip (server, kernel, Python's redraw, back) until the new picture's message arrives;
#: from there to the <img> getting its new src; decoding; and the frame that paints it.
_WIRE_TAP = """
(() => {
  const wire = window.__qkvWire = {sent: [], received: []};
  const Native = window.WebSocket;
  const send = Native.prototype.send;
  Native.prototype.send = function (data) { wire.sent.push(performance.now()); return send.call(this, data); };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', e => wire.received.push(
        [performance.now(), typeof e.data === 'string' ? e.data.length : (e.data.byteLength ?? e.data.size ?? 0)]));
    }
  };
})();
"""

#: A picture's message is far bigger than any other the kernel sends after a key press.
PICTURE_BYTES = 8000

_MEASURE = """
async ([index, pictureBytes]) => {
  const box = document.querySelectorAll('.jp-OutputArea-output .widget-vbox')[index];
  const img = box.querySelector('img');
  const handle = box.querySelector('.noUi-handle');
  const wire = window.__qkvWire;
  const before = img.src;
  const t = {};
  handle.addEventListener('keydown', () => { t.key = performance.now(); }, {capture: true, once: true});
  const changed = new Promise(resolve => {
    const obs = new MutationObserver(() => {
      if (img.src !== before) { t.src = performance.now(); obs.disconnect(); resolve(); }
    });
    obs.observe(img, {attributes: true, attributeFilter: ['src']});
    setTimeout(() => { obs.disconnect(); resolve(); }, 5000);
  });
  const nextFrame = () => new Promise(r => requestAnimationFrame(r));
  // After a rAF callback, a message posted to a MessageChannel runs once that frame is painted.
  const afterPaint = () => new Promise(r => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = r; ch.port2.postMessage(0); }));
  window.__qkvChanged = changed
    .then(() => img.decode().catch(() => {})).then(() => { t.decoded = performance.now(); })
    .then(afterPaint).then(() => { t.painted = performance.now(); })
    .then(nextFrame).then(() => { t.secondFrame = performance.now(); })
    .then(() => {
      if (img.src === before || t.key === undefined) return null;
      t.sent = wire.sent.find(x => x >= t.key);
      const pic = wire.received.find(([x, n]) => x >= t.key && n >= pictureBytes);
      t.received = pic ? pic[0] : undefined;
      return t;
    });
  handle.focus();
  return true;
}
"""

#: (name, from, to) of the stages reported; "total" is key press to the painted frame.
STAGES = [("page→send", "key", "sent"), ("round trip", "sent", "received"),
          ("→src", "received", "src"), ("decode", "src", "decoded"), ("paint", "decoded", "painted"),
          ("total", "key", "painted"), ("2nd rAF", "key", "secondFrame")]


def _accept_kernel_dialog(page) -> None:
    """A notebook whose kernel is not yet chosen asks for one: take the default (Python 3)."""
    try:
        page.wait_for_selector(".jp-Dialog .jp-mod-accept", timeout=15_000)
    except Exception:
        return
    page.locator(".jp-Dialog .jp-mod-accept").click()


def _wait_for_widgets(page) -> None:
    try:
        page.wait_for_selector(".widget-vbox img", timeout=int(TIMEOUT_S * 1000))
    except Exception:
        page.screenshot(path=str(Path(tempfile.gettempdir()) / "qkv-lab-bench.png"))
        raise


TIMEOUT_S = 240


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def measure(chapters: list[str]) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "notebooks"
        shutil.copytree(ROOT / "notebooks", copy)
        floor = nbformat.read(copy / "00_introduction.ipynb", 4)
        floor.cells.append(nbformat.v4.new_code_cell(FLOOR_CODE))
        nbformat.write(floor, copy / FLOOR)
        with lab_server.running(copy) as lab, lab_server.browser() as browser:
            for name in chapters:
                page = browser.new_page(viewport={"width": 1280, "height": 900},
                                        device_scale_factor=2)
                page.add_init_script(_WIRE_TAP)
                # ?reset: a fresh workspace, so the notebooks opened before are not restored beside it.
                page.goto(lab.url(f"lab/tree/{name}?reset"), timeout=120_000)
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator, .jp-KernelStatus",
                                       timeout=60_000)
                _accept_kernel_dialog(page)
                page.locator(".lm-MenuBar-itemLabel").get_by_text("Run", exact=True).click()
                page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
                _wait_for_widgets(page)
                page.wait_for_timeout(3000)
                boxes = page.locator(".jp-OutputArea-output .widget-vbox")
                for index in range(boxes.count()):
                    box = boxes.nth(index)
                    if box.locator(".noUi-handle").count() == 0:
                        continue
                    box.scroll_into_view_if_needed()
                    times = []
                    for press in range(PRESSES):
                        key = "ArrowRight" if (press // 5) % 2 == 0 else "ArrowLeft"
                        page.evaluate(_MEASURE, [index, PICTURE_BYTES])
                        page.keyboard.press(key)
                        stamps = page.evaluate("() => window.__qkvChanged")
                        if stamps is not None:
                            times.append(stamps)
                    shown = box.locator("img").evaluate(
                        "img => [img.naturalWidth, img.getBoundingClientRect().width]")
                    results.append({"chapter": name, "widget": index, "ms": times,
                                    "natural_px": shown[0], "css_px": shown[1]})
                page.close()
    return results


def stage_ms(stamps: dict, start: str, end: str) -> float | None:
    if stamps.get(start) is None or stamps.get(end) is None:
        return None
    return stamps[end] - stamps[start]


def main(argv: list[str]) -> int:
    results = measure(argv or DEFAULT)
    print(f"{'chapter':<32} {'widget':>6} {'n':>3} {'p50_ms':>7} {'p90_ms':>7}  image px / shown css px"
          "  ·  stage medians (ms)")
    for r in results:
        if not r["ms"]:
            print(f"{r['chapter']:<32} {r['widget']:>6}   0  (画像が変わりませんでした)")
            continue
        total = [stage_ms(s, "key", "painted") for s in r["ms"]]
        stages = []
        for name, start, end in STAGES[:-2] + STAGES[-1:]:
            values = [v for v in (stage_ms(s, start, end) for s in r["ms"]) if v is not None]
            stages.append(f"{name} {statistics.median(values):.1f}" if values else f"{name} -")
        print(f"{r['chapter']:<32} {r['widget']:>6} {len(total):>3} "
              f"{statistics.median(total):7.1f} {percentile(total, 0.9):7.1f}  "
              f"{r['natural_px']} / {r['css_px']:.0f}  ·  {', '.join(stages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
