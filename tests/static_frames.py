"""Shared by widget tests: render an Explorable as the static book would and check its frames."""

import json
import re

import helpers

#: CONTRIBUTING.md: ≤ 12 frames so that a book page stays under 3 MB with everything else on it.
MAX_FRAMES = 12
MAX_WIDGET_BYTES = 1_500_000


def static_payload(explorer, monkeypatch) -> tuple[str, dict]:
    """`(html, {"frames", "labels", "alts"})` of the kernel-free frame slider.

    Asserts what every widget owes the book: 2 to 12 frames, all different, and a size that
    leaves room for the rest of the page.
    """
    monkeypatch.setenv(helpers.STATIC_ENV_VAR, "1")
    html = explorer._repr_mimebundle_()["text/html"]
    payload = json.loads(re.search(r'class="qkv-frame-data">(.*?)</script>', html).group(1))
    n = len(explorer.static_frames)
    assert 2 <= n <= MAX_FRAMES
    assert len(payload["frames"]) == n == len(set(payload["frames"]))
    assert f'max="{n - 1}"' in html
    assert len(html) < MAX_WIDGET_BYTES
    return html, payload
