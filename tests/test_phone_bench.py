"""tests/support/phone_bench.py reads what it measures once it exists: a page whose `load` event
comes before its first paint (as a second page from the cache can) still gets its first paint,
and the next page opens only after the first has finished arriving. Times are never asserted."""

from __future__ import annotations

import math

import chromium
import lab_server
import phone_bench
import pytest

LATE_TEXT = """<!doctype html><meta charset="utf-8"><title>late</title><body><script>
addEventListener('load', () => setTimeout(() => {
  document.body.insertAdjacentHTML('beforeend', '<p>あとから出る文</p>');
}, 400));
</script>"""
SLOW_PICTURE = """<!doctype html><meta charset="utf-8"><title>first</title><p>最初のページ</p>
<script>addEventListener('load', () => fetch('big.bin').then(r => r.arrayBuffer()));</script>"""


@pytest.fixture(scope="module")
def browser():
    try:
        with lab_server.browser() as b:
            yield b
    except chromium.Missing as missing:  # as tests/test_book.py: a missing browser fails
        pytest.fail(str(missing), pytrace=False)


def test_first_paint_after_load_is_read_not_nan(tmp_path, browser, monkeypatch):
    # The bench waits for a second without a new request (a real page's lazy figures come late);
    # these pages start their one late request at `load`, so one poll of quiet is enough (and the
    # 0.6-s download then outlasts the quiet: only `pending` waits for it).
    monkeypatch.setattr(phone_bench, "QUIET_MS", 250)
    (tmp_path / "first.html").write_text(SLOW_PICTURE, encoding="utf-8")
    (tmp_path / "late.html").write_text(LATE_TEXT, encoding="utf-8")
    # 120 KB the first page starts fetching after its load: 0.6 s at the phone's 1.6 Mbit/s.
    (tmp_path / "big.bin").write_bytes(bytes(range(256)) * 480)
    with phone_bench.serving(tmp_path) as base:
        v = phone_bench.visit(browser, base, "first.html", "late.html")
    assert math.isfinite(v.fcp_ms) and math.isfinite(v.load_ms)
    assert math.isfinite(v.second_fcp_ms), "the second page's paint came after its load and was missed"
    assert v.second_fcp_ms >= 400
    # The file fetched after `load` was waited for and counted whole (a favicon request may join).
    assert v.by_type["Fetch"] == (1, pytest.approx(120, abs=2))
