"""The {shipped-assets} table of every third-party file the pages load, and their licence texts.

```{shipped-assets}``` (used by book/licenses.md): a table of every third-party file the pages
load, with version and licence, made from book/_vendor/VENDORED.json (written by
tools/vendor_assets.py) and the installed Python packages; their licence texts are copied
next to the pages, under _static/licenses/.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import metadata
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

BOOK = Path(__file__).resolve().parents[2]
VENDORED_JSON = BOOK / "_vendor" / "VENDORED.json"
LICENSES_DIR = "licenses"  # under _static/ in the built book

# Python packages whose CSS/JS/fonts the pages load. Licences as their LICENSE files state them
# (package metadata is too inconsistent to read them from). `bundles` lists third-party files a
# package ships inside its own static folder, with the file (under _static/) carrying the notice.
PYTHON_ASSETS = [
    {"dist": "sphinx", "license": "BSD-2-Clause",
     "role": "ページの骨組み、検索(searchtools.js)、基本の CSS"},
    {"dist": "pydata-sphinx-theme", "license": "BSD-3-Clause",
     "role": "テーマの CSS と JavaScript",
     "bundles": [("Bootstrap", "scripts/bootstrap.js.LICENSE.txt", "MIT"),
                 ("Font Awesome Free", "scripts/fontawesome.js.LICENSE.txt",
                  "アイコン CC-BY-4.0、フォント OFL-1.1、コード MIT")]},
    {"dist": "sphinx-book-theme", "license": "BSD-3-Clause", "role": "本のレイアウト"},
    {"dist": "myst-nb", "license": "BSD-3-Clause", "role": "ノートブックの出力の CSS"},
    {"dist": "sphinx-togglebutton", "license": "MIT", "role": "「コードを表示」の開け閉め"},
    {"dist": "sphinx-copybutton", "license": "MIT",
     "role": "コードのコピー ボタン(clipboard.js、MIT を同梱)"},
    {"dist": "sphinx-tsegsearch", "license": "MIT",
     "role": "日本語の検索語の分かち書き",
     "bundles": [("TinySegmenter", "tiny_segmenter.js", "修正 BSD(Taku Kudo)")]},
]


def read_vendored() -> list[dict]:
    if not VENDORED_JSON.exists():
        raise FileNotFoundError(
            f"{VENDORED_JSON} がありません。先に `python tools/vendor_assets.py` を"
            "実行してください(MathJax と日本語フォントを node_modules から本へコピーします)。"
        )
    return json.loads(VENDORED_JSON.read_text(encoding="utf-8"))


def license_file(dist: metadata.Distribution) -> Path | None:
    for f in dist.files or []:
        if re.match(r"(LICEN[CS]E|COPYING)", f.name, flags=re.I) and ".dist-info" in str(f):
            return Path(dist.locate_file(f))
    return None


def bundled_version(dist: metadata.Distribution, notice: str, name: str) -> str:
    """Read "Bootstrap v5.3.3" or "Font Awesome Free 6.5.2" from the notice the package ships."""
    paths = [Path(dist.locate_file(f)) for f in dist.files or []
             if str(f).replace("\\", "/").endswith("static/" + notice)]
    if not paths:
        return ""
    head = paths[0].read_text(encoding="utf-8", errors="replace")[:2000]
    found = re.search(re.escape(name) + r" v?(\d+(?:\.\d+)+)", head)
    return found.group(1) if found else ""


def _row(cells: list[nodes.Node | str]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += nodes.Text(cell) if isinstance(cell, str) else cell
        entry += para
        row += entry
    return row


def _table(header: list[str], rows: list[list[nodes.Node | str]], widths: list[int]) -> nodes.table:
    table = nodes.table(classes=["qkv-assets"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    head += _row(header)
    group += head
    body = nodes.tbody()
    for r in rows:
        body += _row(r)
    group += body
    return table


class ShippedAssets(SphinxDirective):
    """The table of third-party files the book ships, with versions and licences."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        try:
            vendored = read_vendored()
        except FileNotFoundError as err:
            raise self.error(str(err)) from err
        self.env.note_dependency(str(VENDORED_JSON))
        static = "../" * self.env.docname.count("/") + "_static/"

        def link(text: str, target: str) -> nodes.reference:
            return nodes.reference(text, text, refuri=static + target, internal=True)

        npm_rows = [
            [p["name"], p["version"], p["license"], p["role"], link("ライセンス文", p["license_file"])]
            for p in vendored
        ]
        py_rows = []
        for item in PYTHON_ASSETS:
            dist = metadata.distribution(item["dist"])
            notice = link("ライセンス文", f"{LICENSES_DIR}/{item['dist']}.txt")
            py_rows.append([item["dist"], dist.version, item["license"], item["role"], notice])
            for name, notice_file, lic in item.get("bundles", []):
                version = bundled_version(dist, notice_file, name)
                py_rows.append([f"└ {name}", version, lic, f"{item['dist']} に同梱",
                                link("表記", notice_file)])
        header = ["パッケージ", "版", "ライセンス", "本の中での役割", "全文"]
        widths = [22, 10, 16, 40, 12]
        return [
            nodes.rubric(text="npm から取り込んだもの(tools/vendor_assets.py)"),
            _table(header, npm_rows, widths),
            nodes.rubric(text="Python のパッケージが書き出すもの(Sphinx と Jupyter Book の部品)"),
            _table(header, py_rows, widths),
        ]


def copy_python_licenses(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / "_static" / LICENSES_DIR
    out.mkdir(parents=True, exist_ok=True)
    for item in PYTHON_ASSETS:
        dist = metadata.distribution(item["dist"])
        src = license_file(dist)
        if src is not None:
            shutil.copyfile(src, out / f"{item['dist']}.txt")
            continue
        # Some wheels (sphinx-tsegsearch 1.2) ship no LICENSE file: state what the metadata says.
        meta = dist.metadata
        (out / f"{item['dist']}.txt").write_text(
            f"{meta['Name']} {meta['Version']}\nLicense: {item['license']}\n"
            f"Author: {meta.get('Author', '')}\nHome-page: {meta.get('Home-page', '')}\n"
            "(The wheel ships no LICENSE file; this is what its metadata states.)\n",
            encoding="utf-8",
        )



def setup(app: Sphinx) -> None:
    app.add_directive("shipped-assets", ShippedAssets)
    app.connect("build-finished", copy_python_licenses)
