"""The grades CSV (`export`): nbgrader's export, with each row's status and reason from the last grading."""

from __future__ import annotations

import csv
from pathlib import Path

from nbgrader.plugins import CsvExportPlugin

from .course_folder import Log, course, gradebook
from .reports import REPORT_DIR, Status


def export(root: str | Path = "classroom", to: str | Path | None = None, *,
           log: Log = print) -> Path:
    """`nbgrader export`: every student's score per chapter as CSV (default `root/grades.csv`),
    with a `status` column (graded, flagged, failed, missing) and its `reason` from the last grading."""
    root = Path(root).resolve()
    dest = Path(to).resolve() if to is not None else root / "grades.csv"
    config, _ = course(root)
    plugin = CsvExportPlugin(config=config)
    plugin.to = str(dest)
    with gradebook(root) as gb:
        plugin.export(gb)
    _add_status(root, dest)
    log(f"成績を {dest} に書き出しました。")
    return dest


def _add_status(root: Path, dest: Path) -> None:
    """Tell "could not be graded" from "not submitted" in nbgrader's CSV (it says 0 for both)."""
    known: dict[tuple[str, str], tuple[str, str, str]] = {}
    report = root / REPORT_DIR / "grading.csv"
    if report.exists():
        with open(report, encoding="utf-8", newline="") as f:
            for r in csv.DictReader(f):
                known[r["assignment"], r["student_id"]] = (r["status"], r["reason"], r["max_score"])
    with open(dest, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    fields = list(rows[0].keys()) if rows else ["assignment", "student_id", "score", "max_score"]
    seen = set()
    for r in rows:
        key = (r["assignment"], r["student_id"])
        seen.add(key)
        graded = (root / "autograded" / key[1] / key[0]).is_dir()
        status, reason, _ = known.get(key, (Status.GRADED if graded else Status.MISSING, "", ""))
        r["status"], r["reason"] = status, reason
        if status in (Status.FAILED, Status.FLAGGED):
            r["score"] = "0.0"
    for (chapter, student), (status, reason, max_score) in known.items():
        if (chapter, student) not in seen and status != Status.MISSING:  # not in nbgrader's database
            rows.append({**{k: "" for k in fields}, "assignment": chapter, "student_id": student,
                         "score": "0.0", "max_score": max_score, "status": status, "reason": reason})
    with open(dest, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[*fields, "status", "reason"])
        writer.writeheader()
        writer.writerows(rows)

