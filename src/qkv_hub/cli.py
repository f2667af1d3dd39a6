"""`python -m qkv_hub ...`: the teacher's commands for a class hub on one machine (see setup)."""

from __future__ import annotations

import argparse
import csv
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import setup
from .setup import Classroom, SetupError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m qkv_hub",
                                     description="授業用の JupyterHub を 1 台のマシンに用意します。")
    parser.add_argument("--exchange", default=Classroom.exchange_root, help="nbgrader の exchange のフォルダ")
    parser.add_argument("--state", default=Classroom.state_dir, help="ハブの状態(データベース、パスワード一覧)")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("users", "名簿のユーザーを作る"), ("remove", "名簿のユーザーを消す"),
                       ("up", "ユーザー・exchange・授業フォルダを用意してハブを起動する")):
        p = sub.add_parser(name, help=text)
        p.add_argument("roster", help="名簿の CSV(列: role, username)")
    for name, text in (("exchange", "exchange のフォルダを作る"), ("course", "先生の授業フォルダを作る")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--teacher", required=True, help="先生のユーザー名")
    for name in ("start", "up"):
        p = sub.choices[name] if name in sub.choices else sub.add_parser(name, help="ハブを起動する")
        p.add_argument("--ip", default="127.0.0.1", help="待ち受けるアドレス(既定: 127.0.0.1)")
        p.add_argument("--port", type=int, default=8000)
    return parser


def _save_passwords(passwords: dict[str, str], state: str) -> None:
    if not passwords:
        return
    Path(state).mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    path = Path(state) / "passwords.csv"
    is_new = not path.exists()
    with open(path, "a", encoding="utf-8", newline="") as fh:
        os.chmod(path, 0o600)
        writer = csv.writer(fh)
        if is_new:
            writer.writerow(["username", "password"])
        writer.writerows(sorted(passwords.items()))
    print(f"新しいユーザーの最初のパスワードを {path} に書きました(root だけが読めます)。")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    classroom = Classroom(exchange_root=args.exchange, state_dir=args.state)
    try:
        if args.command in ("users", "up"):
            roster = setup.read_roster(args.roster)
            _save_passwords(setup.create_users(roster, classroom), args.state)
            teacher = next(n for r, n in roster if r == "teacher")
        if args.command == "remove":
            setup.remove_users([n for _, n in setup.read_roster(args.roster)], classroom)
        if args.command in ("exchange", "course"):
            teacher = args.teacher
        if args.command in ("exchange", "up"):
            setup.make_exchange(teacher, classroom)
        if args.command in ("course", "up"):
            setup.make_course(teacher, classroom)
        if args.command in ("start", "up"):
            setup.start_hub(classroom, ip=args.ip, port=args.port)
    except SetupError as err:
        print(f"エラー: {err}", file=sys.stderr)
        return 1
    return 0
