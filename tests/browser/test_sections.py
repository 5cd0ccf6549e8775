"""The explainer's sections (index.html, app/sections/): each section's anchor opens it, and
its demo shows what the engine computes for the reader's function (or the demo's own one).

Screenshots of every section go to $PAGE_SHOTS/sections/ (default /tmp/shots/sections/):
light and dark, 360 and 1440 px wide.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pe_engine import explain
from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("PAGE_SHOTS", "/tmp/shots")) / "sections"
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())
SECTIONS = ["rule", "residuals", "checkpoint", "constant-folding", "variables", "interpreters",
            "built-on"]
DEMO = {"rule": "rule", "residuals": "residuals", "checkpoint": "checkpoint",
        "constant-folding": "folding", "variables": "variables", "interpreters": "interpreters",
        "built-on": "built-on"}


def wait(page, js: str, timeout: int = 30_000):
    page.wait_for_function(f"() => {js}", timeout=timeout)


def text(page, sel: str) -> str:
    return page.text_content(sel) or ""


def open_at(page, site, anchor: str, wait_engine_ready=None):
    page.goto(f"{site}#{anchor}")
    page.wait_for_function("() => window.explainerSections !== undefined", timeout=30_000)
    if wait_engine_ready:
        wait_engine_ready(page)
        page.evaluate("() => window.explainer.settled()")


def count(page, sel: str) -> int:
    return page.eval_on_selector_all(sel, "els => els.length")


def has_text(sel: str, needle: str) -> str:
    """JS: the element's text includes needle."""
    return f"document.querySelector('{sel}')?.textContent.includes('{needle}')"


def set_range(page, sel: str, value: int) -> None:
    page.eval_on_selector(
        sel, f"el => {{ el.value = '{value}'; el.dispatchEvent(new Event('input')); }}")


def in_view(page, sel: str) -> bool:
    return page.evaluate(
        "(s) => { const r = document.querySelector(s).getBoundingClientRect();"
        " return r.top < innerHeight && r.bottom > 0; }", sel)


def cpython(mode: str, **kw) -> dict:
    return explain.as_json(explain.run(mode, **kw))


def test_static_page_has_faq_sections_and_loading_states():
    html = (ROOT / "index.html").read_text()
    for anchor in SECTIONS:
        assert f'id="{anchor}"' in html
    for demo in DEMO.values():
        if demo != "built-on":
            start = html.index(f'data-demo="{demo}"')
            assert "demo-loading" in html[start:start + 200], demo
    for link in ["#rule", "#residuals", "#constant-folding", "#variables", "#interpreters"]:
        assert f'href="{link}"' in html
    for url in ["https://docs.jax.dev/en/latest/autodidax.html",
                "https://docs.jax.dev/en/latest/jaxpr.html",
                "https://docs.jax.dev/en/latest/gradient-checkpointing.html"]:
        assert f'href="{url}"' in html
    assert "Questions the file settles" not in html


def test_before_the_engine_demos_show_precomputed_frames_or_wait(browser, site):
    """With Pyodide held back, the opening state's demos draw from precomputed.json, and a demo
    asked for something new says it is waiting for the engine."""
    ctx = new_context(browser)
    ctx.route("**/pyodide.asm.wasm", lambda route: None)  # never answered: the engine stays loading
    page = ctx.new_page()
    try:
        page.goto(f"{site}#rule")
        wait(page, "document.querySelectorAll('[data-testid=rule-list] li').length === 2")
        assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
        checks = {
            "#residuals": "document.querySelector('[data-testid=residual-bytes]') !== null",
            "#checkpoint": "document.querySelectorAll('[data-testid=policy-cards] > li')"
                           ".length === 7",
            "#constant-folding": "document.querySelector('[data-testid=folding-program]')"
                                 "?.textContent.includes('sin 1.0:f32[]')",
            "#variables": "document.querySelector('[data-testid=variables-pe]') !== null",
            "#interpreters": "document.querySelector('[data-testid=interp-frame]') !== null",
        }
        for sel, check in checks.items():
            page.evaluate("(s) => document.querySelector(s).scrollIntoView()", sel)
            wait(page, check)
        # the switch's other position is precomputed too
        page.click("[data-testid=folding-switch]")
        wait(page, "!" + has_text("[data-testid=folding-program]", "sin"))
        # something not precomputed: the demo waits, and says so
        page.fill("[data-testid=fold-value-x]", "3.0")
        wait(page, "document.querySelector('[data-demo=folding] [data-testid=demo-waiting]')"
             " || document.querySelector('[data-demo=folding]').classList.contains('is-updating')")
        assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
    finally:
        ctx.close()


