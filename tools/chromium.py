"""Which Chrome/Chromium the browser tests drive, and how `make test` gets one.

The first of these that starts (`<browser> --version` succeeds) is used:

1. `QKV_CHROMIUM`: an executable the user names; when it is set, nothing else is tried.
2. Playwright's own Chromium (`playwright install chromium`; PLAYWRIGHT_BROWSERS_PATH is honoured).
3. The system's Chromium or Chrome on PATH: `chromium` (Debian), `chromium-browser` (Fedora,
   older Ubuntu), `google-chrome`, `google-chrome-stable`.
4. macOS applications: Google Chrome, then Chromium, in /Applications or ~/Applications.

`python tools/chromium.py` (the Makefile's `browser` step, run by `make test`) prints the one it
found. When there is none it installs one the ordinary way for the platform, saying first when
that changes the system rather than the user's own files:

- Playwright's installer, when its download server answers: into Playwright's own cache for this
  user; as root on Debian/Ubuntu with `--with-deps`, which also installs the system libraries the
  browser needs through apt;
- otherwise, as root on Debian and its derivatives (not Ubuntu, where the package is a snap):
  `apt-get install chromium`;
- otherwise it stops with one line that says what to run.

`--dry-run` prints what would be done and changes nothing. tests/test_book.py's `browser` fixture
calls `find()`, so the tests and the set-up step always agree on the browser.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "QKV_CHROMIUM"
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAC_APPS = (
    "Google Chrome.app/Contents/MacOS/Google Chrome",
    "Chromium.app/Contents/MacOS/Chromium",
)
PLAYWRIGHT = [sys.executable, "-m", "playwright"]
PLAYWRIGHT_SOURCE = "Playwright の Chromium"
#: Where system tools (apt-get, dnf) are looked up, whatever PATH the user has.
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Missing(Exception):
    """No usable browser; the message is the one line a user reads.

    `chosen`: the user named the browser (QKV_CHROMIUM), so nothing is to be installed instead.
    """

    def __init__(self, message: str, chosen: bool = False):
        super().__init__(message)
        self.chosen = chosen


@dataclass(frozen=True)
class Found:
    path: str
    source: str  # where it came from, in Japanese, for the log line

    def __str__(self) -> str:
        return f"{self.path}({self.source})"


@dataclass(frozen=True)
class Platform:
    """What the installer decisions depend on; tests pass fakes."""

    system: str  # platform.system(): "Linux", "Darwin", ...
    os_ids: tuple[str, ...]  # ID and ID_LIKE of /etc/os-release, e.g. ("ubuntu", "debian")
    is_root: bool
    has_apt: bool
    has_dnf: bool

    @property
    def debian_family(self) -> bool:
        return "debian" in self.os_ids and "ubuntu" not in self.os_ids

    @classmethod
    def current(cls) -> Platform:
        ids: tuple[str, ...] = ()
        release = Path("/etc/os-release")
        if release.exists():
            fields = dict(re.findall(r'^(\w+)="?([^"\n]*)"?$', release.read_text(), flags=re.M))
            ids = tuple((fields.get("ID", "") + " " + fields.get("ID_LIKE", "")).split())
        return cls(
            system=platform.system(),
            os_ids=ids,
            is_root=hasattr(os, "geteuid") and os.geteuid() == 0,
            has_apt=shutil.which("apt-get", path=SYSTEM_PATH) is not None,
            has_dnf=shutil.which("dnf", path=SYSTEM_PATH) is not None,
        )


# ------------------------------------------------------------------------------------- finding


def starts(path: str) -> str | None:
    """None if `path --version` works, else a short reason (first line of its error)."""
    try:
        run = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e).splitlines()[0] if str(e) else type(e).__name__
    if run.returncode == 0:
        return None
    lines = [line for line in (run.stderr + run.stdout).splitlines() if line.strip()]
    return lines[-1] if lines else f"終了コード {run.returncode}"


def playwright_chromium() -> str | None:
    """Where Playwright keeps its own Chromium (whether or not it is installed), or None."""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            return p.chromium.executable_path
    except Exception:  # no playwright, or its driver cannot start: then it has no browser either
        return None


def playwright_registry(env: Mapping[str, str], system: str, home: Path) -> Path | None:
    """The folder Playwright installs browsers into (None: inside its package, ask Playwright).

    The same rule as Playwright's own registry, so that its driver (a few seconds to start) is
    only asked for the exact path when a Chromium has been installed there.
    """
    chosen = env.get("PLAYWRIGHT_BROWSERS_PATH", "")
    if chosen == "0":
        return None
    if chosen:
        return Path(chosen)
    if system == "Darwin":
        return home / "Library" / "Caches" / "ms-playwright"
    if system == "Windows":
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local") / "ms-playwright"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "ms-playwright"


def candidates(env: Mapping[str, str], system: str, home: Path,
               playwright: Callable[[], str | None] = playwright_chromium,
               ) -> Iterator[tuple[str, str]]:
    """`(source, path)` of every browser that exists, in the order of the module docstring."""
    registry = playwright_registry(env, system, home)
    if registry is None or any(registry.glob("chromium-*")):
        path = playwright()
        if path and Path(path).is_file():
            yield PLAYWRIGHT_SOURCE, path
    for name in PATH_NAMES:
        path = shutil.which(name, path=env.get("PATH", ""))
        if path:
            yield f"PATH の {name}", path
    if system == "Darwin":
        for folder in (Path("/Applications"), home / "Applications"):
            for app in MAC_APPS:
                if (folder / app).is_file():
                    yield app.split(".app")[0], str(folder / app)


def find(env: Mapping[str, str] | None = None, system: str | None = None,
         home: Path | None = None, playwright: Callable[[], str | None] = playwright_chromium,
         check: Callable[[str], str | None] = starts) -> Found:
    """The browser to use; raises Missing (one line) when there is none that starts."""
    env = os.environ if env is None else env
    chosen = env.get(ENV_VAR, "")
    if chosen:
        problem = check(chosen)
        if problem:
            raise Missing(f"{ENV_VAR}={chosen} のブラウザが起動しません({problem})。"
                          f"Chrome か Chromium の実行ファイルを指定するか、{ENV_VAR} を外してください。",
                          chosen=True)
        return Found(chosen, ENV_VAR)
    broken = []
    for source, path in candidates(env, system or platform.system(), home or Path.home(),
                                   playwright):
        problem = check(path)
        if problem is None:
            return Found(path, source)
        broken.append(Broken(source, path, problem))
    raise Missing(missing_line(Platform.current(), broken))


# ----------------------------------------------------------------------------------- installing


def shell(cmd: list[str]) -> str:
    """A command as the user would type it (the venv's python relative to the repo)."""
    words = []
    for word in cmd:
        if word == sys.executable:
            try:
                word = os.path.relpath(word)
            except ValueError:
                pass
        words.append(f"'{word}'" if " " in word else word)
    return " ".join(words)


@dataclass(frozen=True)
class Broken:
    """A browser that is there but does not start."""

    source: str
    path: str
    problem: str


def missing_line(plat: Platform, broken: list[Broken] | None = None) -> str:
    """The one line that says what to run when no browser is there and none could be installed."""
    head = "ブラウザの検査に使う Chrome/Chromium が見つかりません。"
    if broken:
        first = broken[0]
        head = f"ブラウザの検査に使う Chrome/Chromium が起動しません({first.path}: {first.problem})。"
        if plat.system == "Linux" and first.source == PLAYWRIGHT_SOURCE:
            # Playwright's own build on a Linux that lacks the libraries it links against.
            return head + (f"足りないライブラリを `sudo {shell(PLAYWRIGHT)} install-deps chromium` で"
                           "入れてから、もう一度 `make test` を実行してください。")
    if plat.system == "Darwin":
        todo = "`brew install --cask google-chrome`(または https://www.google.com/chrome/ から)で Google Chrome を入れて"
    elif plat.system == "Linux" and plat.has_apt and plat.debian_family:
        todo = f"`{'' if plat.is_root else 'sudo '}apt-get install chromium` を実行して"
    elif plat.system == "Linux" and plat.has_dnf:
        todo = f"`{'' if plat.is_root else 'sudo '}dnf install chromium` を実行して"
    else:
        todo = (f"ネットワークにつながる所で `{shell(PLAYWRIGHT)} install --with-deps chromium` を"
                f"実行するか、Chrome/Chromium を入れて {ENV_VAR}=<その実行ファイル> を指定して")
    return f"{head}{todo}から、もう一度 `make test` を実行してください。"


def playwright_download_url() -> str | None:
    """The first download URL Playwright's installer would use for Chromium."""
    try:
        run = subprocess.run([*PLAYWRIGHT, "install", "--dry-run", "chromium"],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(r"Download url:\s*(\S+)", run.stdout)
    return found.group(1) if found else None


def reachable(url: str | None, timeout: float = 10) -> bool:
    """Does the server of `url` answer (proxy settings of the environment are honoured)?"""
    if not url:
        return False
    try:
        urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout)
    except urllib.error.HTTPError:
        return True  # it answered, even if not with 200
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class Step:
    says: str  # printed before the command runs
    cmd: list[str]
    env: tuple[tuple[str, str], ...] = ()
    quiet: bool = False  # its standard output (dpkg's line per package) is not shown


def install_plan(plat: Platform, playwright_reachable: bool) -> list[Step]:
    """How to install a browser here; an empty list when only the user can (see missing_line)."""
    if playwright_reachable:
        cmd = [*PLAYWRIGHT, "install", "chromium"]
        if plat.system == "Linux" and plat.is_root and plat.has_apt:
            return [Step("== システム全体の変更: Playwright の Chromium と、その動作に必要なライブラリ"
                         "(apt-get でシステムに)を入れます…", [*cmd[:-1], "--with-deps", "chromium"])]
        return [Step("== Playwright の Chromium を、このユーザーの Playwright 用フォルダに入れます"
                     "(システムは変えません)…", cmd)]
    if plat.system == "Linux" and plat.is_root and plat.has_apt and plat.debian_family:
        apt = shutil.which("apt-get", path=SYSTEM_PATH) or "apt-get"
        noninteractive = (("DEBIAN_FRONTEND", "noninteractive"),)
        return [
            Step("== システム全体の変更: Debian の chromium パッケージを apt-get で入れます"
                 "(Playwright の配布元には届きませんでした)…", [apt, "update", "-qq"]),
            Step("", [apt, "install", "-y", "-qq", "chromium"], noninteractive, quiet=True),
        ]
    return []


def ensure(dry_run: bool = False) -> int:
    """The Makefile's `browser` step: find a browser, else install one, else say what to run."""
    try:
        print(f"ブラウザ: {find()}")
        return 0
    except Missing as missing:
        plat = Platform.current()
        plan = [] if missing.chosen else install_plan(plat, reachable(playwright_download_url()))
        if not plan:
            print(missing, file=sys.stderr)
            return 1
    for step in plan:
        if step.says:
            print(step.says)
        env = {**os.environ, **dict(step.env)}
        if dry_run:
            typed = [f"{k}={v}" for k, v in step.env] + [shell(step.cmd)]
            print(f"(--dry-run のため実行しません) {' '.join(typed)}")
            continue
        out = subprocess.DEVNULL if step.quiet else None
        if subprocess.run(step.cmd, env=env, stdout=out).returncode != 0:
            print(f"ブラウザを入れられませんでした(`{shell(step.cmd)}` が失敗しました)。"
                  f"{missing_line(plat)}", file=sys.stderr)
            return 1
    if dry_run:
        return 0
    try:
        print(f"ブラウザ: {find()}")
        return 0
    except Missing as still:
        print(str(still), file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    # Each line out before the commands it announces write theirs (also when stdout is a CI log).
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true",
                        help="何を入れるかを表示するだけで、何も変えない")
    return ensure(dry_run=parser.parse_args(argv).dry_run)


if __name__ == "__main__":
    sys.exit(main())
