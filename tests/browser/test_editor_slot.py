"""The editor's place before CodeMirror (app/editor-slot.js): CodeMirror loads, in parts, when
the reader reaches for the code (a pointer over it, a press, focus). Until it is there, the
slot shows the code as coloured plain lines with the marks the page asked for; a press brings
CodeMirror with the caret where the reader pressed, and what they typed meanwhile; if
CodeMirror cannot load, the page says so and keeps working.

CodeMirror's files are held back with a route, so "before it is there" lasts as long as the
test needs.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.code_editor import marked_line

pytestmark = pytest.mark.browser

CODEMIRROR = "**/app/vendor/cm6*.js"
# line 5 reads a name that does not exist: an error located there
BROKEN = ("import jax\nimport jax.numpy as jnp\n\n"
          "def f(x, y):\n    return jnp.sin(x) * no_such_name\n")


def plain_lines(page) -> list[str]:
    return page.locator("[data-testid=editor] .editor-prerender > span").evaluate_all(
        "rows => rows.map(r => r.textContent.replace(/\\n$/, ''))")


def test_codemirror_waits_for_the_reader_and_the_slot_keeps_the_code_and_marks(
        page, site, wait_engine_ready):
    held, release = [], []
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/cm6" in r.url else None)
    page.route(CODEMIRROR, lambda route: route.continue_() if release else held.append(route))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(site)
    wait_engine_ready(page)
    page.evaluate("() => window.explainer.settled()")
    # a reader who only reads: CodeMirror is never fetched
    page.wait_for_timeout(1500)
    assert asked == [] and page.locator(".cm-editor").count() == 0
    assert page.locator("link[rel=modulepreload][href*=cm6-]").count() == 0
    # the plain code is coloured as the editor colours Python
    kinds = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '[data-testid=editor] .editor-prerender span[class^=tok-]')]
        .map((w) => [w.textContent, w.className]))""")
    assert kinds["def"] == kinds["import"] == "tok-keyword"
    assert "tok-function" in kinds.values() and "tok-property" in kinds.values()
    # the page's edit is shown in the plain lines, with its error's line marked
    st = page.evaluate("(s) => window.explainer.setSource(s)", BROKEN)
    assert st["error"] and "no_such_name" in st["error"]["message"]
    assert plain_lines(page) == BROKEN.split("\n")
    assert marked_line(page, "cm-error-line") == 5
    # and the stage's step marks its source line there too
    st = page.evaluate("(s) => window.explainer.setSource(s)", BROKEN.replace("no_such_name", "y"))
    page.evaluate("() => window.explainer.setStep(1)")
    assert marked_line(page, "cm-error-line") == 0
    assert marked_line(page, "cm-step-line") == 5
    page.evaluate("(s) => window.explainer.setSource(s)", BROKEN)
    # the reader presses on line 4 ("def f(x, y):"), near its start, and types at once
    row = page.locator("[data-testid=editor] .editor-prerender > span").nth(3)
    box = row.bounding_box()
    page.mouse.click(box["x"] + 90, box["y"] + box["height"] / 2)
    page.keyboard.type("#")
    page.wait_for_function("() => document.querySelector('link[rel=modulepreload][href*=cm6-]')")
    release.append(True)
    for route in held:
        route.continue_()
    page.wait_for_selector("[data-testid=editor] .cm-editor")
    assert page.locator("[data-testid=editor] .editor-prerender").count() == 0
    # what was typed while CodeMirror loaded is in the code, where the press put the caret
    page.wait_for_function("(code) => window.explainer.state().source !== code", arg=BROKEN)
    lines = page.locator(".cm-content .cm-line").evaluate_all("ls => ls.map(l => l.textContent)")
    assert lines[:3] + lines[4:] == BROKEN.split("\n")[:3] + BROKEN.split("\n")[4:]
    assert lines[3].replace("#", "", 1) == "def f(x, y):" and lines[3] != "def f(x, y):"
    assert page.evaluate("() => window.explainer.state().source").split("\n")[3] == lines[3]
    # the caret went where the press was: focus in CodeMirror, on line 4
    assert page.evaluate("() => !!document.activeElement.closest('.cm-editor')")
    assert marked_line(page, "cm-activeLine") == 4
    # typing now edits the function (and the page follows)
    page.keyboard.press("End")
    page.keyboard.type("  # typed")
    page.wait_for_function("() => window.explainer.state().source.includes('# typed')")


def test_focus_on_the_plain_code_brings_the_editor(page, site, wait_engine_ready):
    """A keyboard reader tabs onto the code: CodeMirror mounts and takes the focus."""
    page.goto(site)
    wait_engine_ready(page)
    page.focus("[data-testid=editor] .editor-prerender")
    page.wait_for_function(
        "() => !!document.activeElement?.closest('[data-testid=editor] .cm-editor')")
    page.keyboard.press("Control+End")
    page.keyboard.type("# kept")
    page.wait_for_function("() => window.explainer.state().source.endsWith('# kept')")


