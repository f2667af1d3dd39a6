"""Launch buttons (Colab, Binder, a JupyterHub with nbgitpuller), only when the repository's public
address is given: `QKV_REPOSITORY_URL=https://github.com/<owner>/<repo> make book`.

Empty (the default), the book has no button and links nowhere outside itself. Set, the theme's
buttons open the executed `notebooks/NN_slug.ipynb` (the book's source of each chapter; Colab
cannot open the MyST `.md`) on the branch `QKV_REPOSITORY_BRANCH` (default `main`).
`QKV_JUPYTERHUB_URL` adds the JupyterHub button (a class's own hub: there is no public one).
"""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.config import Config

REPOSITORY_VAR = "QKV_REPOSITORY_URL"
BRANCH_VAR = "QKV_REPOSITORY_BRANCH"
HUB_VAR = "QKV_JUPYTERHUB_URL"
PUBLIC_SERVICES = {"colab_url": "https://colab.research.google.com",
                   "binderhub_url": "https://mybinder.org"}


def launch_options(environ=os.environ) -> dict:
    """The theme options the setting turns on ({} when the repository's address is empty)."""
    repository = environ.get(REPOSITORY_VAR, "").strip().rstrip("/")
    if not repository:
        return {}
    buttons = dict(PUBLIC_SERVICES, jupyterhub_url=environ.get(HUB_VAR, "").strip())
    return {"repository_url": repository,
            "repository_branch": environ.get(BRANCH_VAR, "").strip() or "main",
            "path_to_docs": "",  # the book's source root is the repository's root
            "launch_buttons": buttons}


def turn_on(app: Sphinx, config: Config) -> None:
    options = launch_options()
    theme = config.html_theme_options
    buttons = {**theme.get("launch_buttons", {}), **options.pop("launch_buttons", {})}
    theme.update(options, launch_buttons=buttons)


def setup(app: Sphinx) -> None:
    app.connect("config-inited", turn_on)
