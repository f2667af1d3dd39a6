"""A throwaway class on this machine for the hub's end-to-end test and the load benchmark.

`TempClass` makes Unix accounts with a unique prefix (teacher `<p>t`, students `<p>s01`, ...), an
exchange, a runtime folder and the hub's state under one short temporary folder, starts the recipe's
JupyterHub (deploy/hub/jupyterhub_config.py, PAM login) on free loopback ports, and on exit stops
the hub, ends every process of those accounts (by pid), deletes the accounts, their homes and
groups, and the folder. Everything goes through `qkv_hub.setup`, the same code a teacher runs.

`Hub` talks to the hub's REST API with a service token, or with a user's own token; `Kernel`
runs code in a user's kernel over the server's websocket, as JupyterLab does.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import requests
import websocket

ROOT = Path(__file__).resolve().parents[2]


def _setup():
    """`qkv_hub.setup`, imported when a class is made: it loads JupyterHub's spawner and database
    (about 1.5 CPU s), which every pytest worker would otherwise pay to collect a module that
    `make test` skips."""
    from qkv_hub import setup

    return setup


def free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def why_not_here() -> str | None:
    """Why a class hub cannot run on this machine, or None."""
    if os.geteuid() != 0:
        return "授業用ハブのテストは root で実行します(システムのユーザーを作るため)"
    for tool in ("useradd", "userdel", "chpasswd"):
        if shutil.which(tool) is None:
            return f"{tool} がありません"
    if not (ROOT / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        return "configurable-http-proxy がありません(make setup で npm ci を実行してください)"
    return None


def readable_by_others(path: Path) -> Path | None:
    """The first folder on the way to `path` that other users cannot enter, or None."""
    for folder in [*reversed(path.resolve().parents), path.resolve()]:
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


@dataclass
class TempClass:
    """One teacher and `n_students` students, an exchange and a hub, all removed on exit."""

    n_students: int = 3
    mem_limit: str | None = None
    build_course: bool = True
    prefix: str = field(default_factory=lambda: "qh" + secrets.token_hex(3))
    log_lines: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.teacher = f"{self.prefix}t"
        self.students = [f"{self.prefix}s{i:02d}" for i in range(1, self.n_students + 1)]
        self.base = Path(tempfile.mkdtemp(prefix=f"{self.prefix}-", dir="/tmp"))
        os.chmod(self.base, 0o755)
        self.classroom = _setup().Classroom(
            teachers_group=f"{self.prefix}-teachers", students_group=f"{self.prefix}-students",
            exchange_root=str(self.base / "exchange"), state_dir=str(self.base / "state"),
            runtime_root=str(self.base / "rt"), home_base=str(self.base / "home"),
        )
        (self.base / "home").mkdir(mode=0o755)
        self.passwords: dict[str, str] = {}
        self.hub_proc = None
        self.hub: Hub | None = None

    def log(self, line: str) -> None:
        self.log_lines.append(line)

    def __enter__(self) -> TempClass:
        try:
            roster = [("teacher", self.teacher)] + [("student", s) for s in self.students]
            self.passwords = _setup().create_users(roster, self.classroom, log=self.log)
            self.course = None
            if self.build_course:
                _setup().make_exchange(self.teacher, self.classroom, log=self.log)
                self.course = _setup().make_course(self.teacher, self.classroom, log=self.log)
            self.start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def start(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        token = secrets.token_hex(24)
        self.hub_log = open(self.base / "hub.log", "w")  # noqa: SIM115 - closed in __exit__
        os.environ["QKV_HUB_SERVICE_TOKEN"] = token
        try:
            self.hub_proc = _setup().start_hub(
                self.classroom, wait=False, log=self.log, stdout=self.hub_log, port=self.port,
                api_port=free_port(), proxy_api_port=free_port(), mem_limit=self.mem_limit)
        finally:
            del os.environ["QKV_HUB_SERVICE_TOKEN"]
        self.hub = Hub(self.url, token)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.hub_proc.poll() is not None:
                raise RuntimeError(f"JupyterHub が止まりました:\n{self.hub_log_text()[-3000:]}")
            try:
                if requests.get(f"{self.url}/hub/api/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"JupyterHub が 90 秒で起動しませんでした:\n{self.hub_log_text()[-3000:]}")

    def hub_log_text(self) -> str:
        try:
            return (self.base / "hub.log").read_text(errors="replace")
        except OSError:
            return ""

    def __exit__(self, *exc) -> None:
        if self.hub_proc is not None:
            _setup().stop_hub(self.hub_proc)
            self.hub_log.close()
        _setup().remove_users([self.teacher, *self.students], self.classroom, log=self.log)
        shutil.rmtree(self.base, ignore_errors=True)

    def uids(self) -> set[int]:
        return {pwd.getpwnam(n).pw_uid for n in [self.teacher, *self.students]}

    def run_as(self, user: str, cmd: list[str], **kw) -> subprocess.CompletedProcess:
        return _setup().run_as(user, cmd, self.classroom, **kw)

    def home(self, user: str) -> Path:
        return Path(pwd.getpwnam(user).pw_dir)


class Hub:
    """The hub's REST API, with the harness's service token (or a user's own token)."""

    def __init__(self, url: str, token: str):
        self.url = url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"token {token}"

    def api(self, method: str, path: str, **kw) -> requests.Response:
        kw.setdefault("timeout", 60)
        return self.session.request(method, f"{self.url}/hub/api{path}", **kw)

    def ensure_user(self, user: str) -> None:
        """Make `user` known to the hub (a PAM account appears there at its first login)."""
        if self.api("GET", f"/users/{user}").status_code == 404:
            self.api("POST", f"/users/{user}").raise_for_status()

    def user_token(self, user: str) -> str:
        self.ensure_user(user)
        r = self.api("POST", f"/users/{user}/tokens", json={"note": "qkv-harness", "expires_in": 3600})
        r.raise_for_status()
        return r.json()["token"]

    def as_user(self, user: str) -> UserClient:
        return UserClient(self.url, user, self.user_token(user))

    def start_server(self, user: str, timeout: float = 240) -> float:
        """Start `user`'s server; return the seconds until it answered through the proxy."""
        self.ensure_user(user)
        t0 = time.monotonic()
        r = self.api("POST", f"/users/{user}/server")
        if r.status_code not in (201, 202, 400):  # 400: already running
            raise RuntimeError(f"{user}: {r.status_code} {r.text}")
        while time.monotonic() - t0 < timeout:
            model = self.api("GET", f"/users/{user}").json()
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                return time.monotonic() - t0
            if not model.get("pending") and not server:
                raise RuntimeError(f"{user} のサーバーが起動しませんでした: {model}")
            time.sleep(0.5)
        raise TimeoutError(f"{user} のサーバーが {timeout} 秒で起動しませんでした")

    def stop_server(self, user: str) -> None:
        self.api("DELETE", f"/users/{user}/server")


class UserClient:
    """One user's Jupyter server (through the hub's proxy), with that user's own token."""

    def __init__(self, url: str, user: str, token: str):
        self.url, self.user, self.token = url, user, token
        self.base = f"{url}/user/{user}"
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"token {token}"

    def request(self, method: str, path: str, **kw) -> requests.Response:
        kw.setdefault("timeout", 120)
        return self.session.request(method, f"{self.base}{path}", **kw)

    def get_notebook(self, path: str) -> dict:
        r = self.request("GET", f"/api/contents/{path}", params={"content": 1})
        r.raise_for_status()
        return r.json()["content"]

    def put_notebook(self, path: str, nb: dict) -> None:
        r = self.request("PUT", f"/api/contents/{path}", json={"type": "notebook", "format": "json", "content": nb})
        r.raise_for_status()

    def kernel(self, path: str = "scratch.ipynb") -> Kernel:
        r = self.request("POST", "/api/sessions", json={"path": path, "type": "notebook", "name": path,
                                                        "kernel": {"name": "python3"}})
        r.raise_for_status()
        return Kernel(self, r.json()["kernel"]["id"])


class Kernel:
    """A kernel of a user's server, driven over its websocket (the messages JupyterLab sends)."""

    def __init__(self, client: UserClient, kernel_id: str):
        self.client, self.id = client, kernel_id
        ws_url = client.base.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels"
        self.session = uuid.uuid4().hex
        self.ws = websocket.create_connection(ws_url, header=[f"Authorization: token {client.token}"],
                                              timeout=300)

    def send(self, code: str) -> str:
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": self.client.user, "session": self.session,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        return msg_id

    def wait(self, msg_id: str, timeout: float = 300) -> dict:
        """The execute_reply to `msg_id`, with the text it printed under "stdout"."""
        self.ws.settimeout(timeout)
        out, reply, idle = [], None, False
        while reply is None or not idle:  # the reply (shell) and the last output (iopub) may cross
            raw = self.ws.recv()
            if isinstance(raw, bytes):  # a message with binary buffers (a widget's comm): not ours
                continue
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "execute_reply":
                reply = msg["content"]
            elif msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle":
                idle = True
        return dict(reply, stdout="".join(out))

    def run(self, code: str, timeout: float = 300) -> dict:
        return self.wait(self.send(code), timeout)

    def interrupt(self) -> None:
        self.client.request("POST", f"/api/kernels/{self.id}/interrupt").raise_for_status()

    def close(self) -> None:
        self.ws.close()
        self.client.request("DELETE", f"/api/kernels/{self.id}")
