"""Bad input never breaks the page, and untrusted code stays in its box.

A corpus of bad inputs (syntax, sandbox escapes, unsupported operations, shape and dtype
errors, wrong inputs, unreadable values, limits, memory, runaway loops, worker crashes,
hostile permalinks, XSS attempts) is run against the real page, through window.explainer and
through the real UI (typing in the editor, the value fields). Each case gets its message, at
its line; afterwards a good function still splits exactly as pe_engine.explain.run does in
CPython; no request leaves 127.0.0.1; no markup from the input ever becomes DOM.

Most cases share one page (one engine boot); the runaways run on a page with a short call
timeout, and only a few cases cost a worker restart.
"""
from __future__ import annotations

import base64
import itertools
import json
import re
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pe_engine import explain
from tests.browser.code_editor import click_editor, marked_line
from tests.browser.contexts import new_context
from tests.browser.runaway_code import c_loop

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import precompute  # noqa: E402

EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())
DEFAULT = next(e for e in EXAMPLES["examples"] if e["id"] == EXAMPLES["default"])
H = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\n"  # `def` is on line 5
XSS = "</script><img src=x onerror=window.__xss=1>"
# The page's call timeout (app/limits.js): no URL parameter may change it.
CALL_TIMEOUT_S = int(re.search(r"CALL_TIMEOUT_MS = ([\d_]+);",
                               (ROOT / "app" / "limits.js").read_text()).group(1)) // 1000


# ------------------------------------------------------------------------------------ helpers

def cpython(code: str, known: dict, values: dict, mode: str = "split") -> dict:
    req, = precompute.page_requests([{"mode": mode, "code": code, "known": known,
                                      "values": values}])
    return explain.as_json(explain.run(req["mode"], **req["kwargs"]))


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1"


def _wait_engine_ready(pg) -> None:
    state = pg.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=engine]')?.dataset.state;"
        " return (s === 'ready' || s === 'error') && s; }", timeout=120_000).json_value()
    assert state == "ready"


def outside(pg) -> list[str]:
    return [u for u in pg.requests if not _is_local(u)]


def no_markup_injected(pg) -> None:
    """The XSS payloads would create <img src=x> and set window.__xss; neither may happen."""
    assert pg.evaluate("() => document.querySelectorAll('img[src=\"x\"]').length") == 0
    assert pg.evaluate("() => window.__xss === undefined")
    assert not pg.dialogs


def open_page(browser, site, query: str = "") -> object:
    ctx = new_context(browser)
    pg = ctx.new_page()
    pg.requests = []
    pg.dialogs = []
    pg.console_lines = []
    ctx.on("request", lambda r: pg.requests.append(r.url))
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message), d.dismiss()))
    pg.on("console", lambda m: pg.console_lines.append(f"{m.type}: {m.text}"))
    pg.goto(site + query)
    _wait_engine_ready(pg)
    pg.evaluate("() => window.explainer.settled()")
    return pg


def close_page(pg) -> None:
    ctx = pg.context
    ctx.close()
    assert not outside(pg), f"requests left 127.0.0.1: {outside(pg)}"


@pytest.fixture(scope="module")
def shared(browser, site):
    """One page, one engine boot, for the corpus of code and value cases."""
    pg = open_page(browser, site)
    yield pg
    close_page(pg)


def set_source(pg, code: str) -> dict:
    return pg.evaluate("(code) => window.explainer.setSource(code)", code)


def type_source(pg, code: str) -> dict:
    """Replace the editor's text the way a reader does: select all, then type (insert) it."""
    click_editor(pg)
    pg.keyboard.press("Control+A")
    pg.keyboard.insert_text(code)
    pg.wait_for_function("(code) => window.explainer.state().source === code", arg=code,
                         timeout=5000)
    return pg.evaluate("() => window.explainer.settled()")


_good = itertools.count(1)


def assert_still_works(pg) -> None:
    """A good function (a new one each time, so the answer is not the page's cache) splits
    as CPython splits it; the error and the stale mark are gone."""
    n = next(_good)
    code = H + f"def f(x, y):\n    z = jnp.cos(x) * {n}.5\n    return jnp.sin(z) * y\n"
    s = set_source(pg, code)
    assert s["error"] is None, s["error"]
    assert not s["stale"]
    want = cpython(code, s["mask"], s["values"], s["mode"])
    assert (s["known"], s["unknown"]) == (want["known"]["text"], want["unknown"]["text"])
    assert not pg.is_visible("[data-testid=error]")
    assert pg.evaluate("() => document.querySelectorAll('.cm-error-line').length") == 0


