"""The browser is the security boundary: what a fully escaped engine could do, in Chromium.

The sandbox (pe_engine/explain/) stops hostile Python in the language; these tests assume it
failed. They run arbitrary JavaScript and Python inside the engine's worker (through the
DevTools protocol, scheduled as an ordinary task so the page's CSP applies exactly as it
would to escaped code) and check that it reaches no network, no storage and no cache of the
site, that what it sends the page is treated as data, and that a poisoned cache entry is
never served. Then a hostile permalink end to end: the next plain visit runs the real page.
"""
from __future__ import annotations

import base64
import json
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import hostile_corpus as corpus  # noqa: E402

from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

XSS = "<img src=x onerror=window.__xss=1>"


def in_task(worker, body: str, arg=None):
    """Run `body` (an async function body taking `arg`) in the engine's worker as a task of
    its own, outside DevTools' evaluation (which would not be subject to the CSP)."""
    return worker.evaluate(f"""(arg) => new Promise((resolve) => setTimeout(async () => {{
        try {{ resolve(await (async (arg) => {{ {body} }})(arg)); }}
        catch (e) {{ resolve('threw ' + e.name + ': ' + String(e.message).slice(0, 120)); }}
    }}, 0))""", arg)


def booted(page, site, wait_engine_ready):
    page.goto(site)
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    [worker] = page.workers
    return worker


def test_an_escaped_engine_reaches_no_network_and_no_storage(page, site, wait_engine_ready):
    worker = booted(page, site, wait_engine_ready)
    answered: list[str] = []  # requests that got a response: a blocked one gets none
    page.context.on("response", lambda r: answered.append(r.url))
    own = site + "app/main.js"
    js = {
        "fetch-site": f"return await WorkerGlobalScope.prototype.fetch.call(self, '{own}')"
                      ".then(() => 'fetched', (e) => 'blocked ' + e.name);",
        "fetch-other": "return await WorkerGlobalScope.prototype.fetch.call(self, "
                       "'http://example.com/x').then(() => 'fetched', (e) => 'blocked ' + e.name);",
        "post-site": f"return await WorkerGlobalScope.prototype.fetch.call(self, '{own}', "
                     "{method: 'POST', body: 'x'})"
                     ".then(() => 'fetched', (e) => 'blocked ' + e.name);",
        "xhr": f"const x = new XMLHttpRequest(); x.open('GET', '{own}', false); x.send(); "
               "return 'fetched ' + x.status;",
        "import-site": f"importScripts('{own}'); return 'ran';",
        "worker-site": f"new Worker('{own}'); return 'started';",
        "eval": "return eval('1 + 1');",
        "function": "return new Function('return 1')();",
        "caches": "return typeof caches === 'undefined' ? 'no caches' : 'caches';",
        "indexeddb": "indexedDB.open('pe'); return 'opened';",
        "service-worker": "return String(navigator.serviceWorker);",
        "origin": "return self.origin;",
        "websocket": "const w = new WebSocket('ws://127.0.0.1:9/'); return await new Promise("
                     "(r) => { w.onerror = () => r('blocked'); w.onopen = () => r('open'); });",
        "python-js": "return String(pyodide.runPython("
                     "\"import js\\njs.fetch('http://example.com/py')\\n'asked'\"));",
        "python-eval": "return String(pyodide.runPython(\"import js\\njs.eval('1 + 1')\"));",
    }
    got = {k: in_task(worker, v) for k, v in js.items()}
    assert got["fetch-site"].startswith("blocked") and got["fetch-other"].startswith("blocked")
    assert got["post-site"].startswith("blocked")
    for k in ("xhr", "import-site", "worker-site", "eval", "function", "indexeddb",
              "python-eval"):
        assert got[k].startswith("threw"), (k, got[k])
    assert got["eval"].startswith("threw EvalError")
    # IndexedDB refuses an opaque origin, and the engine's worker does not even have it
    assert got["indexeddb"].startswith("threw ReferenceError")
    assert got["caches"] == "no caches" and got["service-worker"] == "undefined"
    assert got["origin"] == "null" and got["websocket"] == "blocked"
    page.wait_for_timeout(300)
    # Chromium reports some blocked requests to DevTools; none of them was answered
    assert answered == [], answered
    violations = page.evaluate("() => window.peEngine.info.cspViolations")
    assert {v["directive"] for v in violations} >= {"connect-src", "script-src"}
    # and the frame around it has no storage of the site either
    frame = page.query_selector("iframe[data-testid=engine-frame]").content_frame()
    assert frame.evaluate("() => { try { localStorage.length; return 'read'; }"
                          " catch (e) { return e.name; } }") == "SecurityError"
    assert frame.evaluate("() => self.origin") == "null"
    # the page is unharmed: it still splits
    st = page.evaluate("(c) => window.explainer.setSource(c)",
                       "def f(x, y):\n    return x * y + 7.5\n")
    assert st["error"] is None and "7.5" in st["known"] + st["unknown"]


