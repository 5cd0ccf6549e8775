"""Requests asked ahead (app/page/anticipate.js, app/page/runner.js): once the reader has
paused after an answer, the page asks the engine for the request of every one-input flip and of
every other mode in quiet calls (app/engine-client.js). A flip or a mode switch is then drawn
from that answer without a trace of its own,
and the reader's own calls never wait for a quiet one: they go first in the queue, and one that
comes while a quiet call runs interrupts it. The mask explorer's call is a quiet one too.

Driven through window.explainer and window.peEngine against the built site.
"""
from __future__ import annotations

import pytest

from pe_engine.explain import as_json, run
from pe_engine.explain.page_state import PAGE_MODES
from tests.browser.engine_spy import SPY

pytestmark = pytest.mark.browser

# parameters no example has: the page knows nothing of them, so all three start known
CODE = """import jax
import jax.numpy as jnp

def f(p, q, r):
    a = jnp.sin(p) * q
    return jnp.cos(a) + r * p
"""
PARAMS = ["p", "q", "r"]
OTHER_MODES = [m for m in PAGE_MODES if m != "split"]  # asked ahead from split, in tab order


def _split(mask: str) -> dict:
    args = [{"known": m == "1", "value": "1.0"} for m in mask]
    return as_json(run("split", source=CODE, args=args))


def _calls(page) -> list[dict]:
    return page.evaluate("() => window.__calls")


def _spied_edit(page, code: str) -> dict:
    """Split mode, every engine call recorded from now on, then `code` in the editor."""
    page.evaluate("() => window.explainer.setMode('split')")
    page.evaluate(SPY)
    s = page.evaluate("(c) => window.explainer.setSource(c)", code)
    assert s["error"] is None
    return s


def test_a_flip_or_a_mode_after_a_pause_is_drawn_from_the_answer_asked_ahead(opened):
    pg = opened
    s = _spied_edit(pg, CODE)
    mask = "".join("1" if s["mask"][p] else "0" for p in PARAMS)
    assert mask == "111", s["mask"]
    pg.evaluate("() => { window.__states.length = 0; }")
    # the reader pauses: each flip of one input is asked, quietly, and answered, then the
    # other modes
    flips = ["011", "101", "110"]
    pg.wait_for_function(
        """(n) => window.__calls.filter((c) => c.quiet && c.mode !== 'masks' && c.end).length
           === n""", arg=len(flips) + len(OTHER_MODES), timeout=30_000)
    quiet = [c for c in _calls(pg) if c["quiet"] and c["mode"] != "masks"]
    assert [c["mode"] for c in quiet] == ["split"] * 3 + OTHER_MODES, quiet
    assert sorted(c["mask"] for c in quiet[:3]) == flips
    assert all(c["end"] == "ok" for c in quiet), quiet
    # quiet calls never show the engine as working
    assert "busy" not in pg.evaluate("() => window.__states")
    for i, p in enumerate(PARAMS):
        before = len(_calls(pg))
        st = pg.evaluate("([p, k]) => window.explainer.setKnown(p, k)", [p, False])
        assert st["error"] is None
        flipped = "".join("0" if j == i else "1" for j in range(len(PARAMS)))
        asked = [c for c in _calls(pg)[before:] if c["mode"] == "split" and not c["quiet"]]
        assert asked == [], f"flipping {p} traced again: {asked}"
        rec = pg.evaluate("() => window.explainer.record()")
        want = _split(flipped)
        assert rec["known"]["text"] == want["known"]["text"]
        assert rec["unknown"]["text"] == want["unknown"]["text"]
        assert rec["residuals"] == want["residuals"]
        # back to all known (the page's answer for it is kept) before the next input
        pg.evaluate("([p, k]) => window.explainer.setKnown(p, k)", [p, True])
    before = len(_calls(pg))
    st = pg.evaluate("() => window.explainer.setMode('jit')")
    assert st["error"] is None
    assert [c for c in _calls(pg)[before:] if not c["quiet"]] == []
    rec = pg.evaluate("() => window.explainer.record()")
    want = as_json(run("jit", source=CODE, args=[{"known": True, "value": "1.0"}] * 3,
                       eager_constant_folding=False))
    assert rec["program"]["text"] == want["program"]["text"]



# Resolves once the engine has no call of the page's ahead: every quiet call asked so far is
# answered (they run in order), the mask explorer's among them.
DRAIN = """async () => {
  await window.explainer.settled();
  const explorer = document.querySelector('[data-testid=mask-explorer]');
  while (explorer.classList.contains('is-updating')) await new Promise((r) => setTimeout(r, 50));
  await window.peEngine.call('pe_engine.explain.run', {mode: 'split',
      source: 'def f(x):\\n    return x\\n', args: [{known: false, value: '1.0'}]}, {quiet: true});
}"""


ENDLESS = "def f(x):\n    while True:\n        pass\n"
# ask(source, opts): a split of source's one input; track(name, call): the order they end in
CALLS_IN_ORDER = """
        const ask = (source, opts) => window.peEngine.call('pe_engine.explain.run',
            {mode: 'split', source, args: [{known: false, value: '1.0'}]}, opts);
        const order = [];
        const track = (name, p) => p.then(() => order.push([name, 'ok']),
                                          (e) => order.push([name, e.type]));"""


