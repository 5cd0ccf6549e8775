"""axe-core on the page in every mode, light and dark: no serious or critical violation.

axe-core is pinned in package.json and comes from the build's npm folder
(sitebuild.frontend.ensure_node_modules), so the test needs no network. It is injected into
the page's main world by Playwright (the site's CSP allows no inline script, and the page must
not ship a test tool).
"""
from __future__ import annotations

import json

import pytest

from sitebuild.frontend import ensure_node_modules
from tests.browser.contexts import new_context

pytestmark = pytest.mark.browser

GRAD_SCAN_EXAMPLE = "grad-scan"


@pytest.fixture(scope="module")
def axe_source() -> str:
    path = ensure_node_modules() / "node_modules" / "axe-core" / "axe.min.js"
    pinned = json.loads((path.parent / "package.json").read_text())["version"]
    from sitebuild.common import ROOT
    want = json.loads((ROOT / "package.json").read_text())["devDependencies"]["axe-core"]
    assert pinned == want
    return path.read_text(encoding="utf-8")


def serious(pg, axe_source) -> list[str]:
    if not pg.evaluate("() => typeof window.axe === 'object'"):
        pg.evaluate(axe_source)
    result = pg.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id} (${v.impact}): ${v.help}: ` +
                 v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' ' +
                     (n.failureSummary || '').replace(/\\s+/g, ' ')).join(' | '));
    }""")
    return result


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_axe_violations_in_any_mode(browser, site, axe_source, scheme):
    ctx = new_context(browser, viewport={"width": 1440, "height": 900}, color_scheme=scheme)
    pg = ctx.new_page()
    try:
        pg.goto(site)
        pg.wait_for_function("() => document.querySelector('[data-testid=engine]')"
                             ".dataset.state === 'ready'", timeout=120_000)
        pg.evaluate("() => window.explainer.settled()")
        found = {}
        for example, mode in [("split-sin", "split"), ("split-sin", "jit"),
                              ("grad-mlp", "grad"), ("checkpoint-dots", "checkpoint"),
                              (GRAD_SCAN_EXAMPLE, "grad")]:
            pg.evaluate("(id) => window.explainer.loadExample(id)", example)
            pg.evaluate("(m) => window.explainer.setMode(m)", mode)
            pg.wait_for_timeout(300)  # the diff marks and the flight settle
            bad = serious(pg, axe_source)
            if bad:
                found[f"{example}/{mode}"] = bad
        # a call opened in place (its rounds, its inner programs, nested toggles)
        pg.click("[data-testid=call-toggle] >> nth=0")
        bad = serious(pg, axe_source)
        if bad:
            found["grad-scan/call opened"] = bad
        assert not found, json.dumps(found, indent=1)
    finally:
        ctx.close()


# Every lazily drawn part of the page, drawn: each section's demo (its module loads, and its
# records come, only once it nears the viewport), every <details> open (lazyDetails builds its
# body on first opening: the table views, the memory table, the printed text, the saved
# residuals), the mask explorer's grid and the memory account (grad: the residual list's total,
# the memory chart).
SECTIONS_DRAWN = """() => {
    const demos = window.explainerSections?.demos() ?? [];
    return demos.length > 0 && demos.every((d) => d.started)
        && !document.querySelector('[data-demo] .demo-loading, [data-demo].is-updating');
}"""
EVERYTHING_DRAWN = """() => document.querySelectorAll('[data-testid=mask-cell]').length > 0
    && !document.querySelector('[data-testid=mask-explorer]').classList.contains('is-updating')
    && document.querySelector('[data-testid=residual-total]')
    && document.querySelector('.st-mem-legend li')
    && !document.querySelector('.st-fly > *')"""


def draw_every_lazy_part(pg) -> None:
    for demo in pg.eval_on_selector_all("[data-demo]", "els => els.map((e) => e.dataset.demo)"):
        pg.eval_on_selector(f"[data-demo='{demo}']", "el => el.scrollIntoView({block: 'center'})")
        pg.wait_for_function("(id) => window.explainerSections?.demos()"
                             ".find((d) => d.id === id)?.started", arg=demo, timeout=30_000)
    pg.wait_for_function(SECTIONS_DRAWN, timeout=120_000)
    pg.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    pg.wait_for_function(EVERYTHING_DRAWN, timeout=120_000)
    pg.evaluate("() => window.scrollTo(0, 0)")


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_axe_violations_with_every_lazy_part_drawn(browser, site, axe_source,
                                                              scheme, width):
    ctx = new_context(browser, viewport={"width": width, "height": 900}, color_scheme=scheme)
    pg = ctx.new_page()
    found = {}

    def check(what: str) -> None:
        pg.wait_for_function("() => !document.querySelector('.st-fly > *')")
        bad = serious(pg, axe_source)
        if bad:
            found[what] = bad

    try:
        pg.goto(site)
        pg.wait_for_function("() => document.querySelector('[data-testid=engine]')"
                             ".dataset.state === 'ready'", timeout=120_000)
        pg.evaluate("() => window.explainer.loadExample('grad-mlp')")
        pg.evaluate("() => window.explainer.settled()")
        draw_every_lazy_part(pg)
        check("sections, details, mask explorer, memory account")
        # the guided tour, open at its first question
        pg.click("[data-testid=tour-start]")
        pg.wait_for_function("() => document.querySelector('.tour-target')")
        check("tour")
        pg.keyboard.press("Escape")
        # predict, mid-question: the residual question of a mixed equation on screen
        pg.click("[data-testid=predict-toggle]")
        pg.keyboard.press("k")
        pg.keyboard.press("u")
        pg.wait_for_selector("[data-testid=predict-operand]")
        check("predict, residual question")
        # after the reveal: every question answered, the score and the reason on screen
        for _ in range(100):
            if pg.is_visible("[data-testid=predict-final]"):
                break
            pg.keyboard.press("Enter" if pg.is_visible("[data-testid=predict-check]") else "k")
        assert pg.is_visible("[data-testid=predict-final]")
        check("predict, after the reveal")
        # checkpoint: the policy cards' memory accounts, their programs opened
        pg.click("[data-testid=predict-leave]")
        pg.evaluate("() => window.explainer.loadExample('checkpoint-dots')")
        pg.evaluate("() => window.explainer.settled()")
        pg.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        pg.wait_for_function("() => document.querySelector('[data-testid=policy-total]')")
        check("checkpoint cards, programs opened")
        assert not found, json.dumps(found, indent=1)
    finally:
        ctx.close()