def test_what_the_engine_sends_is_data(page, site, wait_engine_ready):
    """A compromised worker answers calls with whatever it likes: markup in a record, a
    record of the wrong shape, an answer too large, not JSON, prototype keys. The page shows
    messages as text, refuses the rest with a message, and keeps working."""
    worker = booted(page, site, wait_engine_ready)
    replies = [
        json.dumps({"ok": True, "result": {"error": {"type": "trace", "message": XSS,
                                                     "lineno": 1}}}),
        json.dumps({"ok": True, "result": {"__proto__": {"polluted": 1}, "mode": XSS}}),
        "not json " + XSS,
        json.dumps({"ok": False, "error": {"type": XSS, "message": XSS, "traceback": XSS}}),
        "x" * 9_000_000,
    ]
    in_task(worker, """
        self.__replies = arg;
        self.onmessage = (e) => {
            if (e.data && e.data.cmd === 'call') {
                self.postMessage({id: e.data.id, text: self.__replies.shift() ?? '{}'});
            }
        };
        return 'hijacked';""", replies)
    seen = []
    for n in range(len(replies)):
        st = page.evaluate("(c) => window.explainer.setSource(c)",
                           f"def f(x, y):\n    return x * {n}.25\n")
        seen.append(st["error"])
        assert page.evaluate("() => document.querySelectorAll('img[src=x]').length") == 0
        assert page.evaluate("() => window.__xss === undefined && ({}).polluted === undefined")
    assert XSS in seen[0]["message"]
    assert XSS in page.text_content("[data-testid=error]") or seen[-1] is not None
    assert "too large" in seen[-1]["message"] or "limit" in seen[-1]["message"], seen[-1]
    # a restart gives a clean engine again
    page.evaluate("() => window.peEngine.restart()")
    st = page.evaluate("(c) => window.explainer.setSource(c)",
                       "def f(x, y):\n    return x * y * 9.5\n")
    assert st["error"] is None and "9.5" in st["known"] + st["unknown"]


def pack(state: dict) -> str:
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = z.compress(json.dumps(state).encode()) + z.flush()
    return "#v1." + base64.urlsafe_b64encode(data).decode().rstrip("=")


def cache_digests(page) -> dict:
    return page.evaluate("""async () => {
        const out = {};
        for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            for (const req of await cache.keys()) {
                const body = await (await cache.match(req)).arrayBuffer();
                const d = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
                out[name + ' ' + req.url] =
                    Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
            }
        }
        return out;
    }""")