def assert_shows_error(pg, s: dict, words: list[str], line: int | None) -> None:
    err = s["error"]
    assert err is not None, "no error shown"
    for w in words:
        assert w in err["message"], (w, err)
    assert err["line"] == line, err
    assert s["stale"] is True  # the last good split stays, marked stale
    assert s["known"] is not None
    assert pg.is_visible("[data-testid=error]") and pg.is_visible("[data-testid=stale]")
    box = pg.text_content("[data-testid=error]")
    assert box.startswith(f"Line {line}: " if line else "Error: "), box
    assert err["message"][:80] in box  # as text, whatever characters it holds
    if line:
        marked = marked_line(pg, "cm-error-line")
        assert marked == line
    no_markup_injected(pg)


# ------------------------------------------------------------------------------ the corpus

@dataclass
class Case:
    id: str
    code: str
    words: list[str]
    line: int | None
    typed: bool = False  # typed into the editor instead of set through the API
    same_as_cpython: bool = True  # the message is exactly the CPython engine's


def body(text: str) -> str:
    return H + text


def _code_cases() -> list[Case]:
    """The corpus of bad code (tests/fixtures/bad_code_cases.json, in groups): each case's
    function body goes below the page's imports; `{XSS}` stands for the markup it carries."""
    groups = json.loads((ROOT / "tests" / "fixtures" / "bad_code_cases.json").read_text())
    return [Case(c["id"], body(c["body"].replace("{XSS}", XSS)),
                 [w.replace("{XSS}", XSS) for w in c["words"]], c["line"],
                 c.get("typed", False), c.get("same_as_cpython", True))
            for group in groups for c in group["cases"]]


CODE_CASES = _code_cases()


@pytest.mark.parametrize("case", CODE_CASES, ids=[c.id for c in CODE_CASES])
def test_bad_code(shared, case):
    pg = shared
    s = type_source(pg, case.code) if case.typed else set_source(pg, case.code)
    assert_shows_error(pg, s, case.words, case.line)
    assert s["source"] == case.code  # the editor keeps the text
    if case.same_as_cpython:
        want = cpython(case.code, s["mask"], s["values"])
        assert s["error"]["message"] == want["error"]["message"]
        assert s["error"]["line"] == want["error"]["lineno"]
    assert_still_works(pg)
    assert not outside(pg)


def test_no_function(shared):
    s = set_source(shared, "x = 1\n")
    assert_shows_error(shared, s, ["Define a function"], 1)
    assert_still_works(shared)


def test_engine_api_with_the_wrong_number_of_inputs(shared):
    rec = shared.evaluate("""() => window.peEngine.call('pe_engine.explain.run', {mode: 'split',
        source: 'def f(x, y):\\n    return x * y\\n',
        args: [{known: true, value: '1.0'}, {known: true, value: '1.0'},
               {known: false, value: '2.0'}]})""")
    assert rec["error"] == {"type": "arity", "lineno": 1,
                            "message": "f takes 2 input(s) (x, y) but 3 were given"}
    rec = shared.evaluate("""() => window.peEngine.call('pe_engine.explain.run',
        {mode: 'nope', source: 'def f(x):\\n    return x\\n', args: []})""")
    assert rec["error"]["message"] == "unknown mode 'nope'"


VALUE_CASES = [
    ("[1.0, ", ["input y: cannot parse"]),
    ("[1, [2]]", ["input y:", "ragged"]),
    ("zeros((100000, 100000))", ["input y:", "limit"]),
    ("open('x')", ["input y:", "constructor"]),
    ("9" * 50, ["input y:", "int32"]),
    ("'abc'", ["input y:", "numbers"]),
    (XSS, ["input y:", XSS[:20]]),
]


