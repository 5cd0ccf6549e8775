"""Browser fixtures: build dist/ if needed, serve it with build.py, drive Debian's Chromium.

Skips (cleanly) only when Playwright or /usr/bin/chromium is missing. Never `playwright install`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitebuild import server
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.code_editor import reach_editor

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


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    return parts.hostname == "127.0.0.1"


@pytest.fixture
def page(browser, site):
    """A page in a fresh context (empty cache). Every request of the context, workers
    included, is recorded in page.requests; teardown asserts none left 127.0.0.1."""
    ctx = browser.new_context(service_workers="block")
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
