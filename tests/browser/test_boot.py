"""The page boots Pyodide + the engine in a worker, answers calls, survives runaways."""
from __future__ import annotations

import json
import urllib.request

import pytest

pytestmark = pytest.mark.browser

CALL = "([fn, kwargs, opts]) => window.peEngine.call(fn, kwargs, opts)"
# Resolves to {ok, result} or {ok:false, error:{...}} so a rejection's fields reach Python.
SETTLE = """([fn, kwargs, opts]) => window.peEngine.call(fn, kwargs, opts).then(
    (result) => ({ok: true, result}),
    (e) => ({ok: false, error: {type: e.type, message: e.message, lineno: e.lineno ?? null,
             interrupted: !!e.interrupted, restarted: !!e.restarted,
             cause: e.cause ? e.cause.type : null}}))"""


def test_boot_call_and_errors(page, site, wait_engine_ready):
    wasm_types = []
    page.on("response", lambda r: r.url.endswith(".wasm")
            and wasm_types.append(r.headers.get("content-type")))
    resp = page.goto(site)
    assert resp.status == 200
    info = wait_engine_ready(page)
    t = info["timings"]
    print(f"\nboot timings (ms since navigation): {t['sinceNavigation']}; "
          f"worker->ready {t['bootMs']} ms")

    assert info["versions"]["python"] == "3.12.7"
    assert info["versions"]["numpy"] == "2.0.2"
    assert info["versions"]["pyodide"] == "0.27.7"
    assert info["versions"]["pe_engine"]
    assert info["interruptible"] is True
    assert page.evaluate("crossOriginIsolated") is True
    assert wasm_types == ["application/wasm"]

    assert page.evaluate(CALL, ["platform.python_version", {}, {}]) == "3.12.7"
    # the engine was installed from its wheel, with metadata
    assert page.evaluate(CALL, ["importlib.metadata.version",
                                {"distribution_name": "pe_engine"}, {}]) == "0.1.0"
    # JSON results come back parsed
    assert page.evaluate(CALL, ["json.loads", {"s": '{"a": [1, 2.5, null]}'}, {}]) == {
        "a": [1, 2.5, None]}

    err = page.evaluate(SETTLE, ["json.loads", {"s": "not json"}, {}])
    assert err["ok"] is False and err["error"]["type"] == "JSONDecodeError"
    err = page.evaluate(SETTLE, ["builtins.compile",
                                 {"source": "x = 1\ny = (", "filename": "<user>", "mode": "exec"},
                                 {}])
    assert err["error"]["type"] == "SyntaxError" and err["error"]["lineno"] == 2
    err = page.evaluate(SETTLE, ["pe_engine.no_such_function", {}, {}])
    assert err["error"]["type"] == "AttributeError"
    err = page.evaluate(SETTLE, ["not a name", {}, {}])
    assert err["error"]["type"] == "BadRequest"

    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"
    assert page.evaluate("window.__cspViolations") == []
    assert page.evaluate("window.__bootErrors") == []
    assert page.evaluate("window.peEngine.info.cspViolations") == []
    assert any("/pyodide/pyodide.asm.wasm" in u for u in page.requests)
    assert any("/wheels/pe_engine-" in u for u in page.requests)


def test_runaway_python_is_interrupted(page, site, wait_engine_ready):
    """A Python loop past its timeout gets KeyboardInterrupt; the worker is kept."""
    page.goto(site)
    wait_engine_ready(page)
    out = page.evaluate(SETTLE, ["timeit.timeit",
                                 {"stmt": "while True: pass", "number": 1}, {"timeoutMs": 1500}])
    assert out["ok"] is False
    e = out["error"]
    assert e["type"] == "timeout" and e["interrupted"] and not e["restarted"], e
    assert e["cause"] == "KeyboardInterrupt"
    info = page.evaluate("window.peEngine.info")
    assert info["restarts"] == 0 and info["interrupts"] == 1
    assert page.evaluate(CALL, ["platform.python_version", {}, {}]) == "3.12.7"
    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"


