"""Copy the browser assets the static book needs from node_modules into book/_vendor/.

    python tools/vendor_assets.py

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

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "node_modules"
OUT = ROOT / "book" / "_vendor"
FONT_PACKAGE = NODE / "@fontsource" / "noto-sans-jp"
# One weight only: each weight costs a page 0.25-0.35 MB of subsets plus a 0.1 MB stylesheet, and
# pages must stay under 3 MB with everything they load. Bold text is synthesised from 400.
FONT_WEIGHTS = ("400",)


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


# The book starts MathJax from `startup.js` (Sphinx's mathjax_path) and names the components it
# needs in book/_config.yml (mathjax3_config.loader.load); they are loaded from the folders below.
# That is ~0.75 MB per page instead of the 1.1 MB of the combined tex-chtml.js, most of which is
# the right-click menu. The combined bundles (SVG output, MathML input, "full" builds) are never
# requested, so they are not shipped: the copy is ~5 MB instead of ~20 MB.
MATHJAX_FILES = ("startup.js", "core.js")
MATHJAX_DIRS = ("a11y", "adaptors", "input", "output", "ui")


def vendor_mathjax() -> dict:
    src = NODE / "mathjax"
    dst = fresh_dir(OUT / "mathjax")
    for name in MATHJAX_FILES:
        shutil.copy2(src / "es5" / name, dst / name)
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
