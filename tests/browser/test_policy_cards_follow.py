"""Checkpoint's selected policy first (issue 14): an edit in checkpoint mode draws the selected
policy's card and split at once, the other cards as placeholders; they are filled in one by one
afterwards, the split left as it was drawn; and the next edit drops the follow-ups still to come.

Driven through window.explainer against the built site and the engine running in the browser.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pe_engine import explain
from pe_engine.explain.record import POLICY_ROWS
from tests.browser.engine_spy import SPY

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = next(e for e in json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
               if e["id"] == "checkpoint-dots")
sys.path.insert(0, str(ROOT / "tools"))
import precompute  # noqa: E402

# Every change of the stage's cards, and whether the split's panes are still the element drawn
# with the first answer (the stage was not rebuilt for the cards that came after).
WATCH = """() => {
  const stage = document.getElementById('stage');
  const log = (window.__cards = []);
  let first = null;
  new MutationObserver(() => {
    const names = (id) =>
      [...stage.querySelectorAll(`[data-testid=${id}]`)].map((c) => c.dataset.policy);
    const cards = names('policy-card');
    const pending = names('policy-pending');
    const panes = stage.querySelector('[data-testid=panes]');
    if (pending.length && !first) first = panes;
    const last = log.at(-1);
    const same = last && last.cards.join() === cards.join();
    if (same && last.pending.join() === pending.join()) return;
    log.push({cards, pending, samePanes: panes === first, step: window.explainer.state().step,
              memory: stage.querySelectorAll('[data-testid=memory-line]').length});
  }).observe(stage, {subtree: true, childList: true});
}"""
# Every engine call the page makes: its entry point, the policy and the source asked.
CALLS = """() => {
  const engine = window.peEngine;
  const call = engine.call;
  window.__calls = [];
  engine.call = (fn, kw, opts) => {
    window.__calls.push([fn, kw.policy ?? null, kw.source ?? null]);
    return call(fn, kw, opts);
  };
}"""


def _cards(record: dict) -> list[dict]:
    """A record's policy cards without their programs (those print function addresses)."""
    return [{k: v for k, v in p.items() if k != "panes"} for p in record["policies"]]


def _cpython(code: str) -> dict:
    req, = precompute.page_requests([{**EXAMPLE, "code": code}])
    return explain.as_json(explain.run(req["mode"], **req["kwargs"]))


def test_an_edit_draws_the_selected_policy_first_then_every_card(opened):
    pg = opened
    pg.evaluate("(id) => window.explainer.loadExample(id)", EXAMPLE["id"])
    pg.evaluate(WATCH)
    # every line one lower: a new split (a comment at the end would keep the one drawn)
    code = "# edited\n" + EXAMPLE["code"]
    s = pg.evaluate("(c) => window.explainer.setSource(c)", code)
    assert s["error"] is None
    log = pg.evaluate("() => window.__cards")
    selected = EXAMPLE["policy"]
    # first: the selected card alone with its split drawn, the others held in their places
    assert log[0]["cards"] == [selected]
    assert log[0]["pending"] == [p for p in POLICY_ROWS if p != selected]
    assert log[0]["memory"] == 1
    # then one more card at a time, in the page's order, the split never drawn again; shown
    # whole throughout: at the end of the one remat equation until its call is opened, then
    # at the end of the steps inside it (the stage steps inside a checkpoint's remat)
    assert [len(e["pending"]) for e in log] == list(range(len(POLICY_ROWS) - 1, -1, -1))
    assert all(e["samePanes"] and e["step"] in (1, s["stepCount"]) for e in log)
    assert log[-1]["step"] == s["stepCount"] > 1
    last = log[-1]
    assert last["cards"] == POLICY_ROWS and last["memory"] == len(POLICY_ROWS)
    # settled() waited for them all: the record is the whole one CPython gives
    rec = pg.evaluate("() => window.explainer.record()")
    assert rec["pending_policies"] == []
    assert _cards(rec) == _cards(_cpython(code))
    assert [m["policy"] for m in rec["memory"]] == POLICY_ROWS
    assert pg.is_hidden("[data-testid=diff-summary]")


