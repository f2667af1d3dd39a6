# Loaded through JUPYTER_CONFIG_PATH by the Makefile, so the user's own ~/.jupyter is untouched.
# CI and many containers run as root; Jupyter refuses that unless told it is intended.
c.ServerApp.allow_root = True  # noqa: F821
