"""Publishing anywhere: the built site under a sub-path of a plain static host that sends no
headers at all (no COOP/COEP, no CSP), as GitHub Pages or an S3 bucket would serve it."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LOOP = "def f(x):\n    while True:\n        pass\n"


def test_a_host_without_headers(browser, plain_site, wait_engine_ready):
    """First visit: not cross-origin isolated, so no interrupt buffer: the page works, the
    CSP comes from the <meta> (an injected inline script does not run), and a runaway is
    stopped by tearing the engine down. Second visit: the service worker adds COOP, COEP and
    the CSP, and the page is isolated, with interrupts."""
    ctx = browser.new_context(service_workers="allow")
    try:
        page = ctx.new_page()
        resp = page.goto(plain_site)
        assert "cross-origin-embedder-policy" not in resp.headers
        info = wait_engine_ready(page)
        assert page.evaluate("crossOriginIsolated") is False and info["interruptible"] is False
        st = page.evaluate("(c) => window.explainer.setSource(c)",
                           "import jax.numpy as jnp\ndef f(x, y):\n    return jnp.sin(x) * y\n")
        assert st["error"] is None and "sin" in st["known"] + st["unknown"]
        page.evaluate("""() => { const s = document.createElement('script');
            s.textContent = 'window.__inline = 1'; document.body.append(s); }""")
        assert page.evaluate("() => window.__inline === undefined")
        st = page.evaluate("(c) => window.explainer.setSource(c)", LOOP)
        assert "restarted" in st["error"]["message"], st["error"]
        assert page.evaluate("() => window.peEngine.info.restarts") == 1
        page.wait_for_function("() => window.peEngine.state === 'ready'", timeout=60_000)

        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=60_000)
        page.reload()
        info = wait_engine_ready(page)
        assert page.evaluate("crossOriginIsolated") is True and info["interruptible"] is True
        st = page.evaluate("(c) => window.explainer.setSource(c)",
                           "import jax.numpy as jnp\ndef f(x, y):\n    return jnp.cos(x) * y\n")
        assert st["error"] is None and "cos" in st["known"] + st["unknown"]
    finally:
        ctx.close()
