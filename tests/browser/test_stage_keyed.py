"""The stage draws a new split of the drawn one's shape by updating the DOM it has (issue 46,
app/stage/reconcile.js): the rows of equations that did not change are the same elements,
and what the page shows is what a stage drawing that record afresh shows, at every step."""
from __future__ import annotations

import functools

import pytest

from bench.scale_functions import FUNCTIONS, fresh_edit, request_args
from pe_engine import explain
from tests.browser.test_stage import open_stage, stage_base, stage_browser  # noqa: F401 - fixtures
from tests.browser.test_stage_page import SHORT, call

pytestmark = pytest.mark.browser

TRANSFORMER = "transformer block (4x8)"


@functools.cache
def edit(i: int) -> dict:
    """Issue 46's fresh grad edit i of the transformer block (its return scaled anew)."""
    source = fresh_edit(FUNCTIONS[TRANSFORMER][0], i)
    rec = explain.as_json(explain.run("grad", source=source, args=request_args(TRANSFORMER)))
    assert "error" not in rec, rec.get("error")
    return rec


# the stage's content as markup, with what differs between two stages of one record left out:
# the panes' title ids (random per pane drawn), the edges' geometry (each stage's own layout),
# the marks of what changed since the record before (a fresh stage had none before), and the
# order of attributes
SERIALISE = """(root) => {
  const c = root.querySelector('.st-content').cloneNode(true);
  for (const el of c.querySelectorAll('[id]')) el.id = 'ID';
  for (const el of c.querySelectorAll('[aria-labelledby]')) {
    el.setAttribute('aria-labelledby', 'ID');
  }
  for (const el of c.querySelectorAll('[data-diff]')) el.removeAttribute('data-diff');
  for (const el of c.querySelectorAll('[data-testid=residual-gone]')) el.remove();
  for (const el of c.querySelectorAll('svg.st-edges, svg.st-edges *')) {
    for (const a of ['d', 'x', 'y', 'width', 'height', 'transform', 'viewBox', 'style']) {
      el.removeAttribute(a);
    }
  }
  // attributes in one order (the build's first frame writes them in its own)
  for (const el of [c, ...c.querySelectorAll('*')]) {
    const attrs = [...el.attributes].map((a) => [a.name, a.value]).sort();
    for (const [name] of attrs) el.removeAttribute(name);
    for (const [name, value] of attrs) el.setAttribute(name, value);
  }
  return c.outerHTML;
}"""

FRESH = """async ([rec, module]) => {
  const { createStage } = await import(module);
  document.querySelector('#fresh-stage')?.remove();
  const root = document.createElement('div');
  root.id = 'fresh-stage';
  // as wide as the stage drawn: where the edges run (a far end drawn as stubs) is of the layout
  root.style.width = `${document.querySelector('.stage').getBoundingClientRect().width}px`;
  document.body.append(root);
  window.freshStage = createStage(root, { keyboard: false });
  window.freshStage.setRecord(rec);
  window.freshStage.drawn();
}"""


def assert_same(drawn: str, fresh: str, where) -> None:
    """The two stages' markup equal; if not, where they part."""
    at = next((i for i, (a, b) in enumerate(zip(drawn, fresh)) if a != b),
              min(len(drawn), len(fresh)))
    near = slice(max(0, at - 300), at + 200)
    assert drawn == fresh, (where, drawn[near], fresh[near])


def stage_root(pg):
    return pg.evaluate_handle("() => document.querySelector('.stage:not(#fresh-stage)')")


