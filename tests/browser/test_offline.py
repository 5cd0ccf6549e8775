"""The page works with the network cut: after the boot (nothing more is fetched to trace and
draw), and on a repeat visit through the service worker (sw.js), which caches the build."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

EDIT = "import jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.cos(x) * y + x\n"


def test_edit_splits_with_the_network_cut_after_load(page, site, wait_engine_ready):
    page.goto(site)
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    page.context.set_offline(True)
    try:
        st = page.evaluate("(code) => window.explainer.setSource(code)", EDIT)
        assert st["error"] is None, st["error"]
        assert "cos" in st["known"] + st["unknown"]
        st = page.evaluate("() => window.explainer.setKnown('x', false)")
        assert st["error"] is None and st["mask"]["x"] is False
        assert "cos" in st["unknown"], st["unknown"]
    finally:
        page.context.set_offline(False)


def test_service_worker_serves_a_repeat_visit_offline(browser, site, wait_engine_ready):
    ctx = browser.new_context(service_workers="allow")
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    try:
        page = ctx.new_page()
        page.goto(site)
        wait_engine_ready(page)
        # registered once the engine is ready; installed = the whole build is in Cache Storage
        assert page.evaluate("() => navigator.serviceWorker.ready.then((r) => !!r.active)")
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=60_000)
        build = page.evaluate("() => fetch('manifest.json').then((r) => r.json())")["build_hash"]
        assert page.evaluate("() => caches.keys()") == [f"pe-explainer-{build}"]

        ctx.set_offline(True)
        page.reload()
        info = wait_engine_ready(page)
        assert info["versions"]["build"] == build
        assert page.evaluate("() => !!navigator.serviceWorker.controller")
        st = page.evaluate("(code) => window.explainer.setSource(code)", EDIT)
        assert st["error"] is None and "cos" in st["known"] + st["unknown"]
        assert page.evaluate("window.__bootErrors") == []
        assert page.evaluate("window.__cspViolations") == []
    finally:
        ctx.set_offline(False)
        ctx.close()
    outside = [u for u in requests
               if urlsplit(u).scheme not in ("data", "blob", "about")
               and urlsplit(u).hostname != "127.0.0.1"]
    assert not outside, outside