def test_bad_values_typed_into_the_panel(shared):
    pg = shared
    code = body("def f(x, y):\n    return jnp.sin(x) * y\n")
    s = set_source(pg, code)
    assert s["error"] is None
    for text, words in VALUE_CASES:
        pg.fill("[data-testid=input-value-y]", text)
        pg.wait_for_function("(t) => window.explainer.state().values.y === t", arg=text)
        s = pg.evaluate("() => window.explainer.settled()")
        assert_shows_error(pg, s, words, None)
        assert pg.get_attribute("[data-testid=input-value-y]", "aria-invalid") == "true"
        assert pg.input_value("[data-testid=input-value-y]") == text  # kept as typed
        want = cpython(code, s["mask"], s["values"])
        assert s["error"]["message"] == want["error"]["message"]
    pg.fill("[data-testid=input-value-y]", "2.0")
    pg.wait_for_function("() => window.explainer.state().values.y === '2.0'")
    s = pg.evaluate("() => window.explainer.settled()")
    assert s["error"] is None
    assert pg.get_attribute("[data-testid=input-value-y]", "aria-invalid") == "false"
    assert_still_works(pg)


# --------------------------------------------------------------- runaways, crashes, restarts

RUNAWAYS = [
    # (id, code, words, line, restarted)
    ("runaway-while-true", body("def f(x, y):\n    while True:\n        pass\n"),
     [f"Stopped: the trace ran longer than {CALL_TIMEOUT_S} s"], (6, 7), False),
    ("runaway-python-loop", body("def f(x, y):\n    n = 0\n    for i in range(10 ** 6):\n"
                                 "        for j in range(10 ** 6):\n            n += j\n"
                                 "    return x * n\n"),
     [f"Stopped: the trace ran longer than {CALL_TIMEOUT_S} s"], (7, 8, 9), False),
    ("runaway-c-loop", body(c_loop("x, y")),
     ["Stopped", "the Python engine was restarted"], None, True),
    # This used to overflow the wasm stack inside the parser and crash Pyodide; the text
    # guard now refuses it first, at its line, and the worker carries on.
    ("parser-stack-guard", body("def f(x, y):\n    return " + "lambda: " * 4000 + "x\n"),
     ["SyntaxError: too deep to parse"], 6, False),
]


def test_runaways_and_crashes(browser, site):
    """Interrupted (KeyboardInterrupt through the interrupt buffer, the worker kept) or, when
    Python does not answer, terminated and booted again. The editor keeps the text and the
    inputs their settings; the next good function splits."""
    # the page's own time per call (app/limits.js): no URL parameter changes it
    pg = open_page(browser, site, "?callTimeout=1")
    try:
        pg.evaluate("() => window.explainer.setKnown('x', false)")
        pg.evaluate("() => window.explainer.setValue('x', '[0.5, 1.5]')")
        for case_id, code, words, line, restarted in RUNAWAYS:
            before = pg.evaluate("() => window.peEngine.info.restarts")
            s = set_source(pg, code)
            s_line = line
            after = pg.evaluate("() => window.peEngine.info.restarts")
            if isinstance(line, tuple):  # wherever the loop was when it was interrupted
                s_line = s["error"] and s["error"]["line"]
                assert s_line in line, (case_id, s["error"])
            assert_shows_error(pg, s, words, s_line)
            assert (after > before) == restarted, (case_id, before, after)
            # nothing lost: the text, the mask, the values
            assert s["source"] == code
            assert pg.evaluate("() => window.explainer.state().source") == code
            assert s["mask"] == {"x": False, "y": False}, case_id
            assert s["values"] == {"x": "[0.5, 1.5]", "y": "2.0"}
            assert pg.input_value("[data-testid=input-value-x]") == "[0.5, 1.5]"
            assert_still_works(pg)
            assert pg.get_attribute("[data-testid=engine]", "data-state") == "ready"
        info = pg.evaluate("() => window.peEngine.info")
        assert info["interrupts"] >= 3 and info["restarts"] >= 1
    finally:
        close_page(pg)


