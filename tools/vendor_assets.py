"""Copy the browser assets the static book needs from node_modules into book/_vendor/.

    python tools/vendor_assets.py

The book must load nothing from outside its own files, so MathJax and the Japanese web font come
from registry packages (installed by `npm ci` from package-lock.json); nothing of theirs is
committed. Both are used while the book is built (book/_ext/qkv_book/maths.py renders the maths,
fonts.py cuts the font to the book's characters), so what is copied here is their licences and
VENDORED.json, the table book/licenses.md shows. Sphinx copies book/_vendor/ into _build/html/_static/.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "node_modules"
OUT = ROOT / "book" / "_vendor"
FONT_PACKAGE = NODE / "@fontsource" / "noto-sans-jp"


def package_info(path: Path, static_dir: str, license_file: str, role: str) -> dict:
    """What book/licenses.md shows: name, version, licence, where it lies under _static/."""
    meta = json.loads((path / "package.json").read_text(encoding="utf-8"))
    return {
        "name": meta["name"],
        "version": meta["version"],
        "license": meta.get("license", "?"),
        "static_dir": static_dir,
        "license_file": f"{static_dir}/{license_file}",
        "role": role,
    }


def fresh_dir(path: Path) -> Path:
    """Start empty, so files of an older version (or an older pruning rule) never linger."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


# MathJax runs in Node while the book is built (book/_ext/qkv_book/maths.py, straight from
# node_modules): the pages carry its SVG output and no maths engine, so only its licence ships.
def vendor_mathjax() -> dict:
    src = NODE / "mathjax"
    dst = fresh_dir(OUT / "mathjax")
    shutil.copy2(src / "LICENSE", dst / "LICENSE")
    return package_info(src, "mathjax", "LICENSE", "数式の組版(本を書き出すときに TeX → SVG、ページに埋め込み)")


# The font is cut to the book's characters once the pages are written (book/_ext/qkv_book/fonts.py,
# from node_modules): only its licence is copied here.
def vendor_font() -> dict:
    dst = fresh_dir(OUT / "fonts" / "noto-sans-jp")
    shutil.copy2(FONT_PACKAGE / "LICENSE", dst / "LICENSE")
    return package_info(FONT_PACKAGE, "fonts/noto-sans-jp", "LICENSE",
                        "日本語の本文フォント(端末に日本語フォントがないときだけ。本の文字だけに絞った woff2)")


def main() -> int:
    if not NODE.is_dir():
        print("node_modules がありません。先に `npm ci` を実行してください。", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    packages = [vendor_mathjax(), vendor_font()]
    text = json.dumps(packages, indent=2, ensure_ascii=False) + "\n"
    (OUT / "VENDORED.json").write_text(text, encoding="utf-8")
    for p in packages:
        print(f"vendored {p['name']} {p['version']} ({p['license']}) → {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
