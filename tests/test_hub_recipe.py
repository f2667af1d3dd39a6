"""The class hub's recipe, checked without starting anything (part of `make test`).

The hub itself runs in tests/test_hub_e2e.py (`make test-hub`). Here: the Zero to JupyterHub
values against the chart's schema, the image recipe against the repository, the hub's config
and the role configs against what is installed, and the exchange's checks on small inputs.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HUB = ROOT / "deploy" / "hub"
Z2JH = ROOT / "deploy" / "z2jh"

pytest.importorskip("jupyterhub")


def values() -> dict:
    return yaml.safe_load((Z2JH / "values.yaml").read_text("utf-8"))


def helm_merge(defaults, override):
    """Helm's way of combining values: maps merge key by key, anything else is replaced."""
    if isinstance(defaults, dict) and isinstance(override, dict):
        merged = dict(defaults)
        for key, value in override.items():
            merged[key] = helm_merge(defaults.get(key), value) if key in defaults else value
        return merged
    return override


# --------------------------------------------------------------------------------------------
# Zero to JupyterHub and the image


def test_z2jh_values_match_the_chart_schema():
    schema = json.loads((Z2JH / "chart" / "values.schema.json").read_text("utf-8"))
    defaults = yaml.safe_load((Z2JH / "chart" / "values.yaml").read_text("utf-8"))
    jsonschema.validate(helm_merge(defaults, values()), schema)
    typo = helm_merge(defaults, {"singleuser": {"memory": {"limt": "1G"}}})
    with pytest.raises(jsonschema.ValidationError):  # the schema does catch mistakes
        jsonschema.validate(typo, schema)


def test_z2jh_values_have_limits_a_shared_exchange_and_roles():
    v = values()
    single = v["singleuser"]
    assert single["memory"]["guarantee"] and single["memory"]["limit"]
    assert single["cpu"]["guarantee"] and single["cpu"]["limit"]
    mounts = {m["name"]: m["mountPath"] for m in single["storage"]["extraVolumeMounts"]}
    claims = {vol["name"]: vol["persistentVolumeClaim"]["claimName"] for vol in single["storage"]["extraVolumes"]}
    assert mounts["qkv-exchange"] == single["extraEnv"]["QKV_EXCHANGE_ROOT"]
    pvc = yaml.safe_load((Z2JH / "exchange-pvc.yaml").read_text("utf-8"))
    assert pvc["metadata"]["name"] == claims["qkv-exchange"]
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]
    hook = v["hub"]["extraConfig"]["qkv-roles"]
    compile(hook, "qkv-roles", "exec")
    for role in re.findall(r'"(teacher|student)"', hook):
        assert (HUB / "jupyter" / role).is_dir()
    assert "/opt/qkv/deploy/hub/jupyter/" in hook  # where the Dockerfile copies them
    assert "qkv-teachers" in v["hub"]["config"]["JupyterHub"]["load_groups"]


def test_image_is_built_from_the_pinned_environment():
    text = (Z2JH / "Dockerfile").read_text("utf-8")
    for line in re.findall(r"^COPY (.+?) \S+$", text, flags=re.M):
        for src in line.split():
            assert (ROOT / src).exists(), src
    install = re.search(r"pip install (.+?)\\?$", text, flags=re.M).group(1)
    assert "-c constraints.txt" in install
    extras = re.search(r"\.\[([a-z,]+)\]", install).group(1).split(",")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras) <= set(declared) and {"classroom", "hub"} <= set(extras)
    base = re.search(r"^FROM python:(\d+)\.(\d+)", text, flags=re.M)
    assert (int(base.group(1)), int(base.group(2))) >= (3, 10)
    assert 'CMD ["jupyterhub-singleuser"]' in text


# --------------------------------------------------------------------------------------------
# The one-machine hub


def load_hub_config(monkeypatch, **env) -> object:
    from traitlets.config import Config

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    c = Config()
    code = compile((HUB / "jupyterhub_config.py").read_text("utf-8"), str(HUB / "jupyterhub_config.py"), "exec")
    exec(code, {"get_config": lambda: c, "__file__": str(HUB / "jupyterhub_config.py")})  # noqa: S102
    return c


def test_hub_config_listens_on_loopback_with_pam_and_the_classroom_spawner(monkeypatch):
    monkeypatch.delenv("QKV_HUB_SERVICE_TOKEN", raising=False)
    c = load_hub_config(monkeypatch)
    assert c.JupyterHub.bind_url.startswith("http://127.0.0.1:")
    assert c.JupyterHub.hub_bind_url.startswith("http://127.0.0.1:")
    assert c.ConfigurableHTTPProxy.api_url.startswith("http://127.0.0.1:")
    assert c.JupyterHub.authenticator_class == "pam"
    assert c.PAMAuthenticator.allowed_groups == {"qkv-teachers", "qkv-students"}
    assert c.JupyterHub.spawner_class == "qkv_hub.spawner.ClassroomSpawner"
    assert "services" not in c.JupyterHub  # no service token unless the tests ask for one
    assert Path(c.ConfigurableHTTPProxy.command[0]).relative_to(ROOT / "node_modules")


