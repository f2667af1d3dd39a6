"""Setting up a class on one machine: Unix accounts, the exchange, the course folder, the hub.

    python -m qkv_hub users    ROSTER.csv            # root: accounts, groups, passwords
    python -m qkv_hub exchange --teacher NAME        # root: /srv/nbgrader/exchange/qkv/...
    python -m qkv_hub course   --teacher NAME        # root: the teacher's ~/qkv-course (as the teacher)
    python -m qkv_hub start                          # root: JupyterHub on 127.0.0.1:8000
    python -m qkv_hub up       ROSTER.csv            # all four (make hub)
    python -m qkv_hub remove   ROSTER.csv            # root: delete the roster's accounts and homes

The roster is a CSV with the columns `role` (teacher or student) and `username`. Every student
and teacher is a real Unix account with a private home (0700) and its own group; the teachers'
group owns the exchange's inbound folder; a teacher is a member of each student's group so that
released feedback can be made readable by that student alone (see qkv_hub.exchange). The tests
and the benchmark call the same functions with a unique name prefix and temporary folders.
"""

from __future__ import annotations

import csv
import grp
import os
import pwd
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .config import COURSE_DIR_NAME, DEFAULT_EXCHANGE, ENV_EXCHANGE
from .spawner import CONFIG_ROOT

Log = Callable[[str], None]

REPO = Path(__file__).resolve().parents[2]
HUB_CONFIG = REPO / "deploy" / "hub" / "jupyterhub_config.py"
USERNAME = re.compile(r"[a-z_][a-z0-9_-]{0,30}")


class SetupError(RuntimeError):
    """A setup step cannot be done; the message says why, in Japanese."""


@dataclass(frozen=True)
class Classroom:
    """Names and places of one class on one machine (the defaults are a real class's)."""

    teachers_group: str = "qkv-teachers"
    students_group: str = "qkv-students"
    exchange_root: str = DEFAULT_EXCHANGE
    state_dir: str = "/srv/qkv-hub"
    runtime_root: str = "/run/qkv-hub"
    #: None: useradd's default (/home/<name>).
    home_base: str | None = None

    def hub_environment(self, *, ip: str = "127.0.0.1", port: int = 8000, api_port: int = 8081,
                        proxy_api_port: int = 8001, mem_limit: str | None = None) -> dict[str, str]:
        """The variables deploy/hub/jupyterhub_config.py reads."""
        env = {
            "QKV_HUB_IP": ip, "QKV_HUB_PORT": str(port), "QKV_HUB_API_PORT": str(api_port),
            "QKV_HUB_PROXY_API_PORT": str(proxy_api_port), "QKV_HUB_STATE": self.state_dir,
            "QKV_HUB_TEACHERS": self.teachers_group,
            "QKV_HUB_STUDENTS": self.students_group, "QKV_HUB_RUNTIME": self.runtime_root,
            ENV_EXCHANGE: self.exchange_root,
        }
        if mem_limit:
            env["QKV_HUB_MEM_LIMIT"] = mem_limit
        return env


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        raise SetupError(f"{what}には root の権限が要ります(システムのユーザーやフォルダを作るため)。"
                         "sudo をつけて実行してください。")


def read_roster(path: str | os.PathLike) -> list[tuple[str, str]]:
    """[(role, username), ...] from a CSV with the columns role and username."""
    rows = []
    with open(path, encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh), start=2):
            role, name = (row.get("role") or "").strip(), (row.get("username") or "").strip()
            if role not in ("teacher", "student"):
                raise SetupError(f"{path} の {n} 行目: role は teacher か student です({role!r} が来ました)。")
            if not USERNAME.fullmatch(name):
                raise SetupError(f"{path} の {n} 行目: ユーザー名 {name!r} は使えません"
                                 "(英小文字で始まる、英小文字・数字・_・- の 31 文字まで)。")
            rows.append((role, name))
    if not any(r == "teacher" for r, _ in rows):
        raise SetupError(f"{path} に先生(role が teacher の行)がありません。")
    return rows


