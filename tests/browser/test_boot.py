"""The page boots Pyodide + the engine in a worker, answers calls, survives runaways."""
from __future__ import annotations

import ast
import json
import urllib.request
from pathlib import Path

import pytest

from sitebuild.headers import content_security_policy, inline_script_hashes
from tests.browser.contexts import new_context
from tests.browser.runaway_code import c_loop

pytestmark = pytest.mark.browser

CALL = "([fn, kwargs, opts]) => window.peEngine.call(fn, kwargs, opts)"
# Resolves to {ok, result} or {ok:false, error:{...}} so a rejection's fields reach Python.
SETTLE = """([fn, kwargs, opts]) => window.peEngine.call(fn, kwargs, opts).then(
    (result) => ({ok: true, result}),
    (e) => ({ok: false, error: {type: e.type, message: e.message, lineno: e.lineno ?? null,
             interrupted: !!e.interrupted, restarted: !!e.restarted,
             cause: e.cause ? e.cause.type : null}}))"""
RUN = "pe_engine.explain.run"


def split(source: str, known: bool = True) -> dict:
    return {"mode": "split", "source": source, "args": [{"known": known, "value": "1.0"}]}


def test_boot_call_and_errors(page, site, wait_engine_ready):
    wasm_types = []
    page.on("response", lambda r: r.url.endswith(".wasm")
            and wasm_types.append(r.headers.get("content-type")))
    resp = page.goto(site)
    assert resp.status == 200
    info = wait_engine_ready(page)
    t = info["timings"]
    print(f"\nboot timings (ms since navigation): {t['sinceNavigation']}; "
          f"engine start->ready {t['bootMs']} ms")

    assert info["versions"]["python"] == "3.12.7"
    assert info["versions"]["numpy"] == "2.0.2"
    assert info["versions"]["pyodide"] == "0.27.7"
    assert info["versions"]["pe_engine"] == "0.1.0"
    assert info["interruptible"] is True
    assert page.evaluate("crossOriginIsolated") is True
    assert wasm_types == ["application/wasm"]

    rec = page.evaluate(CALL, [RUN, split("def f(x):\n    return x * 2.0\n", False), {}])
    assert rec["unknown"]["text"] == "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"
    # a located error comes back as a record, not a rejection
    rec = page.evaluate(CALL, [RUN, split("def f(x):\n    return x +\n"), {}])
    assert rec["error"]["type"] == "syntax" and rec["error"]["lineno"] == 2
    # the engine answers one entry point only: nothing else of Python can be called
    for name in ["platform.python_version", "builtins.exec", "js.eval",
                 "pe_engine.explain.entry.call"]:
        err = page.evaluate(SETTLE, [name, {}, {}])
        assert err["ok"] is False and err["error"]["type"] == "LookupError", err
        assert "not an entry point" in err["error"]["message"]

    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"
    assert page.evaluate("window.__cspViolations") == []
    assert page.evaluate("window.__bootErrors") == []
    assert page.evaluate("window.peEngine.info.cspViolations") == []
    assert any("/pyodide/pyodide.asm.wasm" in u for u in page.requests)
    assert any("/wheels/pe_engine-" in u for u in page.requests)


def test_the_engine_runs_in_an_opaque_origin_sandbox(page, site, wait_engine_ready):
    """The worker lives in a sandboxed srcdoc frame (no allow-same-origin): its origin is
    'null', and it is the only worker; the page itself starts none."""
    page.goto(site)
    wait_engine_ready(page)
    frame = page.locator("iframe[data-testid=engine-frame]")
    assert frame.get_attribute("sandbox") == "allow-scripts"
    assert "cross-origin-isolated" in frame.get_attribute("allow")
    assert [w.url.startswith("blob:null/") for w in page.workers] == [True]
    assert page.workers[0].evaluate("self.origin") == "null"
    assert page.workers[0].evaluate("typeof caches") == "undefined"


def test_runaway_python_is_interrupted(page, site, wait_engine_ready):
    """A Python loop past its timeout gets KeyboardInterrupt; the engine is kept."""
    page.goto(site)
    wait_engine_ready(page)
    loop = "def f(x):\n    while True:\n        pass\n"
    out = page.evaluate(SETTLE, [RUN, split(loop), {"timeoutMs": 1500}])
    assert out["ok"] is False
    e = out["error"]
    assert e["type"] == "timeout" and e["interrupted"] and not e["restarted"], e
    assert e["cause"] == "KeyboardInterrupt" and e["lineno"] in (2, 3), e
    info = page.evaluate("window.peEngine.info")
    assert info["restarts"] == 0 and info["interrupts"] == 1
    rec = page.evaluate(CALL, [RUN, split("def f(x):\n    return x\n"), {}])
    assert "error" not in rec
    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"


