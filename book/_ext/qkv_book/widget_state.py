"""No dead widget state: ipywidgets' saved state is dropped from every page.

The executed notebooks may carry ipywidgets' saved state. The book loads no widget manager: its
explorables run on their own model shim (`explorables`), so that state is dead weight in every
page.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def drop_widget_state(app: Sphinx, env: BuildEnvironment) -> list[str]:
    for data in getattr(env, "nb_metadata", {}).values():
        data.get("js_files", {}).pop("ipywidgets_state", None)
    return []


def setup(app: Sphinx) -> None:
    app.connect("env-updated", drop_widget_state)
