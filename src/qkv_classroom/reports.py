"""The teacher's reports/: every student × chapter's outcome as grading.csv, summary.csv and report.md."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .submissions import all_students

REPORT_DIR = "reports"


class Status(StrEnum):
    """What grading did with a submission, as the reports and the grades CSV write it."""

    GRADED = "graded"
    FLAGGED = "flagged"  # tampering: no marks
    FAILED = "failed"  # could not be graded: no marks
    MISSING = "missing"  # not handed in


@dataclass
class Outcome:
    """What grading did with one student's notebook of one chapter."""

    student: str
    chapter: str
    status: Status
    score: float
    max_score: float
    reason: str = ""


#: summary.csv's count columns, in this order.
COLUMNS = (Status.GRADED, Status.FAILED, Status.FLAGGED, Status.MISSING)


def earlier_outcomes(root: Path) -> list[Outcome]:
    """The outcomes of the last grading run, from reports/grading.csv (none if there is none)."""
    path = root / REPORT_DIR / "grading.csv"
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as f:
        return [Outcome(r["student_id"], r["assignment"], Status(r["status"]), float(r["score"]),
                        float(r["max_score"]), r["reason"])
                for r in csv.DictReader(f) if r["status"] != Status.MISSING]


def write_reports(root: Path, outcomes: list[Outcome], chapters: list[str]) -> Path:
    """reports/grading.csv (one row per student × chapter), summary.csv, report.md; returns the folder."""
    folder = root / REPORT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    by_key = {(o.student, o.chapter): o for o in earlier_outcomes(root)
              if (root / "submitted" / o.student / o.chapter).is_dir()}  # not graded this time
    by_key.update({(o.student, o.chapter): o for o in outcomes})
    outcomes = list(by_key.values())
    chapters = sorted(set(chapters) | {o.chapter for o in outcomes})
    max_scores = {o.chapter: o.max_score for o in outcomes}
    students = sorted({o.student for o in outcomes} | set(all_students(root)))
    rows = []
    for student in students:
        for chapter in chapters:
            o = by_key.get((student, chapter)) or Outcome(student, chapter, Status.MISSING, 0.0,
                                                          max_scores.get(chapter, 0.0), "提出なし")
            rows.append(o)
    with open(folder / "grading.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "assignment", "status", "score", "max_score", "reason"])
        for o in rows:
            writer.writerow([o.student, o.chapter, o.status, f"{o.score:g}", f"{o.max_score:g}", o.reason])
    with open(folder / "summary.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", *chapters, "total", "max_total", "graded", "failed", "flagged",
                         "missing"])
        for student in students:
            mine = [o for o in rows if o.student == student]
            cells = [f"{o.score:g}" if o.status == Status.GRADED else o.status for o in mine]
            count = {s: sum(o.status == s for o in mine) for s in COLUMNS}
            writer.writerow([student, *cells, f"{sum(o.score for o in mine):g}",
                             f"{sum(o.max_score for o in mine):g}", *count.values()])
    problems = [o for o in rows if o.status in (Status.FAILED, Status.FLAGGED)]
    lines = ["# 採点レポート", "",
             f"学生 {len(students)} 人 × 章 {len(chapters)} 個。"
             f"採点できたもの {sum(o.status == Status.GRADED for o in rows)}、"
             f"採点できなかったもの(0 点){sum(o.status == Status.FAILED for o in rows)}、"
             f"採点を書き換えようとしたもの(0 点){sum(o.status == Status.FLAGGED for o in rows)}、"
             f"未提出 {sum(o.status == Status.MISSING for o in rows)}。", ""]
    if problems:
        lines += ["| 学生 | 章 | 状態 | 理由 |", "| --- | --- | --- | --- |"]
        lines += [f"| {o.student} | {o.chapter} | "
                  f"{'採点できず' if o.status == Status.FAILED else '書き換えの疑い'} | "
                  f"{o.reason.replace('|', '/')} |" for o in problems]
    else:
        lines.append("採点できなかった提出物、書き換えの疑いのある提出物はありません。")
    (folder / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
