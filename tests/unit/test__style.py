"""helpers._style: the book's figure style, applied when matplotlib is first imported."""

import subprocess
import sys

import matplotlib
import pytest

from helpers import _style


def test_apply_style_sets_the_japanese_font_and_the_books_defaults():
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        _style.apply_style()
        assert matplotlib.rcParams["font.family"] == ["IPAexGothic"]
        for key, value in _style.STYLE.items():
            assert matplotlib.rcParams[key] == (list(value) if isinstance(value, tuple) else value), key


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    """A folder on sys.path for made-up modules; forgets them and any waiting call afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("qkv_made_up")]:
        del sys.modules[name]
    _style._AfterImport.waiting.clear()
    if _style._AfterImport in sys.meta_path:
        sys.meta_path.remove(_style._AfterImport)


def test_after_import_calls_right_after_the_first_import_once(module_dir):
    (module_dir / "qkv_made_up.py").write_text("import sys\nLOADED = 'qkv_made_up' in sys.modules\n")
    calls = []
    _style.after_import("qkv_made_up", lambda: calls.append("old"))
    _style.after_import("qkv_made_up", lambda: calls.append(sys.modules["qkv_made_up"].LOADED))
    assert calls == [] and _style._AfterImport in sys.meta_path
    import qkv_made_up  # noqa: F401

    assert calls == [True]  # the newest call only, once the module ran
    assert _style._AfterImport not in sys.meta_path  # nothing else waits: it steps aside
    assert "exec_module" not in vars(qkv_made_up.__spec__.loader)  # the loader as it was
    _style.after_import("qkv_made_up", lambda: calls.append("now"))  # already imported: at once
    assert calls == [True, "now"]


def test_after_import_of_a_missing_module_leaves_the_import_error(module_dir):
    calls = []
    _style.after_import("qkv_made_up_missing", lambda: calls.append(1))
    with pytest.raises(ModuleNotFoundError):
        import qkv_made_up_missing  # noqa: F401
    assert calls == []


def test_setup_loads_no_matplotlib_until_a_figure_needs_it():
    """A fresh Python: setup() leaves matplotlib out; importing pyplot then brings the style."""
    code = ("import sys, helpers\nhelpers.setup()\nprint('matplotlib' in sys.modules)\n"
            "import matplotlib.pyplot as plt\n"
            "print(plt.rcParams['font.family'], plt.rcParams['figure.constrained_layout.use'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "['IPAexGothic'] True"], out.stdout + out.stderr