def test_an_edit_that_keeps_the_split_keeps_the_cards_drawn_until_theirs_come(opened):
    """A comment typed in checkpoint mode: the split and every card stay drawn (no placeholder
    comes back), the follow-ups still ask every policy for the new source, and the record ends
    whole, the one CPython gives."""
    pg = opened
    pg.evaluate("(id) => window.explainer.loadExample(id)", EXAMPLE["id"])
    pg.evaluate("() => window.explainer.settled()")
    pg.evaluate("() => { window.__panes = document.querySelector('#stage [data-testid=panes]'); }")
    pg.evaluate(WATCH)
    pg.evaluate(CALLS)
    code = EXAMPLE["code"] + "\n# a comment\n"
    s = pg.evaluate("(c) => window.explainer.setSource(c)", code)
    assert s["error"] is None and s["source"] == code
    assert pg.evaluate("() => window.__panes.isConnected")
    log = pg.evaluate("() => window.__cards")
    assert log, "the cards were drawn again as the policies came"
    assert all(e["cards"] == POLICY_ROWS and not e["pending"] for e in log), log
    assert all(e["memory"] == len(POLICY_ROWS) for e in log)
    calls = pg.evaluate("() => window.__calls")
    asked = sorted(p for fn, p, src in calls
                   if fn == "pe_engine.explain.checkpoint_policy" and src == code)
    assert asked == sorted(p for p in POLICY_ROWS if p != EXAMPLE["policy"])
    rec = pg.evaluate("() => window.explainer.record()")
    assert rec["pending_policies"] == []
    assert _cards(rec) == _cards(_cpython(code))


def test_an_edit_during_the_follow_ups_drops_them(opened):
    pg = opened
    pg.evaluate("(id) => window.explainer.loadExample(id)", EXAMPLE["id"])
    pg.evaluate(WATCH)
    pg.evaluate(CALLS)
    # every line one lower, then two: new splits, and the saved residuals' lines tell the two
    # records apart
    first = "# first\n" + EXAMPLE["code"]
    second = "# second\n#\n" + EXAMPLE["code"]
    s = pg.evaluate("""async ([a, b]) => {
        window.explainer.setSource(a);
        // the first edit's selected card is drawn, its follow-ups under way: edit again
        await new Promise((resolve) => {
          const poll = () => document.querySelector('#stage [data-testid=policy-pending]')
            ? resolve() : setTimeout(poll, 0);
          poll();
        });
        return window.explainer.setSource(b);
    }""", [first, second])
    assert s["error"] is None and s["source"] == second
    calls = pg.evaluate("() => window.__calls")
    follow_ups = [(policy, src) for fn, policy, src in calls
                  if fn == "pe_engine.explain.checkpoint_policy"]
    # the first edit's follow-ups stopped (one may have been under way), the second's all ran
    stale = [p for p, src in follow_ups if src == first]
    assert len(stale) <= 1, stale
    assert sorted(p for p, src in follow_ups if src == second) == sorted(
        p for p in POLICY_ROWS if p != EXAMPLE["policy"])
    # and what the stale one brought never landed: the record is the second edit's, whole
    rec = pg.evaluate("() => window.explainer.record()")
    assert rec["pending_policies"] == []
    want = _cpython(second)
    assert _cards(rec) == _cards(want) != _cards(_cpython(first))
    assert rec["memory"] == want["memory"]
    log = pg.evaluate("() => window.__cards")
    assert log[-1]["cards"] == POLICY_ROWS and not log[-1]["pending"]


# The follow-ups wait until the test lets them go: the reader acts on the first answer's card.
HOLD = """() => {
  const engine = window.peEngine;
  const call = engine.call;
  let release;
  window.__release = new Promise((r) => { release = r; });
  window.__letGo = () => release();
  engine.call = async (fn, kw, opts) => {
    if (fn.endsWith('checkpoint_policy')) await window.__release;
    return call(fn, kw, opts);
  };
}"""


