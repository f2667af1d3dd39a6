# The Jupyter config of every JupyterLab this book starts: `make lab` and `make lab-teacher`
# (through JUPYTER_CONFIG_PATH, so the user's own ~/.jupyter is untouched) and the class hub's
# servers (qkv_hub.spawner puts this folder after the role's own).
import json
import os

# CI and many containers run as root; Jupyter refuses that unless told it is intended.
c.ServerApp.allow_root = True  # noqa: F821

# JupyterLab's defaults for this book (lab_settings/overrides.json beside this file): a saved
# chapter keeps its explorables' state, so reopened with a new kernel it shows them (they run in
# the browser) instead of "Error displaying widget: model not found".
c.LabServerApp.app_settings_dir = os.path.join(os.path.dirname(__file__), "lab_settings")  # noqa: F821

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def keep_shown_widget_state(model, path, contents_manager, **kwargs):
    """Before a notebook is saved: every widget an output still shows keeps its saved state.

    JupyterLab saves the state of live widgets only (ipywidgets issue 3270). A chapter reopened
    with a new kernel shows its explorables from the saved state, but they are not live: saved
    again before Run All, the state was dropped while the outputs kept pointing at it, and the
    next opening showed "model not found". Here the state such an output needs (with the models
    it refers to, e.g. its layout) is taken over from the file as it was before this save.
    """
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    notebook = model["content"]
    shown = {output["data"][WIDGET_VIEW].get("model_id")
             for cell in notebook.get("cells", []) for output in cell.get("outputs", [])
             if WIDGET_VIEW in output.get("data", {})}
    state = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if shown <= state.keys():
        return
    try:  # the file as saved before (read from disk: the server's contents manager is async)
        with open(os.path.join(contents_manager.root_dir, path), encoding="utf-8") as before:
            old = json.load(before)["metadata"]["widgets"][WIDGET_STATE]["state"]
    except (OSError, ValueError, KeyError, TypeError):  # a new file, or no widget state in it
        return
    widgets = notebook.setdefault("metadata", {}).setdefault("widgets", {})
    saved = widgets.setdefault(WIDGET_STATE, {"version_major": 2, "version_minor": 0, "state": {}})
    state = saved.setdefault("state", state)
    todo = [model_id for model_id in shown if model_id not in state]
    while todo:
        model_id = todo.pop()
        if model_id in state or model_id not in old:
            continue
        state[model_id] = old[model_id]
        # the models it refers to, as "IPY_MODEL_<id>" strings in its state
        todo += [ref[len("IPY_MODEL_"):] for ref in _strings(old[model_id]) if ref.startswith("IPY_MODEL_")]


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


c.ContentsManager.pre_save_hook = keep_shown_widget_state  # noqa: F821
