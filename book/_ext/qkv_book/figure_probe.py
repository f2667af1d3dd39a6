"""The figure-text probe: run in the kernels that execute the chapters, and its log of text sizes read.

While the book is built, book/_ext/qkv_book/figure_text_probe.py runs in the chapters' kernels and notes
the smallest text of every picture they draw, keyed by its pixels (`pixel_key`); `figures` then
gives each figure that size.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from sphinx.application import Sphinx

from .figure_text_probe import pixel_key  # noqa: F401  (figures looks each PNG up by it)

BOOK = Path(__file__).resolve().parents[2]
FIGURE_TEXT_LOG = "figure-text.jsonl"  # under book/_build/: what the probe measured


def _log_entries(app: Sphinx) -> list[dict]:
    log = Path(app.config.qkv_figure_text_log)
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def figure_text_sizes(app: Sphinx) -> dict[str, float]:
    """Pixel key -> smallest text (px) of every picture the chapters' kernels drew so far."""
    sizes: dict[str, float] = {}
    for entry in _log_entries(app):
        key, px = entry["key"], float(entry["min_text_px"])
        sizes[key] = min(px, sizes.get(key, px))
    return sizes


def figure_texts_outside(app: Sphinx) -> dict[str, list[str]]:
    """Pixel key -> the texts of that picture that reach beyond its edge (cut off)."""
    return {entry["key"]: entry["outside"] for entry in _log_entries(app) if entry.get("outside")}



def install_figure_probe(app: Sphinx) -> None:
    """Run book/_ext/qkv_book/figure_text_probe.py in the kernels that execute the chapters.

    The kernels inherit this process's environment: IPYTHONDIR points them at a profile under
    book/_build/ whose only startup file is the probe, and the probe logs to qkv_figure_text_log.
    JupyterLab, nbval and the classroom tools use their own profile and never see it.
    """
    if app.builder.format != "html":
        return
    log = Path(app.config.qkv_figure_text_log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    ipython_dir = log.parent / "ipython"
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(__file__).with_name("figure_text_probe.py"), startup / "00-figure-text-probe.py")
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    os.environ["QKV_FIGURE_TEXT_LOG"] = str(log)


def setup(app: Sphinx) -> None:
    app.add_config_value("qkv_figure_text_log",
                         str(BOOK / "_build" / FIGURE_TEXT_LOG), "env", types=[str])
    app.connect("builder-inited", install_figure_probe)