def _run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(list(cmd), capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise SetupError(f"{' '.join(cmd)} が失敗しました: {done.stderr.strip() or done.stdout.strip()}")
    return done


def _exists(name: str, lookup: Callable[[str], object] = pwd.getpwnam) -> bool:
    """Whether the system knows the account `name` (or the group, with `lookup=grp.getgrnam`)."""
    try:
        lookup(name)
    except KeyError:
        return False
    return True


def create_users(roster: Iterable[tuple[str, str]], classroom: Classroom = Classroom(), *,
                 log: Log = print) -> dict[str, str]:
    """Make the roster's Unix accounts; return {username: password} for the new ones.

    Existing accounts keep their password; they are added to the class's groups. Says first what
    it is about to create.
    """
    require_root("ユーザーを作る")
    roster = list(roster)
    teachers = [n for r, n in roster if r == "teacher"]
    students = [n for r, n in roster if r == "student"]
    new = [n for _, n in roster if not _exists(n)]
    log(f"root として、システムのグループ {classroom.teachers_group}, {classroom.students_group} と、"
        f"ユーザー {len(new)} 人({', '.join(new) or 'なし'})を作ります。"
        "ホームは本人だけが読めるようにします(0700)。")
    for group in (classroom.teachers_group, classroom.students_group):
        if not _exists(group, grp.getgrnam):
            _run(["groupadd", group])
    passwords = {}
    for role, name in roster:
        group = classroom.teachers_group if role == "teacher" else classroom.students_group
        if name in new:
            cmd = ["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", "--groups", group]
            if classroom.home_base:
                cmd += ["--home-dir", os.path.join(classroom.home_base, name)]
            _run(cmd + [name])
            passwords[name] = secrets.token_urlsafe(9)
            _run(["chpasswd"], input=f"{name}:{passwords[name]}\n")
        else:
            _run(["usermod", "--append", "--groups", group, name])
        os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    if students:
        for teacher in teachers:  # to make each student's feedback readable by that student only
            _run(["usermod", "--append", "--groups", ",".join(students), teacher])
    return passwords


def _end_processes_of(uids: set[int], timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL, every process owned by one of `uids` (found by pid)."""
    import psutil

    def owned():
        procs = []
        for p in psutil.process_iter(["uids"]):
            try:
                if p.info["uids"] and p.info["uids"].real in uids:
                    procs.append(p)
            except psutil.Error:
                pass
        return procs

    procs = owned()
    for p in procs:
        try:
            p.send_signal(signal.SIGTERM)
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=timeout)


def remove_users(names: Iterable[str], classroom: Classroom = Classroom(), *, log: Log = print) -> None:
    """Delete the accounts (their processes, homes and own groups) and the class's two groups."""
    require_root("ユーザーを消す")
    names = [n for n in names if _exists(n)]
    log(f"root として、ユーザー {len(names)} 人({', '.join(names) or 'なし'})とそのホーム、"
        f"グループ {classroom.teachers_group}, {classroom.students_group} を消します。")
    _end_processes_of({pwd.getpwnam(n).pw_uid for n in names})
    for name in names:
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        if _exists(name, grp.getgrnam):
            subprocess.run(["groupdel", name], capture_output=True)
    for group in (classroom.teachers_group, classroom.students_group):
        if _exists(group, grp.getgrnam):
            subprocess.run(["groupdel", group], capture_output=True)


def make_exchange(teacher: str, classroom: Classroom = Classroom(), *, course_id: str | None = None,
                  log: Log = print) -> Path:
    """The exchange folders for one course, with the modes qkv_hub.exchange relies on.

    root/                 root         1777  everyone may make their course folder (nbgrader's rule)
    root/<course>/        teacher      0755
      outbound/           teacher      0755  released assignments, readable by all
      inbound/            teacher:T    3733  set-group-id, sticky: students write, nobody lists
      feedback/           teacher:T    1711  feedback files by secret name, nobody lists
    (T = the teachers' group)
    """
    from qkv_classroom import COURSE_ID

    require_root("exchange のフォルダを作る")
    course_id = course_id or COURSE_ID
    root = Path(classroom.exchange_root)
    log(f"root として、nbgrader の exchange {root}/{course_id} を作ります(持ち主 {teacher})。")
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o1777)
    uid = pwd.getpwnam(teacher).pw_uid
    gid = grp.getgrnam(classroom.teachers_group).gr_gid
    course = root / course_id
    for path, mode, group in ((course, 0o755, gid), (course / "outbound", 0o755, gid),
                              (course / "inbound", 0o3733, gid), (course / "feedback", 0o1711, gid)):
        path.mkdir(exist_ok=True)
        os.chown(path, uid, group)
        os.chmod(path, mode)
    return course


def user_environment(username: str, classroom: Classroom = Classroom()) -> dict[str, str]:
    """The environment of `username`'s Jupyter on the hub, for running commands as that user."""
    from .spawner import role_environment

    user = pwd.getpwnam(username)
    env = {"HOME": user.pw_dir, "USER": username, "LOGNAME": username, "LANG": "C.UTF-8"}
    env.update(role_environment(username, teachers_group=classroom.teachers_group,
                                exchange_root=classroom.exchange_root, config_root=CONFIG_ROOT))
    return env


def run_as(username: str, cmd: Sequence[str], classroom: Classroom = Classroom(), *,
           env: Mapping[str, str] | None = None, cwd: str | None = None, timeout: float = 600,
           check: bool = False) -> subprocess.CompletedProcess:
    """Run `cmd` as the Unix user `username` (uid, groups, home), with that user's hub environment."""
    require_root("ほかのユーザーとしてコマンドを実行する")
    user = pwd.getpwnam(username)
    full_env = user_environment(username, classroom)
    full_env.update(env or {})
    done = subprocess.run(
        list(cmd), user=user.pw_uid, group=user.pw_gid,
        extra_groups=os.getgrouplist(username, user.pw_gid), env=full_env,
        cwd=cwd or user.pw_dir, capture_output=True, text=True, timeout=timeout, umask=0o022,
    )
    if check and done.returncode != 0:
        raise SetupError(f"{username} として {' '.join(cmd)} が失敗しました:\n{done.stdout}\n{done.stderr}")
    return done


def make_course(teacher: str, classroom: Classroom = Classroom(), *,
                notebooks: str | os.PathLike = REPO / "notebooks", log: Log = print) -> Path:
    """The teacher's course folder ~/qkv-course, built by qkv_classroom as the teacher, for this exchange."""
    home = pwd.getpwnam(teacher).pw_dir
    folder = Path(home) / COURSE_DIR_NAME
    log(f"{teacher} として、授業のフォルダ {folder} を作ります(make assignments と同じ build)。")
    run_as(teacher, [sys.executable, "-m", "qkv_classroom", "build", "--root", str(folder),
                     "--notebooks", str(Path(notebooks).resolve())], classroom, check=True)
    local = folder / "nbgrader_config_local.py"
    text = ("# The class hub's exchange (written by `python -m qkv_hub course`).\n"
            "from qkv_hub.config import configure_nbgrader\n\n"
            f"configure_nbgrader(c, role=\"teacher\", exchange_root={classroom.exchange_root!r})  "
            "# noqa: F821\n")
    run_as(teacher, [sys.executable, "-c",
                     "import os, sys; from pathlib import Path; p = Path(sys.argv[1]); "
                     "p.write_text(sys.argv[2], encoding='utf-8'); os.chmod(p.parent, 0o700)",
                     str(local), text], classroom, check=True)
    return folder


def start_hub(classroom: Classroom = Classroom(), *, wait: bool = True, log: Log = print,
              stdout=None, **hub_env) -> subprocess.Popen:
    """Start JupyterHub with deploy/hub/jupyterhub_config.py; `wait`: run until it stops."""
    require_root("JupyterHub を(ほかのユーザーのサーバーを起動できるように)動かす")
    Path(classroom.state_dir).mkdir(parents=True, exist_ok=True)
    os.chmod(classroom.state_dir, 0o700)
    env = dict(os.environ)
    env.update(classroom.hub_environment(**hub_env))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    cmd = [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(HUB_CONFIG)]
    log(f"JupyterHub を http://{env['QKV_HUB_IP']}:{env['QKV_HUB_PORT']}/ で起動します"
        f"(状態は {classroom.state_dir}、止めるには Ctrl+C)。")
    proc = subprocess.Popen(cmd, cwd=classroom.state_dir, env=env, stdout=stdout,
                            stderr=subprocess.STDOUT if stdout else None, start_new_session=not wait)
    if wait:  # Ctrl+C or a SIGTERM stops the hub (and with it every user's server) first
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: proc.send_signal(signum))
        try:
            proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
        finally:
            signal.signal(signal.SIGTERM, previous)
    return proc


def stop_hub(proc: subprocess.Popen, timeout: float = 30) -> None:
    """Stop a hub started with `wait=False`: SIGTERM (it stops the users' servers), then SIGKILL."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
