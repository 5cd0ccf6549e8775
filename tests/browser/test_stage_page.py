"""The stage in the page (issue 12): edits land on the final split with what changed marked,
the step's source line in the editor, residual edges at any count, the stage as one tab stop,
Play keeping the active equation in view, the input toggles per mode.

Driven through window.explainer against the built site (`build.py serve`) and the engine
running in the browser.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

SHORT = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x)
    b = a * y
    return jnp.cos(b) + a
"""

# a grad of 100 forward equations and 101 residuals: edges and labels at any count
GRAD100 = """import jax
import jax.numpy as jnp

def f(x, w):
    for _ in range(50):
        x = jnp.sin(x) * w
    return jnp.sum(x)
"""

CAPTION = "() => document.querySelector('[data-testid=narration]').textContent"
COUNTER = "() => document.querySelector('[data-testid=step-counter]').textContent"


def call(page, expr: str, *args):
    """window.explainer.<expr>(*args), resolved: the settled state()."""
    return page.evaluate(f"(args) => window.explainer.{expr}(...args)", list(args))


def shown_edges(page) -> int:
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=residual-edge]')]
        .filter((g) => getComputedStyle(g).display !== 'none').length""")


def test_edit_lands_on_the_final_split_and_marks_what_changed(opened):
    pg = opened
    s = call(pg, "setSource", SHORT)
    assert s["error"] is None and s["step"] == s["stepCount"] > 2
    s = call(pg, "setStep", 1)
    assert s["step"] == 1
    # flipping x: the new split is shown whole, never the old step over new equations
    s = call(pg, "setKnown", "x", False)
    n = s["stepCount"]
    assert s["step"] == n
    # the setter resolved on the drawn state: caption, counter, pane counts and edges agree
    assert pg.evaluate(COUNTER) == f"Step {n} of {n}"
    assert pg.evaluate(CAPTION).startswith(f"Step {n} of {n}")
    counts = pg.evaluate("""() => [...document.querySelectorAll('[data-testid=pane-count]')]
        .map((c) => c.textContent)""")
    assert counts and all(" of " not in c for c in counts), counts
    assert shown_edges(pg) == sum(1 for r in s["residuals"] if r["consumers"])
    # what changed since the last split is marked for a moment, and said
    flipped = pg.query_selector_all("[data-testid=eqn][data-diff=flipped]")
    assert flipped
    summary = pg.text_content("[data-testid=diff-summary]")
    assert "moved to the unknown program" in summary
    assert pg.is_visible("[data-testid=diff-summary]")
    # x unknown and y unknown: the residuals x's side handed over are gone, shown as such
    assert not s["residuals"]
    assert pg.query_selector_all("[data-testid=residual-gone]")
    pg.wait_for_function("() => !document.querySelector('[data-diff]')", timeout=8000)
    assert not pg.is_visible("[data-testid=diff-summary]")
    # Play from the end replays from step 1
    pg.click("[data-testid=play]")
    pg.wait_for_function("() => window.explainer.state().step === 1", timeout=3000)
    pg.click("[data-testid=play]")


def test_an_edit_that_keeps_the_split_keeps_the_stage_as_the_reader_left_it(opened):
    """A comment typed changes the source, not the split: the stage is not drawn again (its
    step, its DOM and its marks stay); an edit that changes the program is drawn; so is the
    same split after an error comes back unmarked."""
    pg = opened
    s = call(pg, "setSource", SHORT)
    assert s["error"] is None and s["step"] > 2
    call(pg, "setStep", 2)
    pg.evaluate("() => { window.__eqn = document.querySelector('#stage [data-testid=eqn]'); }")
    s = call(pg, "setSource", SHORT + "# a comment\n")
    assert s["source"].endswith("# a comment\n") and s["error"] is None
    assert s["step"] == 2
    assert pg.evaluate("() => window.__eqn.isConnected")
    # an error, then the same split again: no longer stale, still where the reader left it
    s = call(pg, "setSource", SHORT.replace("jnp.cos(b)", "jnp.cos(b, b, b)"))
    assert s["error"] is not None and s["stale"]
    s = call(pg, "setSource", SHORT + "# a comment\n")
    assert s["error"] is None and not s["stale"]
    assert pg.get_attribute("#stage", "data-stale") is None
    assert s["step"] == 2
    # a changed program is drawn: its changed equations' rows are new (the rows of equations
    # that did not change may stay: app/stage/reconcile.js)
    pg.evaluate("""() => { window.__eqns = new WeakSet(
        document.querySelectorAll('#stage [data-testid=eqn]')); }""")
    s = call(pg, "setSource", SHORT.replace("jnp.cos(b)", "jnp.tan(b)"))
    assert "tan" in s["unknown"] + s["known"]
    assert pg.evaluate("""() => {
        const tan = [...document.querySelectorAll('#stage [data-testid=eqn]')]
            .filter((el) => el.textContent.includes('tan'));
        return tan.length > 0 && tan.every((el) => !window.__eqns.has(el)); }""")


def test_each_step_marks_its_source_line_in_its_colour(opened):
    pg = opened
    s = call(pg, "setSource", SHORT)
    rec = pg.evaluate("() => window.explainer.record()")
    for i, ev in enumerate(rec["events"]):
        call(pg, "setStep", i + 1)
        marked = pg.evaluate("""() => [...document.querySelectorAll(
            '[data-testid=editor] [data-testid=source-line-active]')].map((el) => ({
                text: el.textContent, cls: el.className}))""")
        assert len(marked) == 1, marked
        assert marked[0]["text"] == SHORT.splitlines()[ev["line"] - 1]
        hue = next(c for c in marked[0]["cls"].split() if c.startswith("cm-hue-"))[len("cm-hue-"):]
        # the line's colour is its equations' colour, in every pane
        eqn_hues = pg.evaluate("""(i) => [...document.querySelectorAll(
            `[data-testid=eqn][data-event="${i}"]`)].map((e) => e.dataset.hue)""", ev["i"])
        assert eqn_hues and set(eqn_hues) == {hue}, (eqn_hues, hue)
        colours = pg.evaluate("""([i, hue]) => {
            const line = document.querySelector('[data-testid=source-line-active]');
            const eqn = document.querySelector(`[data-testid=eqn][data-event="${i}"]`);
            return [getComputedStyle(line).getPropertyValue('--cm-hue').trim(),
                    getComputedStyle(eqn).getPropertyValue('--st-line').trim()]; }""",
                              [ev["i"], hue])
        assert colours[0] and colours[0] == colours[1], colours
    call(pg, "setStep", 0)
    assert not pg.query_selector_all("[data-testid=source-line-active]")
    assert s["stepCount"] == len(rec["events"])


def _boxes(pg):
    return pg.evaluate("""() => [...document.querySelectorAll('[data-testid=residual-label]')]
        .filter((g) => getComputedStyle(g.closest('[data-testid=residual-edge]')).display
                       !== 'none')
        .map((g) => { const r = g.getBoundingClientRect();
                      return [r.left, r.top, r.right, r.bottom]; })""")


def _overlaps(boxes):
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5]


def test_residual_edges_at_any_count(opened):
    pg = opened
    s = call(pg, "setSource", GRAD100)
    s = call(pg, "setMode", "grad")
    for name in ("x", "w"):  # both differentiated (argnums (0, 1))
        s = call(pg, "setKnown", name, False)
    assert s["error"] is None
    n = len(s["residuals"])
    assert n >= 100
    forward = pg.evaluate("() => window.explainer.record().panes[0].program.eqns.length")
    assert forward >= 100
    # one edge and one label per residual, every one counted whatever the scroll
    assert len(pg.query_selector_all("[data-testid=residual-edge]")) == n
    assert len(pg.query_selector_all("[data-testid=residual-label]")) == n
    assert shown_edges(pg) == sum(1 for r in s["residuals"] if r["consumers"])
    boxes = _boxes(pg)
    assert len(boxes) == shown_edges(pg)
    assert not _overlaps(boxes)
    # no two edge ends meet at one point (ends at one equation are spread over its height)
    ends = pg.evaluate("""() => [...document.querySelectorAll('path.st-edge-line')]
        .flatMap((p) => p.getAttribute('d').split('M ').filter(Boolean).slice(1)
        .map((s) => s.trim().split(/[ CL]+/).slice(-2).join(',')))""")
    assert len(ends) == len(set(ends))
    # at 360 px (stacked panes) too
    pg.set_viewport_size({"width": 360, "height": 800})
    pg.evaluate("() => window.explainer.settled()")
    assert not _overlaps(_boxes(pg))
    pg.set_viewport_size({"width": 1440, "height": 900})
    pg.evaluate("() => window.explainer.settled()")

    # next / previous residual: buttons and keys select one, light its edge and say it
    pg.click("[data-testid=residual-next]")
    assert "is-hl" in pg.get_attribute("[data-testid=residual-edge][data-k='0']", "class")
    assert pg.evaluate(CAPTION).startswith(f"Residual r0 of {n}")
    pg.focus("[data-testid=play]")
    pg.keyboard.press("]")
    assert pg.evaluate(CAPTION).startswith(f"Residual r1 of {n}")
    pg.keyboard.press("[")
    pg.keyboard.press("[")
    assert pg.evaluate(CAPTION).startswith(f"Residual r{n - 1} of {n}")
    # next unknown: the step of the next equation staged for later
    call(pg, "setStep", 0)
    pg.click("[data-testid=unknown-next]")
    rec = pg.evaluate("() => window.explainer.record()")
    step = pg.evaluate("() => window.explainer.state().step")
    first_unknown = next(i for i, e in enumerate(rec["events"]) if e["side"] != "known") + 1
    assert step == first_unknown
    pg.keyboard.press("u")
    nxt = next(i for i, e in enumerate(rec["events"]) if e["side"] != "known" and i + 1 > step) + 1
    assert pg.evaluate("() => window.explainer.state().step") == nxt


def test_play_keeps_the_active_equation_in_view(opened):
    pg = opened
    pg.set_viewport_size({"width": 1440, "height": 700})
    call(pg, "loadExample", "grad-mlp")
    call(pg, "setStep", 0)
    pg.select_option("[data-testid=speed]", "2")
    pg.click("[data-testid=play]")
    seen = 0
    for _ in range(60):
        pg.wait_for_timeout(120)
        box = pg.evaluate("""() => {
            const el = [...document.querySelectorAll('[data-testid=eqn].is-current')].at(-1);
            if (!el) return null;
            const r = el.getBoundingClientRect();
            const top = document.querySelector('.st-top').getBoundingClientRect().bottom;
            const sc = document.querySelector('[data-testid=panes]').getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, sticky: top, inner: innerHeight,
                    scTop: sc.top, scBottom: sc.bottom,
                    playing: document.querySelector('[data-testid=play]')
                        .getAttribute('aria-pressed') === 'true'}; }""")
        if box is None or pg.evaluate("() => document.querySelector('.st-eqn.st-landing')"):
            continue
        # the flight lands, then the row is where the reader looks: below the sticky
        # controls, on screen, inside the panes' scroller
        assert box["top"] >= box["sticky"] - 1, box
        assert box["bottom"] <= box["inner"] + 1, box
        assert box["scTop"] - 1 <= box["top"] and box["bottom"] <= box["scBottom"] + 1, box
        seen += 1
        if not box["playing"]:
            break
    assert seen > 5


def test_stage_is_one_tab_stop_and_the_skip_link_moves_focus(opened):
    pg = opened
    call(pg, "loadExample", "grad-mlp")
    stops = pg.evaluate("""() => [...document.querySelectorAll(
        '[data-testid=stage] [data-testid=eqn]')].filter((e) => e.tabIndex === 0).length""")
    assert stops == 1
    assert pg.evaluate("""() => [...document.querySelectorAll('[data-testid=residual-chip]')]
        .filter((e) => e.tabIndex === 0).length""") == 1
    # the skip link moves focus onto the stage's programs
    pg.focus("[data-testid=skip-stage]")
    pg.keyboard.press("Enter")
    assert pg.evaluate("() => document.activeElement.dataset.testid") == "eqn"
    # inside, the arrows move between equations; Tab leaves the programs at once
    first = pg.evaluate("() => document.activeElement.dataset.eqn")
    pg.keyboard.press("ArrowUp")
    pg.keyboard.press("ArrowDown")
    assert pg.evaluate("() => document.activeElement.dataset.testid") == "eqn"
    assert pg.evaluate("() => document.activeElement.dataset.eqn") in (first, str(int(first) + 1))
    pg.keyboard.press("Tab")
    assert pg.evaluate("() => document.activeElement.dataset.testid") != "eqn"
    pg.focus("[data-testid=skip-editor]")
    pg.keyboard.press("Enter")
    assert pg.evaluate("() => document.activeElement.closest('[data-testid=editor]') !== null")


def test_toggles_per_mode(opened):
    pg = opened
    call(pg, "loadExample", "split-sin")
    s = call(pg, "setMode", "jit")
    toggle = "[data-testid=input-toggle-x]"
    assert pg.get_attribute(toggle, "aria-disabled") == "true"
    reason = pg.get_attribute(toggle, "aria-describedby")
    assert reason and "jit" in pg.text_content(f"#{reason}")
    assert pg.is_visible(f"#{reason}")
    mask = s["mask"]
    assert "unavailable under jit" in pg.get_attribute(toggle, "aria-label")
    pg.click(toggle, force=True)  # aria-disabled: focusable, says why, does nothing
    assert pg.evaluate("() => window.explainer.settled()")["mask"] == mask
    for mode in ("grad", "checkpoint", "split"):
        call(pg, "setMode", mode)
        assert pg.get_attribute(toggle, "aria-disabled") is None


def test_grad_toggles_choose_what_is_differentiated(opened):
    pg = opened
    call(pg, "loadExample", "split-sin")
    s = call(pg, "setMode", "grad")
    args = pg.evaluate("() => window.explainer.record().args")
    # unknown = differentiated (JAX's argnums): the record says what was used
    assert [a["known"] for a in args] == [s["mask"][a["name"]] for a in args]
    toggle = "[data-testid=input-toggle-x]"
    assert "differentiat" in pg.get_attribute(toggle, "aria-label")
    before = s["unknown"]
    s = call(pg, "setKnown", "x", not s["mask"]["x"])
    assert s["error"] is None and s["unknown"] != before
    # none marked unknown: argument 0 is differentiated, jax.grad's default argnums=0
    for name in s["mask"]:
        s = call(pg, "setKnown", name, True)
    assert s["error"] is None and s["mask"] == {"x": False, "y": True}
    args = pg.evaluate("() => window.explainer.record().args")
    assert [a["known"] for a in args] == [False, True]
    # and its toggle cannot hold it fixed: it says why, and a press changes nothing
    assert pg.get_attribute(toggle, "aria-disabled") == "true"
    reason = pg.get_attribute(toggle, "aria-describedby")
    assert "at least one input is" in pg.text_content(f"#{reason}")
    pg.click(toggle, force=True)
    assert pg.evaluate("() => window.explainer.settled()")["mask"] == {"x": False, "y": True}
    pg.click("[data-testid=input-toggle-y]")
    s = pg.evaluate("() => window.explainer.settled()")
    assert s["error"] is None and s["mask"] == {"x": False, "y": False}
    assert pg.get_attribute(toggle, "aria-disabled") is None


def test_a_function_pasted_in_grad_mode_differentiates_its_first_input(opened):
    """jax.grad's argnums=0: a pasted function with no input marked unknown is no error."""
    pg = opened
    call(pg, "setMode", "grad")
    s = call(pg, "setSource",
             "import jax.numpy as jnp\n\ndef g(a, b):\n    return jnp.sin(a) * b\n")
    assert s["error"] is None, s["error"]
    assert s["mask"] == {"a": False, "b": True}
    args = pg.evaluate("() => window.explainer.record().args")
    assert [a["known"] for a in args] == [False, True]
    assert s["unknown"] and "cos" in s["known"]
    assert pg.text_content("[data-testid=input-toggle-a]").strip().endswith("unknown")