@pytest.mark.parametrize("anchor", SECTIONS)
def test_anchor_opens_its_section(page, site, anchor):
    open_at(page, site, anchor)
    wait(page, f"location.hash === '#{anchor}'")
    page.wait_for_timeout(600)
    assert in_view(page, f"#{anchor} h3"), anchor
    # a section anchor is not a permalink: no "could not be opened" notice
    assert page.is_hidden("[data-testid=notice]")


def test_faq_link_scrolls_without_a_permalink_warning(page, site, wait_engine_ready):
    open_at(page, site, "", wait_engine_ready)
    page.click("[data-testid=faq] a[href='#variables']")
    wait(page, "location.hash === '#variables'")
    page.wait_for_timeout(300)
    assert in_view(page, "#variables h3")
    assert page.is_hidden("[data-testid=notice]")
    assert page.evaluate("() => window.explainer.state().source").startswith("import jax")


def test_a_section_link_stays_on_its_section_while_the_demos_above_grow(browser, site):
    """On a phone, a link to a section lands on it and stays there: the demo of the section
    above starts once near the viewport and grows by hundreds of pixels (474 at 360 px wide,
    which once left #checkpoint that far down the screen). Opened with the anchor, and
    clicked from the FAQ."""
    ctx = new_context(browser, viewport={"width": 360, "height": 780})
    page = ctx.new_page()
    top = "(a) => Math.round(document.getElementById(a).getBoundingClientRect().top)"
    try:
        open_at(page, site, "checkpoint")
        wait(page, "document.querySelector('[data-demo=residuals] .demo-loading') === null")
        page.wait_for_timeout(800)
        assert abs(page.evaluate(top, "checkpoint")) <= 16
        page.evaluate("() => window.scrollTo(0, 0)")
        page.click("[data-testid=faq] a[href='#variables']")
        wait(page, "location.hash === '#variables'")
        wait(page, "document.querySelector('[data-demo=folding] .demo-loading') === null")
        page.wait_for_timeout(800)
        assert abs(page.evaluate(top, "variables")) <= 16
    finally:
        ctx.close()


def test_rule_demo_judges_each_equation_and_follows_the_editor(page, site, wait_engine_ready):
    open_at(page, site, "rule", wait_engine_ready)
    wait(page, "document.querySelectorAll('[data-testid=rule-list] li').length === 2")
    rows = page.query_selector_all("[data-testid=rule-list] li")
    assert rows[0].get_attribute("data-side") == "known"
    assert "bind now" in rows[0].text_content().lower() and "0.8415" in rows[0].text_content()
    assert rows[1].get_attribute("data-side") == "unknown"
    assert "stage" in rows[1].text_content().lower()
    # step from the start: the current equation is lit, the rest wait
    page.click("#rule button:has-text('Start')")
    assert text(page, "[data-testid=rule-step]").startswith("0 of 2")
    page.click("#rule button:has-text('Next')")
    assert page.get_attribute("[data-testid=rule-list] li:nth-child(1)", "aria-current") == "step"
    assert page.get_attribute("[data-testid=rule-list] li:nth-child(2)", "data-side") == "pending"
    assert "runs now" in text(page, "[data-testid=rule-narration]")
    # the reader's function changes: the demo follows
    page.evaluate("() => window.explainer.setKnown('y', true)")
    wait(page, "[...document.querySelectorAll('[data-testid=rule-list] li')]"
         ".every(li => li.dataset.side === 'known')")
    page.evaluate("() => window.explainer.setSource('import jax.numpy as jnp\\n\\ndef f(x, y):\\n"
                  "    return jnp.cos(x) + jnp.sin(y) * x\\n')")
    page.evaluate("() => window.explainer.setKnown('y', false)")
    wait(page, "document.querySelectorAll('[data-testid=rule-list] li').length === 4")
    sides = page.eval_on_selector_all("[data-testid=rule-list] li",
                                      "els => els.map(e => e.dataset.side)")
    assert sides == ["known", "unknown", "unknown", "unknown"]


