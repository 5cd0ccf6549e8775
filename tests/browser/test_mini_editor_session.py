"""A demo's own function (sections 3 and 4, app/sections/mini-editor.js) is read through the
page's one engine session (app/page/session.js), as the demos' records are: its signature is
asked once the main view is idle, never ahead of the reader's own run."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

MAIN = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x) * y
    return jnp.cos(a) + x
"""
FOLD = """import jax.numpy as jnp

def g(x, w):
    return x * w + jnp.sin(1.0)
"""

# every engine call from now on: its entry point, the source it reads, whether quiet (asked
# ahead, or the mask explorer's), when it began and ended
SPY = """() => {
    const engine = window.peEngine;
    const call = engine.call;
    window.__calls = [];
    engine.call = (fn, kw, opts) => {
        const entry = {fn, source: kw.source ?? null, quiet: Boolean(opts?.quiet),
                       start: performance.now(), end: null};
        window.__calls.push(entry);
        const p = call(fn, kw, opts);
        const done = () => { entry.end = performance.now(); };
        p.then(done, done);
        return p;
    };
}"""


def test_a_demos_function_is_read_once_the_main_view_is_idle(page, site, wait_engine_ready):
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{site}#constant-folding")
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    page.wait_for_selector("[data-testid=fold-code]")
    page.wait_for_function("() => !document.querySelector('[data-demo=folding] .demo-loading')",
                           timeout=60_000)
    page.evaluate(SPY)
    # the reader edits the main function, and at once the demo's own (Ctrl+Enter: no debounce)
    page.evaluate("""([main, fold]) => {
        window.explainer.setSource(main);
        const box = document.querySelector('[data-testid=fold-code]');
        box.value = fold;
        box.dispatchEvent(new Event('input'));
        box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', ctrlKey: true}));
    }""", [MAIN, FOLD])
    # the demo behaves as before: a field for its new parameter, its program traced anew
    page.wait_for_selector("[data-testid=fold-value-w]", timeout=60_000)
    page.wait_for_function("() => document.querySelector('[data-testid=folding-program]')"
                           "?.textContent.includes('mul')", timeout=60_000)
    page.evaluate("() => window.explainer.settled()")
    calls = page.evaluate("() => window.__calls")
    main = [c for c in calls if c["source"] == MAIN and not c["quiet"]]  # the main view's
    fold = [c for c in calls if c["source"] == FOLD]
    assert main and all(c["end"] is not None for c in main), calls
    sig = [c for c in fold if c["fn"].endswith(".signature")]
    assert len(sig) == 1, calls  # asked once
    # asked through the session: once the main view had drawn the reader's function (its
    # first run answered), not ahead of it as the demo asked before
    first_run = next(c for c in main if c["fn"].endswith(".run"))
    assert sig[0]["start"] >= first_run["end"], calls