def test_a_card_opened_before_the_others_arrive_stays_open_and_focused(opened):
    pg = opened
    pg.evaluate("(id) => window.explainer.loadExample(id)", EXAMPLE["id"])
    pg.evaluate(HOLD)
    pg.evaluate("(c) => { window.__done = window.explainer.setSource(c); }",
                "# held\n" + EXAMPLE["code"])
    card = f'#stage [data-testid=policy-card][data-policy="{EXAMPLE["policy"]}"]'
    pg.wait_for_selector("#stage [data-testid=policy-pending]")
    pg.click(f"{card} summary")
    assert pg.evaluate(f"() => document.querySelector('{card} details').open")
    pg.evaluate("() => window.__letGo()")
    pg.evaluate("() => window.__done")
    assert pg.locator("#stage [data-testid=policy-pending]").count() == 0
    # a new card element, the reader's opened programs and focus carried over to it
    assert pg.evaluate(f"() => document.querySelector('{card} details').open")
    assert pg.evaluate(f"() => document.activeElement === document.querySelector('{card} summary')")
    opened_cards = pg.locator("#stage [data-testid=policy-card] details[open]")
    assert opened_cards.count() == 1


# slow to trace (a Python loop, about half a second a call in the page): a reader's change lands
# while a follow-up runs
SLOW = """import jax.numpy as jnp

def f(w, x):
    n = 0
    for i in range(200000):
        n += i
    return jnp.sum(jnp.sin(w * x))
"""


def test_a_change_during_a_follow_up_interrupts_it_instead_of_waiting(opened):
    """The follow-ups are quiet calls: the reader's next change does not wait for a card it
    makes stale. The one in flight is interrupted ('cancelled', no restart), the change's own
    call runs at once, and its record's follow-ups then fill in every card."""
    pg = opened
    pg.evaluate("() => window.explainer.setMode('checkpoint')")
    pg.evaluate("() => window.explainer.setKnown('w', false)")
    restarts = pg.evaluate("() => window.peEngine.info.restarts")
    pg.evaluate(SPY)
    pg.evaluate("(c) => { window.explainer.setSource(c); }", SLOW)
    pg.wait_for_function("""() => window.__calls.some((c) =>
        c.fn.endsWith('checkpoint_policy') && c.end === null)""", timeout=60_000)
    s = pg.evaluate("() => window.explainer.setKnown('x', false)")
    assert s["error"] is None and s["mask"] == {"w": False, "x": False}
    calls = pg.evaluate("() => window.__calls")
    follow_ups = [c for c in calls if c["fn"].endswith("checkpoint_policy")]
    stale = [c for c in follow_ups if c["mask"] == "01"]
    assert [c["end"] for c in stale] == ["cancelled"], stale
    assert all(c["quiet"] for c in follow_ups)
    runs = [c for c in calls if c["fn"].endswith(".run") and c["mask"] == "00"]
    assert runs and not runs[0]["quiet"] and runs[0]["end"] == "ok"
    assert sorted(c["policy"] for c in follow_ups if c["mask"] == "00") == sorted(
        p for p in POLICY_ROWS if p != pg.evaluate("() => window.explainer.state().policy"))
    assert pg.evaluate("() => window.explainer.record().pending_policies") == []
    assert pg.evaluate("() => window.peEngine.info.restarts") == restarts


def test_a_follow_up_that_made_way_for_another_call_is_asked_again(opened):
    """A call from elsewhere (the console, an embedding page) interrupts a follow-up without
    changing the request: the card is asked again, and the record still ends whole."""
    pg = opened
    pg.evaluate("() => window.explainer.setMode('checkpoint')")
    pg.evaluate("() => window.explainer.setKnown('w', false)")
    pg.evaluate(SPY)
    pg.evaluate("(c) => { window.explainer.setSource(c); }", SLOW)
    pg.wait_for_function("""() => window.__calls.some((c) =>
        c.fn.endsWith('checkpoint_policy') && c.end === null)""", timeout=60_000)
    other = pg.evaluate("""() => window.peEngine.call('pe_engine.explain.run', {mode: 'split',
        source: 'def g(a):\\n    return a * 2\\n', args: [{known: false, value: '1.0'}]})""")
    assert "error" not in other
    pg.evaluate("() => window.explainer.settled()")
    follow_ups = [c for c in pg.evaluate("() => window.__calls")
                  if c["fn"].endswith("checkpoint_policy")]
    cancelled = [c["policy"] for c in follow_ups if c["end"] == "cancelled"]
    assert len(cancelled) == 1, follow_ups
    # the one that made way was asked again, and every card came
    assert [c["policy"] for c in follow_ups if c["end"] == "ok"].count(cancelled[0]) == 1
    assert pg.evaluate("() => window.explainer.record().pending_policies") == []
