"""Copy the browser assets the static book needs from node_modules into book/_vendor/.

    python book/scripts/vendor_assets.py

The book must load nothing from outside its own files, so MathJax and the Japanese web font come
from registry packages (installed by `npm ci` from package-lock.json) and are copied here at build
time; nothing of theirs is committed. Sphinx copies book/_vendor/ into _build/html/_static/.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "node_modules"
OUT = ROOT / "book" / "_vendor"
FONT_PACKAGE = NODE / "@fontsource" / "noto-sans-jp"
FONT_WEIGHTS = ("400", "700")


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


# The book uses one MathJax entry point (Sphinx's mathjax_path) and what it loads lazily from its
# own folders. The other combined bundles (SVG output, MathML input, "full" builds) are never
# requested, so they are not shipped: that keeps the copy at ~6 MB instead of ~20 MB.
MATHJAX_ENTRY = "tex-chtml.js"
MATHJAX_DIRS = ("a11y", "adaptors", "input", "output", "ui")


def vendor_mathjax() -> dict:
    src = NODE / "mathjax"
    dst = fresh_dir(OUT / "mathjax")
    shutil.copy2(src / "es5" / MATHJAX_ENTRY, dst / MATHJAX_ENTRY)
    for sub in MATHJAX_DIRS:
        # `sre` is the speech engine (~10 MB) that only the optional assistive explorer loads.
        shutil.copytree(src / "es5" / sub, dst / sub, ignore=shutil.ignore_patterns("sre"))
    shutil.copy2(src / "LICENSE", dst / "LICENSE")
    return package_info(src, "mathjax", "LICENSE", "数式の表示(TeX → HTML)")


def vendor_font() -> dict:
    dst = fresh_dir(OUT / "fonts" / "noto-sans-jp")
    (dst / "files").mkdir()
    for weight in FONT_WEIGHTS:
        css = (FONT_PACKAGE / f"{weight}.css").read_text(encoding="utf-8")
        # Keep only the woff2 source: every browser we target reads it, and the .woff files
        # would double what we ship without ever being fetched.
        css = re.sub(r",\s*url\([^)]*\.woff\) format\('woff'\)", "", css)
        (dst / f"{weight}.css").write_text(css, encoding="utf-8")
        for woff2 in (FONT_PACKAGE / "files").glob(f"*-{weight}-normal.woff2"):
            shutil.copy2(woff2, dst / "files" / woff2.name)
    shutil.copy2(FONT_PACKAGE / "LICENSE", dst / "LICENSE")
    return package_info(FONT_PACKAGE, "fonts/noto-sans-jp", "LICENSE",
                        "日本語の本文フォント(woff2、文字範囲ごとに分割)")


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
