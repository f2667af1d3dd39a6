"""`make bench`: execution time, peak memory and widget update times, next to a bare floor.

For every chapter notebook: execute it on a fresh kernel (time, and the kernel's peak RSS read
from /proc/<pid>/status VmHWM), then, in the same kernel, move every Explorable the notebook made
through its frames and time each update (callback + blit to the Agg canvas + PNG for the widget).
The floor is the same number of fresh kernels that only import numpy and matplotlib, each run
right after its chapter so that both see the same load on a shared machine.

Where the time and memory go: each cell is timed on its own and the kernel's peak RSS is read
after it, so the report lists, per chapter, the kernel start and the costliest cells (seconds,
and MiB by which the cell raised the peak), each named by its first line of code.

Budgets (CONTRIBUTING.md): exec ≤ 1.5 × floor, widget median < 30 ms, peak RSS ≤ 1.3 × bare kernel.
These are reported, not asserted: timing on a shared machine is not a test.

`--lab` (`make bench LAB=1`) adds `lab_slider_bench.py`: a slider in a real JupyterLab, key press
to the new image on screen (median and p90 per widget; budget p50 ≤ 33 ms, p90 ≤ 50 ms).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass, field
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


@dataclass
class Run:
    """One notebook on one fresh kernel: totals, and what each code cell cost."""

    seconds: float
    peak_mib: float
    extra: str = ""
    start_s: float = 0.0
    start_mib: float = 0.0
    cells: list[tuple[str, float, float]] = field(default_factory=list)  # (label, s, +MiB)

    def top(self, count: int = 3) -> str:
        """The kernel start and the `count` costliest cells, as one line."""
        by_time = sorted(self.cells, key=lambda c: c[1], reverse=True)[:count]
        by_mem = [c for c in sorted(self.cells, key=lambda c: c[2], reverse=True)[:2] if c[2] >= 1]
        parts = [f"start {self.start_s:.2f}s/{self.start_mib:.0f}MiB"]
        parts += [f"{label} {secs:.2f}s" for label, secs, _ in by_time]
        parts += [f"{label} +{mib:.0f}MiB" for label, _, mib in by_mem]
        return " · ".join(parts)


def cell_label(source: str, width: int = 28) -> str:
    """The first line of code in a cell (comments, magics and YAML front matter skipped)."""
    for line in source.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "%")):
            return line if len(line) <= width else line[: width - 1] + "…"
    return "(empty)"


def run_in_fresh_kernel(nb, extra_code: str | None = None) -> Run:
    """Execute `nb` (and then `extra_code`) on a new kernel, timing every cell."""
    client = NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(ROOT / "notebooks")}})
    start = time.perf_counter()
    with client.setup_kernel():
        pid = client.km.provisioner.process.pid
        run = Run(0.0, 0.0, start_s=time.perf_counter() - start, start_mib=peak_rss_mib(pid))
        peak = run.start_mib
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                t0 = time.perf_counter()
                client.execute_cell(cell, index)
                secs = time.perf_counter() - t0
                now = peak_rss_mib(pid)
                run.cells.append((f"[{index}] {cell_label(cell.source)}", secs, now - peak))
                peak = now
        run.seconds = time.perf_counter() - start
        if extra_code:
            cell = nbformat.v4.new_code_cell(extra_code)
            nb.cells.append(cell)
            client.execute_cell(cell, len(nb.cells) - 1)
            run.extra = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        run.peak_mib = peak_rss_mib(pid)
    return run


def bare_kernel() -> Run:
    return run_in_fresh_kernel(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_CODE)]))


def main() -> int:
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        print("notebooks/ に章がありません", file=sys.stderr)
        return 1
    print(f"{'notebook':<24} {'exec_s':>7} {'floor_s':>7} {'ratio':>5} {'peak_MiB':>9}"
          "  widgets (median ms)")
    chapter_secs, floor_secs, peaks, floor_peaks, widget_medians, tops = [], [], [], [], [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        run = run_in_fresh_kernel(nb, WIDGET_TIMING_CODE)
        # A bare kernel right after each chapter: on a shared machine the floor then sees the
        # same load as the chapter it is compared with.
        floor = bare_kernel()
        chapter_secs.append(run.seconds)
        floor_secs.append(floor.seconds)
        peaks.append(run.peak_mib)
        floor_peaks.append(floor.peak_mib)
        tops.append(f"{path.stem:<24} {run.top()}")
        extra = run.extra.strip()
        widgets = json.loads(extra.splitlines()[-1]) if extra else []
        shown = []
        for w in widgets:
            if w["ms"]:
                med = statistics.median(w["ms"])
                widget_medians.append(med)
                shown.append(f"{w['title']} {med:.1f}")
        print(f"{path.stem:<24} {run.seconds:7.2f} {floor.seconds:7.2f} "
              f"{run.seconds / floor.seconds:5.2f} {run.peak_mib:9.1f}  {', '.join(shown) or '-'}",
              flush=True)
    bare_peak = statistics.median(floor_peaks)
    print(f"{'floor (bare kernels)':<24} {sum(floor_secs):7.2f} {'':>7} {'':>5} {bare_peak:9.1f}  "
          f"{floor.top(1)}")
    print("\ntop costs per chapter (kernel start, slowest cells, cells that raised the peak RSS):")
    print("\n".join(tops))
    total_exec, floor_total = sum(chapter_secs), sum(floor_secs)
    worst_widget = max(widget_medians) if widget_medians else float("nan")
    print(
        f"bench: notebooks={len(paths)} exec_s={total_exec:.2f} floor_s={floor_total:.2f} "
        f"ratio={total_exec / floor_total:.2f} widget_p50_ms={worst_widget:.1f} "
        f"rss_ratio={max(peaks) / bare_peak:.2f} "
        f"slowest_to_median={max(chapter_secs) / statistics.median(chapter_secs):.2f}"
    )
    if "--lab" in sys.argv[1:]:  # `make bench LAB=1`: a slider end to end in a real JupyterLab
        import lab_slider_bench

        print("\nslider in JupyterLab, key press to new image shown:")
        lab_slider_bench.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
