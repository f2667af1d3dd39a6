"""A real JupyterLab for browser tests and `make bench`: free port, token, timeout, always stopped.

    work = lab_server.learner_copy(tmp_path)        # the learner's copy, as `make lab` makes it
    with lab_server.running(work) as lab:           # the learner's `make lab`
        page.goto(lab.url("lab/tree/notebooks/04_three_matrices.ipynb"))

Everything the server writes (runtime files, settings, workspaces, the trust database) goes to
a temporary folder, so a run leaves no trace in ~/.jupyter and every notebook opens untrusted, as
in a fresh clone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import chromium

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "lab" / "jupyter_config"
#: The config the Makefile's `lab` target uses (nbgrader's authoring UI off) and `lab-teacher`.
LEARNER_CONFIG_PATH = f"{CONFIG / 'learner'}{os.pathsep}{CONFIG}"
TEACHER_CONFIG_PATH = str(CONFIG)
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


#: Lab settings for a test run: every cell in the page, not only those scrolled into view (what
#: a learner sees is the book's lab_settings/overrides.json: Japanese, no news prompt).
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
}
#: The menu names a learner sees (the Japanese language pack; tests/test_lab.py checks them there).
MENU_RUN, RUN_ALL = "実行", "すべてのセルを実行"


def learner_copy(folder: Path) -> Path:
    """The learner's copy of the chapters in `folder`/work, made as `make lab` makes it."""
    import learner_lab

    work = folder / "work"
    learner_lab.prepare(work)
    return work