def test_a_reader_who_tabs_past_the_code_keeps_their_place(page, site, wait_engine_ready):
    """Focus on the code starts CodeMirror's load; a keyboard reader who tabs on before it is
    there is not pulled back into it when it mounts."""
    held, release = [], []
    page.route(CODEMIRROR, lambda route: route.continue_() if release else held.append(route))
    page.goto(site)
    wait_engine_ready(page)
    page.focus("[data-testid=editor] .editor-prerender")
    page.wait_for_function("() => document.querySelector('link[rel=modulepreload][href*=cm6-]')")
    page.keyboard.press("Tab")
    page.evaluate("() => { document.activeElement.dataset.tabbedTo = ''; }")
    assert not page.evaluate("() => !!document.activeElement.closest('[data-testid=editor]')")
    release.append(True)
    for route in held:
        route.continue_()
    page.wait_for_selector("[data-testid=editor] .cm-editor")
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.activeElement.dataset.tabbedTo") == ""


def test_a_page_whose_editor_cannot_load_says_so_and_keeps_working(page, site, wait_engine_ready):
    page.route(CODEMIRROR, lambda route: route.abort())
    page.goto(site)
    wait_engine_ready(page)
    page.dispatch_event("[data-testid=editor]", "pointerover")  # the reader reaches for it
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


# every kind of word the tokenizer colours, and the places it could go wrong: quotes and a #
# inside strings, a string over lines, numbers of every form, calls on names and attributes,
# a decorator, keywords that are operators
TRICKY = '''import jax
import jax.numpy as jnp
from functools import partial

@jax.jit
@partial(jax.jit, static_argnums=(1,))
def f(x, n, s="a # not a comment", t='it\\'s'):
    """Doc with 'quotes' and # hash
    over two lines."""
    y = x.T @ x + 1.5e-3 * 0x1F - .5 + 3j  # a comment
    if n > 0 and not s is None or True:
        y = jnp.where(y > 0, y, -y).sum(axis=0)
    z = [v ** 2 for v in range(n) if v in (1, 2)]
    print(f"{y}", f'{z[0]!r:>8}', rb'raw\\d', lambda q, *a, **k: q)
    match = print
    print x
    return jax.lax.fori_loop(0, n, lambda i, c: c * 2, y), z, None, False
'''

# ... and every example's code after it
EXAMPLE_CODE = "".join(e["code"] for e in json.loads(
    (Path(__file__).resolve().parents[2] / "app" / "examples.json").read_text())["examples"])

# the colour and style of every character that is not a space, line by line
CHAR_STYLES = """(sel) => [...document.querySelectorAll(sel)].map((line) => {
    const out = [];
    const walk = (node) => {
        for (const c of node.childNodes) {
            if (c.nodeType === 3) {
                const st = getComputedStyle(c.parentElement);
                const style = `${st.color}:${st.fontStyle}`;
                for (const ch of c.textContent) if (ch.trim()) out.push([ch, style]);
            } else if (c.nodeType === 1 && !c.matches('.cm-widgetBuffer, img')) walk(c);
        }
    };
    walk(line);
    return out;
})"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_plain_code_wears_codemirrors_colours(page, site, theme):
    """Nothing changes colour when CodeMirror mounts: each character of the plain code has the
    colour and style CodeMirror's Python highlighting gives it, in both themes."""
    page.emulate_media(color_scheme=theme)
    # CodeMirror draws the lines in view: all of them, here
    page.set_viewport_size({"width": 1440, "height": 3000})
    page.goto(site)
    page.add_style_tag(content=".editor .cm-editor, .editor-prerender { max-height: none }")
    page.wait_for_function("() => typeof window.explainer?.state === 'function'")
    code = TRICKY + EXAMPLE_CODE
    page.evaluate("(s) => window.explainer.setSource(s)", code)
    plain = page.evaluate(CHAR_STYLES, "[data-testid=editor] .editor-prerender > span")
    page.dispatch_event("[data-testid=editor]", "pointerover")
    page.wait_for_selector("[data-testid=editor] .cm-editor")
    # CodeMirror's parser highlights in the background: wait until the last line is done
    page.wait_for_function("""() => [...document.querySelectorAll('.cm-content .cm-line')]
        .at(-2)?.querySelector('span')""")
    page.wait_for_timeout(300)
    mounted = page.evaluate(CHAR_STYLES, "[data-testid=editor] .cm-content .cm-line")
    assert len(plain) == len(mounted) == len(code.split("\n"))
    diff = [(i + 1, [f"{x[0]} {x[1]} (cm6 {y[1]})" for x, y in zip(a, b) if x != y])
            for i, (a, b) in enumerate(zip(plain, mounted)) if a != b]
    assert not diff, "\n".join(f"line {n}: {chars}" for n, chars in diff)
