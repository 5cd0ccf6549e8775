"""The editor's place before CodeMirror (app/editor-slot.js): CodeMirror loads after the
first frame, in parts. Until it is there, the slot shows the code as plain lines and keeps
what the page asked of the editor; a press on the code brings CodeMirror with the caret where
the reader pressed; if CodeMirror cannot load, the page says so and keeps working.

CodeMirror's files are held back with a route, so "before it is there" lasts as long as the
test needs.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

CODEMIRROR = "**/app/vendor/cm6*.js"
# line 5 reads a name that does not exist: an error located there
BROKEN = ("import jax\nimport jax.numpy as jnp\n\n"
          "def f(x, y):\n    return jnp.sin(x) * no_such_name\n")


def plain_lines(page) -> list[str]:
    return page.locator("[data-testid=editor] .editor-prerender > span").evaluate_all(
        "rows => rows.map(r => r.textContent.replace(/\\n$/, ''))")


def test_the_slot_keeps_the_code_and_marks_until_codemirror_mounts(page, site, wait_engine_ready):
    held = []
    page.route(CODEMIRROR, lambda route: held.append(route))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(site)
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    page.wait_for_function("() => document.querySelector('link[rel=modulepreload][href*=cm6-]')")
    assert page.locator(".cm-editor").count() == 0
    # the page's edit is shown in the plain lines, and its error is kept for CodeMirror
    st = page.evaluate("(s) => window.explainer.setSource(s)", BROKEN)
    assert st["error"] and "no_such_name" in st["error"]["message"]
    assert plain_lines(page) == BROKEN.split("\n")
    # the reader presses on line 4 ("def f(x, y):"), near its end
    row = page.locator("[data-testid=editor] .editor-prerender > span").nth(3)
    box = row.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] / 2)
    for route in held:
        route.continue_()
    page.unroute(CODEMIRROR)
    page.wait_for_selector("[data-testid=editor] .cm-editor")
    assert page.locator("[data-testid=editor] .editor-prerender").count() == 0
    lines = page.locator(".cm-content .cm-line").evaluate_all("ls => ls.map(l => l.textContent)")
    assert lines == BROKEN.split("\n")
    marked = page.evaluate("""() => [...document.querySelectorAll('.cm-content .cm-line')]
        .findIndex((l) => l.classList.contains('cm-error-line')) + 1""")
    assert marked == 5
    # the caret went where the press was: focus in CodeMirror, on line 4
    assert page.evaluate("() => !!document.activeElement.closest('.cm-editor')")
    active = page.evaluate("""() => [...document.querySelectorAll('.cm-content .cm-line')]
        .findIndex((l) => l.classList.contains('cm-activeLine')) + 1""")
    assert active == 4
    # typing now edits the function (and the page follows)
    page.keyboard.press("End")
    page.keyboard.type("  # typed")
    page.wait_for_function("() => window.explainer.state().source.includes('# typed')")


def test_a_page_whose_editor_cannot_load_says_so_and_keeps_working(page, site, wait_engine_ready):
    page.route(CODEMIRROR, lambda route: route.abort())
    page.goto(site)
    wait_engine_ready(page)
    notice = page.locator("[data-testid=notice]")
    notice.wait_for(state="visible")
    assert "code editor could not be loaded" in notice.inner_text()
    assert page.locator(".cm-editor").count() == 0
    # the page still answers, and shows the code it answers for
    st = page.evaluate("(s) => window.explainer.setSource(s)", BROKEN)
    assert st["error"] and "no_such_name" in st["error"]["message"]
    assert plain_lines(page) == BROKEN.split("\n")
    st = page.evaluate("(s) => window.explainer.setSource(s)", BROKEN.replace("no_such_name", "y"))
    assert st["error"] is None
    assert page.locator("#stage [data-testid=eqn]").count() > 0