def test_configurable_http_proxy_is_locked():
    package = json.loads((ROOT / "package.json").read_text())
    assert "configurable-http-proxy" in package["dependencies"]
    assert '"node_modules/configurable-http-proxy"' in (ROOT / "package-lock.json").read_text()


def installed_lab_plugins() -> set[str]:
    import sys

    static = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "static"
    text = "".join(p.read_text(errors="replace") for p in static.glob("*.js"))
    return set(re.findall(r'"(@jupyter/nbgrader:[a-z-]+)"', text)) | {
        f"@jupyter/nbgrader:{m}" for m in re.findall(r'id:"@jupyter/nbgrader:([a-z-]+)"', text)}


def test_students_get_fetch_and_submit_and_no_formgrader():
    plugins = installed_lab_plugins()
    assert "@jupyter/nbgrader:assignment-list" in plugins
    student = json.loads((HUB / "jupyter" / "student" / "labconfig" / "page_config.json").read_text())
    disabled = {k for k, v in student["disabledExtensions"].items() if v}
    assert disabled == {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list",
                        "@jupyter/nbgrader:create-assignment"}
    assert disabled <= plugins  # the names are the installed extension's
    teacher = json.loads((HUB / "jupyter" / "teacher" / "labconfig" / "page_config.json").read_text())
    assert not any(teacher["disabledExtensions"].values())
    server = json.loads((HUB / "jupyter" / "student" / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    for role in ("student", "teacher"):
        cfg = json.loads((HUB / "jupyter" / role / "jupyter_server_config.json").read_text())
        assert cfg["KernelManager"]["transport"] == "ipc"


def test_role_nbgrader_config(monkeypatch, tmp_path):
    from traitlets.config import Config

    from qkv_hub.config import configure_nbgrader

    monkeypatch.setenv("QKV_EXCHANGE_ROOT", str(tmp_path / "x"))
    monkeypatch.delenv("QKV_EXCHANGE_CHECK_OWNER", raising=False)
    c = Config()
    configure_nbgrader(c, "student")
    assert c.Exchange.root == str(tmp_path / "x")
    assert c.CourseDirectory.course_id == "qkv"
    assert c.ExchangeFactory.submit == "qkv_hub.exchange.CheckedSubmit"
    assert "check_owner" not in c.ExchangeCollect
    monkeypatch.setenv("QKV_EXCHANGE_CHECK_OWNER", "0")
    c = Config()
    configure_nbgrader(c, "student")
    assert c.ExchangeCollect.check_owner is False
    with pytest.raises(ValueError, match="role"):
        configure_nbgrader(Config(), "admin")


# --------------------------------------------------------------------------------------------
# The exchange's checks and the roster


def test_submission_problems_finds_oversized_and_broken_files(tmp_path):
    from qkv_hub.exchange import submission_problems

    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), tmp_path / "ok.ipynb")
    assert submission_problems(tmp_path, 10) == []
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (tmp_path / "big.csv").write_bytes(b"0" * 20_000)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "x.ipynb").write_text("not json")
    problems = submission_problems(tmp_path, 10, [".ipynb_checkpoints"])
    assert len(problems) == 2
    assert "big.csv は 0.02 MB" in problems[0] and "0.01 MB まで" in problems[0]
    assert "broken.ipynb はノートブックとして読めません" in problems[1]
    (tmp_path / "invalid.ipynb").write_text(json.dumps({"cells": "no", "nbformat": 4}), encoding="utf-8")
    assert any("invalid.ipynb" in p for p in submission_problems(tmp_path, 10, [".ipynb_checkpoints"]))


def test_roster_is_checked(tmp_path):
    from qkv_hub.setup import SetupError, read_roster

    good = tmp_path / "good.csv"
    good.write_text("role,username\nteacher,qkv-teacher\nstudent,qkv-s01\n", encoding="utf-8")
    assert read_roster(good) == [("teacher", "qkv-teacher"), ("student", "qkv-s01")]
    assert read_roster(HUB / "roster.example.csv")[0][0] == "teacher"
    for text, message in (("role,username\nadmin,x\n", "role は teacher か student"),
                          ("role,username\nteacher,Root;rm\n", "使えません"),
                          ("role,username\nstudent,qkv-s01\n", "先生")):
        bad = tmp_path / "bad.csv"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(SetupError, match=message):
            read_roster(bad)


def test_ci_runs_the_hub_test():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test-hub" in ci
    makefile = (ROOT / "Makefile").read_text()
    for target in ("hub:", "test-hub:", "classroom-bench:"):
        assert f"\n{target}" in makefile
