"""The page shell: editor, inputs, modes, permalinks, errors, themes, embedding API.

Every program text the page shows is compared with what pe_engine.explain.run gives in CPython
for the same request. Screenshots go to /tmp/shots/ (light/dark, 360 and 1440 px wide).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pe_engine import explain
from pe_engine.explain.page_state import PAGE_MODES
from tests.browser.code_editor import click_editor, marked_line, reach_editor
from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("PAGE_SHOTS", "/tmp/shots"))
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())
DEFAULT = next(e for e in EXAMPLES["examples"] if e["id"] == EXAMPLES["default"])
sys.path.insert(0, str(ROOT / "tools"))
import precompute  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def precomputed(site):
    """dist/precomputed.json: build.py writes it (tools/precompute.py); until it does, the
    tests write it next to the build, as build.py would."""
    out = ROOT / "dist" / "precomputed.json"
    if not out.exists():
        precompute.main(["--out", str(out)])
    return json.loads(out.read_text())


def cpython(mode: str, code: str, known: dict, values: dict, **kw) -> dict:
    """The record the engine gives in CPython for the request the page makes."""
    req, = precompute.page_requests([{"mode": mode, "code": code, "known": known,
                                      "values": values, **kw}])
    return explain.as_json(explain.run(req["mode"], **req["kwargs"]))


def _addr(text: str | None) -> str | None:
    """`<function nothing_saveable at 0x1c96d68>`: the address differs between processes."""
    return re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", text) if text else text


def programs(rec: dict) -> tuple[str | None, str | None]:
    return (_addr((rec.get("known") or {}).get("text")),
            _addr((rec.get("unknown") or {}).get("text")))


def shown(s: dict) -> tuple[str | None, str | None]:
    return _addr(s["known"]), _addr(s["unknown"])


def call(page, expr: str, *args):
    """Evaluate `window.explainer.<expr>` with args; returns the settled state()."""
    return page.evaluate(f"(args) => window.explainer.{expr}(...args)", list(args))


def state(page) -> dict:
    return page.evaluate("() => window.explainer.state()")


def open_page(page, site, hash_: str = "", ready: bool = True, wait_engine_ready=None):
    page.goto(site + hash_)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    if ready:
        wait_engine_ready(page)
        page.evaluate("() => window.explainer.settled()")


EDITED = """import jax
import jax.numpy as jnp

def f(x, y):
    z = jnp.cos(x) * 2.0
    w = z + y
    return jnp.sin(w) * z