def test_a_malicious_link_leaves_the_site_as_it_was(browser, site, wait_engine_ready):
    """With the service worker installed: open a link whose code tries to escape, let the
    (assumed) escape run every write it could in the worker, then visit the site plainly.
    Cache Storage and localStorage are exactly as before, and the real page runs. Then poison
    a cache entry from the site's own origin (what the old design let a worker do): the
    service worker does not serve it."""
    ctx = browser.new_context(service_workers="allow")
    try:
        page = ctx.new_page()
        page.console_lines = []
        page.on("console", lambda m: page.console_lines.append(f"{m.type}: {m.text}"))
        page.goto(site)
        wait_engine_ready(page)
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=60_000)
        before_cache = cache_digests(page)
        before_local = page.evaluate("() => JSON.stringify(Object.entries(localStorage))")
        assert len(before_cache) > 40

        escape = corpus.HEADER + "def f(x):\n    m = np.random.mtrand\n    return x\n"
        page.goto(site + pack({"code": escape, "known": {"x": True}, "values": {"x": "1.0"},
                               "mode": "split"}))
        wait_engine_ready(page)
        st = page.evaluate("() => window.explainer.settled()")
        assert st["error"]["line"] == 6 and "mtrand" in st["error"]["message"]
        [worker] = page.workers
        writes = in_task(worker, """
            const tried = [];
            for (const f of [() => caches.open('pe-explainer-x'), () => indexedDB.open('x'),
                             () => localStorage.setItem('x', '1'),
                             () => self.postMessage({type: 'ready', versions: {build: 'evil'}})]) {
                try { await f(); tried.push('done'); } catch (e) { tried.push(e.name); }
            }
            return tried.join(' ');""")
        # caches, IndexedDB and localStorage do not exist there
        assert writes.split()[:3] == ["ReferenceError"] * 3, writes

        page.goto(site)
        wait_engine_ready(page)
        assert cache_digests(page) == before_cache
        assert page.evaluate("() => window.peEngine.info.versions.build") != "evil"
        after_local = json.loads(
            page.evaluate("() => JSON.stringify(Object.entries(localStorage))"))
        assert {k for k, _ in after_local} <= {k for k, _ in json.loads(before_local)} | {
            "pe-explainer.state"}  # the page's own saved state, from the link it opened

        # a poisoned entry (written from the site's origin) is refetched, never run
        build = next(iter(before_cache)).split()[0]
        page.evaluate("""async (name) => {
            const cache = await caches.open(name);
            await cache.put(new URL('app/main.js', location.href).href,
                new Response('window.__poisoned = 1',
                             {headers: {'Content-Type': 'text/javascript'}}));
        }""", build)
        page.reload()
        wait_engine_ready(page)
        assert page.evaluate("() => window.__poisoned === undefined")
        assert page.evaluate("() => typeof window.explainer.setSource") == "function"
        assert cache_digests(page).get(f"{build} {site}app/main.js") is None  # dropped
    finally:
        ctx.close()


BROWSER_CASES = [c for c in corpus.CASES if c.browser]


@pytest.fixture(scope="module")
def corpus_page(browser, site):
    ctx = new_context(browser)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    pg = ctx.new_page()
    pg.goto(site)
    pg.wait_for_function("() => document.querySelector('[data-testid=engine]')"
                         "?.dataset.state === 'ready'", timeout=120_000)
    pg.requests = requests
    yield pg
    ctx.close()
    assert all(u.startswith(site) or u.startswith(("blob:", "data:", "about:"))
               for u in requests), [u for u in requests if not u.startswith(site)]


@pytest.mark.parametrize("case", BROWSER_CASES, ids=lambda c: c.id)
def test_hostile_source_in_the_page(corpus_page, case):
    """A sample of the corpus through the real page: the same located message as in CPython
    (the page shows it at its line), no markup, and the page still splits afterwards."""
    pg = corpus_page
    st = pg.evaluate("(c) => window.explainer.setSource(c)", case.source)
    err = st["error"]
    assert err is not None, case.id
    if case.line is not None:
        assert err["line"] == case.line, err
    for w in case.words:
        assert w in err["message"], (w, err)
    assert pg.evaluate("() => document.querySelectorAll('img[src=x]').length") == 0
    good = pg.evaluate("(c) => window.explainer.setSource(c)",
                       f"def f(x):\n    return x * {len(case.id)}.5\n")
    assert good["error"] is None, good["error"]
