"""The class hub's spawner: each user's server as that user's own Unix account, with limits.

JupyterHub's `LocalProcessSpawner` already runs a user's server with that user's uid, groups
and home (so the file system keeps students apart); this adds what a class of 30 on one machine
needed when measured (tests/support/bench_classroom.py):

- the role: a member of the teachers' group gets the teacher's Jupyter config (formgrader on,
  the course folder); everyone else gets the students' (fetch, submit and feedback only);
- a short private runtime folder per user (`<runtime_root>/<uid>`, 0700, made by the hub as
  root) so the kernels can talk over Unix sockets (IPC) instead of 5 TCP ports each: no port
  races when 30 kernels start at once, and no other user can connect to them;
- a fixed port per user (`port_base + uid`, if free) instead of a random one, for the same race;
- per-process limits: address space (`mem_limit`), processes per user, and a lower priority
  (`nice`) so one student's runaway loop or allocation cannot starve the hub or the class.
"""

from __future__ import annotations

import grp
import os
import pwd
import resource
import shutil
import socket
import stat
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from jupyterhub.utils import random_port
from traitlets import Integer, Unicode, default

from .config import COURSE_DIR_NAME, DEFAULT_EXCHANGE, ENV_COURSE_DIR, ENV_EXCHANGE

#: deploy/hub/jupyter/<role>/ in the repository: the Jupyter config of each role.
CONFIG_ROOT = Path(__file__).resolve().parents[2] / "deploy" / "hub" / "jupyter"
#: lab/jupyter_config: what every JupyterLab of the book shares (the explorables' saved state),
#: after the role's own config.
LAB_CONFIG = Path(__file__).resolve().parents[2] / "lab" / "jupyter_config"


def is_teacher(username: str, teachers_group: str) -> bool:
    """Whether the Unix user `username` belongs to `teachers_group` (as a member or primary group)."""
    try:
        group = grp.getgrnam(teachers_group)
        user = pwd.getpwnam(username)
    except KeyError:
        return False
    return username in group.gr_mem or user.pw_gid == group.gr_gid


def role_environment(username: str, *, teachers_group: str, exchange_root: str,
                     config_root: str | os.PathLike = CONFIG_ROOT,
                     runtime_root: str | None = None) -> dict[str, str]:
    """The variables that make `username`'s Jupyter a student's or the teacher's.

    Used by the spawner, and by the tests and the teacher's shell to run the same nbgrader
    commands as that user outside the hub.
    """
    user = pwd.getpwnam(username)
    role = "teacher" if is_teacher(username, teachers_group) else "student"
    env = {
        "JUPYTER_CONFIG_PATH": os.pathsep.join([str(Path(config_root) / role), str(LAB_CONFIG)]),
        ENV_EXCHANGE: exchange_root,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
    }
    if role == "teacher":
        env[ENV_COURSE_DIR] = os.path.join(user.pw_dir, COURSE_DIR_NAME)
    if runtime_root:
        env["JUPYTER_RUNTIME_DIR"] = os.path.join(runtime_root, str(user.pw_uid))
    return env


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class ClassroomSpawner(LocalProcessSpawner):
    """`LocalProcessSpawner` with roles, IPC kernels, fixed ports and per-user limits."""

    teachers_group = Unicode("qkv-teachers", config=True,
                             help="Unix group whose members get the teacher's Jupyter (formgrader).")
    exchange_root = Unicode(config=True, help="nbgrader's exchange folder.")
    config_root = Unicode(str(CONFIG_ROOT), config=True,
                          help="Folder with one Jupyter config folder per role (student, teacher).")
    runtime_root = Unicode("/run/qkv-hub", config=True,
                           help="Root-owned folder for each user's private runtime folder (short: "
                                "Unix socket paths are limited to 107 bytes).")
    port_base = Integer(20000, config=True, help="A user's server listens on port_base + uid if free.")
    nproc_limit = Integer(512, config=True, help="Processes (and threads) per user; 0: no limit.")
    nice = Integer(5, config=True, help="Scheduling priority added to every user process.")

    @default("exchange_root")
    def _exchange_root_default(self):
        return DEFAULT_EXCHANGE

    @default("cmd")
    def _cmd_default(self):
        return [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]

    def get_env(self):
        env = super().get_env()
        env.update(role_environment(self.user.name, teachers_group=self.teachers_group,
                                    exchange_root=self.exchange_root, config_root=self.config_root,
                                    runtime_root=self.runtime_root))
        return env

    def _make_runtime_dir(self) -> None:
        """`<runtime_root>/<uid>`: a directory owned by the user, mode 0700, not a link."""
        user = pwd.getpwnam(self.user.name)
        os.makedirs(self.runtime_root, mode=0o755, exist_ok=True)
        path = os.path.join(self.runtime_root, str(user.pw_uid))
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None and not (stat.S_ISDIR(st.st_mode) and st.st_uid == user.pw_uid):
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(path)
            st = None
        if st is None:
            os.mkdir(path, 0o700)
            os.chown(path, user.pw_uid, user.pw_gid)
        os.chmod(path, 0o700)

    def make_preexec_fn(self, name):
        set_user = super().make_preexec_fn(name)
        mem = int(self.mem_limit) if self.mem_limit else 0
        nproc, nice = self.nproc_limit, self.nice

        def preexec():
            if mem:
                resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
            if nproc:
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            if nice:
                os.nice(nice)
            set_user()

        return preexec

    async def start(self):
        self._make_runtime_dir()
        if self.port == 0:
            preferred = self.port_base + pwd.getpwnam(self.user.name).pw_uid
            self.port = preferred if preferred < 65536 and _port_is_free(preferred) else random_port()
        return await super().start()