"""


def test_first_frame_is_precomputed_before_python(page, site, precomputed):
    page.goto(site)
    page.wait_for_function("() => document.documentElement.dataset.firstFrame", timeout=30_000)
    assert page.evaluate("() => document.documentElement.dataset.firstFrame") == "precomputed"
    # Python takes seconds to boot; the split is already on screen
    assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
    s = state(page)
    want = cpython("split", DEFAULT["code"], DEFAULT["known"], DEFAULT["values"])
    assert (s["known"], s["unknown"]) == programs(want)
    assert s["source"] == DEFAULT["code"] and s["mode"] == "split"
    assert s["mask"] == DEFAULT["known"]
    assert len(s["residuals"]) == len(want["residuals"]) == 1
    assert page.get_attribute("[data-testid=input-toggle-y]", "aria-pressed") == "false"
    assert page.text_content("[data-testid=input-toggle-y]").strip() == "unknown"
    assert page.text_content("[data-testid=input-toggle-x]").strip() == "known"


def test_every_example_in_every_mode_draws_before_python(browser, site):
    """With Pyodide held back, picking any example and then any mode draws its split from the
    build's precomputed/<example>.json: the same programs CPython's engine gives."""
    ctx = new_context(browser)
    ctx.route("**/pyodide.asm.wasm", lambda route: None)  # never answered: the engine stays loading
    page = ctx.new_page()
    try:
        page.goto(site)
        page.wait_for_function(
            "() => document.documentElement.dataset.examplesPrecomputed === 'ready'",
            timeout=60_000)
        for ex in EXAMPLES["examples"]:
            for mode in PAGE_MODES:
                # settled() would wait on the engine for anything not precomputed: time out instead
                s = page.evaluate("""async ([id, mode]) => {
                    await window.explainer.loadExample(id);
                    const late = new Promise((r) => setTimeout(() => r(null), 5000));
                    return Promise.race([window.explainer.setMode(mode), late]);
                }""", [ex["id"], mode])
                assert s is not None, f"{ex['id']} in {mode} waited for the engine"
                want = cpython(mode, ex["code"], ex["known"], ex["values"],
                               **{k: ex[k] for k in ("policy", "folding") if k in ex})
                _mode_matches(s, want, mode)
        assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
    finally:
        ctx.close()


def test_an_examples_records_are_fetched_when_needed(page, site):
    """The build's records of the other examples stay on the server until the page needs one:
    the opening example's file (its other modes) comes after the first frame, another
    example's when the reader picks it, and each is fetched once."""
    page.route("**/pyodide.asm.wasm", lambda route: None)  # the answers can only be the build's
    page.goto(site)
    page.wait_for_function("() => document.documentElement.dataset.examplesPrecomputed === 'ready'",
                           timeout=60_000)
    files = lambda: sorted(re.sub(r".*/precomputed/", "", u) for u in page.requests  # noqa: E731
                           if "/precomputed/" in u)
    default = next(e for e in EXAMPLES["examples"] if e["id"] == EXAMPLES["default"])
    same_code = sorted(f"{e['id']}.json" for e in EXAMPLES["examples"]
                       if e["code"] == default["code"])
    assert files() == same_code
    other = next(e for e in EXAMPLES["examples"]
                 if e["mode"] == "checkpoint" and e["code"] != default["code"])
    s = page.evaluate("(id) => window.explainer.loadExample(id)", other["id"])
    assert s["error"] is None and s["mode"] == "checkpoint"
    page.evaluate("() => window.explainer.setMode('grad')")
    page.evaluate("(id) => window.explainer.loadExample(id)", other["id"])
    with_other = sorted(same_code + [f"{e['id']}.json" for e in EXAMPLES["examples"]
                                     if e["code"] == other["code"]])
    assert files() == with_other
    assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"


def test_edit_toggle_and_both_programs(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    s = call(page, "setSource", EDITED)
    want = cpython("split", EDITED, {"x": True, "y": False}, {"x": "1.0", "y": "2.0"})
    assert s["error"] is None and not s["stale"]
    assert (s["known"], s["unknown"]) == programs(want)
    assert s["residuals"] == want["residuals"]

    # the mask, by clicking the toggle the way a reader does
    page.click("[data-testid=input-toggle-y]")
    page.wait_for_function("() => document.querySelector('[data-testid=input-toggle-y]')"
                           ".getAttribute('aria-pressed') === 'true'")
    s = page.evaluate("() => window.explainer.settled()")
    assert page.text_content("[data-testid=input-toggle-y]").strip() == "known"
    assert s["mask"] == {"x": True, "y": True}
    want = cpython("split", EDITED, {"x": True, "y": True}, {"x": "1.0", "y": "2.0"})
    assert (s["known"], s["unknown"]) == programs(want)

    page.click("[data-testid=input-toggle-x]")
    s = page.evaluate("() => window.explainer.settled()")
    want = cpython("split", EDITED, {"x": False, "y": True}, {"x": "1.0", "y": "2.0"})
    assert s["mask"] == {"x": False, "y": True}
    assert (s["known"], s["unknown"]) == programs(want)

    # a value, typed into the panel: shapes come back from the record
    page.fill("[data-testid=input-value-x]", "[0.5, 1.0, 2.0]")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=input-aval-x]').textContent === 'f32[3]'",
        timeout=20_000)
    s = page.evaluate("() => window.explainer.settled()")
    want = cpython("split", EDITED, {"x": False, "y": True}, {"x": "[0.5, 1.0, 2.0]", "y": "2.0"})
    assert (s["known"], s["unknown"]) == programs(want)

    # the editor really holds what was set, and Tab does not trap keyboard users
    assert page.evaluate("() => window.explainer.state().source") == EDITED
    click_editor(page)
    page.keyboard.press("Tab")
    inside = page.evaluate("() => !!document.activeElement.closest('.cm-editor')")
    assert not inside
    assert page.evaluate("() => window.explainer.state().source") == EDITED



