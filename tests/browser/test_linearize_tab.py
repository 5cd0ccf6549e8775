"""The linearize tab, a mode made of table entries alone (README "How to add"): its tab draws
jax.linearize's forward and linear programs (no backward pane), takes a function of any
output, counts the mask explorer's cells as a linearized split, and a link keeps it."""
from __future__ import annotations

import pytest

from pe_engine.explain import run
from tests.browser.contexts import new_context
from tests.browser.test_page import call, cpython, open_page, programs, shown

pytestmark = pytest.mark.browser

CODE = ("import jax.numpy as jnp\n\n\ndef f(x, y):\n    h = jnp.sin(x) * y\n"
        "    return h, jnp.cos(h).sum()\n")
KNOWN = {"x": False, "y": True}
VALUES = {"x": "[0.5, 1.0, 2.0]", "y": "2.0"}


def _pane_titles(page) -> list[str]:
    return page.eval_on_selector_all(".st-pane-title h3", "els => els.map(e => e.textContent)")


def test_the_linearize_tab_draws_the_forward_and_linear_programs(page, site,
                                                                  wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    call(page, "loadExample", "grad-mlp")
    page.click("[data-testid=mode-linearize]")
    s = page.evaluate("() => window.explainer.settled()")
    assert (s["mode"], s["recordMode"], s["error"]) == ("linearize", "linearize", None)
    assert page.get_attribute("[data-testid=mode-linearize]", "aria-selected") == "true"
    assert _pane_titles(page) == ["Forward (known)", "Linear (unknown)"]
    want = cpython("linearize", s["source"], s["mask"], s["values"])
    assert shown(s) == programs(want)

    # a function jax.grad refuses (a tuple of a vector and a scalar): linearize draws it
    call(page, "setSource", CODE)
    for p, v in VALUES.items():
        call(page, "setValue", p, v)
    for p, k in KNOWN.items():
        s = call(page, "setKnown", p, k)
    assert s["error"] is None and s["recordMode"] == "linearize"
    assert shown(s) == programs(cpython("linearize", CODE, KNOWN, VALUES))
    assert len(s["residuals"]) == 3


def test_the_mask_explorer_counts_linearized_splits(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    call(page, "setSource", CODE)
    for p, v in VALUES.items():
        call(page, "setValue", p, v)
    page.click("[data-testid=mode-linearize]")
    page.evaluate("() => window.explainer.settled()")
    page.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 4 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=60_000)
    cells = page.eval_on_selector_all("[data-testid=mask-cell]", """cells => Object.fromEntries(
        cells.map(c => [c.dataset.mask, c.querySelector('.mask-eqns')?.textContent]))""")
    for mask, eqns in cells.items():
        want = run("linearize", source=CODE,
                   args=[{"known": m == "1", "value": v} for m, v in zip(mask, VALUES.values())])
        if "error" in want:  # nothing differentiated: linearize's own error
            assert mask == "11", want
            continue
        assert eqns == (f"eqns {len(want['known']['eqns'])} known · "
                        f"{len(want['unknown']['eqns'])} unknown"), (mask, eqns)
    page.click("[data-testid=mask-cell][data-mask='01']")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["mode"] == "linearize" and s["mask"] == {"x": False, "y": True}


def test_a_linearize_link_opens_in_a_fresh_profile(page, browser, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    call(page, "setSource", CODE)
    for p, v in VALUES.items():
        call(page, "setValue", p, v)
    page.click("[data-testid=mode-linearize]")
    s = page.evaluate("() => window.explainer.settled()")
    url = page.evaluate("() => window.explainer.permalink()")
    ctx = new_context(browser)
    try:
        other = ctx.new_page()
        open_page(other, site, "#" + url.split("#", 1)[1], wait_engine_ready=wait_engine_ready)
        t = other.evaluate("() => window.explainer.settled()")
        for k in ["source", "mask", "values", "mode", "known", "unknown", "residuals"]:
            assert t[k] == s[k], k
        assert t["recordMode"] == "linearize"
    finally:
        ctx.close()
