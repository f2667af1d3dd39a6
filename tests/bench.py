"""`make bench`: execution time, peak memory and widget update times, next to a bare floor.

For every chapter notebook: execute it on a fresh kernel (time, and the kernel's peak RSS read
from /proc/<pid>/status VmHWM), then, in the same kernel, move every Explorable the notebook made
through its frames and time each update (callback + blit to the Agg canvas + PNG for the widget).
The floor is the same number of fresh kernels that only import numpy and matplotlib.

Budgets (CONTRIBUTING.md): exec ≤ 1.5 × floor, widget median < 30 ms, peak RSS ≤ 1.3 × bare kernel.
These are reported, not asserted: timing on a shared machine is not a test.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]

FLOOR_CODE = "import numpy, matplotlib, matplotlib.pyplot"

WIDGET_TIMING_CODE = """
import gc as _gc, json as _json, time as _time
from helpers.widgets import Explorable as _Explorable
_result = []
for _ex in [o for o in _gc.get_objects() if isinstance(o, _Explorable)]:
    _times = []
    for _frame in list(_ex.static_frames) * 2:
        for _name, _value in _frame.items():
            if _ex.controls[_name].value == _value:
                continue
            _t0 = _time.perf_counter()
            _ex.controls[_name].value = _value
            _times.append((_time.perf_counter() - _t0) * 1000)
    _result.append({"title": _ex.title, "ms": _times})
print(_json.dumps(_result, ensure_ascii=False))
"""


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_in_fresh_kernel(nb, extra_code: str | None = None) -> tuple[float, float, str]:
    """Execute `nb` (and then `extra_code`) on a new kernel: (seconds, peak MiB, extra output)."""
    client = NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    start = time.perf_counter()
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        elapsed = time.perf_counter() - start
        extra = ""
        if extra_code:
            cell = nbformat.v4.new_code_cell(extra_code)
            nb.cells.append(cell)
            client.execute_cell(cell, len(nb.cells) - 1)
            extra = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        peak = peak_rss_mib(client.km.provisioner.process.pid)
    return elapsed, peak, extra


def main() -> int:
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        print("notebooks/ に章がありません", file=sys.stderr)
        return 1
    print(f"{'notebook':<24} {'exec_s':>7} {'peak_MiB':>9}  widgets (median ms)")
    total_exec, peaks, widget_medians = 0.0, [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        secs, peak, extra = run_in_fresh_kernel(nb, WIDGET_TIMING_CODE)
        total_exec += secs
        peaks.append(peak)
        widgets = json.loads(extra.strip().splitlines()[-1]) if extra.strip() else []
        shown = []
        for w in widgets:
            if w["ms"]:
                med = statistics.median(w["ms"])
                widget_medians.append(med)
                shown.append(f"{w['title']} {med:.1f}")
        print(f"{path.stem:<24} {secs:7.2f} {peak:9.1f}  {', '.join(shown) or '-'}", flush=True)

    floor_total, floor_peaks = 0.0, []
    for _ in paths:
        secs, peak, _ = run_in_fresh_kernel(nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell(FLOOR_CODE)]))
        floor_total += secs
        floor_peaks.append(peak)
    bare_peak = statistics.median(floor_peaks)
    print(f"{'floor (bare kernels)':<24} {floor_total:7.2f} {bare_peak:9.1f}")
    worst_widget = max(widget_medians) if widget_medians else float("nan")
    print(
        f"bench: notebooks={len(paths)} exec_s={total_exec:.2f} floor_s={floor_total:.2f} "
        f"ratio={total_exec / floor_total:.2f} widget_p50_ms={worst_widget:.1f} "
        f"rss_ratio={max(peaks) / bare_peak:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