@dataclass
class Lab:
    base: str
    token: str
    log: Path

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path}{sep}token={self.token}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running(root: Path, teacher: bool = False, timeout: float = 180.0, settings: dict | None = None):
    """Start JupyterLab on `root`; yield a `Lab`; stop it (and its kernels) however we leave.
    `settings`: Lab settings by plugin (None: SETTINGS, the tests')."""
    with tempfile.TemporaryDirectory(prefix="qkv-lab-") as tmp:
        tmp = Path(tmp)
        for plugin, values in (SETTINGS if settings is None else settings).items():
            path = tmp / "settings" / f"{plugin}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        port, token = free_port(), secrets.token_hex(16)
        env = {
            **os.environ,
            "JUPYTER_CONFIG_PATH": TEACHER_CONFIG_PATH if teacher else LEARNER_CONFIG_PATH,
            "JUPYTER_DATA_DIR": str(tmp / "data"),
            "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        }
        env.pop("QKV_STATIC_BOOK", None)
        log = tmp / "lab.log"
        cmd = [
            sys.executable, "-m", "jupyterlab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={tmp / 'settings'}",
            f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
            *([] if teacher else learner_options()),
        ]
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        lab = Lab(f"http://127.0.0.1:{port}", token, log)
        try:
            _wait_until_up(lab, proc, timeout)
            yield lab
        finally:
            _shut_down_kernels(lab)
            _stop(proc)


def learner_options() -> list[str]:
    """What `make lab` passes JupyterLab besides its folder (lab/learner_lab.py)."""
    import learner_lab

    return list(learner_lab.LAB_OPTIONS)


def run_all(lab: Lab, page, notebook: str, timeout: float = 120.0) -> None:
    """Run All in the open `notebook`, as a learner does from the 実行 (Run) menu, once its own kernel
    has started and is idle (clicked earlier, on a server just started, the run could be lost),
    and after taking the default kernel if Lab asks which one."""
    deadline = time.monotonic() + timeout
    dialog = page.locator(".jp-Dialog .jp-mod-accept")
    while time.monotonic() < deadline:
        if dialog.count():  # Lab asks which kernel (a notebook that names none): no kernel until answered
            dialog.first.click()
        with contextlib.suppress(OSError, ValueError):
            with urllib.request.urlopen(lab.url("api/sessions"), timeout=5) as r:
                if any(s["path"].endswith(notebook) and (s.get("kernel") or {}).get("execution_state") == "idle"
                       for s in json.load(r)):
                    break
        time.sleep(0.5)
    focus_notebook(page)
    page.keyboard.press("Escape")
    # On a loaded machine a click on the menu bar while Lab still lays the notebook out can open
    # the menu and close it again (CI: the item never appeared in 30 s): open it until it shows.
    item = page.locator(".lm-Menu-itemLabel").get_by_text(RUN_ALL, exact=True)
    menu_deadline = time.monotonic() + 60
    while True:
        page.locator(".lm-MenuBar-itemLabel").get_by_text(MENU_RUN, exact=True).click()
        try:
            item.wait_for(state="visible", timeout=5_000)
            break
        except Exception:
            if time.monotonic() > menu_deadline:
                raise
            page.keyboard.press("Escape")
    item.click()


#: Lab's page config, in the HTML of every Lab page it serves.
PAGE_CONFIG = re.compile(r'(<script id="jupyter-config-data" type="application/json">)(.*?)(</script>)', re.S)
#: Lab's extension that typesets maths (MathJax).
MATHS = "@jupyterlab/mathjax-extension"


def reading_only(lab: Lab, page) -> None:
    """Notebooks opened in this page (from its URL or its file browser) start no kernel and their
    maths is left as TeX, as with `--LabApp.notebook_starts_kernel=False` and MathJax's extension
    disabled, but for this page only: Lab's page config in the HTML it is served is changed on its
    way in. For tests that only read and click links: every kernel started imports numpy,
    matplotlib and helpers, and typesetting a chapter's maths takes the browser seconds, each time
    a chapter is opened."""
    base = urllib.parse.urlsplit(lab.base)

    def lab_page(url: str) -> bool:
        parts = urllib.parse.urlsplit(url)
        return parts.netloc == base.netloc and (parts.path == "/lab" or parts.path.startswith("/lab/tree/"))

    def fulfil(route) -> None:
        response = route.fetch()
        found = PAGE_CONFIG.search(response.text())
        config = json.loads(found.group(2)) if found else {}
        if "notebookStartsKernel" not in config:  # Lab changed: fail the load, start nothing unseen
            route.fulfill(status=500, body="Lab のページ設定に notebookStartsKernel がありません")
            return
        config["notebookStartsKernel"] = False
        disabled = config.get("disabledExtensions") or []
        config["disabledExtensions"] = ({**disabled, MATHS: True} if isinstance(disabled, dict)
                                        else [*disabled, MATHS])
        text = json.dumps(config).replace("<", "\\u003c")  # as Lab writes it: no "</script>" inside
        html = PAGE_CONFIG.sub(lambda m: m.group(1) + text + m.group(3), response.text(), count=1)
        route.fulfill(response=response, body=html)

    page.route(lab_page, fulfil)


def focus_notebook(page, cell: int = 0, within: str = "") -> None:
    """Give the open notebook (the one in `within`, a CSS selector, when several are open) the focus
    by clicking a cell's prompt area, which holds no link (a click in the middle of the notebook
    followed chapter 06's glossary link there, and the glossary then was Lab's current tab)."""
    page.locator(f"{within} .jp-Notebook .jp-Cell .jp-InputPrompt".strip()).nth(cell).click()


#: True once the box of what the CSS selector `s` finds has stayed the same for `n` frames in a row
#: (polled once a frame).
STILL = """([s, n]) => { const r = document.querySelector(s)?.getBoundingClientRect();
  const box = r ? [r.x, r.y, r.width, r.height].join() : '';
  const seen = (window.qkvStill ??= { box: null, frames: 0 });
  seen.frames = seen.box === box ? seen.frames + 1 : 0;
  seen.box = box;
  return seen.frames >= n; }"""


def laid_out_again(page, selector: str = ".jp-NotebookPanel", frames: int = 3) -> None:
    """Returns once Lab has laid its panels out again after the window was resized or a side bar
    opened or closed: Lumino does it in its message loop, over a frame or a few, so the box of
    `selector` (the notebook, by default) is waited for until it stays the same `frames` frames."""
    page.evaluate("() => { delete window.qkvStill; }")
    page.wait_for_function(STILL, arg=[selector, frames], polling="raf", timeout=30_000)


#: Lab's document tabs, and the label of the one in front.
TABS = ".lm-DockPanel-tabBar .lm-TabBar-tab"
CURRENT_TAB = f"{TABS}.lm-mod-current .lm-TabBar-tabLabel"


def front_document(page) -> str:
    """A CSS selector for the document in Lab's front tab (the others stay open behind it)."""
    return "#" + page.locator(f"{TABS}.lm-mod-current").get_attribute("data-id")


def close_tab(page, title: str) -> None:
    """Close the notebook whose tab is labelled `title`, in front or behind others, with a middle
    click on its tab, which closes a tab in Lab (brought to the front first, the whole notebook
    would be laid out again)."""
    panels = page.locator(".jp-NotebookPanel").count()
    label = page.locator(".lm-TabBar-tabLabel").get_by_text(title, exact=True)
    page.locator(TABS, has=label).click(button="middle")
    page.wait_for_function("n => document.querySelectorAll('.jp-NotebookPanel').length < n", arg=panels,
                           timeout=30_000)


def show_file_browser(page):
    """Lab's file browser, opened in the left side bar if it is closed (a narrow window closes
    it); returns its locator."""
    files = page.locator("#filebrowser")
    if not files.is_visible():
        page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').click()
    files.wait_for(state="visible")
    return files


def open_from_the_file_browser(page, name: str) -> None:
    """Open `name` (in the folder the file browser shows) as a learner does: a double click on it
    in the file browser; returns once its tab is in front with its cells laid out."""
    show_file_browser(page)
    page.locator(".jp-DirListing-item .jp-DirListing-itemText").get_by_text(name, exact=True).dblclick()
    page.wait_for_function("([s, t]) => document.querySelector(s)?.textContent === t",
                           arg=[CURRENT_TAB, name], timeout=60_000)
    page.wait_for_selector(f"{front_document(page)} .jp-Notebook .jp-Cell", timeout=120_000)


def reopen(lab: Lab, page, name: str) -> None:
    """Close every notebook of this Lab page, end every session (its kernel), then open `name`
    again from the file browser: what a learner gets from closing a saved notebook and opening it
    again, a new kernel and the widgets restored from the file, without loading Lab's page again
    (a page load costs Lab's server and the browser several seconds of a core)."""
    page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)
    while (open_now := page.locator(".jp-NotebookPanel").count()):
        page.locator(f"{TABS}.lm-mod-current .lm-TabBar-tabCloseIcon").click()
        page.wait_for_function("n => document.querySelectorAll('.jp-NotebookPanel').length < n",
                               arg=open_now, timeout=30_000)
    end_sessions(lab)
    open_from_the_file_browser(page, name)


