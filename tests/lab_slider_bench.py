"""A slider end to end in a real JupyterLab: key press to the new image on screen.

    python tests/lab_slider_bench.py [03_three_roles.ipynb ...]      (`make bench` runs it too)

For each chapter: open it in the learner's JupyterLab (`lab_server.running`), run all cells,
then for every widget with a slider, focus the slider's handle and press → (then ←) many times.
In the page, a capture listener notes the key press time; the time ends when the widget's image
has a new picture, decoded, and one animation frame has passed (it is on screen). Reported: the
median and p90 per widget, in ms. Budget (CONTRIBUTING.md): p50 ≤ 33 ms, p90 ≤ 50 ms.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import lab_server

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["00_introduction.ipynb", "03_three_roles.ipynb", "04_three_matrices.ipynb"]
PRESSES = 20

_MEASURE = """
async ([index, key]) => {
  const box = document.querySelectorAll('.jp-OutputArea-output .widget-vbox')[index];
  const img = box.querySelector('img');
  const handle = box.querySelector('.noUi-handle');
  const before = img.src;
  let t0 = null;
  const onKey = () => { t0 = performance.now(); };
  handle.addEventListener('keydown', onKey, {capture: true, once: true});
  const changed = new Promise(resolve => {
    const obs = new MutationObserver(() => {
      if (img.src !== before) { obs.disconnect(); resolve(); }
    });
    obs.observe(img, {attributes: true, attributeFilter: ['src']});
    setTimeout(() => { obs.disconnect(); resolve(); }, 5000);
  });
  window.__qkvChanged = changed.then(() => img.decode().catch(() => {}))
    .then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))
    .then(() => (img.src === before || t0 === null) ? null : performance.now() - t0);
  handle.focus();
  return true;
}
"""


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
        with lab_server.running(copy) as lab, lab_server.browser() as browser:
            for name in chapters:
                page = browser.new_page(viewport={"width": 1280, "height": 900},
                                        device_scale_factor=2)
                page.goto(lab.url(f"lab/tree/{name}"), timeout=120_000)
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
                        page.evaluate(_MEASURE, [index, key])
                        page.keyboard.press(key)
                        ms = page.evaluate("() => window.__qkvChanged")
                        if ms is not None:
                            times.append(ms)
                    shown = box.locator("img").evaluate(
                        "img => [img.naturalWidth, img.getBoundingClientRect().width]")
                    results.append({"chapter": name, "widget": index, "ms": times,
                                    "natural_px": shown[0], "css_px": shown[1]})
                page.close()
    return results


def main(argv: list[str]) -> int:
    results = measure(argv or DEFAULT)
    print(f"{'chapter':<24} {'widget':>6} {'n':>3} {'p50_ms':>7} {'p90_ms':>7}  image px / shown css px")
    for r in results:
        if not r["ms"]:
            print(f"{r['chapter']:<24} {r['widget']:>6}   0  (画像が変わりませんでした)")
            continue
        print(f"{r['chapter']:<24} {r['widget']:>6} {len(r['ms']):>3} "
              f"{statistics.median(r['ms']):7.1f} {percentile(r['ms'], 0.9):7.1f}  "
              f"{r['natural_px']} / {r['css_px']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