def test_residual_bytes_change_with_the_shapes(page, site, wait_engine_ready):
    open_at(page, site, "residuals", wait_engine_ready)
    ex = next(e for e in EXAMPLES["examples"] if e["id"] == "grad-mlp")
    page.evaluate("() => window.explainer.loadExample('grad-mlp')")
    page.evaluate("() => document.getElementById('residuals').scrollIntoView()")
    args = [{"known": ex["known"][p], "value": ex["values"][p]} for p in ("W1", "W2", "x")]
    want = cpython("grad", source=ex["code"], args=args)
    wait(page, "document.querySelector('[data-testid=residual-bytes]')?.dataset.bytes"
         f" === '{want['residual_bytes']}'")
    assert count(page, "[data-testid=residual-list] li") == len(want["residuals"])
    assert "W1:f32[4,3]" in text(page, "[data-testid=residual-shapes]")
    # known inputs read by the linear side are residuals too, marked as inputs
    inputs = count(page, "[data-testid=residual-list] li.is-input")
    assert inputs == sum(1 for r in want["residuals"] if r["from_input"])
    assert text(page, "[data-testid=residual-forward]") == want["known"]["text"]
    assert text(page, "[data-testid=residual-linear]") == want["unknown"]["text"]
    # the slider: every dimension x4, the memory grows
    set_range(page, "[data-testid=residual-scale]", 2)
    wait(page, has_text("[data-testid=residual-shapes]", "W1:f32[16,12]"))
    big = int(page.get_attribute("[data-testid=residual-bytes]", "data-bytes"))
    # every residual grows at least x4; the matrix-shaped ones x16
    assert big > 4 * want["residual_bytes"]
    assert text(page, "[data-testid=residual-scale-out]") == "×4"


def test_residuals_scale_scalars_into_vectors(page, site, wait_engine_ready):
    open_at(page, site, "residuals", wait_engine_ready)
    # sin(x) * y with x known: grad differentiates y (argnums), whose residual is sin x
    wait(page, "document.querySelector('[data-testid=residual-bytes]')?.dataset.bytes === '4'")
    set_range(page, "[data-testid=residual-scale]", 3)
    wait(page, "document.querySelector('[data-testid=residual-bytes]').dataset.bytes === '32'")


def test_checkpoint_policies_side_by_side(page, site, wait_engine_ready):
    open_at(page, site, "checkpoint", wait_engine_ready)
    wait(page, "document.querySelectorAll('[data-testid=policy-cards] > li').length === 7")

    def card(name):
        sel = f"[data-testid=policy-card-{name}]"
        return {k: int(page.get_attribute(sel, f"data-{k}"))
                for k in ("bytes", "recomputed", "count")}
    nothing, everything = card("nothing_saveable"), card("everything_saveable")
    dots = card("dots_saveable")
    assert nothing["bytes"] < dots["bytes"] < everything["bytes"]
    assert nothing["recomputed"] > dots["recomputed"] > everything["recomputed"] == 0
    assert "'h'" in text(page, "[data-testid=policy-card-save_only_these_names]")
    # the demo's own function: a wider batch moves every byte count
    page.fill("[data-testid=ckpt-value-x]", "full((16, 128), 0.5)")
    wait(page, "+document.querySelector('[data-testid=policy-card-everything_saveable]')"
         f".dataset.bytes > {everything['bytes']}")
    # the linear program under a policy, recomputations included
    page.click("#checkpoint .ckpt-linear-box summary")
    page.select_option("[data-testid=ckpt-linear-policy]", "nothing_saveable")
    assert "tanh" in text(page, "[data-testid=ckpt-linear]")


def test_folding_demo_sin_literal_and_switch(page, site, wait_engine_ready):
    open_at(page, site, "constant-folding", wait_engine_ready)
    wait(page, has_text("[data-testid=folding-program]", "sin 1.0:f32[]"))
    assert text(page, "[data-testid=folding-program]") == \
        "{ lambda ; a:f32[]. let b:f32[] = sin 1.0:f32[]; c:f32[] = add a b in (c,) }"
    rules = page.eval_on_selector_all("[data-testid=engine-fold-rules] li",
                                      "els => els.map(e => e.textContent)")
    assert sorted(rules) == ["convert_element_type", "device_put", "stage"]
    assert "not in the table" in text(page, "[data-testid=folding-verdict]")
    # partial evaluation computes sin(1.0) now and carries it as a constvar
    assert "a = 0.8415" in text(page, "[data-testid=folding-pe-consts]")
    page.click("[data-testid=folding-switch]")
    assert page.get_attribute("[data-testid=folding-switch]", "aria-checked") == "true"
    wait(page, "!" + has_text("[data-testid=folding-program]", "sin"))
    assert text(page, "[data-testid=folding-program]") == \
        "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"
    assert "a = 0.8415" in text(page, "[data-testid=folding-consts]")
    # the demo's own function is editable
    page.fill("[data-testid=fold-code]",
              "import jax.numpy as jnp\n\ndef f(x):\n    return x * jnp.cos(0.0)\n")
    page.click("[data-testid=folding-switch]")
    wait(page, has_text("[data-testid=folding-program]", "cos 0.0:f32[]"))