def end_sessions(lab: Lab) -> None:
    """End every notebook session (and so its kernel), as closing the notebook and shutting its
    kernel down would: a notebook opened again then starts a new session with a new kernel (a
    session whose kernel alone was deleted is reused, and waits for that kernel)."""
    _delete_every(lab, "sessions")
    _shut_down_kernels(lab)


def running_kernels(lab: Lab) -> list[dict]:
    """The kernels the server runs now (its api/kernels)."""
    with urllib.request.urlopen(lab.url("api/kernels"), timeout=30) as r:
        return json.load(r)


def _shut_down_kernels(lab: Lab) -> None:
    _delete_every(lab, "kernels")


def _delete_every(lab: Lab, collection: str) -> None:
    """DELETE each item of the server's api/<collection> (sessions, kernels)."""
    with contextlib.suppress(OSError, ValueError):
        with urllib.request.urlopen(lab.url(f"api/{collection}"), timeout=5) as r:
            items = json.load(r)
        for item in items:
            req = urllib.request.Request(lab.url(f"api/{collection}/{item['id']}"), method="DELETE")
            urllib.request.urlopen(req, timeout=30).close()


def _wait_until_up(lab: Lab, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"JupyterLab が起動しませんでした:\n{lab.log.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(lab.url("api/status"), timeout=5) as r:
                if r.status == 200:
                    return
        time.sleep(0.1)
    raise TimeoutError(f"JupyterLab が {timeout:.0f} 秒以内に起動しませんでした:\n"
                       f"{lab.log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    """SIGKILL to the server's own process group. `running` shut its kernels down through its
    API just before, and a kernel it still had (each has a session of its own) ends by itself
    once its parent is gone (ipykernel polls its parent: JPY_PARENT_PID). Nothing is left to
    save in a throwaway server, and its graceful stop on SIGTERM took seconds (about 3 s of an
    idle server, 8 s in the Lab tests, on the loaded two cores) that no test reads."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=15)


@contextlib.contextmanager
def browser():
    """Headless Chrome/Chromium through Playwright: the one `make test` found or installed
    (tools/chromium.py; `QKV_CHROMIUM` chooses). Raises chromium.Missing when there is none."""
    from playwright.sync_api import sync_playwright

    executable = chromium.find().path
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