def test_uninterruptible_call_restarts_the_engine(page, site, wait_engine_ready):
    """A C-level loop ignores the interrupt: the frame and its worker are torn down and a new
    engine boots; the call rejects with 'timeout' and a call queued behind it runs on the new
    engine. The old worker is gone."""
    page.goto(site)
    wait_engine_ready(page)
    looping = split(c_loop())
    page.evaluate("""([runaway, good]) => {
        window.__states = [];
        window.peEngine.onState((s) => window.__states.push(s));
        window.__runaway = window.peEngine.call('pe_engine.explain.run', runaway,
            {timeoutMs: 1500}).then(() => 'resolved?', (e) => ({type: e.type,
                                    restarted: !!e.restarted, message: e.message}));
        window.__queued = window.peEngine.call('pe_engine.explain.run', good);
    }""", [looping, split("def f(x):\n    return x * 3.0\n")])
    runaway = page.evaluate("window.__runaway")
    assert runaway["type"] == "timeout" and runaway["restarted"], runaway
    assert "did not finish" in runaway["message"]
    queued = page.evaluate("window.__queued")
    assert queued["program"]["eqns"] == ["b:f32[] = mul a 3.0:f32[]"]
    states = page.evaluate("window.__states")
    assert "loading" in states and states[-1] == "ready", states
    info = page.evaluate("window.peEngine.info")
    assert info["restarts"] == 1
    print(f"\nre-boot after terminate: {info['timings']['bootMs']} ms")
    assert page.get_attribute("[data-testid=engine]", "data-state") == "ready"
    assert page.locator("iframe[data-testid=engine-frame]").count() == 1
    assert len(page.workers) == 1


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
    ("app/engine-worker.js", "text/javascript"),
    ("app/engine-frame.js", "text/javascript"),
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
    assert h["Cross-Origin-Embedder-Policy"] == "credentialless"
    # the same policy on every file, naming the built frame script by its hash
    assert h["Content-Security-Policy"] == content_security_policy(
        inline_script_hashes(Path(__file__).resolve().parents[2] / "dist"))
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


def test_a_tampered_engine_file_stops_the_boot(page, site):
    """Every file the engine is given is checked against manifest.json's sha256 first: a
    wasm that is not the build's (a bad mirror, a poisoned cache) never runs, and the page
    says which file it was."""
    def tampered(route):
        resp = route.fetch()
        body = bytearray(resp.body())
        body[-1] ^= 1
        route.fulfill(response=resp, body=bytes(body))
    page.context.route("**/*.wasm", tampered)
    page.goto(site)
    page.wait_for_function("() => document.querySelector('[data-testid=engine]').dataset.state"
                           " === 'error'", timeout=60_000)
    text = page.text_content("[data-testid=engine]")
    assert "sha256 mismatch" in text and "pyodide.asm.wasm" in text, text
    assert page.locator("iframe[data-testid=engine-frame]").count() == 0  # torn down


def test_the_engine_starts_from_the_builds_heap_and_reseeds_random(browser, page, site,
                                                                  wait_engine_ready):
    """The worker starts Python from the heap a build-time Pyodide left (pyodide-heap.bin),
    not by initialising it: two readers' engines share that heap's str hash secret (Pyodide
    booted from scratch draws a new one each time), but not its random sequence, which the
    worker reseeds from the browser's entropy."""
    probe = "repr((hash('residual'), __import__('random').random(), __import__('time').tzname))"
    seen = []
    other = new_context(browser)
    try:
        for pg in (page, other.new_page()):
            pg.goto(site)
            wait_engine_ready(pg)
            seen.append(pg.workers[0].evaluate(f"pyodide.runPython({probe!r})"))
    finally:
        other.close()
    (hash_a, random_a, tz_a), (hash_b, random_b, tz_b) = map(ast.literal_eval, seen)
    assert hash_a == hash_b, seen
    assert random_a != random_b, seen
    assert tz_a == tz_b == ("UTC", "UTC"), seen
    manifest = json.load(urllib.request.urlopen(site + "manifest.json", timeout=10))
    assert manifest["heap_snapshot"]["path"] == "wheels/pyodide-heap.bin"
    assert any(u.endswith("/wheels/pyodide-heap.bin") for u in page.requests)


def test_engine_files_are_fetched_after_the_first_paint_once_off_the_main_thread(page, site,
                                                                               wait_engine_ready):
    """The head's inline script has a worker fetch the engine's files once the page has
    rendered its first frame; the engine client then takes those bytes (one request per file,
    not two), the page's own loader never handles them (no resource entry of its main thread),
    the server sends the wasm gzipped, as static hosts do, and the worker is gone once done."""
    # registered before the page's scripts: it runs first in the first frame's callbacks
    page.add_init_script("requestAnimationFrame(() => {"
                         " window.__firstFrame = performance.timeOrigin + performance.now() })")
    # the engine client held back, so that the first frame surely comes first (on a busy
    # machine the modules may run before it: then the client fetches, and removes the list)
    page.route("**/app/engine-client.js",
               lambda route: (page.wait_for_timeout(300), route.continue_()))
    finished = []
    page.context.on("requestfinished", lambda r: finished.append(r))
    page.goto(site)
    wait_engine_ready(page)
    manifest = json.load(urllib.request.urlopen(site + "manifest.json", timeout=10))
    paths = [f["path"] for f in manifest["engine_files"].values()]
    got = page.evaluate("""(paths) => ({
        paint: window.__firstFrame,
        list: document.getElementById('engine-files') !== null,
        onMain: performance.getEntriesByType('resource').map((r) => r.name)
            .filter((name) => paths.some((p) => name.endsWith('/' + p))),
    })""", paths)
    assert not got["list"] and got["onMain"] == [], got
    for path in paths:
        asked = [r for r in finished if r.url.endswith("/" + path)]
        assert len(asked) == 1, (path, [r.url for r in asked])
        assert asked[0].timing["startTime"] >= got["paint"], (path, asked[0].timing, got)
        if path.endswith(".wasm"):
            assert asked[0].response().headers.get("content-encoding") == "gzip"
    assert [w.url.startswith("blob:null/") for w in page.workers] == [True]
    assert page.evaluate("window.__cspViolations") == []
