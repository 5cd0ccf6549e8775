"""Split mode's per-output instantiate (app/page/views/instantiate.js): a toggle per output of
the traced program; forcing a known output gives the engine's split with that instantiate (JAX's
own, tests/test_split_instantiate.py), the residuals follow, "Copy as JAX" passes the same
instantiate, and the link keeps it."""
from __future__ import annotations

import pytest

from pe_engine.explain import as_json, run
from tests.browser.test_page import open_page

pytestmark = pytest.mark.browser

CODE = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x)
    return a, a * y, x
"""
ARGS = [{"known": True, "value": "1.0"}, {"known": False, "value": "2.0"}]


def _toggles(page) -> list[tuple[str, str | None, bool]]:
    return page.eval_on_selector_all("[data-testid=instantiate] button", """bs => bs.map(b =>
        [b.textContent, b.getAttribute('aria-pressed'), b.disabled])""")


def test_forcing_a_known_output_moves_it_to_the_unknown_program(page, site, wait_engine_ready):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    page.evaluate("""async (code) => {
        await window.explainer.setSource(code);
        await window.explainer.setKnown('x', true); await window.explainer.setKnown('y', false);
        await window.explainer.setValue('y', '2.0');
    }""", CODE)
    plain = as_json(run("split", source=CODE, args=ARGS))
    names = [v["name"] for v in plain["program"]["outvars"]]
    assert _toggles(page) == [[f"out 0 {names[0]} known", "false", False],
                              [f"out 1 {names[1]} unknown", "false", True],
                              [f"out 2 {names[2]} known", "false", False]]

    page.click("[data-testid=instantiate-0]")
    s = page.evaluate("() => window.explainer.settled()")
    forced = as_json(run("split", source=CODE, args=ARGS, instantiate=[True, False, False]))
    assert s["instantiate"] == [True, False, False]
    assert (s["known"], s["unknown"]) == (forced["known"]["text"], forced["unknown"]["text"])
    assert s["unknown"] != plain["unknown"]["text"]
    assert s["residuals"] == forced["residuals"]
    assert forced["out_unknowns"] == [True, True, False]  # sin x is now the unknown's output
    assert page.get_attribute("[data-testid=instantiate-0]", "aria-pressed") == "true"
    assert "forced unknown" in page.text_content("[data-testid=instantiate-0]")
    snippet = page.evaluate("() => window.explainer.jaxSnippet()")
    assert snippet == forced["jax_snippet"]  # the engine's snippet, run by real JAX elsewhere
    assert "[True, False, False])" in snippet  # JAX's instantiate, per output

    url = page.evaluate("() => window.explainer.permalink()")
    other = page.context.new_page()
    try:
        open_page(other, site, "#" + url.split("#", 1)[1], wait_engine_ready=wait_engine_ready)
        s2 = other.evaluate("() => window.explainer.settled()")
        assert s2["instantiate"] == [True, False, False]
        assert s2["unknown"] == forced["unknown"]["text"]
    finally:
        other.close()

    page.click("[data-testid=instantiate-0]")  # and back
    s = page.evaluate("() => window.explainer.settled()")
    assert s["unknown"] == plain["unknown"]["text"]
    assert page.evaluate("() => window.explainer.jaxSnippet()") == plain["jax_snippet"]
    assert "[True, False, False]" not in plain["jax_snippet"]

    page.click("[data-testid=mode-jit]")
    page.evaluate("() => window.explainer.settled()")
    assert page.is_hidden("[data-testid=instantiate]")
