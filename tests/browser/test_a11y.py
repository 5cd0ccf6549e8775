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
