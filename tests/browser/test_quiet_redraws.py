"""The page's views draw from the whole state on every change (app/page/update.js), and a
checkpoint edit renders them once per answer, its follow-up policy cards included. What did not
change must not be written again (app/dom-writes.js): a write of the same text replaces the
text node and makes Chromium restyle, lay out and paint it, on the main thread that shares the
CPU with the engine's worker. An edit whose split is the one drawn (a comment typed) changes
the editor's code, the engine's status line, the checkpoint cards and the mask explorer's
grid: nothing in the inputs, the mode tabs, the error box or the residual edges."""
from __future__ import annotations

import pytest

from tests.browser.test_page import open_page

pytestmark = pytest.mark.browser

WATCH = """() => {
  window.__writes = [];
  const where = (n) => {
    const el = n.nodeType === 1 ? n : n.parentElement;
    return el.closest('[data-testid=inputs]') ? 'inputs'
      : el.closest('#modes') ? 'modes'
      : el.closest('#mode-blurb') ? 'blurb'
      : el.closest('[data-testid=error]') ? 'error'
      : el.closest('[data-testid=instantiate]') ? 'instantiate'
      : el.closest('.st-edge') || el.closest('svg') ? 'edges'
      : 'other';
  };
  window.__observer = new MutationObserver((ms) => {
    for (const m of ms) window.__writes.push([where(m.target), m.type, m.attributeName]);
  });
  window.__observer.observe(document.body,
    { subtree: true, childList: true, attributes: true, characterData: true });
}"""


@pytest.mark.parametrize("example", ["checkpoint-nothing", "grad-mlp"])
def test_an_edit_keeping_the_split_rewrites_none_of_the_controls(page, site, wait_engine_ready,
                                                                 example):
    open_page(page, site, wait_engine_ready=wait_engine_ready)
    st = page.evaluate("(id) => window.explainer.loadExample(id)", example)
    assert st["error"] is None
    # one edit first: the comment line the next edit changes is then already there
    page.evaluate("(s) => window.explainer.setSource(s)", st["source"] + "\n# edit 0\n")
    page.evaluate(WATCH)
    after = page.evaluate("(s) => window.explainer.setSource(s)", st["source"] + "\n# edit 1\n")
    assert after["error"] is None
    page.wait_for_timeout(300)  # the edges are drawn in the frame after the record
    writes = page.evaluate("() => { window.__observer.disconnect(); return window.__writes; }")
    controls = [w for w in writes if w[0] != "other"]
    assert controls == []
    # the watch saw the edit itself: the editor's code was redrawn
    assert any(w[0] == "other" for w in writes)
