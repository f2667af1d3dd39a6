# JupyterHub for one class on one machine: 「Q・K・V はどこから来るのか」.
#
# Start it with `make hub` (or `python -m qkv_hub start`), which sets the QKV_HUB_* variables
# below; the defaults are a real class's. Every student and teacher is a Unix account (made by
# `python -m qkv_hub users ROSTER.csv`); each logs in with that account's password (PAM) and gets a
# JupyterLab that runs as that account, with this course's environment (the Python running this
# hub) and nbgrader's exchange. Teachers (members of QKV_HUB_TEACHERS) also get the formgrader.
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821
env = os.environ.get

ip = env("QKV_HUB_IP", "127.0.0.1")
state = Path(env("QKV_HUB_STATE", "/srv/qkv-hub"))
teachers, students = env("QKV_HUB_TEACHERS", "qkv-teachers"), env("QKV_HUB_STUDENTS", "qkv-students")
bin_dir = Path(sys.executable).parent
repo = Path(__file__).resolve().parents[2]

# --- where it listens: the public port, and the hub's and the proxy's own ports on loopback only
c.JupyterHub.bind_url = f"http://{ip}:{env('QKV_HUB_PORT', '8000')}/"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{env('QKV_HUB_API_PORT', '8081')}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{env('QKV_HUB_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.command = [str(repo / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(state / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every student's server

# --- who may log in: the accounts in the class's two groups, each with its own password (PAM)
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {teachers, students}
c.PAMAuthenticator.open_sessions = False

# --- each user's server: that Unix account, this environment, the role's Jupyter config, limits
c.JupyterHub.spawner_class = "qkv_hub.spawner.ClassroomSpawner"
c.ClassroomSpawner.teachers_group = teachers
c.ClassroomSpawner.exchange_root = env("QKV_EXCHANGE_ROOT", "/srv/nbgrader/exchange")
c.ClassroomSpawner.runtime_root = env("QKV_HUB_RUNTIME", "/run/qkv-hub")
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
# Address space per process (server, each kernel). A student's server and kernel together peaked
# at about 290 MiB resident while running a chapter (tests/support/bench_classroom.py, 30 at once); 2 GiB
# per process leaves room for experiments and stops a runaway allocation with a MemoryError
# instead of starving the machine.
c.Spawner.mem_limit = env("QKV_HUB_MEM_LIMIT", "2G")
# 30 servers starting at once on 2 cores take a while; give each time to start.
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.concurrent_spawn_limit = 60

# --- tests and the load benchmark: a service token that may start and use every user's server
if env("QKV_HUB_SERVICE_TOKEN"):
    c.JupyterHub.services = [{"name": "qkv-harness", "api_token": env("QKV_HUB_SERVICE_TOKEN")}]
    c.JupyterHub.load_roles = [{
        "name": "qkv-harness",
        "scopes": ["admin:users", "admin:servers", "access:servers", "tokens"],
        "services": ["qkv-harness"],
    }]
