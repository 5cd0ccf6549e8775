"""The engine status in the header is read whole on a phone (issue 44): at 360 px it read
"Python engine: ready in…", cut short by an ellipsis. It wraps instead, in room the header keeps
for it, so a longer status (a boot stage) does not push the page down either."""
from __future__ import annotations

import pytest

from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

STATUS = "[data-testid=engine]"
# whether the status's text is all inside its box (no ellipsis, no overflow, on screen)
MEASURE = """() => {
    const el = document.querySelector('[data-testid=engine]');
    const box = el.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(el);
    const text = range.getBoundingClientRect();
    const toggle = document.querySelector('[data-testid=theme-toggle]').getBoundingClientRect();
    return {
        text: el.textContent,
        clipped: el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight,
        inside: text.left >= box.left - 0.5 && text.right <= box.right + 0.5
            && text.top >= box.top - 0.5 && text.bottom <= box.bottom + 0.5,
        onScreen: box.left >= 0 && box.right <= innerWidth && toggle.right <= innerWidth,
        overlaps: box.right > toggle.left + 0.5 && box.left < toggle.right,
        header: document.querySelector('.site-header').getBoundingClientRect().height,
    };
}"""
# the longest status the engine shows while it boots (engine-worker.js's stages)
LONGEST_LOADING = "Python engine: loading (loadPyodide)"


@pytest.mark.parametrize("width", [360, 390])
def test_the_engine_status_is_read_whole_on_a_phone(browser, site, wait_engine_ready, width):
    ctx = new_context(browser, viewport={"width": width, "height": 800})
    pg = ctx.new_page()
    try:
        pg.goto(site)
        wait_engine_ready(pg)
        pg.evaluate("() => window.explainer.settled()")
        pg.wait_for_function("() => document.querySelector('[data-testid=engine]')"
                             ".dataset.state === 'ready'")
        ready = pg.evaluate(MEASURE)
        assert ready["text"].startswith("Python engine: ready in ") and ready["text"].endswith(" s")
        assert not ready["clipped"], ready
        assert ready["inside"] and ready["onScreen"] and not ready["overlaps"], ready
        # a longer status (the engine's longest boot stage) is whole too, and the header
        # keeps its height: the page below does not move
        pg.evaluate("(t) => { document.querySelector('[data-testid=engine]').textContent = t; }",
                    LONGEST_LOADING)
        loading = pg.evaluate(MEASURE)
        assert not loading["clipped"] and loading["inside"] and loading["onScreen"], loading
        assert loading["header"] == pytest.approx(ready["header"], abs=0.5)
    finally:
        ctx.close()
