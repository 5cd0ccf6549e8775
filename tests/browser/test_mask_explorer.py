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


def _grad(mask: str) -> dict:
    args = [{"known": m == "1", "value": VALUES[p]} for p, m in zip(PARAMS, mask)]
    return as_json(run("grad", source=CODE, args=args))


def _load_grad_mode(page) -> None:
    page.evaluate("""async ([code, values]) => {
        await window.explainer.setSource(code);
        for (const [k, v] of Object.entries(values)) await window.explainer.setValue(k, v);
        await window.explainer.setKnown('W', true); await window.explainer.setKnown('b', true);
        await window.explainer.setKnown('x', false);
        await window.explainer.setMode('grad');
    }""", [CODE, VALUES])
    page.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 8 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=90_000)


def test_in_grad_mode_every_cell_is_grads_split_and_a_click_stays_in_grad(page, site,
                                                                          wait_engine_ready):
    """The cells count the page's mode: in grad mode a mask is argnums (the unknown inputs are
    differentiated) and each cell is grad's forward/linear split for it; a click loads the mask
    and the page stays in grad mode (before, every cell showed split's counts, and a click
    switched to split)."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    _load_grad_mode(page)
    cells = {c["mask"]: c for c in _cells(page)}
    for mask, c in cells.items():
        rec = _grad(mask)
        if "error" in rec:  # nothing differentiated: grad's own error
            assert mask == "111", rec
            continue
        k, u = len(rec["known"]["eqns"]), len(rec["unknown"]["eqns"])
        assert c["eqns"] == f"eqns {k} known · {u} unknown", (mask, c)
        n = len(rec["residuals"])
        assert c["res"].startswith(f"{n} residual{'' if n == 1 else 's'} · "), (mask, c)
    assert cells["110"]["pressed"] == "true"
    # grad's counts differ from split's for this function: the check above is not split's
    assert any(cells[m]["eqns"] != (lambda r: f"eqns {len(r['known']['eqns'])} known · "
                                    f"{len(r['unknown']['eqns'])} unknown")(_split(m))
               for m in cells if m != "111")

    page.click("[data-testid=mask-cell][data-mask='001']")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["mode"] == "grad" and s["mask"] == {"W": False, "b": False, "x": True}
    want = _grad("001")
    assert (s["known"], s["unknown"]) == (want["known"]["text"], want["unknown"]["text"])


def test_each_cell_is_named_by_its_mask_in_the_modes_words(page, site, wait_engine_ready):
    """A screen reader hears which inputs are known (before, the name was 'W b x eqns …':
    which inputs were known was only a border style)."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("""async ([code, values]) => {
        await window.explainer.setSource(code);
        for (const [k, v] of Object.entries(values)) await window.explainer.setValue(k, v);
    }""", [CODE, VALUES])
    page.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 8 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=60_000)
    rec = _split("101")
    k, u, n = len(rec["known"]["eqns"]), len(rec["unknown"]["eqns"]), len(rec["residuals"])
    # the name is the cell's content (no aria-label): the mask in words, then what it shows
    name = (f"W known, b unknown, x known: eqns {k} known · {u} unknown "
            f"{n} residual{'' if n == 1 else 's'} · ")
    cell = page.get_by_role("button", name=name)
    assert cell.count() == 1
    assert cell.get_attribute("data-mask") == "101"
    assert cell.get_attribute("aria-label") is None
    # every cell's name starts with its own mask
    labels = page.eval_on_selector_all(
        "[data-testid=mask-cell]",
        "cs => cs.map(c => [c.dataset.mask, c.querySelector('.mask-words').textContent])")
    for mask, label in labels:
        words = ", ".join(f"{p} {'known' if m == '1' else 'unknown'}" for p, m in zip(PARAMS, mask))
        assert label == words + ": ", (mask, label)

    _load_grad_mode(page)
    label = page.text_content("[data-testid=mask-cell][data-mask='110'] .mask-words")
    assert label == "W held fixed, b held fixed, x differentiated: ", label


def test_jit_mode_has_no_mask_explorer(page, site, wait_engine_ready):
    """Under jit every input is a formal parameter: no mask has a say, so no grid of them."""
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("() => window.explainer.setMode('jit')")
    page.wait_for_function("() => document.querySelector('[data-testid=mask-explorer]').hidden")
    page.evaluate("() => window.explainer.setMode('split')")
    page.wait_for_function("() => !document.querySelector('[data-testid=mask-explorer]').hidden")
