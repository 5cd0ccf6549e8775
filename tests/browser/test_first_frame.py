"""The first frame is in the HTML the build writes (tools/prerender.mjs): the default example's
stage, drawn by the page's own view code from the precomputed record, is painted before any
module runs; the page then takes its elements over without drawing them again; a link to
another state never shows the default's frame."""
from __future__ import annotations

import json
import re

import pytest

from tests.browser.code_editor import reach_editor
from tests.browser.conftest import ROOT
from tests.browser.contexts import new_context

EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())
DEFAULT_CODE = next(e for e in EXAMPLES["examples"] if e["id"] == EXAMPLES["default"])["code"]


@pytest.fixture(scope="module")
def first(site) -> tuple[str, dict]:
    """The build's first frame: its request key and record (dist/precomputed.json)."""
    pre = json.loads((ROOT / "dist" / "precomputed.json").read_text())
    return pre["first"], pre["records"][pre["first"]]

# What layout decides (the edges' geometry, sizes measured by observers) is not the view's:
# everything else of the stage's DOM must be the same, attribute for attribute.
LAYOUT_ATTRS = {"width", "height", "viewBox", "d", "x", "y", "transform", "style", "text-anchor"}
# Adjacent text nodes are one in HTML, and ids are drawn fresh (each to its own number here).
STAGE_DOM = r"""(layout) => {
  const root = document.getElementById('stage');
  const ids = new Map([...root.querySelectorAll('[id]')].map((e, i) => [e.id, `#${i}`]));
  const value = (v) => v.split(/\s+/).filter(Boolean).map((w) => ids.get(w) ?? w).join(' ');
  // a control's value is its property (the attribute is only its default)
  const attrsOf = (e) => [...e.attributes]
    .map((a) => [a.name, a.name === 'value' ? e.value : a.value]);
  const out = [];
  const walk = (n, depth) => {
    let text = '';
    for (const c of n.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) { text += c.data; continue; }
      if (text.trim()) out.push(`${depth}#${text}`);
      text = '';
      if (c.nodeType !== Node.ELEMENT_NODE) continue;
      const attrs = attrsOf(c).filter(([name]) => !layout.includes(name))
        .map(([name, v]) => `${name}=${value(v)}`).sort().join(' ');
      out.push(`${depth}<${c.localName} ${attrs}>`);
      walk(c, depth + 1);
    }
    if (text.trim()) out.push(`${depth}#${text}`);
  };
  walk(root, 0);
  return out;
}"""


def _held_back(browser, **ctx_args):
    """A context whose Pyodide never arrives: what is on screen came from the HTML or the
    precomputed records."""
    ctx = new_context(browser, **ctx_args)
    ctx.route("**/pyodide.asm.wasm", lambda route: None)
    return ctx


def test_the_split_is_in_the_html(browser, site, first):
    """With scripts off, the stage shows the default split: every equation of both panes,
    the residual list, the timeline at its end, and the code where the editor mounts."""
    ctx = browser.new_context(java_script_enabled=False, viewport={"width": 1440, "height": 900})
    page = ctx.new_page()
    try:
        page.goto(site)
        stage = page.locator("#stage")
        key, record = first
        assert stage.get_attribute("data-prerendered") == key
        for pane in record["panes"]:
            shown = page.locator(f'[data-testid=eqn][data-pane="{pane["id"]}"] .st-eqn-text')
            assert shown.all_text_contents() == pane["program"]["eqns"]
            assert shown.first.is_visible()
        assert page.locator("[data-testid=residual-chip]").count() == len(record["residuals"])
        assert page.get_attribute("[data-testid=timeline]", "value") == str(len(record["events"]))
        code = page.text_content(".editor-prerender")
        assert code.rstrip("\n") == DEFAULT_CODE.rstrip("\n")
        assert page.get_attribute("[data-testid=mode-split]", "aria-selected") == "true"
        # edges wait for layout: hidden, never drawn at the panes' corner
        assert page.locator(".st-edges").evaluate("e => getComputedStyle(e).visibility") == "hidden"
    finally:
        ctx.close()


# the stage's elements as the HTML parser made them, before any module runs
HTML_ELEMENTS = """document.addEventListener('readystatechange', () => {
  if (document.readyState === 'interactive')
    window.__built = [...document.querySelectorAll('#stage *')];
});"""


