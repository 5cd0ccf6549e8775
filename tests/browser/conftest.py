"""Browser fixtures: build dist/ if needed, serve it with build.py (and as a plain static host
that sends no headers), drive Debian's Chromium, and Firefox and WebKit through `engines.py`.

Skips (cleanly) only when Playwright or /usr/bin/chromium is missing. Never `playwright install`.
"""
from __future__ import annotations

import http.server
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitebuild import server
from sitebuild.common import DIST
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.code_editor import reach_editor
from tests.browser.contexts import new_context
from tests.browser.engines import Engines
from tests.browser.local_servers import serving

ROOT = Path(__file__).resolve().parents[2]
BOOT_TIMEOUT_MS = 120_000

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None


def pytest_collection_modifyitems(config, items):
    reason = None
    if sync_playwright is None:
        reason = "playwright is not installed (pip install -e '.[test]')"
    elif not os.path.exists(CHROMIUM):
        reason = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if reason:
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """Base URL ('http://127.0.0.1:PORT/') of dist/, served by `build.py serve`."""
    subprocess.run([sys.executable, str(ROOT / "build.py"), "--if-stale"], cwd=ROOT, check=True,
                   stdin=subprocess.DEVNULL)
    log = tmp_path_factory.mktemp("server") / "access.log"
    with open(log, "wb") as err:
        try:
            proc, url = server.spawn(stderr=err)
        except RuntimeError as e:
            raise RuntimeError(f"{e}; log: {log.read_text()[-2000:]}") from None
    try:
        yield url
    finally:
        server.stop(proc)


class PlainHost(http.server.SimpleHTTPRequestHandler):
    """dist/ under PLAIN_BASE, with the content types a static host knows and no other header
    (as GitHub Pages or a bucket would serve it: no COOP/COEP, no CSP header)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript",
                      ".mjs": "text/javascript", ".json": "application/json"}
    base = "/some/path/"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(DIST), **kwargs)

    def translate_path(self, path):
        if not path.startswith(self.base):
            return str(DIST / "no-such-file")
        return super().translate_path("/" + path[len(self.base):])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def plain_site(site):  # `site` builds dist/ first
    """Base URL of dist/ served under a sub-path by a static host that sends no headers."""
    with serving(PlainHost) as origin:
        yield origin + PlainHost.base


@pytest.fixture(scope="session")
def playwright():
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture(scope="session")
def engines(playwright):
    """Tabs in Chromium, Firefox or WebKit (tests/browser/engines.py)."""
    e = Engines(playwright)
    yield e
    e.close()


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname == "127.0.0.1"


@pytest.fixture
def page(browser, site):
    """A page in a fresh context (empty cache). Every request of the context, workers
    included, is recorded in page.requests; teardown asserts none left 127.0.0.1."""
    ctx = new_context(browser)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    pg = ctx.new_page()
    pg.requests = requests
    pg.console_lines = []
    pg.on("console", lambda m: pg.console_lines.append(f"{m.type}: {m.text}"))
    pg.on("pageerror", lambda e: pg.console_lines.append(f"pageerror: {e}"))
    yield pg
    ctx.close()
    outside = [u for u in requests if not _is_local(u)]
    assert not outside, f"requests left 127.0.0.1: {outside}"


@pytest.fixture
def wait_engine_ready():
    """wait_engine_ready(page) -> engine info, once [data-testid=engine] is 'ready'."""
    return _wait_engine_ready


def _wait_engine_ready(page, timeout_ms: int = BOOT_TIMEOUT_MS) -> dict:
    # the state as it was when it left 'loading' (the page's first call may make it 'busy'
    # a moment later)
    state = page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=engine]')?.dataset.state;"
        " return (s === 'ready' || s === 'error') && s; }", timeout=timeout_ms).json_value()
    text = page.text_content("[data-testid=engine]")
    lines = getattr(page, "console_lines", [])
    assert state == "ready", f"engine {state}: {text}\nconsole:\n" + "\n".join(lines)
    return page.evaluate("() => JSON.parse(JSON.stringify(window.peEngine.info))")


@pytest.fixture
def opened(page, site, wait_engine_ready):
    """The page at 1440 px with the engine ready, the opening split drawn and CodeMirror
    mounted."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(site)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    reach_editor(page)
    return page