def test_runaway_to_ready_timings(browser, site):
    """From the moment a runaway call times out to a ready engine, both ways; printed."""
    pg = open_page(browser, site)
    try:
        measure = """async ([source, timeoutMs, interrupt]) => {
            const e = window.peEngine;
            const t0 = performance.now();
            let err = null;
            try {
                await e.call('pe_engine.explain.run',
                    {mode: 'split', source, args: [{known: true, value: '1.0'}]},
                    {timeoutMs, interrupt});
            } catch (x) { err = {type: x.type, interrupted: !!x.interrupted,
                                 restarted: !!x.restarted}; }
            const tRejected = performance.now();
            await e.ready;
            const rec = await e.call('pe_engine.explain.run', {mode: 'split',
                source: 'def f(x):\\n    return x * 2.0\\n', args: [{known: false, value: '1.0'}]});
            const tReady = performance.now();
            return {err, toRejected: tRejected - t0 - timeoutMs, toReady: tReady - t0 - timeoutMs,
                    ok: !rec.error, boot: e.info.timings.bootMs};
        }"""
        loop = "def f(x):\n    while True:\n        pass\n"
        soft = pg.evaluate(measure, [loop, 1000, None])
        assert soft["err"] == {"type": "timeout", "interrupted": True, "restarted": False}
        assert soft["ok"] and soft["toReady"] < 1000, soft
        hard = pg.evaluate(measure, [c_loop(), 1000, None])
        assert hard["err"] == {"type": "timeout", "interrupted": False, "restarted": True}
        assert hard["ok"] and hard["toReady"] < 60_000, hard
        forced = pg.evaluate(measure, [loop, 1000, False])  # no interrupt: terminate at once
        assert forced["err"]["restarted"] and forced["ok"], forced
        print(f"\nrunaway -> ready engine, from the call's timeout:"
              f"\n  interrupt (KeyboardInterrupt, worker kept): rejected after "
              f"{soft['toRejected']:.0f} ms, next call answered after {soft['toReady']:.0f} ms"
              f"\n  C loop (interrupt ignored, 500 ms grace, terminate + re-boot): rejected "
              f"after {hard['toRejected']:.0f} ms, next call answered after "
              f"{hard['toReady']:.0f} ms (re-boot {hard['boot']} ms)"
              f"\n  terminate at once (interrupt: false): next call answered after "
              f"{forced['toReady']:.0f} ms (re-boot {forced['boot']} ms)")
    finally:
        close_page(pg)


# Each interrupt was lost about one time in a hundred: with the old worker this test failed 10
# runs in 10 (at the 4th to the 142nd runaway); with the fix it takes under 20 s here.
RUNAWAYS_IN_A_ROW = 300


def test_every_runaway_is_interrupted(browser, site):
    """Pyodide takes a signal from the interrupt buffer in two steps, a read and then a store
    of 0: an interrupt stored between the two used to be wiped out (about one in a hundred
    here), and the engine was replaced instead. Runaway after runaway on one worker, the first
    right after the boot, each is stopped by the interrupt."""
    pg = open_page(browser, site)
    try:
        out = pg.evaluate("""async ([source, n, timeoutMs]) => {
            const e = window.peEngine;
            for (let i = 0; i < n; i++) {
                try {
                    await e.call('pe_engine.explain.run',
                        {mode: 'split', source, args: [{known: true, value: '1.0'}]},
                        {timeoutMs});
                    return {i, err: 'answered'};
                } catch (x) {
                    if (!x.interrupted || x.restarted) return {i, err: x.message};
                }
            }
            return {i: n, err: null, interrupts: e.info.interrupts, restarts: e.info.restarts};
        }""", ["def f(x):\n    while True:\n        pass\n", RUNAWAYS_IN_A_ROW, 30])
        assert out["err"] is None, out
        assert out == {"i": RUNAWAYS_IN_A_ROW, "err": None, "interrupts": RUNAWAYS_IN_A_ROW,
                       "restarts": 0}
    finally:
        close_page(pg)


# ---------------------------------------------------------------------------- permalinks

