"""The book's Jupyter config (lab/jupyter_config): the hook that keeps a shown widget's state."""

from __future__ import annotations

import copy
import json
import runpy
from pathlib import Path
from types import SimpleNamespace

from traitlets.config import Config

CONFIG = Path(__file__).resolve().parents[1] / "lab" / "jupyter_config" / "jupyter_server_config.py"
STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"


def _config():
    c = Config()
    names = runpy.run_path(str(CONFIG), init_globals={"c": c})
    return c, names["keep_shown_widget_state"]


def _notebook(shown: list[str], state: dict | None) -> dict:
    outputs = [{"output_type": "display_data", "metadata": {},
                "data": {VIEW: {"model_id": m, "version_major": 2, "version_minor": 0}, "text/plain": "…"}}
               for m in shown]
    nb = {"cells": [{"cell_type": "code", "source": "x", "metadata": {}, "outputs": outputs,
                     "execution_count": 1}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    if state is not None:
        nb["metadata"]["widgets"] = {STATE: {"version_major": 2, "version_minor": 0, "state": state}}
    return nb


def _save(hook, tmp_path, before: dict | None, now: dict) -> dict:
    if before is not None:
        (tmp_path / "ch.ipynb").write_text(json.dumps(before), encoding="utf-8")
    model = {"type": "notebook", "content": copy.deepcopy(now)}
    hook(model=model, path="ch.ipynb", contents_manager=SimpleNamespace(root_dir=str(tmp_path)))
    return model["content"]


EXPLORER = {"model_name": "AnyModel", "state": {"layout": "IPY_MODEL_lay", "angle": 30}}
LAYOUT = {"model_name": "LayoutModel", "state": {}}


def test_the_hook_is_what_jupyter_calls_before_a_save():
    c, hook = _config()
    assert c.ContentsManager.pre_save_hook is hook
    assert c.ServerApp.allow_root is True


def test_a_shown_explorable_keeps_its_state_and_the_models_it_refers_to(tmp_path):
    _, hook = _config()
    before = _notebook(["ex"], {"ex": EXPLORER, "lay": LAYOUT, "gone": LAYOUT})
    # reopened with a new kernel and saved before Run All: Lab writes no state for the explorable
    saved = _save(hook, tmp_path, before, _notebook(["ex"], {}))
    assert saved["metadata"]["widgets"][STATE]["state"] == {"ex": EXPLORER, "lay": LAYOUT}


def test_a_live_widgets_state_is_left_as_lab_wrote_it(tmp_path):
    _, hook = _config()
    new = {"ex": {**EXPLORER, "state": {**EXPLORER["state"], "angle": 90}}, "lay": LAYOUT}
    saved = _save(hook, tmp_path, _notebook(["ex"], {"ex": EXPLORER, "lay": LAYOUT}), _notebook(["ex"], new))
    assert saved["metadata"]["widgets"][STATE]["state"] == new


def test_a_notebook_without_widgets_is_saved_untouched(tmp_path):
    _, hook = _config()
    plain = _notebook([], None)
    assert _save(hook, tmp_path, _notebook(["ex"], {"ex": EXPLORER}), plain) == plain
    # and an output whose state the file before did not have either: nothing to take over
    missing = _notebook(["ex"], {})
    assert _save(hook, tmp_path, _notebook([], None), missing) == missing
    assert _save(hook, tmp_path / "nowhere", None, missing) == missing
