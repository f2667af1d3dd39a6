"""`make bench`: execution time and peak memory next to a bare floor, the book's build, and every
explorable's key press → painted frame in JupyterLab and in the book.

For every chapter notebook: execute it on a fresh kernel (time, and the kernel's peak RSS read
from /proc/<pid>/status VmHWM). The floor is the same number of fresh kernels that only import
numpy and matplotlib, each run right after its chapter so that both see the same load on a shared
machine. Then the book is built (`make book-build`, timed) and each chapter page's own HTML is
weighed; then tests/support/frame_bench.py measures the explorables (with the old kernel path of chapter
02's picture as the reference, in the same run), and tests/support/phone_bench.py opens every chapter page
and the glossary on an emulated phone (first paint, load, KB, requests; the second page's first
paint). `--phone [--before OLD_HTML]` runs that last part alone, on the book already built.

Where the time and memory go: each cell is timed on its own and the kernel's peak RSS is read
after it, so the report lists, per chapter, the kernel start and the costliest cells (seconds,
and MiB by which the cell raised the peak), each named by its first line of code.

Budgets (CONTRIBUTING.md): an explorable's frame p50 ≤ 16.7 ms and p90 ≤ 33 ms; peak RSS ≤ 1.3 ×
a bare kernel; each chapter's own HTML ≤ 100 KB gzip-compressed. Reported, not asserted: timing on a shared
machine is not a test. `--quick` leaves out the book build, the frames and the phone. The phone's
budget: first paint ≤ 2.0 s, load ≤ 6 s, ≤ 400 KB, ≤ 30 requests, a second page ≤ 1.0 s.
"""

from __future__ import annotations

import gzip
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]

FLOOR_CODE = "import numpy, matplotlib, matplotlib.pyplot"

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


def run_in_fresh_kernel(nb) -> Run:
    """Execute `nb` on a new kernel, timing every cell."""
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
        run.peak_mib = peak_rss_mib(pid)
    return run


def bare_kernel() -> Run:
    return run_in_fresh_kernel(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_CODE)]))


def build_book() -> tuple[float, dict[str, int]]:
    """Seconds to build the book, and each chapter page's own HTML in bytes, gzip-compressed."""
    start = time.perf_counter()
    subprocess.run(["make", "-s", "book-build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    pages = sorted((ROOT / "book" / "_build" / "html" / "notebooks").glob("[0-9][0-9]_*.html"))
    # Compressed, as a static host serves it (its maths are SVG inside it).
    return seconds, {p.stem: len(gzip.compress(p.read_bytes())) for p in pages}


def bench_line(figures: dict) -> str:
    return "bench: " + " ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                                for k, v in figures.items())


def main() -> int:
    if sys.argv[1:2] == ["--phone"]:
        import phone_bench

        print(bench_line(phone_bench.main(sys.argv[2:])))
        return 0
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        print("notebooks/ に章がありません", file=sys.stderr)
        return 1
    print(f"{'notebook':<24} {'exec_s':>7} {'floor_s':>7} {'ratio':>5} {'peak_MiB':>9}")
    chapter_secs, floor_secs, peaks, floor_peaks, tops = [], [], [], [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        run = run_in_fresh_kernel(nb)
        # A bare kernel right after each chapter: on a shared machine the floor then sees the
        # same load as the chapter it is compared with.
        floor = bare_kernel()
        chapter_secs.append(run.seconds)
        floor_secs.append(floor.seconds)
        peaks.append(run.peak_mib)
        floor_peaks.append(floor.peak_mib)
        tops.append(f"{path.stem:<24} {run.top()}")
        print(f"{path.stem:<24} {run.seconds:7.2f} {floor.seconds:7.2f} "
              f"{run.seconds / floor.seconds:5.2f} {run.peak_mib:9.1f}", flush=True)
    bare_peak = statistics.median(floor_peaks)
    print(f"{'floor (bare kernels)':<24} {sum(floor_secs):7.2f} {'':>7} {'':>5} {bare_peak:9.1f}  "
          f"{floor.top(1)}")
    print("\ntop costs per chapter (kernel start, slowest cells, cells that raised the peak RSS):")
    print("\n".join(tops))
    total_exec, floor_total = sum(chapter_secs), sum(floor_secs)
    figures = {"notebooks": len(paths), "exec_s": total_exec, "floor_s": floor_total,
               "ratio": total_exec / floor_total, "rss_ratio": max(peaks) / bare_peak,
               "slowest_to_median": max(chapter_secs) / statistics.median(chapter_secs)}
    if "--quick" not in sys.argv[1:]:
        import frame_bench

        seconds, sizes = build_book()
        print(f"\nthe book: built in {seconds:.1f} s; each chapter's own HTML (KB, gzip): "
              + ", ".join(f"{name[:2]} {size / 1024:.0f}" for name, size in sizes.items()))
        figures |= {"book_build_s": seconds, "max_chapter_html_gz_kb": max(sizes.values()) / 1024}
        print("\nexplorables, key press → next painted frame (ms):")
        figures |= frame_bench.main([])
        import phone_bench

        print("\nthe book on a phone (390 × 844, 150 ms, 1.6 Mbit/s, CPU 4× slower):")
        figures |= phone_bench.main([])
    print(bench_line(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
