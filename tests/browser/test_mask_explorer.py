"""The mask explorer (app/page/views/mask-explorer.js): one cell per known/unknown mask of the
function in the editor, each cell's numbers the engine's split for that mask (split mode run in
CPython, mask by mask), sorted by residual bytes; a click loads the mask into the stage."""
from __future__ import annotations

import itertools

import pytest

from pe_engine.explain import as_json, run
from tests.browser.test_page import open_page, state

pytestmark = pytest.mark.browser

CODE = """import jax.numpy as jnp

def f(W, b, x):
    h = jnp.tanh(W @ x + b)
    return jnp.sum(h * h)
"""
VALUES = {"W": "[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5]]", "b": "[0.1, -0.1]", "x": "[1.0, 2.0, 3.0]"}
PARAMS = ["W", "b", "x"]


def _split(mask: str) -> dict:
    args = [{"known": m == "1", "value": VALUES[p]} for p, m in zip(PARAMS, mask)]
    return as_json(run("split", source=CODE, args=args))


def _cells(page) -> list[dict]:
    return page.eval_on_selector_all("[data-testid=mask-cell]", """cells => cells.map(c => ({
        mask: c.dataset.mask, pressed: c.getAttribute('aria-pressed'),
        names: [...c.querySelectorAll('.mask-names .tag')].map(t => [t.textContent,
               t.classList.contains('tag-known')]),
        eqns: c.querySelector('.mask-eqns')?.textContent,
        res: c.querySelector('.mask-res')?.textContent}))""")


def test_every_cell_is_the_engines_split_and_loads_its_mask(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("""async ([code, values]) => {
        await window.explainer.setSource(code);
        for (const [k, v] of Object.entries(values)) await window.explainer.setValue(k, v);
        await window.explainer.setKnown('W', true); await window.explainer.setKnown('b', true);
        await window.explainer.setKnown('x', false);
    }""", [CODE, VALUES])
    page.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 8 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=60_000)
    cells = _cells(page)
    assert sorted(c["mask"] for c in cells) == ["".join(m) for m in
                                                itertools.product("01", repeat=3)]
    byte_order = []
    for c in cells:
        rec = _split(c["mask"])
        assert "error" not in rec, rec
        k, u = len(rec["known"]["eqns"]), len(rec["unknown"]["eqns"])
        assert c["eqns"] == f"eqns {k} known · {u} unknown", c
        n, nbytes = len(rec["residuals"]), rec["residual_bytes"]
        size = f"{nbytes} B" if nbytes < 1024 else None
        assert c["res"] == f"{n} residual{'' if n == 1 else 's'} · {size}", c
        assert c["names"] == [[p, m == "1"] for p, m in zip(PARAMS, c["mask"])]
        assert c["pressed"] == str(c["mask"] == "110").lower()
        byte_order.append(nbytes)
    assert byte_order == sorted(byte_order)  # fewest residual bytes first

    page.click("[data-testid=mask-cell][data-mask='011']")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["mask"] == {"W": False, "b": True, "x": True} and s["mode"] == "split"
    assert [page.get_attribute(f"[data-testid=input-toggle-{p}]", "aria-pressed")
            for p in PARAMS] == ["false", "true", "true"]
    want = _split("011")
    assert (s["known"], s["unknown"]) == (want["known"]["text"], want["unknown"]["text"])
    page.wait_for_function("() => document.querySelector(\"[data-testid=mask-cell]"
                           "[data-mask='011']\").getAttribute('aria-pressed') === 'true'")
    assert page.get_attribute("[data-testid=mask-cell][data-mask='110']", "aria-pressed") == "false"

    # a flip of an input moves the mark within the grid drawn: the cells stay (the focus too)
    page.focus("[data-testid=mask-cell][data-mask='011']")
    page.evaluate("() => { window.__cells = [...document.querySelectorAll('.mask-cell')]; }")
    page.evaluate("() => window.explainer.setKnown('W', true)")
    page.wait_for_function("() => document.querySelector(\"[data-testid=mask-cell]"
                           "[data-mask='111']\").getAttribute('aria-pressed') === 'true'")
    assert page.evaluate("""() => window.__cells.every((c) => c.isConnected)
        && document.activeElement.dataset.mask === '011'
        && document.querySelectorAll('[aria-pressed=true].mask-cell').length === 1""")


def test_more_than_five_inputs_is_the_engines_message(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    code = "def f(a, b, c, d, e, g):\n    return a * b + c * d + e * g\n"
    page.evaluate("(code) => window.explainer.setSource(code)", code)
    page.wait_for_function("() => document.querySelector('.mask-status').textContent"
                           ".includes('up to 5 inputs')", timeout=60_000)
    assert page.eval_on_selector_all("[data-testid=mask-cell]", "c => c.length") == 0
    assert state(page)["error"] is None


def test_no_masks_while_the_function_fails(page, site, wait_engine_ready):
    """A function the main view cannot trace is not split 2**n times more (a runaway would
    hit the time limit once per call): the view says why and waits for a fix."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("(c) => window.explainer.setSource(c)", "def f(x, y):\n    return x +\n")
    page.wait_for_function("() => document.querySelector('.mask-status').textContent"
                           ".includes('once the function above traces without an error')",
                           timeout=60_000)
    assert page.eval_on_selector_all("[data-testid=mask-cell]", "c => c.length") == 0
    page.evaluate("(c) => window.explainer.setSource(c)", "def f(x, y):\n    return x + y\n")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=mask-cell]').length"
                           " === 4", timeout=60_000)


def test_the_opening_states_masks_are_precomputed(page, site):
    """Like the split above it, the Masks view of the opening state draws before Python has
    started (the build answers its request: app/page/opening-requests.js)."""
    page.goto(site)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=mask-cell]').length"
                           " === 4", timeout=30_000)
    assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"


def test_edits_in_quick_succession_ask_for_the_last_masks_only(page, site, wait_engine_ready):
    """The grid's call waits for the edits to pause: while the reader edits on, the engine is
    not held by grids nobody will see."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("""() => { const e = window.peEngine; const call = e.call.bind(e);
        window.__modes = [];
        e.call = (fn, kw, o) => {
            // what the page asks ahead of the reader (quiet calls) is not the grid's
            if (!o?.quiet || kw.mode === 'masks') window.__modes.push(kw.mode);
            return call(fn, kw, o);
        }; }""")
    page.evaluate("""async ([code, values]) => {
        await window.explainer.setSource(code);
        for (const [k, v] of Object.entries(values)) await window.explainer.setValue(k, v);
        window.__modes.length = 0;
        for (let i = 0; i < 3; i++) {  // a reader's pauses, shorter than the grid waits for
            await window.explainer.setSource(code + `# ${i}\\n`);
            await new Promise((r) => setTimeout(r, 150));
        }
    }""", [CODE, VALUES])
    page.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 8 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=60_000)
    modes = page.evaluate("() => window.__modes")
    assert modes.count("split") == 3 and modes.count("masks") == 1, modes
    assert modes[-1] == "masks"
