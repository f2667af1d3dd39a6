"""The command line, `python -m qkv_classroom <command>`: one subcommand per step of the pipeline.

    python -m qkv_classroom build     [--root classroom]   # source/ and release/ (make assignments)
    python -m qkv_classroom autograde [--root classroom] [CHAPTER ...]
    python -m qkv_classroom feedback  [--root classroom] [CHAPTER ...]
    python -m qkv_classroom export    [--root classroom] [--to grades.csv]
    python -m qkv_classroom report    [--root classroom] [--names]   # the class report again
    python -m qkv_classroom grade     [--root classroom] [--names]   # autograde + feedback + export
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .assignments import build
from .class_report import BOOK_HTML, write_class_report
from .config import COURSE_ID, DEFAULT_TIMEOUT
from .course_folder import ClassroomError
from .feedback_pages import feedback
from .grades_csv import export
from .grading import autograde


def _build(args: argparse.Namespace) -> None:
    build(args.root, args.notebooks, course_id=args.course_id, timeout=args.timeout)


def _autograde(args: argparse.Namespace) -> None:
    autograde(args.root, args.chapters or None, jobs=args.jobs, names=args.names)


def _report(args: argparse.Namespace) -> None:
    write_class_report(args.root, names=args.names, book=Path(args.book))


def _feedback(args: argparse.Namespace) -> None:
    feedback(args.root, args.chapters or None)


def _export(args: argparse.Namespace) -> None:
    export(args.root, args.to)


def _grade(args: argparse.Namespace) -> None:
    _autograde(args)
    _feedback(args)
    export(args.root)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m qkv_classroom",
        description="授業用の nbgrader コースフォルダを作り、提出物を採点します。",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, run, help_text: str, chapters: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(run=run)
        p.add_argument("--root", default="classroom", help="コースフォルダ(既定: classroom)")
        if chapters:
            p.add_argument("chapters", nargs="*", help="章の名前(例: 01_one_vector)。省略ですべて")
        return p

    p = command("build", _build, "notebooks/ から source/ と配布版 release/ を作る")
    p.add_argument("--notebooks", default="notebooks", help="章のノートブックのフォルダ")
    p.add_argument("--course-id", default=COURSE_ID)
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="採点時の 1 セルの制限時間(秒)")
    names_help = "クラスの採点レポートに学生の名前を出す(既定では出さない)"
    p = command("autograde", _autograde, "submitted/ の提出物を自動採点する", chapters=True)
    p.add_argument("--jobs", type=int, default=1, help="同時に採点する章の数(2 コアなら 2)")
    p.add_argument("--names", action="store_true", help=names_help)
    p = command("report", _report, "採点済みの提出物からクラスの採点レポートを作り直す")
    p.add_argument("--names", action="store_true", help=names_help)
    p.add_argument("--book", default=str(BOOK_HTML), help="リンク先の本の HTML のフォルダ")
    command("feedback", _feedback, "採点済みの提出物からフィードバック HTML を作る", chapters=True)
    p = command("export", _export, "成績を CSV に書き出す")
    p.add_argument("--to", default=None, help="CSV の書き出し先(既定: <root>/grades.csv)")
    p = command("grade", _grade, "autograde・feedback・export を続けて行う", chapters=True)
    p.add_argument("--jobs", type=int, default=1, help="同時に採点する章の数(2 コアなら 2)")
    p.add_argument("--names", action="store_true", help=names_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except (ClassroomError, ValueError) as err:
        print(f"エラー: {err}", file=sys.stderr)
        return 1
    return 0