def test_the_readers_call_interrupts_a_quiet_one_and_goes_before_the_queued(opened):
    pg = opened
    pg.evaluate(DRAIN)
    restarts = pg.evaluate("() => window.peEngine.info.restarts")
    assert pg.evaluate("() => window.peEngine.info.interruptible")
    quick = "import jax.numpy as jnp\n\ndef g(x):\n    return jnp.sin(x)\n"
    out = pg.evaluate("""async ([endless, quick]) => {""" + CALLS_IN_ORDER + """
        // a quiet call that would never end, then the reader's: only an interrupt lets it run
        const spin = track('spin', ask(endless, {quiet: true}));
        await new Promise((r) => setTimeout(r, 300));
        const reader = track('reader', ask(quick));
        // queued behind the reader's: a quiet one, then another of the reader's, which goes first
        const later = track('quiet-later', ask(quick, {quiet: true}));
        const second = track('reader-2', ask(quick + '# 2\\n'));
        await Promise.all([spin, reader, later, second]);
        return order;
    }""", [ENDLESS, quick])
    assert out == [["spin", "cancelled"], ["reader", "ok"], ["reader-2", "ok"],
                   ["quiet-later", "ok"]], out
    # interrupted, not torn down
    assert pg.evaluate("() => window.peEngine.info.restarts") == restarts


def test_a_quiet_call_the_reader_waits_for_goes_first(opened):
    """The runner awaits a flip asked ahead that is still queued: hurry() makes it the
    reader's, so it interrupts the quiet call in flight instead of waiting behind it."""
    pg = opened
    pg.evaluate(DRAIN)
    quick = "import jax.numpy as jnp\n\ndef g(x):\n    return jnp.cos(x)\n"
    out = pg.evaluate("""async ([endless, quick]) => {""" + CALLS_IN_ORDER + """
        const spin = track('spin', ask(endless, {quiet: true}));
        const handle = {};
        const wanted = track('wanted', ask(quick, {quiet: true, handle}));
        await new Promise((r) => setTimeout(r, 300));
        handle.hurry();
        await Promise.all([spin, wanted]);
        return order;
    }""", [ENDLESS, quick])
    assert out == [["spin", "cancelled"], ["wanted", "ok"]], out


# slow to trace (a Python loop): the page asks no flip of it ahead, so the reader's flip below
# is a call of its own
SLOW = """import jax.numpy as jnp

def f(a, b):
    n = 0
    for i in range(1000):
        for j in range(500):
            n += j
    return jnp.sin(a) * b
"""


def test_the_mask_explorer_makes_way_for_a_flip_and_asks_again(opened):
    pg = opened
    _spied_edit(pg, SLOW)
    # the explorer asks once the page has paused: the reader flips an input while it runs
    pg.wait_for_function("() => window.__calls.some((c) => c.mode === 'masks')", timeout=30_000)
    st = pg.evaluate("() => window.explainer.setKnown('a', false)")
    assert st["error"] is None
    pg.wait_for_function("""() => document.querySelectorAll('[data-testid=mask-cell]').length
        === 4 && !document.querySelector('[data-testid=mask-explorer]').classList
        .contains('is-updating')""", timeout=60_000)
    masks = [c for c in _calls(pg) if c["mode"] == "masks"]
    assert [c["quiet"] for c in masks] == [True] * len(masks)
    assert masks[0]["end"] == "cancelled" and masks[-1]["end"] == "ok", masks
    # the reader's flip was answered while the explorer waited
    flip = [c for c in _calls(pg) if c["mode"] == "split" and c["mask"] == "01"]
    assert flip and flip[0]["end"] == "ok" and not flip[0]["quiet"]
    assert pg.get_attribute("[data-testid=mask-cell][data-mask='01']", "aria-pressed") == "true"


def test_the_input_flipped_last_is_asked_again_at_once_and_a_flip_right_away_waits_for_it(opened):
    """The likeliest next request (the input flipped last, flipped again) is asked as soon as
    an answer is drawn, not after the pause: a reader who flips it as soon as the new split is
    on screen gets the answer of that call, hurried, not a trace of their own."""
    pg = opened
    pg.evaluate(DRAIN)
    code = CODE + "# flipped at once\n"
    _spied_edit(pg, code)
    assert pg.evaluate("() => window.explainer.setKnown('q', false)")["error"] is None
    pg.evaluate(DRAIN)
    pg.evaluate("() => { window.__calls.length = 0; }")
    # an edit; its promise resolves two frames after its answer is drawn, well inside the pause
    assert pg.evaluate("(c) => window.explainer.setSource(c)", code + "# edited\n")["error"] is None
    calls = _calls(pg)
    ahead = [c for c in calls if c["quiet"] and c["mode"] == "split"]
    assert [c["mask"] for c in ahead] == ["111"], calls  # q known again: the flip back
    st = pg.evaluate("() => window.explainer.setKnown('q', true)")
    assert st["error"] is None and st["mask"]["q"] is True
    mine = [c for c in _calls(pg) if not c["quiet"] and c["mode"] == "split"]
    assert [c["mask"] for c in mine] == ["101"], _calls(pg)  # the edit's own call only
    rec = pg.evaluate("() => window.explainer.record()")
    want = as_json(run("split", source=code + "# edited\n",
                       args=[{"known": True, "value": "1.0"}] * 3))
    assert rec["known"]["text"] == want["known"]["text"]
    assert rec["residuals"] == want["residuals"]
