"""Predict mode on the stage and the guided tour (issue 44, "Beyond: predict, then reveal").

Predict: the stage stops before each equation lands, the reader answers known / unknown / both
(keys K U B) and, at a mixed equation, which operands become residuals (keys 1-9, Enter); the
equation then lands with the rule's reason and a score closes it. The tour walks the seed's five
questions, each step outlining a live element that is on screen.
"""
from __future__ import annotations

import json

import pytest

from sitebuild.frontend import ensure_node_modules
from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

REVEAL = "() => document.querySelector('[data-testid=predict-reveal]').textContent"
SCORE = "() => document.querySelector('[data-testid=predict-score]').textContent"
STEP = "() => window.explainer.state().step"

EDITED = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x)
    b = a * y
    c = jnp.cos(a)
    return b + c
"""


def call(page, expr: str, *args):
    return page.evaluate(f"(args) => window.explainer.{expr}(...args)", list(args))


def predict_on(pg) -> None:
    pg.click("[data-testid=predict-toggle]")
    pg.wait_for_function("() => window.explainer.state().step === 0")
    assert pg.get_attribute("[data-testid=predict-toggle]", "aria-pressed") == "true"


def ask(pg) -> str:
    return pg.inner_text("[data-testid=predict-ask]")


def test_predicting_the_default_example_with_the_keyboard(opened):
    pg = opened
    call(pg, "loadExample", "split-sin")
    predict_on(pg)
    # the question before the first equation lands: sin, the first of two
    assert ask(pg).startswith("Equation 1 of 2") and "c = sin a" in ask(pg)
    # the stage's own keys cannot skip the question: the step stays at 0
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("End")
    assert pg.evaluate(STEP) == 0
    pg.keyboard.press("u")  # wrong: sin of a known x runs now
    pg.wait_for_function("() => window.explainer.state().step === 1")
    # the engine's reason, in the names of the pane the equation lands in (the known one's b)
    assert pg.evaluate(REVEAL).startswith("Not this time: it is known. b = sin a runs now")
    assert pg.evaluate(SCORE) == "Score 0 of 1"
    # the reveal is a polite live region
    assert pg.get_attribute("[data-testid=predict-reveal]", "aria-live") == "polite"
    assert "d = mul c b" in ask(pg)
    pg.keyboard.press("u")  # right; mixed: the residual question comes, the step waits for it
    assert pg.evaluate(SCORE) == "Score 1 of 2"  # the side counts at once
    assert pg.evaluate(REVEAL) == ("Right: it is unknown. "
                                   "Now: which of its operands become residuals?")
    assert pg.evaluate(STEP) == 1
    # one set of names: the residual question is asked in the unknown pane's names, the
    # record's staged operands (a: the residual sin x crosses as; b: the argument y)
    assert "the unknown program runs it as c = mul a b" in ask(pg)
    rec = call(pg, "record")
    operands = pg.eval_on_selector_all("[data-testid=predict-operand]",
                                       "els => els.map((e) => e.value)")
    assert operands == [o["name"] for o in rec["events"][1]["staged_operands"]] == ["a", "b"]
    labels = pg.eval_on_selector_all("[data-testid=predict-operand]",
                                     "els => els.map((e) => e.closest('label').textContent)")
    assert labels == ["1afrom line 5", "2bargument y"]
    pg.keyboard.press("1")  # a: the residual
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => window.explainer.state().step === 2")
    reveal = pg.evaluate(REVEAL)
    # the verdict names the operand asked about as the reveal's reason (the engine's) does
    assert reveal.startswith("Right: it is unknown. Right: a becomes a residual. "
                             "c = mul a b is staged in the unknown program")
    assert "becomes residual r0, a here" in reveal
    final = "You predicted 2 of 3: known or unknown 1 of 2; residuals 1 of 1."
    assert pg.inner_text("[data-testid=predict-final]") == final
    assert pg.get_attribute("[data-testid=predict-final]", "role") == "status"
    # the narration's line is the reveal's: only one of them is shown (and spoken)
    assert pg.is_hidden("[data-testid=narration]")
    # focus is on "Try again": Enter starts over at step 0 with a clean score
    assert pg.evaluate("() => document.activeElement.dataset.testid") == "predict-retry"
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => window.explainer.state().step === 0")
    assert pg.evaluate(SCORE) == "Score 0 of 0"
    pg.keyboard.press("k")
    pg.keyboard.press("u")
    pg.keyboard.press("1")
    pg.keyboard.press("Enter")
    pg.wait_for_function("() => document.querySelector('[data-testid=predict-final]')"
                         ".textContent.includes('3 of 3')")
    # leaving predict: the stage's keys move it again
    pg.click("[data-testid=predict-leave]")
    pg.keyboard.press("Home")
    assert pg.evaluate(STEP) == 0
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate(STEP) == 1


def test_predict_in_grad_mode_and_after_editing_the_function(opened):
    pg = opened
    call(pg, "loadExample", "split-sin")
    call(pg, "setMode", "grad")
    predict_on(pg)
    n = call(pg, "state")["stepCount"]
    assert ask(pg).startswith(f"Equation 1 of {n}")
    # play stops at the question, and the button says so
    pg.click("[data-testid=play]")
    pg.wait_for_timeout(700)
    assert pg.evaluate(STEP) == 0
    assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "false"
    # answer every question by mouse, always "known", never ticking a residual
    for _ in range(3 * n):
        if pg.is_visible("[data-testid=predict-final]"):
            break
        if pg.is_visible("[data-testid=predict-check]"):
            pg.click("[data-testid=predict-check]")
        else:
            pg.click("[data-testid=predict-known]")
    pg.wait_for_function(f"() => window.explainer.state().step === {n}")
    final = pg.inner_text("[data-testid=predict-final]")
    rec = call(pg, "record")
    known = sum(e["side"] in ("known", "known-dropped") for e in rec["events"])
    # a staged equation whose staged operands include a residual is asked which
    mixed = sum(e["side"] in ("unknown", "unknown-dropped", "staged")
                and any(o["residual"] is not None for o in e.get("staged_operands", []))
                for e in rec["events"])
    assert known and mixed  # grad of sin(x) * y: the forward runs, the tangent is staged
    assert final == (f"You predicted {known} of {n + mixed}: known or unknown {known} of {n}; "
                     f"residuals 0 of {mixed}.")
    # an edited function starts over on its own split, still in predict mode
    call(pg, "setSource", EDITED)
    pg.wait_for_function("() => window.explainer.state().step === 0")
    n2 = call(pg, "state")["stepCount"]
    assert n2 != n and ask(pg).startswith(f"Equation 1 of {n2}")
    assert pg.evaluate(SCORE) == "Score 0 of 0"
    first = call(pg, "record")["events"][0]
    pg.keyboard.press("k")
    pg.wait_for_function("() => window.explainer.state().step === 1")
    said = "Right: it is known." if first["side"] == "known" else "Not this time"
    assert pg.evaluate(REVEAL).startswith(said)
    # jit: every equation is unknown (staged), with jit's reason
    call(pg, "setMode", "jit")
    pg.wait_for_function("() => window.explainer.state().step === 0")
    pg.keyboard.press("u")
    pg.wait_for_function("() => window.explainer.state().step === 1")
    assert "DynamicJaxprTrace evaluates nothing" in pg.evaluate(REVEAL)
    assert pg.evaluate(REVEAL).startswith("Right: it is unknown.")
    # checkpoint: its first equation, answered as the engine judged it, scores
    call(pg, "setMode", "checkpoint")
    pg.wait_for_function("() => window.explainer.state().step === 0")
    side = call(pg, "record")["events"][0]["side"]
    pg.keyboard.press({"known": "k", "both": "b"}.get(side.split("-")[0], "u"))
    pg.wait_for_function("() => document.querySelector('[data-testid=predict-score]')"
                         ".textContent === 'Score 1 of 1'")


def test_the_tour_visits_five_questions_each_on_screen(opened):
    pg = opened
    call(pg, "loadExample", "grad-mlp")
    pg.click("[data-testid=tour-start]")
    seen = []
    for i in range(5):
        pg.wait_for_function("(n) => document.querySelector('[data-testid=tour]')"
                             ".dataset.step === String(n)", arg=i + 1)
        # the target is outlined and, once the scroll settles, inside the viewport
        pg.wait_for_function("""() => {
            const t = document.querySelector('.tour-target');
            if (!t) return false;
            const r = t.getBoundingClientRect();
            return r.bottom > 0 && r.top < innerHeight * 0.6 && r.height > 0;
        }""", timeout=10_000)
        seen.append(pg.evaluate("""() => [
            document.querySelector('[data-testid=tour-count]').textContent,
            document.querySelector('#tour-heading').textContent,
            document.querySelector('.tour-target').dataset.tourStep,
            document.querySelector('[data-testid=tour-text]').textContent]"""))
        pg.keyboard.press("Enter")  # focus stays on Next
    counts, questions, ids, texts = zip(*seen)
    assert counts == tuple(f"Question {i} of 5" for i in range(1, 6))
    assert questions == ("What is partial evaluation in JAX?",
                         "What is a residual in JAX autodiff?",
                         "Why does JAX not constant-fold inside jit?",
                         "Where does a jaxpr get its variables?",
                         "What is the difference between JaxprTrace and DynamicJaxprTrace?")
    assert ids == ("rule", "residuals", "constant-folding", "variables", "interpreters")
    # said on the reader's function: grad-mlp's counts and residuals
    rec = call(pg, "record")
    n, res = len(rec["events"]), len(rec["residuals"])
    assert f"Under grad, your function with its tangents traced {n} equations" in texts[0]
    assert f"Your split has {res} residuals" in texts[1]
    # Finish closed it; focus back on the button, nothing outlined
    assert pg.is_hidden("[data-testid=tour]")
    assert pg.evaluate("() => document.activeElement.dataset.testid") == "tour-start"
    assert pg.evaluate("() => document.querySelector('.tour-target')") is None
    # Back and Escape
    pg.keyboard.press("Enter")
    pg.click("[data-testid=tour-next]")
    pg.click("[data-testid=tour-back]")
    assert pg.get_attribute("[data-testid=tour]", "data-step") == "1"
    pg.keyboard.press("Escape")
    assert pg.is_hidden("[data-testid=tour]")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_predict_and_tour_have_no_serious_axe_violations(browser, site, scheme):
    axe_path = ensure_node_modules() / "node_modules" / "axe-core" / "axe.min.js"
    axe = axe_path.read_text(encoding="utf-8")
    ctx = new_context(browser, viewport={"width": 390, "height": 844}, color_scheme=scheme)
    pg = ctx.new_page()
    try:
        pg.goto(site)
        pg.wait_for_function("() => typeof window.explainer?.state === 'function'", timeout=30_000)
        pg.evaluate("() => window.explainer.settled()")
        predict_on(pg)
        pg.keyboard.press("k")
        pg.keyboard.press("u")  # the residual question is on screen
        pg.click("[data-testid=tour-start]")
        # once the equation has landed: its flying copy (aria-hidden, fading) is gone
        pg.wait_for_function("() => !document.querySelector('.st-fly > *')")
        pg.evaluate(axe)
        bad = pg.evaluate("""async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => v.id + ': ' +
                     v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | '));
        }""")
        assert not bad, json.dumps(bad, indent=1)
    finally:
        ctx.close()