def test_the_page_takes_the_frame_over(browser, site, first):
    """The modules take the frame over: the stage's elements are the HTML's own, none drawn
    again nor added, and its DOM is the build's but for layout; then the edges are measured and
    drawn, and the stage answers the reader."""
    ctx = _held_back(browser, viewport={"width": 1440, "height": 900})
    ctx.add_init_script(HTML_ELEMENTS)
    page = ctx.new_page()
    try:
        page.goto(site, wait_until="commit")
        page.wait_for_selector("#stage [data-testid=eqn]", state="attached")
        before = page.evaluate(STAGE_DOM, sorted(LAYOUT_ATTRS))
        assert page.get_attribute("#stage", "data-prerendered") is not None
        page.wait_for_function("() => document.documentElement.dataset.firstFrame")
        assert page.get_attribute("html", "data-first-frame") == "precomputed"
        page.evaluate("() => window.explainer.drawn?.()")
        page.wait_for_selector(".st-edges[width]")
        after = page.evaluate(STAGE_DOM, sorted(LAYOUT_ATTRS))
        assert page.get_attribute("#stage", "data-prerendered") is None
        diff = [(a, b) for a, b in zip(before, after) if a != b]
        assert len(before) == len(after) and not diff, "\n".join(f"{a}\n{b}\n" for a, b in diff[:6])
        edges = page.locator(".st-edges")
        assert edges.evaluate("e => getComputedStyle(e).visibility") == "visible"
        kept = page.evaluate("""() => {
          const built = new Set(window.__built);
          const now = [...document.querySelectorAll('#stage *')];
          return {built: built.size, gone: window.__built.filter((e) => !e.isConnected).length,
                  added: now.filter((e) => !built.has(e)).length};
        }""")
        assert kept["built"] > 100 and kept["gone"] == 0 and kept["added"] == 0, kept
        # its listeners are the page's: the buttons and the timeline move the split
        page.click("[data-testid=step-first]")
        assert page.get_attribute("#stage", "data-step") == "0"
        assert page.locator("#stage [data-testid=eqn].is-on").count() == 0
        page.click("[data-testid=step-next]")
        assert page.get_attribute("#stage", "data-step") == "1"
        assert page.text_content("[data-testid=step-counter]").startswith("Step 1 of")
        # the inputs and the mode tabs were drawn over, not added beside
        assert page.locator("[data-testid=inputs] .input-row").count() == len(first[1]["args"])
        assert page.locator("[data-testid=mode-split]").count() == 1
        # the build's code stays until the reader reaches for it and CodeMirror mounts in its
        # place (app/editor-slot.js)
        assert page.locator("[data-testid=editor] .cm-editor").count() == 0
        reach_editor(page)
        assert page.locator("[data-testid=editor] .editor-prerender").count() == 0
        source = json.loads(first[0])[1]["source"]
        assert page.locator("[data-testid=editor] .cm-line").count() == len(source.split("\n"))
    finally:
        ctx.close()


def _frame_hidden(browser, url: str, storage: dict | None = None) -> bool:
    """Whether the build's frame is hidden when the page opens `url` (with `storage` saved),
    as decided by the classic head script alone: the page's modules never load."""
    ctx = new_context(browser)
    ctx.route("**/app/main.js", lambda route: route.abort())
    if storage:
        ctx.add_init_script(f"Object.entries({json.dumps(storage)}).forEach(([k, v]) =>"
                            " localStorage.setItem(k, v));")
    page = ctx.new_page()
    try:
        page.goto(url)
        eqn = page.locator("#stage [data-testid=eqn]").first
        eqn.wait_for(state="attached")
        return not eqn.is_visible()
    finally:
        ctx.close()


def test_another_state_never_shows_the_default_frame(browser, site):
    """A link to another example, or a state the reader saved: the build's frame is hidden
    from the first paint (the head script decides), and replaced once the page draws its own."""
    other = next(e for e in EXAMPLES["examples"] if e["mode"] == "grad")
    ctx = _held_back(browser)
    page = ctx.new_page()
    try:
        page.goto(site)
        page.wait_for_function("() => document.documentElement.dataset.examplesPrecomputed")
        link = page.evaluate("""async (id) => { await window.explainer.loadExample(id);
                                return window.explainer.permalink(); }""", other["id"])
        page.wait_for_function("() => localStorage.length > 0")
        saved = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
    finally:
        ctx.close()
    frag = re.sub(r"^[^#]*", "", link)
    assert not _frame_hidden(browser, site)  # the default state: the frame is its own
    assert _frame_hidden(browser, site + frag)
    assert _frame_hidden(browser, site, storage=saved)

    ctx = _held_back(browser)
    page = ctx.new_page()
    try:
        page.goto(site + frag)
        page.wait_for_function("() => document.documentElement.dataset.firstFrame")
        assert page.get_attribute("html", "data-prerender") is None
        assert page.evaluate("() => window.explainer.state().mode") == "grad"
        # the example's record comes from the build (precomputed/<id>.json), not Python
        page.wait_for_selector("#stage[data-mode=grad] [data-testid=eqn]", timeout=30_000)
        assert page.get_attribute("#stage", "data-prerendered") is None
        assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
        assert page.locator("#stage [data-testid=eqn]").first.is_visible()
    finally:
        ctx.close()


def test_a_precomputed_record_that_breaks_the_contract_is_never_drawn(page, site, first,
                                                                      wait_engine_ready):
    """The build's records are checked when first used (not all at load): a broken one for
    the opening state is left for the engine to answer, in the tool and in the demos."""
    pre = json.loads((ROOT / "dist" / "precomputed.json").read_text())
    key, record = first
    pre["records"][key] = {**record, "mode": "no-such-mode"}
    # the checkpoint demo's record too (a section's, asked through the same check)
    demo = [k for k in pre["records"] if json.loads(k)[0] == "checkpoint"]
    assert demo, "the build precomputes the checkpoint demo's record"
    for k in demo:
        pre["records"][k] = {**pre["records"][k], "policies": "not a list"}
    page.route("**/precomputed.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(pre)))
    page.goto(site)
    page.wait_for_function("() => document.documentElement.dataset.firstFrame")
    assert page.get_attribute("html", "data-first-frame") == "waiting"
    wait_engine_ready(page)
    st = page.evaluate("() => window.explainer.settled()")
    assert st["error"] is None and st["recordMode"] == "split"
    assert st["known"] and st["unknown"]
    # the checkpoint demo, brought near the viewport, draws the engine's answer
    page.locator("[data-demo=checkpoint]").scroll_into_view_if_needed()
    page.wait_for_selector("[data-demo=checkpoint] [data-testid^=policy-card-]", timeout=120_000)
    assert page.locator("[data-demo=checkpoint].is-updating").count() == 0