def test_uninterruptible_call_restarts_worker(page, site, wait_engine_ready):
    """A C-level loop ignores the interrupt: the worker is terminated and booted again;
    the call rejects with 'timeout' and a call queued behind it runs on the new worker."""
    page.goto(site)
    wait_engine_ready(page)
    page.evaluate("""() => {
        window.__states = [];
        window.peEngine.onState((s) => window.__states.push(s));
        window.__runaway = window.peEngine.call('timeit.timeit',
            {stmt: 'sum(itertools.count())', setup: 'import itertools', number: 1},
            {timeoutMs: 1500}).then(() => 'resolved?', (e) => ({type: e.type,
                                    restarted: !!e.restarted, message: e.message}));
        window.__queued = window.peEngine.call('platform.python_version', {});
    }""")
    runaway = page.evaluate("window.__runaway")
    assert runaway["type"] == "timeout" and runaway["restarted"], runaway
    assert "timeout" in runaway["message"] or "did not finish" in runaway["message"]
    assert page.evaluate("window.__queued") == "3.12.7"
    states = page.evaluate("window.__states")
    assert "loading" in states and states[-1] == "ready", states
    info = page.evaluate("window.peEngine.info")
    assert info["restarts"] == 1
    print(f"\nre-boot after terminate: {info['timings']['bootMs']} ms")
    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"


def test_codemirror_bundle_under_csp(page, site):
    page.goto(site)
    n = page.evaluate("""async () => {
        const cm = await import('./app/vendor/cm6.js');
        const parent = document.createElement('div');
        parent.id = 'cm6-bundle-test';
        document.body.append(parent);
        const view = new cm.EditorView({
          parent,
          state: cm.EditorState.create({doc: 'def f(x):\\n    return x * 2\\n',
                                        extensions: [cm.basicSetup, cm.python()]}),
        });
        await new Promise((r) => setTimeout(r, 100));
        return view.dom.querySelectorAll('.cm-line').length;
    }""")
    assert n == 3
    assert page.locator("#cm6-bundle-test .cm-editor .cm-content").count() == 1
    assert page.evaluate("window.__cspViolations") == []


@pytest.mark.parametrize("path,ctype", [
    ("", "text/html"),
    ("app/worker.js", "text/javascript"),
    ("app/vendor/cm6.js", "text/javascript"),
    ("pyodide/pyodide.mjs", "text/javascript"),
    ("pyodide/pyodide.asm.js", "text/javascript"),
    ("pyodide/pyodide.asm.wasm", "application/wasm"),
    ("pyodide/pyodide-lock.json", "application/json"),
    ("manifest.json", "application/json"),
])
def test_served_headers(site, path, ctype):
    req = urllib.request.Request(site + path, method="HEAD")
    with urllib.request.urlopen(req, timeout=10) as r:
        h = r.headers
    assert h["Content-Type"].split(";")[0] == ctype
    assert h["Cross-Origin-Opener-Policy"] == "same-origin"
    assert h["Cross-Origin-Embedder-Policy"] == "require-corp"
    csp = {d.split()[0]: d.split()[1:] for d in h["Content-Security-Policy"].split("; ")}
    assert csp["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    assert csp["worker-src"] == ["'self'"] and csp["connect-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"] and csp["base-uri"] == ["'none'"]
    assert h["Cache-Control"] == "no-cache"


def test_cache_headers_and_manifest(site):
    manifest = json.load(urllib.request.urlopen(site + "manifest.json", timeout=10))
    assert manifest["engine_wheel"].startswith("wheels/pe_engine-")
    for name in manifest["pyodide_packages"]:
        with urllib.request.urlopen(site + "pyodide/" + name, timeout=10) as r:
            assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            assert r.headers["Content-Type"] == "application/octet-stream"
    with urllib.request.urlopen(site + manifest["engine_wheel"], timeout=10) as r:
        assert r.headers["Cache-Control"] == "no-cache"
    # the static-host copy of the headers is in dist but not served
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(site + "_headers", timeout=10)
    assert e.value.code == 404


def test_boot_guard_reports_missing_module(page, site):
    """A module script that fails to load never runs any module code: the classic
    boot-guard.js must report it."""
    page.context.route("**/app/main.js", lambda route: route.fulfill(status=404, body="no"))
    page.goto(site)
    page.wait_for_function("() => document.querySelector('[data-testid=engine]').dataset.state"
                           " === 'error'", timeout=10_000)
    assert "main.js" in page.text_content("[data-testid=engine]")


def test_boot_guard_watchdog_on_wrong_wasm_mime(page, site):
    """pyodide.asm.wasm served as octet-stream makes loadPyodide hang forever (Pyodide 0.27.7);
    the watchdog (?timeout=ms) turns that into a visible error."""
    def wrong_type(route):
        resp = route.fetch()
        route.fulfill(response=resp, headers={**resp.headers,
                                              "content-type": "application/octet-stream"})
    page.context.route("**/*.wasm", wrong_type)
    page.goto(site + "?timeout=15000")
    page.wait_for_function("() => document.querySelector('[data-testid=engine]').dataset.state"
                           " === 'error'", timeout=30_000)
    assert "did not start" in page.text_content("[data-testid=engine]")
