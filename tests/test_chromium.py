"""tools/chromium.py: which browser the book tests drive, and what `make test` installs when none.

Everything here runs against fake PATHs, fake folders and fake platforms: no browser is started,
nothing is installed, and the machine's own browser (if any) is never seen.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import chromium
import pytest

DEBIAN_ROOT = chromium.Platform("Linux", ("debian",), is_root=True, has_apt=True, has_dnf=False)
DEBIAN_USER = chromium.Platform("Linux", ("debian",), is_root=False, has_apt=True, has_dnf=False)
UBUNTU_ROOT = chromium.Platform("Linux", ("ubuntu", "debian"), is_root=True, has_apt=True,
                                has_dnf=False)
FEDORA_USER = chromium.Platform("Linux", ("fedora",), is_root=False, has_apt=False, has_dnf=True)
MACOS = chromium.Platform("Darwin", (), is_root=False, has_apt=False, has_dnf=False)


def executable(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho fake\n")
    path.chmod(0o755)
    return str(path)


def no_playwright() -> None:
    return None


def works(_path: str) -> None:
    return None


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def find(env, home, system="Linux", playwright=no_playwright, check=works):
    return chromium.find(env=env, system=system, home=home, playwright=playwright, check=check)


def test_nothing_found_is_one_line(tmp_path, home):
    with pytest.raises(chromium.Missing) as missing:
        find({"PATH": str(tmp_path / "empty")}, home)
    assert "\n" not in str(missing.value)
    assert "make test" in str(missing.value)


def test_environment_variable_wins_and_nothing_else_is_tried(tmp_path, home):
    named = executable(tmp_path / "mine" / "chrome")
    on_path = executable(tmp_path / "bin" / "chromium")
    found = find({"PATH": str(Path(on_path).parent), chromium.ENV_VAR: named}, home,
                 playwright=lambda: pytest.fail("Playwright was asked"))
    assert found == chromium.Found(named, chromium.ENV_VAR)


def test_a_broken_environment_variable_is_an_error_not_a_fallback(tmp_path, home):
    on_path = executable(tmp_path / "bin" / "chromium")
    with pytest.raises(chromium.Missing, match=chromium.ENV_VAR):
        find({"PATH": str(Path(on_path).parent), chromium.ENV_VAR: "/nowhere/chrome"}, home,
             check=lambda p: "No such file" if p == "/nowhere/chrome" else None)


def test_playwright_chromium_comes_before_the_system_one(tmp_path, home):
    managed = executable(home / ".cache" / "ms-playwright" / "chromium-1" / "chrome-linux64" / "chrome")
    on_path = executable(tmp_path / "bin" / "chromium")
    found = find({"PATH": str(Path(on_path).parent)}, home, playwright=lambda: managed)
    assert found.path == managed


def test_playwright_is_not_started_when_it_has_no_chromium(tmp_path, home):
    on_path = executable(tmp_path / "bin" / "chromium")
    found = find({"PATH": str(Path(on_path).parent)}, home,
                 playwright=lambda: pytest.fail("Playwright's driver was started"))
    assert found.path == on_path


def test_playwright_browsers_path_is_honoured(tmp_path, home):
    registry = tmp_path / "browsers"
    managed = executable(registry / "chromium-7" / "chrome-linux64" / "chrome")
    assert chromium.playwright_registry({"PLAYWRIGHT_BROWSERS_PATH": str(registry)}, "Linux",
                                        home) == registry
    found = find({"PATH": "", "PLAYWRIGHT_BROWSERS_PATH": str(registry)}, home,
                 playwright=lambda: managed)
    assert found.path == managed


def test_system_browsers_in_order_skipping_one_that_does_not_start(tmp_path, home):
    bin_dir = tmp_path / "bin"
    snap_wrapper = executable(bin_dir / "chromium-browser")
    chrome = executable(bin_dir / "google-chrome")
    found = find({"PATH": str(bin_dir)}, home,
                 check=lambda p: "requires the chromium snap" if p == snap_wrapper else None)
    assert found.path == chrome


def test_chrome_and_chromium_apps_on_macos_only(home):
    app = executable(home / "Applications" / chromium.MAC_APPS[1])
    assert find({"PATH": ""}, home, system="Darwin").path == app
    with pytest.raises(chromium.Missing):
        find({"PATH": ""}, home, system="Linux")


def test_a_browser_that_does_not_start_is_named(tmp_path, home):
    on_path = executable(tmp_path / "bin" / "chromium")
    with pytest.raises(chromium.Missing, match="libnss3"):
        find({"PATH": str(Path(on_path).parent)}, home,
             check=lambda p: "error while loading shared libraries: libnss3.so")


def test_playwright_chromium_without_its_libraries_asks_for_them():
    broken = [chromium.Broken(chromium.PLAYWRIGHT_SOURCE, "/x/chrome", "libnss3.so: not found")]
    line = chromium.missing_line(DEBIAN_USER, broken)
    assert "install-deps chromium`" in line and "/x/chrome" in line and "\n" not in line
    snap = [chromium.Broken("PATH の chromium-browser", "/usr/bin/chromium-browser", "snap")]
    assert "sudo apt-get install chromium" in chromium.missing_line(DEBIAN_USER, snap)


def test_starts_runs_the_version_flag(tmp_path):
    good = executable(tmp_path / "good")
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho 'cannot open display' >&2\nexit 3\n")
    bad.chmod(0o755)
    assert chromium.starts(good) is None
    assert chromium.starts(str(bad)) == "cannot open display"
    assert chromium.starts(str(tmp_path / "missing"))


# ------------------------------------------------------------------------------ what is installed


def commands(plan) -> list[str]:
    return [" ".join([Path(step.cmd[0]).name, *step.cmd[1:]]) for step in plan]


def test_playwright_installer_when_its_server_answers():
    plan = chromium.install_plan(DEBIAN_USER, playwright_reachable=True)
    assert [s.cmd[-2:] for s in plan] == [["install", "chromium"]]
    assert "システムは変えません" in plan[0].says


def test_playwright_installer_as_root_brings_the_libraries_and_says_so_first():
    plan = chromium.install_plan(UBUNTU_ROOT, playwright_reachable=True)
    assert plan[0].cmd[-2:] == ["--with-deps", "chromium"]
    assert plan[0].says.startswith("== システム全体の変更")


def test_debian_package_as_root_when_playwright_is_unreachable():
    plan = chromium.install_plan(DEBIAN_ROOT, playwright_reachable=False)
    assert commands(plan) == [
        "apt-get update -qq", "apt-get install -y -qq chromium"]
    assert plan[0].says.startswith("== システム全体の変更")
    assert ("DEBIAN_FRONTEND", "noninteractive") in plan[1].env


@pytest.mark.parametrize("plat", [DEBIAN_USER, UBUNTU_ROOT, FEDORA_USER, MACOS],
                         ids=["debian-user", "ubuntu-root", "fedora-user", "macos"])
def test_nothing_is_installed_without_root_or_network(plat):
    assert chromium.install_plan(plat, playwright_reachable=False) == []


@pytest.mark.parametrize(("plat", "command"), [
    (DEBIAN_USER, "`sudo apt-get install chromium`"),
    (DEBIAN_ROOT, "`apt-get install chromium`"),
    (FEDORA_USER, "`sudo dnf install chromium`"),
    (MACOS, "`brew install --cask google-chrome`"),
    (UBUNTU_ROOT, "install --with-deps chromium`"),
], ids=["debian-user", "debian-root", "fedora-user", "macos", "ubuntu"])
def test_the_one_line_says_what_to_run(plat, command):
    line = chromium.missing_line(plat)
    assert command in line and "\n" not in line


def missing():
    raise chromium.Missing("none")


def test_dry_run_changes_nothing(monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(chromium, "find", missing)
    monkeypatch.setattr(chromium.Platform, "current", classmethod(lambda cls: DEBIAN_ROOT))
    monkeypatch.setattr(chromium, "playwright_download_url", lambda: None)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: ran.append(a))
    assert chromium.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "システム全体の変更" in out and "apt-get install" in out and "--dry-run" in out
    assert ran == []


def test_without_a_plan_it_stops_with_one_line(monkeypatch, capsys):
    monkeypatch.delenv(chromium.ENV_VAR, raising=False)
    monkeypatch.setattr(chromium, "candidates", lambda *a: iter(()))  # no browser anywhere
    monkeypatch.setattr(chromium.Platform, "current", classmethod(lambda cls: DEBIAN_USER))
    monkeypatch.setattr(chromium, "playwright_download_url", lambda: None)
    assert chromium.main([]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "sudo apt-get install chromium" in err


def test_a_broken_choice_is_not_replaced_by_an_install(monkeypatch, capsys):
    def chosen_but_broken():
        raise chromium.Missing(f"{chromium.ENV_VAR}=/x は起動しません", chosen=True)

    monkeypatch.setattr(chromium, "find", chosen_but_broken)
    monkeypatch.setattr(chromium, "install_plan", lambda *a: pytest.fail("an install was planned"))
    assert chromium.main([]) == 1
    assert chromium.ENV_VAR in capsys.readouterr().err