def test_a_fresh_edit_keeps_the_rows_that_did_not_change(open_stage):  # noqa: F811
    pg = open_stage("grad")
    pg.evaluate("(rec) => { window.stage.setRecord(rec); window.stage.drawn(); }", edit(0))
    # every row drawn, marked; with its pane and text
    before = pg.evaluate("""() => {
      window.marked = new WeakSet();
      return [...document.querySelectorAll('.stage [data-testid=eqn]')].map((el) => {
        window.marked.add(el);
        return [el.dataset.pane, el.getAttribute('aria-label')];
      });
    }""")
    for i in (1, 2):
        pg.evaluate("(rec) => { window.stage.setRecord(rec); window.stage.drawn(); }", edit(i))
    after = pg.evaluate("""() => [...document.querySelectorAll('.stage [data-testid=eqn]')].map(
      (el) => [el.dataset.pane, el.getAttribute('aria-label'), window.marked.has(el)])""")
    assert len(after) == len(before) > 150
    same = {tuple(r) for r in before}
    unchanged = [r for r in after if tuple(r[:2]) in same]
    kept = [r for r in unchanged if r[2]]
    # the rows that print what they printed are the elements drawn before (but the one the tab
    # stop is on, which a fresh build does not have the tab stop on, and the one just judged)
    assert len(unchanged) > 0.9 * len(after)
    assert len(kept) >= len(unchanged) - 3, [r for r in unchanged if not r[2]][:5]
    # the rows that changed are drawn anew
    assert not any(r[2] for r in after if tuple(r[:2]) not in same)


def test_an_updated_stage_is_what_a_fresh_stage_draws(open_stage):  # noqa: F811
    pg = open_stage("grad")
    for i in range(3):
        pg.evaluate("(rec) => { window.stage.setRecord(rec); window.stage.drawn(); }", edit(i))
    pg.evaluate(FRESH, [edit(2), "./index.js"])
    fresh = pg.evaluate_handle("() => document.querySelector('#fresh-stage')")
    total = pg.evaluate("() => window.stage.stepCount()")
    assert total == pg.evaluate("() => window.freshStage.stepCount()") > 10
    # at the end, at the start, and in between: the timeline steps the elements kept too
    for step in (total, 0, total // 2, total - 1):
        pg.evaluate("(n) => { window.stage.setStep(n); window.freshStage.setStep(n); }", step)
        pg.evaluate("() => { window.stage.drawn(); window.freshStage.drawn(); }")
        assert_same(pg.evaluate(SERIALISE, stage_root(pg)), pg.evaluate(SERIALISE, fresh), step)
        assert pg.evaluate("() => document.querySelector('.stage').dataset.step") == str(step)
    # the table view kept (closed, unchanged) opens on the new record's events
    pg.evaluate("""() => { for (const d of document.querySelectorAll('.stage .st-table-wrap')) {
      d.querySelector('summary').click(); } }""")
    assert_same(pg.evaluate(SERIALISE, stage_root(pg)), pg.evaluate(SERIALISE, fresh), "table")


def test_the_page_s_edits_draw_what_a_fresh_stage_draws(opened):
    """Across the page's own edits (the engine in the page, the editor's source): the stage
    updated edit after edit is what a stage drawing the last record afresh draws."""
    pg = opened
    kept = 0
    for i, src in enumerate([SHORT, SHORT.replace("jnp.cos(b)", "jnp.tan(b)"),
                             SHORT.replace("+ a", "* 2.5 + a"), SHORT.replace("+ a", "* 3.5 + a")]):
        if i == 3:
            pg.evaluate("""() => { window.marked = new WeakSet(
                document.querySelectorAll('#stage [data-testid=eqn]')); }""")
        s = call(pg, "setSource", src)
        assert s["error"] is None
        if i == 3:
            kept = pg.evaluate("""() => [...document.querySelectorAll('#stage [data-testid=eqn]')]
                .filter((el) => window.marked.has(el)).length""")
    assert kept > 0  # drawn by an update, not anew
    rec = pg.evaluate("() => window.explainer.record()")
    pg.evaluate(FRESH, [rec, "/app/stage/index.js"])
    drawn = pg.evaluate(SERIALISE, pg.query_selector("#stage"))
    assert_same(drawn, pg.evaluate(SERIALISE, pg.query_selector("#fresh-stage")), "page")