def test_variables_demo_lists_every_var_with_its_origin(page, site, wait_engine_ready):
    open_at(page, site, "variables", wait_engine_ready)
    wait(page, "document.querySelector('[data-testid=variables-pe]') !== null")
    rows = page.eval_on_selector_all(
        "[data-testid=variables-pe] tbody tr",
        "els => els.map(r => [...r.children].map(c => c.textContent))")
    by_name = {r[0]: r for r in rows}
    assert by_name["a"][3] == "ConstVar" and "0.8415" in by_name["a"][4]
    assert by_name["b"][3] == "LambdaBinding"
    assert all(r[1].startswith("Var(id=") for r in rows)
    # an unused line, a literal and a carried array
    src = ("import jax.numpy as jnp\n\ndef f(x, y):\n    unused = jnp.cos(y)\n"
           "    return jnp.sin(x) * y * 2.0 + jnp.ones(3)\n")
    page.evaluate("(s) => window.explainer.setSource(s)", src)
    wait(page, "document.querySelector('[data-testid=variables-pe] tr[data-origin=Literal]')")
    lit = text(page, "[data-testid=variables-pe] tr[data-origin=Literal]")
    assert "none" in lit and "Literal(2.0)" in lit
    assert count(page, "[data-testid=variables-pe] tr[data-origin=ConstVar]") == 2
    wait(page, "document.querySelector('[data-testid=variables-jit] tr[data-origin=DropVar]')")
    # a row lights its variable in the program
    page.focus("[data-testid=variables-pe] tbody tr")
    assert count(page, "[data-testid=variables-pe-program] .x-var.is-lit") >= 2


def test_interpreters_side_by_side_and_auto_dce(page, site, wait_engine_ready):
    open_at(page, site, "interpreters", wait_engine_ready)
    wait(page, "document.querySelector('[data-testid=interp-frame]') !== null")
    assert "c = sin a" in text(page, "[data-testid=interp-executed]")
    assert "ConstVar" in text(page, "[data-testid=interp-recipes]")
    assert text(page, "[data-testid=interp-pe-program]") == \
        "{ lambda a:f32[]; b:f32[]. let c:f32[] = mul a b in (c,) }"
    assert "nothing is collected" in text(page, "[data-testid=interp-collected]")
    page.click("[data-testid=interp-add-unused]")
    wait(page, "document.querySelector('[data-testid=interp-frame] [data-collected=true]')")
    assert "cos" in text(page, "[data-testid=interp-frame] [data-collected=true]")
    assert "_:f32[] = cos" in text(page, "[data-testid=interp-jit-program]")
    assert "cos" not in text(page, "[data-testid=interp-dce-program]")
    assert "cos" not in text(page, "[data-testid=interp-pe-program]")


@pytest.mark.parametrize("button,example", [
    ("built-on-grad", "grad-mlp"), ("built-on-scan", "grad-scan"),
    ("built-on-checkpoint", "checkpoint-dots"), ("built-on-jit", "grad-jit-inside")])
def test_built_on_buttons_load_examples(page, site, wait_engine_ready, button, example):
    open_at(page, site, "built-on", wait_engine_ready)
    page.click(f"[data-testid={button}]")
    wait(page, "document.querySelector('[data-testid=built-on-status]')"
         ".textContent.startsWith('Loaded')")
    ex = next(e for e in EXAMPLES["examples"] if e["id"] == example)
    s = page.evaluate("() => window.explainer.settled()")
    assert s["source"] == ex["code"] and s["mode"] == ex["mode"] and s["error"] is None
    page.wait_for_timeout(800)
    assert in_view(page, "#editor-panel")


def test_sections_screenshots(browser, site):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (360, 1440):
        for theme in ("light", "dark"):
            ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=theme)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(site)
            page.wait_for_function(
                "() => ['ready', 'error'].includes("
                "document.querySelector('[data-testid=engine]').dataset.state)",
                timeout=120_000)
            for anchor in SECTIONS:
                page.evaluate("(a) => document.getElementById(a).scrollIntoView()", anchor)
                page.wait_for_timeout(300)
            for anchor in SECTIONS:
                sel = f"[data-demo={DEMO[anchor]}]"
                if anchor != "built-on":
                    wait(page, f"!document.querySelector('{sel} .demo-loading')", timeout=60_000)
                shot = SHOTS / f"{anchor}-{width}-{theme}.png"
                page.locator(f"#{anchor}").screenshot(path=str(shot))
                # nothing spills sideways at any width
                over = page.evaluate("(s) => { const el = document.querySelector(s);"
                                     " return el.scrollWidth - el.clientWidth; }", f"#{anchor}")
                assert over <= 1, (anchor, width, over)
            assert page.evaluate(
                "() => document.documentElement.scrollWidth <= innerWidth + 1"), width
            assert not errors, errors
            ctx.close()