def test_an_api_edits_request_leaves_before_the_editor_takes_the_code(page, site,
                                                                       wait_engine_ready):
    """Code the reader did not type (window.explainer, an example, a link) goes to the engine
    first and into CodeMirror after (app/main.js): the request does not wait for the editor's
    update, and the editor holds the code by the time the answer is drawn."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    reach_editor(page)
    code = EDITED + "# sent first\n"
    out = page.evaluate("""async (code) => {
        const text = () => document.querySelector('[data-testid=editor] .cm-content').textContent;
        const engine = window.peEngine;
        const call = engine.call;
        let shown = null;
        engine.call = (fn, kw, opts) => {
          if (!opts?.quiet && kw.source === code) shown ??= text();
          return call(fn, kw, opts);
        };
        const s = await window.explainer.setSource(code);
        engine.call = call;
        return {shown, after: text(), error: s.error, source: s.source};
    }""", code)
    assert out["error"] is None and out["source"] == code
    assert out["shown"] is not None, "the edit never asked the engine"
    assert "# sent first" not in out["shown"]
    assert "# sent first" in out["after"]
    assert out["after"] == code.replace("\n", "")  # CodeMirror's lines, without breaks

def test_error_keeps_last_good_record_stale(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    good = state(page)
    bad = ("import jax\nimport jax.numpy as jnp\n\ndef f(x, y):\n"
           "    z = jnp.sin(x)\n    return zz * y\n")
    s = call(page, "setSource", bad)
    want = cpython("split", bad, {"x": True, "y": False}, {"x": "1.0", "y": "2.0"})
    assert "error" in want
    assert s["error"]["message"] == want["error"]["message"]
    assert s["error"]["line"] == want["error"]["lineno"] == 6
    assert s["stale"] is True
    assert (s["known"], s["unknown"]) == (good["known"], good["unknown"])
    assert page.is_visible("[data-testid=error]")
    assert "Line 6" in page.text_content("[data-testid=error]")
    assert want["error"]["message"] in page.text_content("[data-testid=error]")
    assert page.is_visible("[data-testid=stale]")
    assert page.text_content("[data-testid=stale]").strip() == "stale"
    assert "stale" in page.get_attribute("#stage-panel", "class")
    # the error line is marked in the plain code, then in the editor once the reader reaches
    # for it (line decoration + lint diagnostic)
    assert page.locator(".cm-editor").count() == 0
    assert marked_line(page, "cm-error-line") == 6
    reach_editor(page)
    assert page.locator("[data-testid=editor] .editor-prerender").count() == 0
    assert marked_line(page, "cm-error-line") == 6
    assert page.locator(".cm-lint-marker-error").count() >= 1
    # nothing typed is lost
    assert page.evaluate("() => window.explainer.state().source") == bad

    # an unreadable value names the input
    s = call(page, "setSource", DEFAULT["code"])
    assert s["error"] is None and not s["stale"]
    s = call(page, "setValue", "y", "[1.0, ")
    assert s["error"] and "y" in s["error"]["message"] and s["stale"]
    assert page.get_attribute("[data-testid=input-value-y]", "aria-invalid") == "true"
    s = call(page, "setValue", "y", "2.0")
    assert s["error"] is None and not page.is_visible("[data-testid=error]")
    assert page.evaluate("() => document.querySelectorAll('.cm-error-line').length") == 0


def _mode_matches(s: dict, want: dict, mode: str) -> None:
    if "error" in want:
        assert s["error"] is not None and s["error"]["message"] == want["error"]["message"]
        assert s["mode"] == mode
    else:
        assert s["error"] is None, s["error"]
        assert s["recordMode"] == want["mode"]
        assert shown(s) == programs(want)
        assert _addr(s["program"]) == _addr((want.get("program") or {}).get("text"))


def test_modes_and_steps(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    jit = next(e for e in EXAMPLES["examples"] if e["id"] == "jit-sin-literal")
    s = call(page, "loadExample", "jit-sin-literal")
    assert s["mode"] == "jit"
    want = cpython("jit", jit["code"], jit["known"], jit["values"], folding=False)
    assert s["program"] == want["program"]["text"]
    assert "sin 1.0" in s["program"]
    assert page.get_attribute("[data-testid=mode-jit]", "aria-selected") == "true"
    assert page.is_visible("[data-testid=folding]")
    page.click("[data-testid=folding]")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["folding"] is True
    want = cpython("jit", jit["code"], jit["known"], jit["values"], folding=True)
    _mode_matches(s, want, "jit")

    # split <-> other modes, by clicking the tabs
    call(page, "loadExample", "split-sin")
    for mode in ["grad", "linearize", "checkpoint", "jit", "split"]:
        page.click(f"[data-testid=mode-{mode}]")
        s = page.evaluate("() => window.explainer.settled()")
        assert s["mode"] == mode
        assert page.get_attribute(f"[data-testid=mode-{mode}]", "aria-selected") == "true"
        kw = {"policy": "nothing_saveable"} if mode == "checkpoint" else {}
        want = cpython(mode, DEFAULT["code"], DEFAULT["known"], DEFAULT["values"], **kw)
        _mode_matches(s, want, mode)
        assert page.is_visible("[data-testid=policy]") == (mode == "checkpoint")

    # each checkpoint policy, through the picker
    ex = next(e for e in EXAMPLES["examples"] if e["mode"] == "checkpoint")
    call(page, "loadExample", ex["id"])
    for policy in ["everything_saveable", "dots_saveable", "nothing_saveable"]:
        page.select_option("[data-testid=policy]", policy)
        s = page.evaluate("() => window.explainer.settled()")
        assert s["policy"] == policy
        want = cpython("checkpoint", ex["code"], ex["known"], ex["values"], policy=policy)
        _mode_matches(s, want, "checkpoint")

    # stepping the animation (the stage's timeline) is part of the state
    call(page, "loadExample", "split-sin")
    s = call(page, "setStep", 1)
    assert s["step"] == 1
    s = call(page, "setStep", 0)
    assert s["step"] == 0
    # keyboard: arrow keys move between the mode tabs
    page.focus("[data-testid=mode-split]")
    page.keyboard.press("ArrowRight")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["mode"] == "jit"


def test_examples_menu(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    ids = [o for o in page.eval_on_selector_all(
        "[data-testid=examples] option", "os => os.map(o => o.value)") if o]
    assert len(ids) == len(EXAMPLES["examples"]) >= 8
    for ex in EXAMPLES["examples"]:
        page.select_option("[data-testid=examples]", ex["id"])
        s = page.evaluate("() => window.explainer.settled()")
        assert s["source"] == ex["code"] and s["mode"] == ex["mode"]
        assert s["mask"] == ex["known"]
        kw = {k: ex[k] for k in ("policy", "folding") if k in ex}
        want = cpython(ex["mode"], ex["code"], ex["known"], ex["values"], **kw)
        _mode_matches(s, want, ex["mode"])
    assert not [line for line in page.console_lines if line.startswith("pageerror")]


def test_permalink_round_trip(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    call(page, "setSource", EDITED)
    call(page, "setKnown", "x", False)
    call(page, "setKnown", "y", True)
    call(page, "setValue", "y", "[1.0, 2.0]")
    s = call(page, "setStep", 1)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("[data-testid=share]")
    page.wait_for_function("() => location.hash.startsWith('#v1.')")
    url = page.evaluate("() => navigator.clipboard.readText()")
    assert url == page.url and "#v1." in url
    assert page.is_visible("[data-testid=notice]")
    assert "Link copied" in page.text_content("[data-testid=notice]")

    other = page.context.new_page()
    try:
        other.goto(url)
        wait_engine_ready(other)
        t = other.evaluate("() => window.explainer.settled()")
        for k in ["source", "mask", "values", "mode", "step", "known", "unknown", "residuals"]:
            assert t[k] == s[k], k
        assert other.evaluate("() => window.explainer.openedFrom") == "link"
        want = cpython("split", EDITED, {"x": False, "y": True}, {"x": "1.0", "y": "[1.0, 2.0]"})
        assert (t["known"], t["unknown"]) == programs(want)
    finally:
        other.close()


@pytest.mark.parametrize("bad", [
    "#v1.not*base64!",
    "#v1.",
    "#v2.AAAA",
    "#nonsense",
    "#v1." + "A" * 17000,    # over the 16 KB cap
])
def test_bad_permalink_opens_default_with_message(page, site, bad):
    page.goto(site + bad)
    page.wait_for_function("() => document.documentElement.dataset.firstFrame", timeout=30_000)
    s = state(page)
    assert s["source"] == DEFAULT["code"] and s["mode"] == "split"
    assert s["known"]  # the default split is on screen, not a blank page
    assert page.is_visible("[data-testid=notice]")
    assert "could not be opened" in page.text_content("[data-testid=notice]")
    assert page.evaluate("() => location.hash") == ""


def test_bad_but_decodable_permalinks(page, site):
    """Valid base64url + deflate, but not a page state: still the default and a message."""
    page.goto(site)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    hashes = page.evaluate("""async () => {
        const enc = async (text) => {
          const s = new Blob([new TextEncoder().encode(text)]).stream()
            .pipeThrough(new CompressionStream('deflate-raw'));
          const b = new Uint8Array(await new Response(s).arrayBuffer());
          return '#v1.' + btoa(String.fromCharCode(...b)).replace(/\\+/g, '-')
            .replace(/\\//g, '_').replace(/=+$/, '');
        };
        const good = await enc(JSON.stringify(
          {code: 'def f(x):\\n    return x * 2.0\\n', mode: 'split'}));
        return [good.slice(0, good.length - 6), await enc('not json'), await enc('[1, 2]'),
                await enc(JSON.stringify({code: 'def f(x): return x', mode: 'nope'})),
                await enc(JSON.stringify({code: 42}))];
    }""")
    for h in hashes:
        page.goto("about:blank")
        page.goto(site + h)
        page.wait_for_function("() => document.documentElement.dataset.firstFrame",
                               timeout=30_000)
        assert state(page)["source"] == DEFAULT["code"]
        assert "could not be opened" in page.text_content("[data-testid=notice]")


def test_address_bar_debounced_and_local_storage(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    assert page.evaluate("() => location.hash") == ""
    click_editor(page)
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# note")
    # not per keystroke: the address bar changes about a second after the last edit
    assert page.evaluate("() => location.hash") == ""
    page.wait_for_function("() => location.hash.startsWith('#v1.')", timeout=5000)
    n = page.evaluate("() => history.length")
    page.keyboard.type(" more")
    page.wait_for_timeout(1500)
    assert page.evaluate("() => history.length") == n  # replaceState, no new entries
    src = state(page)["source"]
    assert src.endswith("# note more\n") or src.endswith("# note more")

    # reload without the hash: localStorage brings the code back
    page.goto(site)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    assert state(page)["source"] == src
    assert page.evaluate("() => window.explainer.openedFrom") == "local"

    # opening someone's link does not overwrite what is saved
    link = page.evaluate("""async () => {
        await window.explainer.loadExample('jit-sin-literal');
        return window.explainer.permalink();
    }""")
    page.evaluate("() => window.explainer.setSource(window.explainer.state().source + '# mine\\n')")
    page.wait_for_timeout(1500)
    mine = state(page)["source"]
    page.goto("about:blank")
    page.goto(link)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    assert state(page)["mode"] == "jit"
    page.wait_for_timeout(1500)
    page.goto(site)
    page.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
    assert state(page)["source"] == mine


def test_copy_as_jax_runs_in_real_jax(page, site, wait_engine_ready, tmp_path):
    pytest.importorskip("jax")
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    # (grad-scan is the README's scan-backward gap: test_stage_calls.py, strict xfail)
    for ex_id in ["split-sin", "split-mlp-known-weights", "jit-sin-literal", "grad-mlp",
                  "checkpoint-dots", "grad-jit-inside"]:
        s = call(page, "loadExample", ex_id)
        snippet = page.evaluate("() => window.explainer.jaxSnippet()")
        path = tmp_path / f"{ex_id}.py"
        path.write_text(snippet)
        r = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "JAX_PLATFORMS": "cpu"})
        assert r.returncode == 0, f"{ex_id}:\n{snippet}\n{r.stderr[-3000:]}"
        if ex_id == "split-sin":
            assert s["known"] in r.stdout and s["unknown"] in r.stdout, (s, r.stdout)
        if ex_id == "jit-sin-literal":
            assert "sin 1.0" in r.stdout
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("[data-testid=copy-as-jax]")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied == page.evaluate("() => window.explainer.jaxSnippet()")


# the colour `var(--known)` resolves to where it is used (the palette is light-dark() pairs)
KNOWN_COLOUR = """() => {
    const probe = document.createElement("div");
    probe.style.color = "var(--known)";
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
}"""
KNOWN_RGB = {"light": "rgb(0, 114, 178)", "dark": "rgb(86, 180, 233)"}


def test_theme_toggle_and_screenshots(browser, site, precomputed):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ["light", "dark"]:
        for width in [360, 1440]:
            ctx = new_context(browser, viewport={"width": width, "height": 900},
                              color_scheme=scheme)
            pg = ctx.new_page()
            try:
                pg.goto(site)
                pg.wait_for_function(
                    "() => document.querySelector('[data-testid=engine]').dataset.state"
                    " === 'ready'", timeout=120_000)
                pg.evaluate("() => window.explainer.settled()")
                assert pg.evaluate(KNOWN_COLOUR) == KNOWN_RGB[scheme]
                overflow = pg.evaluate("() => document.documentElement.scrollWidth"
                                       " - document.documentElement.clientWidth")
                assert overflow <= 0, f"horizontal scroll at {width}px: {overflow}px"
                pg.screenshot(path=str(SHOTS / f"page-{scheme}-{width}.png"), full_page=True)
                # the toggle flips the theme and says so in text
                before = pg.get_attribute("[data-testid=theme-toggle]", "aria-pressed")
                pg.click("[data-testid=theme-toggle]")
                after = pg.get_attribute("[data-testid=theme-toggle]", "aria-pressed")
                assert before != after
                want = KNOWN_RGB["dark" if after == "true" else "light"]
                assert pg.evaluate(KNOWN_COLOUR) == want
                if width == 1440:
                    pg.evaluate("() => window.explainer.setSource(window.explainer.state()"
                                ".source.replace('* y', '* yy'))")
                    pg.screenshot(path=str(SHOTS / f"page-error-{after}-{width}.png"))
            finally:
                ctx.close()


def test_linked_highlighting_both_ways(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    s = call(page, "setSource", EDITED)  # three lines with equations: 5, 6, 7
    assert s["error"] is None
    reach_editor(page)
    # editor cursor -> the stage highlights that line's equations
    line6 = page.locator(".cm-content .cm-line").nth(5)
    line6.click()
    page.wait_for_function("() => document.querySelector('#stage').dataset.hl === 'on'",
                           timeout=5000)
    # keyboard only: the cursor moving down moves the highlight too (no mouse involved)
    page.mouse.move(0, 0)
    page.keyboard.press("ArrowUp")
    page.wait_for_timeout(100)
    assert page.evaluate("() => document.querySelector('#stage').dataset.hl") == "on"
    # stage equation hovered -> its source line is marked in the editor
    page.keyboard.press("Escape")
    eqn = page.locator("#stage [data-testid=eqn]").first
    eqn.hover()
    page.wait_for_function("() => document.querySelectorAll('.cm-linked-line').length === 1",
                           timeout=5000)
    linked = page.evaluate("""() => [...document.querySelectorAll('.cm-content .cm-line')]
        .findIndex((l) => l.classList.contains('cm-linked-line')) + 1""")
    assert linked in (5, 6, 7)
