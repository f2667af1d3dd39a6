"""The book's figure style, and a way to set it up only when matplotlib is first imported.

`helpers.setup()` applies the style when matplotlib comes in (`after_import`), so a kernel that
draws nothing (an exercise graded by nbgrader, say) never loads matplotlib: about a quarter of a
CPU second per kernel. `helpers.plotting.apply_style` is this module's `apply_style`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable

#: The book's plot defaults (rcParams), set after the Japanese font.
STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.figsize": (5.5, 4.0),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    # IPAexGothic draws U+2212 poorly at small sizes; the ASCII hyphen is always there.
    "axes.unicode_minus": False,
    "figure.constrained_layout.use": True,
}


def apply_style() -> None:
    """Japanese font (IPAexGothic from matplotlib-fontja) and the book's plot defaults."""
    import matplotlib
    import matplotlib_fontja  # noqa: F401  (importing it registers the font and selects it)

    matplotlib_fontja.japanize()
    matplotlib.rcParams.update(STYLE)


class _AfterImport:
    """A `sys.meta_path` finder: runs what waits for a module right after its first import.

    It finds the module's spec with the other finders and wraps that spec's own loader's
    `exec_module` once (a module from a file: its loader is an object of its own, made for this
    spec), so the module is loaded exactly as without it; then it steps aside.
    """

    waiting: dict[str, Callable[[], None]] = {}

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        then = cls.waiting.pop(name, None)
        if then is None:
            return None
        if not cls.waiting and cls in sys.meta_path:
            sys.meta_path.remove(cls)
        spec = importlib.util.find_spec(name)  # the other finders' answer (we no longer wait)
        if spec is None or spec.loader is None or isinstance(spec.loader, type):
            return spec  # not installed (the import fails as it would have), or a built-in module
        loader, exec_module = spec.loader, spec.loader.exec_module

        def exec_then_set_up(module) -> None:
            del loader.exec_module  # the loader's own method again
            exec_module(module)
            then()

        loader.exec_module = exec_then_set_up
        return spec


def after_import(name: str, then: Callable[[], None]) -> None:
    """Call `then()` now if module `name` is imported, else right after its first import.

    Asked again before that import, the newest `then` replaces the one waiting."""
    if name in sys.modules:
        _AfterImport.waiting.pop(name, None)
        then()
        return
    _AfterImport.waiting[name] = then
    if _AfterImport not in sys.meta_path:
        sys.meta_path.insert(0, _AfterImport)
