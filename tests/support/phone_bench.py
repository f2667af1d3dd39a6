"""The built book on an emulated phone: first paint, load, bytes and requests of every chapter page
and the glossary, first visit and second page (`make bench` runs it; CONTRIBUTING.md "Budgets").

    python tests/support/phone_bench.py                      # the book in book/_build/html
    python tests/support/phone_bench.py --before OLD_HTML    # another build too, page by page in one run

The book is served over HTTP on 127.0.0.1 the way a static host serves it: text files gzip-
compressed, `Cache-Control: max-age=600` (GitHub Pages' header). Chromium opens each page at
390 × 844 as a phone, emulated through the DevTools protocol: 150 ms round trip, 1.6 Mbit/s down,
750 kbit/s up, the processor 4× slower. First visit: a fresh browser context (empty cache), the
page loaded until its `load` event and then until the network has been quiet for a second, with
nothing still arriving, and its main thread idle; what it fetched (requests, bytes on the wire) is
counted over that time. Second page: in the same context, the next page in reading order (its
first paint, from the cache the first one filled), opened from a first page at rest as a reader's
is. First paint and load are waited for (a page's `load` can come before its first frame).

With --before, each page is measured on the old build and then on this one, in turns, so both see
the same load of a shared machine. Budget per page: first paint ≤ 2.0 s, load ≤ 6 s, ≤ 400 KB,
≤ 30 requests, the second page's first paint ≤ 1.0 s. Reported, never asserted: timing on a
shared machine is not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import io
import statistics
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import lab_server

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "book" / "_build" / "html"
#: Every chapter page (their names start with their number: reading order) and the glossary.
PAGES = [f"notebooks/{p.name}" for p in sorted((HTML / "notebooks").glob("[0-9][0-9]_*.html"))] \
    + ["book/glossary.html"]
VIEWPORT = {"width": 390, "height": 844}
#: Chrome DevTools' throttling, as the issue measured: a phone on a slow mobile connection.
NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8,
           "uploadThroughput": 750e3 / 8}
CPU_SLOWDOWN = 4
BUDGET = {"fcp_ms": 2000, "load_ms": 6000, "kb": 400, "requests": 30, "second_fcp_ms": 1000}
COMPRESSED = {".html", ".js", ".css", ".json", ".svg", ".txt", ".map", ".ttf", ".woff"}
QUIET_MS = 1000


class Handler(http.server.SimpleHTTPRequestHandler):
    """A static host: gzip for text, cacheable for ten minutes, no log lines."""

    def log_message(self, *args) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix not in COMPRESSED or not path.is_file() \
                or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@functools.cache
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


@contextlib.contextmanager
def serving(folder: Path):
    """The folder over HTTP on a free port of 127.0.0.1; yields its base URL."""
    handler = functools.partial(Handler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Visit:
    fcp_ms: float
    load_ms: float
    kb: float
    requests: int
    second_fcp_ms: float
    by_type: dict[str, tuple[int, float]]  # resource type -> (requests, KB)


#: First contentful paint and the end of the load event, waited for: a page whose `load` comes
#: before its first frame (a second page from the cache can) has no paint entry yet when `goto`
#: returns, so reading the entries at once gave NaN (chapter 04's second page did). NaN only when
#: nothing is painted within PAINT_TIMEOUT_MS.
PAINT = """(timeout) => new Promise(resolve => {
  const read = () => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    const nav = performance.getEntriesByType('navigation')[0];
    return {fcp: fcp ? fcp.startTime : NaN, load: nav && nav.loadEventEnd > 0 ? nav.loadEventEnd : NaN};
  };
  const start = performance.now();
  const poll = () => {
    const now = read();
    if ((!isNaN(now.fcp) && !isNaN(now.load)) || performance.now() - start > timeout) resolve(now);
    else setTimeout(poll, 50);
  };
  poll();
})"""
PAINT_TIMEOUT_MS = 15_000
#: The first page is read before the next is opened: its requests done, then an idle main thread.
IDLE = "() => new Promise(resolve => requestIdleCallback(resolve, {timeout: 5000}))"


def _phone(browser):
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=3, is_mobile=True,
                                  has_touch=True, locale="ja-JP", service_workers="block")
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", NETWORK)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return context, page, cdp


def visit(browser, base: str, rel: str, second: str) -> Visit:
    """`rel` on a fresh phone (empty cache), then `second` in the same tab."""
    context, page, cdp = _phone(browser)
    seen: dict[str, str] = {}
    sizes: dict[str, float] = {}
    cdp.on("Network.requestWillBeSent", lambda e: seen.setdefault(e["requestId"], e.get("type", "Other"))
           if e["request"]["url"].startswith("http") else None)
    cdp.on("Network.responseReceived", lambda e: seen.__setitem__(e["requestId"], e.get("type", "Other"))
           if e["requestId"] in seen else None)
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    cdp.on("Network.loadingFailed", lambda e: sizes.setdefault(e["requestId"], 0))
    try:
        page.goto(base + rel, wait_until="load", timeout=180_000)
        first = page.evaluate(PAINT, PAINT_TIMEOUT_MS)
        settle(page, lambda: len(seen), lambda: len(set(seen) - set(sizes)))
        by_type: dict[str, tuple[int, float]] = {}
        for rid, kind in seen.items():
            n, kb = by_type.get(kind, (0, 0.0))
            by_type[kind] = (n + 1, kb + sizes.get(rid, 0) / 1024)
        kb, requests = sum(sizes.get(rid, 0) for rid in seen) / 1024, len(seen)
        page.goto(base + second, wait_until="load", timeout=180_000)
        then = page.evaluate(PAINT, PAINT_TIMEOUT_MS)
        return Visit(first["fcp"], first["load"], kb, requests, then["fcp"], by_type)
    finally:
        context.close()


def quiet(page, count, pending=lambda: 0) -> None:
    """Wait until no request has started for QUIET_MS and none is still arriving (explorables,
    fonts, lazy images: a figure still downloading when the next page opens made the old page lay
    itself out again in the next page's time)."""
    last, idle, waited = count(), 0, 0
    while (idle < QUIET_MS or pending()) and waited < 120_000:
        waited += 250
        page.wait_for_timeout(250)
        now = count()
        idle = idle + 250 if now == last else 0
        last = now


def settle(page, count, pending) -> None:
    """Quiet, then an idle main thread, until being idle started nothing new: a busy page's lazy
    figures are requested only when its main thread gets to them (seconds after `load` on the
    emulated processor), and they are part of a first visit."""
    while True:
        quiet(page, count, pending)
        before = count()
        page.evaluate(IDLE)
        page.wait_for_timeout(250)
        if count() == before and not pending():
            return


def measure(builds: dict[str, Path], runs: int = 1) -> dict[str, dict[str, list[Visit]]]:
    """{build: {page: [Visit]}}, the builds taking turns page by page."""
    out = {name: {rel: [] for rel in PAGES} for name in builds}
    with contextlib.ExitStack() as stack:
        bases = {name: stack.enter_context(serving(folder)) for name, folder in builds.items()}
        browser = stack.enter_context(lab_server.browser())
        for _ in range(runs):
            for i, rel in enumerate(PAGES):
                second = PAGES[(i + 1) % len(PAGES)]
                for name, base in bases.items():
                    out[name][rel].append(visit(browser, base, rel, second))
                    print("  " + row(name, rel, out[name][rel][-1]), flush=True)
    return out


def row(name: str, rel: str, v: Visit) -> str:
    kinds = " ".join(f"{k.lower()[:6]} {n}/{kb:.0f}" for k, (n, kb) in
                     sorted(v.by_type.items(), key=lambda kv: -kv[1][1]))
    return (f"{name:<6} {Path(rel).stem:<22} {v.fcp_ms:7.0f} {v.load_ms:7.0f} {v.kb:6.0f} "
            f"{v.requests:4d} {v.second_fcp_ms:7.0f}   {kinds}")


def figures(results: dict[str, list[Visit]]) -> dict[str, float]:
    every = [v for visits in results.values() for v in visits]

    def p50(attr: str) -> float:
        return statistics.median(getattr(v, attr) for v in every)

    return {"book_fcp_p50_ms": p50("fcp_ms"), "book_load_p50_ms": p50("load_ms"),
            "book_kb_p50": p50("kb"), "book_requests_p50": p50("requests"),
            "book_second_fcp_p50_ms": p50("second_fcp_ms"),
            "book_fcp_max_ms": max(v.fcp_ms for v in every),
            "book_kb_max": max(v.kb for v in every)}


def main(argv: list[str]) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", nargs="?", type=Path, default=HTML, help="the built book (_build/html)")
    parser.add_argument("--before", type=Path, help="another build, measured in turns with this one")
    parser.add_argument("--runs", type=int, default=1, help="visits per page and build")
    parser.add_argument("--pages", help="only the pages whose names contain one of these (comma-separated)")
    args = parser.parse_args(argv)
    if args.pages:
        PAGES[:] = [p for p in PAGES if any(part in p for part in args.pages.split(","))]
    builds = {"after": args.html} if args.before else {"book": args.html}
    if args.before:
        builds = {"before": args.before, **builds}
    for folder in builds.values():
        if not (folder / "index.html").exists():
            raise SystemExit(f"書き出した本がありません: {folder}(make book)")
    print(f"  {'build':<6} {'page':<22} {'fcp_ms':>7} {'load_ms':>7} {'KB':>6} {'req':>4} "
          f"{'2nd_fcp':>7}   by type: requests/KB")
    results = measure(builds, args.runs)
    print("  budget: " + " ".join(f"{k}≤{v}" for k, v in BUDGET.items()))
    out = {}
    for name, per_page in results.items():
        found = figures(per_page)
        print(f"  {name}: " + " ".join(f"{k}={v:.0f}" for k, v in found.items()))
        out = found  # the last build (this one) goes on the bench: line
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
