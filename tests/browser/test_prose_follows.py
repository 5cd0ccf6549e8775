"""The page's prose about the stage follows the reader: the opening lines name the function on
the stage, its mask and its mode (not the default example's), and say where Play is; the known
and unknown programs are on screen beside the editor when the page opens; Play says Pause while
it plays."""
from __future__ import annotations

import pytest

from tests.browser.test_page import call

pytestmark = pytest.mark.browser

INTRO = "[data-testid=intro-stage]"
EDITED = "import jax.numpy as jnp\n\ndef g(a, b, c):\n    return jnp.cos(a) + b * c\n"


def _intro(page) -> str:
    return " ".join(page.text_content(INTRO).split())


def test_opening_lines_describe_the_function_on_the_stage(opened):
    pg = opened
    text = _intro(pg)
    assert "f(x, y)" in text and "x known and y unknown" in text
    assert "above the programs" in text and "under the programs" not in pg.text_content(".x-intro")

    call(pg, "loadExample", "grad-mlp")
    text = _intro(pg)
    rec = pg.evaluate("() => window.explainer.record()")
    sig = f"{rec['fn']}({', '.join(a['name'] for a in rec['args'])})"
    assert sig in text and "jax.grad" in text and "differentiates W1 and W2" in text
    assert "sin" not in text
    # each mode's prose names its own transform (app/modes.js's jax), never another's
    call(pg, "setMode", "linearize")
    text = _intro(pg)
    assert "under jax.linearize: it differentiates W1 and W2" in text and "jax.grad" not in text
    call(pg, "setMode", "checkpoint")
    text = _intro(pg)
    assert "under jax.grad of jax.checkpoint: it differentiates W1 and W2" in text

    call(pg, "setMode", "split")
    call(pg, "setSource", EDITED)
    s = call(pg, "setKnown", "a", False)
    assert s["error"] is None and s["mask"] == {"a": False, "b": True, "c": True}
    text = _intro(pg)
    assert "g(a, b, c)" in text and "b and c known and a unknown" in text
    assert "(mul)" in text and "(cos and add)" in text and "waits for a" not in text

    s = call(pg, "setKnown", "a", True)
    text = _intro(pg)
    assert "every input known" in text and "unknown program has nothing to do" in text

    call(pg, "setMode", "jit")
    text = _intro(pg)
    assert "jax.jit" in text and "every input is unknown" in text and "above the program " in text


def _box(page, sel: str) -> dict:
    return page.eval_on_selector(sel, "el => el.getBoundingClientRect().toJSON()")


def _inside(box: dict, w: int, h: int) -> bool:
    slack = 1  # a box scrolled to the viewport's edge ends a fraction of a pixel past it
    return (box["top"] >= -slack and box["left"] >= -slack and box["bottom"] <= h + slack
            and box["right"] <= w + slack)


def test_panes_are_on_screen_beside_the_editor_at_1440(opened):
    pg = opened
    pg.evaluate("() => window.scrollTo(0, 0)")
    for sel in ("[data-testid=known-jaxpr]", "[data-testid=unknown-jaxpr]", "[data-testid=editor]",
                "[data-testid=play]", "[data-testid=inputs]"):
        box = _box(pg, sel)
        assert box["height"] > 0 and _inside(box, 1440, 900), (sel, box)


def test_panes_reachable_and_unoverlapped_at_390(opened):
    pg = opened
    pg.set_viewport_size({"width": 390, "height": 844})
    pg.evaluate("() => window.explainer.settled()")
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    sels = ("[data-testid=editor]", "[data-testid=play]", "[data-testid=known-jaxpr]",
            "[data-testid=unknown-jaxpr]")
    boxes = {sel: _box(pg, sel) for sel in sels}
    for sel, b in boxes.items():
        assert b["height"] > 0 and b["left"] >= 0 and b["right"] <= 390, (sel, b)
    order = list(boxes.values())
    for upper, lower in zip(order, order[1:]):
        assert upper["bottom"] <= lower["top"] + 0.5, (upper, lower)
    pg.eval_on_selector("[data-testid=unknown-jaxpr]", "el => el.scrollIntoView({block: 'end'})")
    assert _inside(_box(pg, "[data-testid=unknown-jaxpr]"), 390, 844)


def test_play_says_pause_while_playing(opened):
    pg = opened
    call(pg, "loadExample", "grad-mlp")
    call(pg, "setStep", 0)
    play = "[data-testid=play]"
    assert pg.text_content(play).strip() == "Play"
    assert pg.get_attribute(play, "aria-pressed") == "false"
    pg.click(play)
    pg.wait_for_function("() => document.querySelector('[data-testid=play]')"
                         ".getAttribute('aria-pressed') === 'true'")
    assert pg.text_content(play).strip() == "Pause"
    pg.click(play)
    assert pg.text_content(play).strip() == "Play"
    assert pg.get_attribute(play, "aria-pressed") == "false"
