"""Issue 44, points 1, 7 and 8: one set of names. The narration speaks in the names of the
pane that holds each equation, every equation and residual shows the user's line it came
from, the user's argument names are used everywhere (checkpoint cards, opened calls), the
checkpoint mode steps inside its remat, and an opened call is readable (its inputs named, the
body its fixpoint rounds cite on screen, the whole width, Escape closes it, reduce_precision
said why)."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

NARRATION = "[data-testid=narration]"


def call(page, expr: str, *args):
    return page.evaluate(f"(args) => window.explainer.{expr}(...args)", list(args))


def record(page) -> dict:
    return page.evaluate("() => window.explainer.record()")


def narration_at(pg, step: int) -> str:
    call(pg, "setStep", step)
    pg.wait_for_function(
        "(s) => document.querySelector('[data-testid=narration]').dataset.step === String(s)",
        arg=step)
    return pg.text_content(NARRATION)


def untyped(eqn: str) -> str:
    """A pane's printed equation as the narration writes it, without types and params:
    `b:f32[] = sin a` -> `b = sin a`, `g:f32[2] = dot_general[...] b e` -> `g = dot_general b e`."""
    lhs, rhs = eqn.split(" = ", 1)
    outs = " ".join(v.split(":")[0] for v in lhs.split())
    prim = re.match(r"[\w.]+", rhs).group(0)
    operands = rhs.rsplit("]", 1)[1] if "[" in rhs.split()[0] else rhs[len(prim):]
    return f"{outs} = {prim}{operands}".rstrip()


def test_the_narration_speaks_in_the_names_of_the_pane_on_screen(opened):
    pg = opened
    call(pg, "loadExample", "split-sin")
    rec = record(pg)
    known = next(p for p in rec["panes"] if p["role"] == "known")["program"]["eqns"]
    unknown = next(p for p in rec["panes"] if p["role"] == "unknown")["program"]["eqns"]
    # step 1: the known program's `b = sin a`, its input named as the user wrote it (x)
    text = narration_at(pg, 1)
    assert untyped(known[0]) == "b = sin a" and "b = sin a" in text
    assert "`a` is x".replace("`", "") in text
    # step 2: the unknown program's `c = mul a b` (not the traced `d = mul c b`): `b` is y
    # there, and the residual is the known program's `b`, called `a` here
    text = narration_at(pg, 2)
    assert untyped(unknown[0]) == "c = mul a b" and "c = mul a b" in text
    assert "d = mul c b" not in text
    assert "b is the unknown input y" in text
    assert "known program's b becomes residual r0, a here" in text
    # and the user's line it came from, with its text
    assert "line 5 (return jnp.sin(x) * y)" in text


def test_every_equation_and_residual_shows_the_line_it_came_from(opened):
    pg = opened
    call(pg, "loadExample", "grad-mlp")
    rec = record(pg)
    source = call(pg, "state")["source"].splitlines()
    # each run of rows from one line starts with that line, number and text, on screen
    anchors = pg.eval_on_selector_all(
        "#stage [data-testid=panes] [data-testid=eqn][data-depth='0']",
        """(rows) => rows.map((r) => [r.dataset.pane, r.dataset.line ?? null,
            r.querySelector(':scope > [data-testid=eqn-source]')?.textContent ?? null])""")
    assert anchors
    previous = {}
    for pane, line, anchor in anchors:
        if line is not None and previous.get(pane) != line:
            assert anchor == f"line {line}{source[int(line) - 1].strip()}", (pane, line, anchor)
            assert pg.locator(f"[data-pane='{pane}'][data-line='{line}'] "
                              "[data-testid=eqn-source]").first.is_visible()
        previous[pane] = line
    # a residual says which known equation made it, as the known program prints it, and where
    known = next(p for p in rec["panes"] if p["role"] == "known")["program"]["eqns"]
    chips = pg.locator("[data-testid=residual-chip]")
    assert chips.count() == len(rec["residuals"])
    for k, r in enumerate(rec["residuals"]):
        text = chips.nth(k).text_content()
        if r["known_eqn"] is None:
            continue
        producer = rec["events"][r["producer"]]
        assert f"from {untyped(known[r['known_eqn']])}, line {producer['line']}" in text, text
        if producer["short"] != untyped(known[r["known_eqn"]]):
            assert producer["short"] not in text  # the traced program's names are in no pane


def test_checkpoint_steps_inside_the_remat_and_names_the_arguments(opened):
    pg = opened
    call(pg, "loadExample", "checkpoint-nothing")
    rec = record(pg)
    remat = rec["events"][0]["call"]
    n = len(remat["events"])
    # the steps are the remat's inner equations, opened at once under the programs
    assert pg.text_content("[data-testid=step-counter]") == f"Step {n} of {n}" and n > 1
    split = pg.locator("[data-testid=call-split][data-inside]")
    assert split.count() == 1 and split.is_visible()
    text = narration_at(pg, 2)
    assert text.startswith(f"Step 2 of {n} inside checkpoint, line ")
    assert remat["events"][1]["narration"].replace("`", "") in text
    current = split.locator("[data-testid=eqn].is-current")
    assert current.count() >= 1
    assert set(current.evaluate_all("(rows) => rows.map((r) => r.dataset.innerEvent)")) == {"1"}
    # not yet judged: hidden, as the outer programs' rows are
    assert split.locator("[data-testid=eqn][data-inner-event='5']").get_attribute(
        "class").split().count("is-on") == 0
    # the cards name the arguments as the user wrote them (W1), never d[0]
    cards = pg.text_content("[data-testid=checkpoint]")
    assert "from the argument W1" in cards and "d[0]" not in cards
    # the opened call's inputs too
    inputs = split.locator("[data-testid=call-input]").all_text_contents()
    assert inputs[:3] == ["W1 known", "W2 known", "x known"]
    assert not [t for t in inputs if re.match(r"in\d", t)]


def test_an_opened_scan_is_readable_and_escape_closes_it(opened):
    pg = opened
    call(pg, "loadExample", "grad-scan")
    rec = record(pg)
    scan = next(ev for ev in rec["events"] if ev["primitive"] == "scan")["call"]
    btn = pg.locator("[data-testid=eqn][data-depth='0'] [data-testid=call-toggle]").first
    btn.click()
    split = pg.locator("[data-testid=call-split][data-depth='1']")
    assert split.count() == 1
    # its inputs named as the user's code names them: the argument w, a literal
    inputs = split.locator("[data-testid=call-input]").all_text_contents()
    assert len(inputs) == len(scan["inputs_known"])
    assert not [t for t in inputs if re.match(r"in\d", t)]
    assert any(t.startswith("w ") for t in inputs), inputs
    # every name the fixpoint rounds cite is in the body shown beside them
    body = split.locator("[data-testid=call-body]").text_content()
    assert body == scan["program"]["text"]
    cited = {m for r in scan["rounds"] for why in r["why"] for m in re.findall(r"`([^`]+)`", why)}
    assert cited
    for name in {n for c in cited for n in re.findall(r"\b[a-z]{1,2}\b", c)}:
        assert re.search(rf"\b{name}\b", body), name
    # the whole width of the programs, not one column
    grid = pg.locator("#stage .st-panes").bounding_box()
    box = split.bounding_box()
    assert box["width"] > 0.9 * grid["width"], (box, grid)
    # Escape closes it, focus back on its toggle
    btn.focus()
    pg.keyboard.press("Escape")
    assert split.count() == 0
    assert btn.get_attribute("aria-expanded") == "false"
    assert pg.evaluate("() => document.activeElement.dataset.testid") == "call-toggle"
    # Escape inside the opened call closes it too
    btn.click()
    split.locator("[data-testid=eqn]").first.focus()
    pg.keyboard.press("Escape")
    assert split.count() == 0


def test_a_checkpoint_call_counts_as_its_residuals_and_says_why_reduce_precision(opened):
    pg = opened
    call(pg, "loadExample", "checkpoint-dots")
    rec = record(pg)
    remat = rec["events"][0]["call"]
    split = pg.locator("[data-testid=call-split][data-inside]")
    note = split.locator("[data-testid=call-remat]").first.text_content()
    res = len(remat["residuals"])
    assert note.startswith(f"checkpoint: {res} residual"), note
    assert f"{len(remat['recomputed'])} equation" in note
    # reduce_precision, where it appears: in the forward pane and in the opened call
    assert any("reduce_precision[" in e for p in rec["panes"] for e in p["program"]["eqns"])
    why = pg.locator("#stage [data-testid=reduce-precision-why]")
    assert why.count() >= 2
    for i in range(why.count()):
        assert "excess precision" in why.nth(i).text_content()
        assert why.nth(i).is_visible()