def pack(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return "#v1." + base64.urlsafe_b64encode(z.compress(data) + z.flush()).decode().rstrip("=")


def good_link(code: str, **extra) -> str:
    return pack(json.dumps({"code": code, "known": {"x": True}, "values": {"x": "1.0"},
                            "mode": "split", **extra}))


_valid = good_link("def f(x):\n    return jnp.sin(x) * 2.0\n")
_payload = _valid[4:]
_k = next(k for k in range(len(_payload) - 2, 0, -1) if k % 4 == 1)
BAD_LINKS = [
    ("truncated", _valid[:-7], "truncated or damaged"),
    ("truncated-to-impossible-length", "#v1." + _payload[:_k], "truncated"),
    ("one-char-changed", _valid[:14] + ("A" if _valid[14] != "A" else "B") + _valid[15:], ""),
    ("stray-characters", _valid + ").", "base64url"),
    ("unknown-version", "#v7." + _valid[4:], "version 7"),
    ("no-version", "#" + _valid[4:], "no version prefix"),
    ("empty", "#v1.", "empty"),
    ("over-the-cap", "#v1." + "A" * 17_000, "over the limit"),
    ("not-json", pack("{code: 1"), "valid JSON"),
    ("not-a-state", pack("[1, 2, 3]"), "page state"),
    ("bad-mode-xss", pack(json.dumps({"code": "def f(x):\n    return x\n",
                                      "mode": "<img src=x onerror=window.__xss=1>"})),
     "unknown mode"),
    ("bad-policy", pack(json.dumps({"code": "def f(x):\n    return x\n",
                                    "mode": "checkpoint", "policy": "os.system"})),
     "checkpoint policy"),
    ("bad-step", pack(json.dumps({"code": "def f(x):\n    return x\n", "step": -3})), "step"),
    ("bad-known", pack(json.dumps({"code": "def f(x):\n    return x\n",
                                   "known": {"x": "<b>yes</b>"}})), "known.x"),
    ("bad-arg-name", pack(json.dumps({"code": "def f(x):\n    return x\n",
                                      "values": {XSS: "1.0"}})), "not an argument name"),
    ("decompression-bomb", pack(json.dumps({"code": "#" * 10_000_000})), "unpacks to over"),
    ("raw-markup", f"#{XSS}", "no version prefix"),
]


def test_hostile_permalinks_open_the_default_example(page, site, wait_engine_ready):
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    for name, hash_, words in BAD_LINKS:
        page.goto("about:blank")
        page.goto(site + hash_)
        page.wait_for_function("() => document.documentElement.dataset.firstFrame",
                               timeout=30_000)
        s = page.evaluate("() => window.explainer.state()")
        assert s["source"] == DEFAULT["code"] and s["mode"] == "split", name
        assert s["known"], name  # the default split is on screen, never a blank page
        note = page.text_content("[data-testid=notice]")
        assert page.is_visible("[data-testid=notice]"), name
        assert "could not be opened" in note and words in note, (name, note)
        assert page.evaluate("() => location.hash") == "", name
        assert page.evaluate("() => window.explainer.openedFrom") == "bad-link", name
        no_markup_injected(page)
    wait_engine_ready(page)
    assert_still_works(page)


def test_link_with_hostile_code_renders_it_as_text(page, site, wait_engine_ready):
    code = (f"import jax.numpy as jnp\n# {XSS}\n\ndef f(x):\n"
            f"    return x + \"{XSS}\"\n")
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(site + good_link(code))
    wait_engine_ready(page)
    s = page.evaluate("() => window.explainer.settled()")
    assert page.evaluate("() => window.explainer.openedFrom") == "link"
    assert s["source"] == code
    assert XSS in page.inner_text("[data-testid=editor]")  # shown as text in the code
    assert s["error"]["line"] == 5 and XSS in s["error"]["message"]
    assert XSS in page.text_content("[data-testid=error]")
    no_markup_injected(page)
    # a bad link arriving while the page is open: the page keeps what it shows
    page.evaluate("(h) => { location.hash = h; }", "#v1.broken")
    page.wait_for_function("() => document.querySelector('[data-testid=notice]')"
                           ".textContent.includes('kept what it showed')")
    assert page.evaluate("() => window.explainer.state().source") == code
    no_markup_injected(page)
    assert_still_works(page)


# ----------------------------------------------------------------------------- nothing lost

def test_edits_survive_a_quick_reload(page, site, wait_engine_ready):
    """Reloading within the address bar's debounce keeps the latest edits, with or without
    a hash in the address bar; opening a link still wins over what is saved."""
    page.goto(site)
    wait_engine_ready(page)
    click_editor(page)
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# first")
    page.wait_for_function("() => location.hash.startsWith('#v1.')", timeout=5000)
    first_hash = page.evaluate("() => location.hash")
    page.keyboard.type(" and second")
    page.click("[data-testid=input-toggle-x]")  # settings too
    src = page.evaluate("() => window.explainer.state().source")
    assert src.rstrip().endswith("# first and second")
    assert page.evaluate("() => location.hash") == first_hash  # not caught up yet
    page.reload()  # within the second
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    s = page.evaluate("() => window.explainer.state()")
    assert s["source"] == src and s["mask"]["x"] is False
    assert page.evaluate("() => window.explainer.openedFrom") == "local"

    # someone's link: opened as sent, not replaced by what is saved; a reload keeps it
    link = site + good_link("def f(x):\n    return x * 3.0\n")
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    assert page.evaluate("() => window.explainer.openedFrom") == "link"
    page.reload()
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    assert page.evaluate("() => window.explainer.state().source") == \
        "def f(x):\n    return x * 3.0\n"
