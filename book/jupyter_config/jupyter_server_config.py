# Loaded through JUPYTER_CONFIG_PATH by the Makefile, so the user's own ~/.jupyter is untouched.
import os

# CI and many containers run as root; Jupyter refuses that unless told it is intended.
c.ServerApp.allow_root = True  # noqa: F821

# JupyterLab's defaults for this book (lab_settings/overrides.json beside this file): a saved
# chapter keeps its explorables' state, so reopened with a new kernel it shows them (they run in
# the browser) instead of "Error displaying widget: model not found".
c.LabServerApp.app_settings_dir = os.path.join(os.path.dirname(__file__), "lab_settings")  # noqa: F821
