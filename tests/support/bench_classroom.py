"""A class of N students on this machine's hub, all at once: `make classroom-bench` (root, loopback).

Each simulated student is a real Unix account (tests/support/hub_harness.py makes them, with a unique
prefix, and removes them at the end). At the same moment every student asks the hub for a server,
puts the chapter's notebook into their home, starts a kernel and runs every code cell in order,
as "Run All" does, over the kernel's websocket. Reported:

- seconds until all are done; per student p50/p90 of the whole, and of its parts (server start,
  kernel start, running the cells), so it is clear where the time goes;
- peak memory per student (resident memory of all that student's processes, sampled each second),
  and of the whole machine;
- CPU seconds per student, and their share of what the cores could give in that time;
- failures (a server or kernel that did not start, a cell that raised, a time-out), each named.

Bounded: every step has a time-out and the whole run stops after --budget seconds; the hub and
the accounts are removed whatever happens. Not part of `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
import psutil
from hub_harness import ROOT, TempClass, readable_by_others, why_not_here

MiB = 1024 * 1024


@dataclass
class Student:
    name: str
    server_s: float | None = None
    kernel_s: float | None = None
    cells_s: float | None = None
    total_s: float | None = None
    peak_rss_mib: float = 0.0
    cpu_s: float = 0.0
    failure: str | None = None
    cells: int = 0


@dataclass
class Sampler:
    """Each second: resident memory and CPU time of each student's processes, and the machine's."""

    uids: dict[int, Student]
    stop: threading.Event = field(default_factory=threading.Event)
    peak_used_mib: float = 0.0
    samples: int = 0

    def run(self) -> None:
        while not self.stop.is_set():
            rss: dict[int, int] = dict.fromkeys(self.uids, 0)
            cpu: dict[int, float] = dict.fromkeys(self.uids, 0.0)
            for p in psutil.process_iter(["uids", "memory_info", "cpu_times"]):
                try:
                    uid = p.info["uids"].real
                    if uid in rss:
                        rss[uid] += p.info["memory_info"].rss
                        t = p.info["cpu_times"]
                        cpu[uid] += t.user + t.system + t.children_user + t.children_system
                except (psutil.Error, TypeError, AttributeError):
                    pass
            for uid, student in self.uids.items():
                student.peak_rss_mib = max(student.peak_rss_mib, rss[uid] / MiB)
                student.cpu_s = max(student.cpu_s, cpu[uid])
            vm = psutil.virtual_memory()
            self.peak_used_mib = max(self.peak_used_mib, (vm.total - vm.available) / MiB)
            self.samples += 1
            self.stop.wait(1.0)


def run_student(cls: TempClass, student: Student, notebook: dict, go: threading.Event,
                deadline: float) -> None:
    go.wait()
    t0 = time.monotonic()
    kernel = None
    try:
        student.server_s = cls.hub.start_server(student.name, timeout=max(1, deadline - time.monotonic()))
        client = cls.hub.as_user(student.name)
        path = "chapter.ipynb"
        client.put_notebook(path, notebook)
        t1 = time.monotonic()
        kernel = client.kernel(path)
        kernel.run("pass", timeout=max(1, deadline - time.monotonic()))
        student.kernel_s = time.monotonic() - t1
        t2 = time.monotonic()
        for cell in notebook["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if not source.strip():
                continue
            reply = kernel.run(source, timeout=max(1, deadline - time.monotonic()))
            student.cells += 1
            if reply["status"] != "ok":
                student.failure = f"セル {student.cells} でエラー: {reply.get('ename')}: {reply.get('evalue')}"
                break
        student.cells_s = time.monotonic() - t2
    except Exception as err:  # noqa: BLE001 - every failure is reported, none stops the class
        student.failure = f"{type(err).__name__}: {str(err)[:300]}"
    finally:
        student.total_s = time.monotonic() - t0
        if kernel is not None:
            try:
                kernel.close()
            except Exception:  # noqa: BLE001
                pass


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--chapter", default="06_attention")
    parser.add_argument("--budget", type=float, default=900, help="この秒数で打ち切る")
    parser.add_argument("--mem-limit", default=None, help="学生のプロセスごとのメモリ上限(例 2G)")
    parser.add_argument("--json", default=None, help="結果を JSON で書き出す先")
    args = parser.parse_args(argv)
    reason = why_not_here() or (
        f"{sys.executable} をほかのユーザーが実行できません" if readable_by_others(Path(sys.executable)) else None)
    if reason:
        print(f"計測できません: {reason}", file=sys.stderr)
        return 2
    # As JupyterLab sends it: sources as strings, no outputs, not paired with the .md by jupytext.
    nb = nbformat.read(ROOT / "notebooks" / f"{args.chapter}.ipynb", as_version=4)
    nb.metadata.pop("jupytext", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    notebook = json.loads(json.dumps(nb))
    print(f"root として、一時的なユーザー {args.students + 1} 人を作り、終わったら消します。"
          f"ハブは 127.0.0.1 だけで待ち受けます(打ち切り {args.budget:.0f} 秒)。", flush=True)
    idle_mib = (psutil.virtual_memory().total - psutil.virtual_memory().available) / MiB
    with TempClass(n_students=args.students, build_course=False, mem_limit=args.mem_limit) as cls:
        students = [Student(s) for s in cls.students]
        sampler = Sampler({pwd.getpwnam(s.name).pw_uid: s for s in students})
        sampling = threading.Thread(target=sampler.run, daemon=True)
        sampling.start()
        go = threading.Event()
        t0 = time.monotonic()
        deadline = t0 + args.budget
        threads = [threading.Thread(target=run_student, args=(cls, s, notebook, go, deadline), daemon=True)
                   for s in students]
        for t in threads:
            t.start()
        go.set()
        for t in threads:
            t.join(timeout=max(1, deadline - time.monotonic()) + 30)
        wall = time.monotonic() - t0
        time.sleep(1.5)
        sampler.stop.set()
        sampling.join(timeout=10)
    cores = len(os.sched_getaffinity(0))
    done = [s for s in students if s.failure is None]
    failures = [s for s in students if s.failure is not None]
    report = {
        "students": args.students, "chapter": args.chapter, "cores": cores,
        "all_done_s": round(wall, 1),
        "total_s": {"p50": pct([s.total_s for s in done], 0.5), "p90": pct([s.total_s for s in done], 0.9)},
        "server_start_s": {"p50": pct([s.server_s for s in done], 0.5), "p90": pct([s.server_s for s in done], 0.9)},
        "kernel_start_s": {"p50": pct([s.kernel_s for s in done], 0.5), "p90": pct([s.kernel_s for s in done], 0.9)},
        "cells_s": {"p50": pct([s.cells_s for s in done], 0.5), "p90": pct([s.cells_s for s in done], 0.9)},
        "peak_rss_mib_per_student": {"p50": pct([s.peak_rss_mib for s in students], 0.5),
                                     "max": max(s.peak_rss_mib for s in students)},
        "cpu_s_per_student": {"p50": pct([s.cpu_s for s in students], 0.5),
                              "max": max(s.cpu_s for s in students)},
        "machine_peak_used_mib": round(sampler.peak_used_mib), "machine_idle_used_mib": round(idle_mib),
        # The students' own CPU time over what the cores could give in that time (in a container the
        # machine-wide counters include other tenants' work, so they are not used here).
        "students_cpu_fraction": round(sum(s.cpu_s for s in students) / (wall * cores), 2),
        "machine_mib_per_student": round((sampler.peak_used_mib - idle_mib) / len(students)),
        "failures": len(failures),
        "failed": {s.name: s.failure for s in failures},
        "per_student": [asdict(s) for s in students],
    }
    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if not failures else 1


def print_report(r: dict) -> None:
    def f(x):
        return f"{x:6.1f}" if isinstance(x, (int, float)) else str(x)

    print(f"\n== 学生 {r['students']} 人が同時に {r['chapter']} を上から実行({r['cores']} コア)")
    print(f"全員が終わるまで: {r['all_done_s']:.1f} 秒   失敗: {r['failures']} 人")
    print(f"{'':24}{'p50':>8}{'p90':>8}")
    for key, label in (("total_s", "1 人の合計(秒)"), ("server_start_s", "  サーバーの起動"),
                       ("kernel_start_s", "  カーネルの起動"), ("cells_s", "  セルの実行")):
        print(f"{label:24}{f(r[key]['p50']):>8}{f(r[key]['p90']):>8}")
    m, c = r["peak_rss_mib_per_student"], r["cpu_s_per_student"]
    print(f"1 人のメモリの山(MiB): p50 {m['p50']:.0f}, 最大 {m['max']:.0f}")
    print(f"1 人の CPU 時間(秒): p50 {c['p50']:.1f}, 最大 {c['max']:.1f}   "
          f"学生の CPU 時間 / (経過時間 × コア数): {r['students_cpu_fraction']:.0%}")
    print(f"マシン全体の使用メモリ: 山 {r['machine_peak_used_mib']} MiB(計測前 {r['machine_idle_used_mib']} MiB、"
          f"1 人あたり {r['machine_mib_per_student']} MiB)")
    for name, why in r["failed"].items():
        print(f"  失敗 {name}: {why}")


if __name__ == "__main__":
    sys.exit(main())
