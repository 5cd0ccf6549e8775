"""The stage (app/stage/), driven through its dev harness app/stage/demo.html and real engine
records (made here by tests/fixtures/make_records.py, served as tests/fixtures/records/).

Self-contained: serves the repository root with a stdlib http.server on 127.0.0.1 (with the
site's CSP, so an inline script or eval would fail here too) and drives Debian's Chromium.
No build: these tests need the engine in CPython, Playwright and /usr/bin/chromium.
"""
from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path

import pytest

from sitebuild.common import ROOT as SITE_ROOT
from sitebuild.headers import common_headers, inline_script_hashes
from tests.fixtures.make_records import make_records, write_records

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
RECORDS_URL = "/tests/fixtures/records/"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None


def _site_headers() -> dict[str, str]:
    """The headers build.py serves the site with (CSP above all)."""
    return common_headers(inline_script_hashes(SITE_ROOT))


class _Handler(http.server.SimpleHTTPRequestHandler):
    headers_to_add: dict[str, str] = {}
    records_dir = ""  # the fixtures made for this run, served at RECORDS_URL

    def translate_path(self, path):
        if path.startswith(RECORDS_URL):
            name = path[len(RECORDS_URL):].split("?", 1)[0]
            return str(Path(self.records_dir) / Path(name).name)
        return super().translate_path(path)

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".json": "application/json"}

    def end_headers(self):
        for k, v in self.headers_to_add.items():
            self.send_header(k, v)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a browser closing a connection early is not a test failure


@pytest.fixture(scope="module")
def stage_base(tmp_path_factory):
    _Handler.headers_to_add = _site_headers()
    _Handler.records_dir = str(tmp_path_factory.mktemp("records"))
    write_records(Path(_Handler.records_dir))
    srv = _Server(("127.0.0.1", 0), functools.partial(_Handler, directory=str(ROOT)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/app/stage/demo.html"
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture(scope="module")
def stage_browser(browser):
    # One Playwright per session (conftest's `browser`): a second sync_playwright() in the
    # same process fails once the first one's event loop is running.
    return browser


@pytest.fixture
def open_stage(stage_browser, stage_base):
    """open_stage(fixture, step=None, width=1280, **context options) -> page, ready."""
    contexts = []

    def _open(fixture: str, step: int | None = None, width: int = 1280, height: int = 900,
              **ctx_opts):
        ctx = stage_browser.new_context(viewport={"width": width, "height": height}, **ctx_opts)
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.problems = []
        pg.on("console", lambda m: m.type in ("error", "warning")
              and pg.problems.append(f"{m.type}: {m.text}"))
        pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
        url = f"{stage_base}?fixture={fixture}" + (f"&step={step}" if step is not None else "")
        pg.goto(url)
        pg.wait_for_function("() => document.documentElement.dataset.ready")
        assert pg.evaluate("() => document.documentElement.dataset.ready") == fixture, \
            pg.problems
        return pg

    yield _open
    for ctx in contexts:
        for pg in ctx.pages:
            assert not pg.problems, pg.problems
        ctx.close()


@functools.cache
def _records() -> dict[str, dict]:
    return json.loads(json.dumps(make_records()))


def record(name: str) -> dict:
    return json.loads(json.dumps(_records()[name]))


def step_of(pg) -> int:
    return pg.evaluate("() => window.stage.getStep()")


def narration(pg) -> str:
    return pg.text_content("[data-testid=narration]")


def wait_narration(pg, step: int):
    pg.wait_for_function(
        "(s) => document.querySelector('[data-testid=narration]').dataset.step === String(s)",
        arg=step)
    return narration(pg)


def visible_edges(pg) -> int:
    return pg.evaluate("""() => [...document.querySelectorAll('[data-testid=residual-edge]')]
        .filter((g) => getComputedStyle(g).display !== 'none').length""")


# --------------------------------------------------------------------------- panes


@pytest.mark.parametrize("name", ["sin_cos", "vector", "forwarded", "jit_call", "linearize"])
def test_split_panes_hold_the_right_equations(open_stage, name):
    rec = record(name)
    pg = open_stage(name)
    for side in ("known", "unknown"):
        pane = f"[data-testid={side}-jaxpr]"
        eqns = pg.query_selector_all(f"{pane} [data-testid=eqn]")
        assert len(eqns) == len(rec[side]["eqns"])
        for j, el in enumerate(eqns):
            assert el.get_attribute("data-side") == side
            text = el.query_selector(".st-eqn-text").text_content()
            assert text == rec[side]["eqns"][j]
            ev = int(el.get_attribute("data-event"))
            assert j in rec["events"][ev][f"{side}_eqns"]
        head = pg.text_content(f"{pane} .st-line--head")
        for var in rec[side]["invars"]:
            assert f"{var['name']}:{var['aval']}" in head
        assert pg.text_content(f"{pane} pre") == rec[side]["text"]
    # the equations of every pane are one tab stop (roving tabindex)
    assert pg.evaluate("""() => [...document.querySelectorAll('[data-testid=eqn]')]
        .filter((e) => e.tabIndex === 0).length""") == 1
    # every event is on the traced strip, in trace order
    chips = pg.query_selector_all("[data-testid=trace-eqn]")
    assert [c.get_attribute("data-side") for c in chips] == [e["side"] for e in rec["events"]]


EDGE_GEOMETRY = """() => {
    const host = document.querySelector('.st-panes').getBoundingClientRect();
    const box = (el) => { const r = el.getBoundingClientRect();
        return [r.left - host.left, r.top - host.top, r.right - host.left, r.bottom - host.top]; };
    const edges = [...document.querySelectorAll('[data-testid=residual-edge]')]
        .filter((g) => getComputedStyle(g).display !== 'none');
    return edges.map((g) => ({
        k: g.dataset.k, stub: g.dataset.stub || null,
        subpaths: g.querySelector('path.st-edge-line').getAttribute('d').split('M ').filter(Boolean)
            .map((s) => s.trim().split(/[ CL]+/).map(Number)),
        label: box(g.querySelector('[data-testid=residual-label] rect')),
        text: g.querySelector('[data-testid=residual-label]').textContent,
    }));
}"""


def overlapping(boxes):
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5]


@pytest.mark.parametrize("name", ["sin_cos", "vector", "forwarded", "jit_call", "linearize",
                                  "all_known", "all_unknown"])
def test_residual_edges_one_per_residual(open_stage, name):
    rec = record(name)
    want = sum(1 for r in rec["residuals"] if r["consumers"])
    pg = open_stage(name)
    pg.evaluate("() => window.stage.drawn()")
    assert len(pg.query_selector_all("[data-testid=residual-edge]")) == len(rec["residuals"])
    assert visible_edges(pg) == want
    geo = pg.evaluate(EDGE_GEOMETRY)
    for r in rec["residuals"]:
        if not r["consumers"]:
            continue
        g = pg.query_selector(f"[data-testid=residual-edge][data-k='{r['k']}']")
        assert g.get_attribute("data-consumers") == " ".join(map(str, r["consumers"]))
        assert g.query_selector("[data-testid=residual-label]").text_content() == f"r{r['k']}"
        edge = next(e for e in geo if e["k"] == str(r["k"]))
        # source -> label, then label -> each consumer: one branch per reader
        assert len(edge["subpaths"]) == 1 + len(r["consumers"])
    # one label per edge, no two overlapping; no two edges end at one point
    assert len(pg.query_selector_all("[data-testid=residual-label]")) == len(rec["residuals"])
    assert not overlapping([e["label"] for e in geo])
    ends = [tuple(round(v) for v in s[-2:]) for e in geo for s in e["subpaths"][1:]]
    assert len(ends) == len(set(ends)), ends
    # residual chips: "r0  b → a  f32[]  4 B"
    chips = pg.query_selector_all("[data-testid=residual-chip]")
    assert len(chips) == len(rec["residuals"])
    for r, chip in zip(rec["residuals"], chips):
        text = chip.text_content()
        assert f"r{r['k']}" in text and r["known_name"] in text and r["unknown_name"] in text
        assert r["aval"] in text and f"{r['bytes']} B" in text
    # at step 0 nothing has been judged: no edges, no equations shown
    pg.evaluate("() => { window.stage.setStep(0); window.stage.drawn(); }")
    assert visible_edges(pg) == 0
    assert pg.evaluate("""() => [...document.querySelectorAll('[data-testid=eqn]')]
        .every((e) => getComputedStyle(e).visibility === 'hidden')""")


def test_edges_follow_layout(open_stage):
    """Edges leave the known pane and reach the unknown pane, side by side or stacked."""
    for width in (1440, 360):
        pg = open_stage("vector", width=width)
        pg.evaluate("() => window.stage.drawn()")
        panes = pg.evaluate("""() => {
            const host = document.querySelector('.st-panes').getBoundingClientRect();
            const box = (s) => { const r = document.querySelector(s).getBoundingClientRect();
                return [r.left - host.left, r.top - host.top, r.right - host.left,
                        r.bottom - host.top]; };
            return {k: box('[data-testid=known-jaxpr]'), u: box('[data-testid=unknown-jaxpr]')};
        }""")
        k, u = panes["k"], panes["u"]
        stacked = u[1] >= k[3] - 1
        assert stacked == (width == 360)
        for e in pg.evaluate(EDGE_GEOMETRY):
            first, *branches = e["subpaths"]
            sx, sy = first[:2]
            assert k[1] <= sy <= k[3]
            assert abs(sx - (k[0] if stacked else k[2])) < 2
            for b in branches:
                if len(b) == 4:
                    continue  # a stub: that end is scrolled out of the panes' view
                tx, ty = b[-2:]
                assert u[1] <= ty <= u[3] and abs(tx - u[0]) < 2
            # the label sits in the gutter, between the panes (or left of them, stacked)
            lx0, _, lx1, _ = e["label"]
            if stacked:
                assert lx1 <= k[0] + 1
            else:
                assert k[2] - 1 <= lx0 and lx1 <= u[0] + 1
        # a resize re-lays the edges out (ResizeObserver + rAF)
        before = pg.get_attribute("[data-testid=residual-edge] path.st-edge-line", "d")
        pg.set_viewport_size({"width": 900 if width == 1440 else 1200, "height": 900})
        pg.wait_for_function(
            "(b) => document.querySelector('[data-testid=residual-edge] path.st-edge-line')"
            ".getAttribute('d') !== b", arg=before)


# --------------------------------------------------------------------------- stepping


def test_buttons_timeline_and_narration(open_stage):
    rec = record("sin_cos")
    n = len(rec["events"])
    pg = open_stage("sin_cos", step=0)
    assert step_of(pg) == 0
    assert pg.text_content("[data-testid=step-counter]") == f"Step 0 of {n}"
    assert "nothing judged yet" in wait_narration(pg, 0)
    assert pg.get_attribute("[data-testid=narration]", "role") == "status"
    assert pg.get_attribute("[data-testid=narration]", "aria-live") == "polite"

    pg.click("[data-testid=step-next]")
    assert step_of(pg) == 1
    assert pg.text_content("[data-testid=step-counter]") == f"Step 1 of {n}"
    text = wait_narration(pg, 1)
    ev = rec["events"][0]
    # the step, the user's line it came from (issue 44), then what the engine says of it
    assert text == f"Step 1 of {n}, line {ev['line']} ({ev['source']}): " + \
        ev["narration"].replace("`", "")
    # the first equation is known: it is shown in the known pane, with its value
    eqn = pg.query_selector("[data-testid=known-jaxpr] [data-testid=eqn][data-event='0']")
    assert "is-on" in eqn.get_attribute("class")
    assert rec["events"][0]["value"][0] in eqn.text_content()
    pg.click("[data-testid=step-next]")
    assert step_of(pg) == 2
    assert "becomes residual r0" in wait_narration(pg, 2)
    pg.click("[data-testid=step-prev]")
    assert step_of(pg) == 1

    pg.fill("[data-testid=timeline]", "4")
    assert step_of(pg) == 4
    # scrubbing: the live region is debounced, then says the final position only
    text = wait_narration(pg, 4)
    assert text.startswith(f"Step 4 of {n}, line ")
    assert pg.get_attribute("[data-testid=timeline]", "aria-valuetext").startswith("Step 4 of")

    pg.click("[data-testid=step-last]")
    assert step_of(pg) == n
    assert pg.get_attribute("[data-testid=step-next]", "aria-disabled") == "true"
    pg.click("[data-testid=step-next]", force=True)  # aria-disabled: no change, keeps focus
    assert step_of(pg) == n
    pg.click("[data-testid=step-first]")
    assert step_of(pg) == 0
    # onStepChange reported every change (for the permalink)
    steps = [s for s, _ in pg.evaluate("() => window.stageSteps")]
    assert steps[-6:] == [1, 2, 1, 4, n, 0]


def test_keyboard_steps_only_outside_editors(open_stage):
    n = len(record("sin_cos")["events"])
    pg = open_stage("sin_cos", step=0)
    pg.evaluate("() => document.activeElement.blur()")
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("ArrowRight")
    assert step_of(pg) == 2
    pg.keyboard.press("ArrowLeft")
    assert step_of(pg) == 1
    pg.keyboard.press("End")
    assert step_of(pg) == n
    pg.keyboard.press("Home")
    assert step_of(pg) == 0
    assert "nothing judged yet" in wait_narration(pg, 0)

    # Space plays and pauses
    pg.keyboard.press("Space")
    assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "true"
    pg.keyboard.press("Space")
    assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "false"

    # focus on an equation: the arrows move between equations (roving), not the step
    pg.keyboard.press("End")
    pg.focus("[data-testid=known-jaxpr] [data-testid=eqn]")
    before = step_of(pg)
    first = pg.evaluate("() => document.activeElement.dataset.eqn")
    pg.keyboard.press("ArrowDown")
    assert step_of(pg) == before
    assert pg.evaluate("() => document.activeElement.dataset.eqn") == str(int(first) + 1)
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("() => document.activeElement.dataset.pane") == "unknown"
    assert step_of(pg) == before

    # inside a contenteditable (the CodeMirror editor is one), a text field or a select: no
    pg.evaluate("""() => {
        const ed = document.createElement('div');
        ed.contentEditable = 'true'; ed.id = 'fake-editor'; ed.textContent = 'def f(x): ...';
        document.body.prepend(ed);
        const inp = document.createElement('input'); inp.id = 'fake-input';
        document.body.prepend(inp);
        const ta = document.createElement('textarea'); ta.id = 'fake-textarea';
        document.body.prepend(ta);
        // widgets that use arrows themselves (the shell's mode tabs) keep them
        const tabs = document.createElement('div'); tabs.setAttribute('role', 'tablist');
        tabs.innerHTML = '<button role="tab" id="fake-tab">split</button>';
        document.body.prepend(tabs);
    }""")
    for sel in ("#fake-editor", "#fake-input", "#fake-textarea", "#fake-tab"):
        pg.focus(sel)
        s0 = step_of(pg)
        for key in ("ArrowRight", "ArrowLeft", "Home", "End", "Space"):
            pg.keyboard.press(key)
        assert step_of(pg) == s0, sel
        assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "false"


def test_play_runs_to_the_end_and_pauses(open_stage):
    n = len(record("sin_cos")["events"])
    pg = open_stage("sin_cos", step=0)
    pg.select_option("[data-testid=speed]", "2")
    pg.click("[data-testid=play]")
    assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "true"
    pg.wait_for_function("(n) => window.stage.getStep() === n", arg=n, timeout=10_000)
    pg.wait_for_function(
        "() => document.querySelector('[data-testid=play]')"
        ".getAttribute('aria-pressed') === 'false'")
    # play again from the end restarts at the beginning
    pg.click("[data-testid=play]")
    pg.wait_for_function("() => window.stage.getStep() < 3")
    pg.click("[data-testid=play]")
    assert pg.get_attribute("[data-testid=play]", "aria-pressed") == "false"


def test_motion_and_reduced_motion(open_stage):
    """Stepping forward flies the equation from the strip (transform/opacity only); with
    prefers-reduced-motion: reduce the state changes instantly, with no animation at all."""
    pg = open_stage("sin_cos", step=0)
    pg.evaluate("() => document.activeElement.blur()")
    pg.click("[data-testid=step-next]")
    anims = pg.evaluate("""() => document.getAnimations().map((a) =>
        Object.keys(a.effect.getKeyframes()[0]).filter((k) => !['offset', 'easing',
        'composite', 'computedOffset'].includes(k)))""")
    assert anims, "a forward step animates"
    assert all(set(props) <= {"transform", "opacity"} for props in anims)

    pg2 = open_stage("sin_cos", step=0, reduced_motion="reduce")
    assert pg2.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    for _ in range(3):
        pg2.click("[data-testid=step-next]")
        assert pg2.evaluate("() => document.getAnimations().length") == 0
        assert pg2.query_selector(".st-ghost") is None
    assert step_of(pg2) == 3
    # and the equation is simply there
    el = pg2.query_selector("[data-testid=eqn][data-event='2']")
    assert pg2.evaluate("(e) => getComputedStyle(e).opacity", el) == "1"
    assert pg2.evaluate("(e) => getComputedStyle(e).transitionDuration", el) == "0s"


# --------------------------------------------------------------------------- text views


def test_table_view(open_stage):
    rec = record("sin_cos")
    pg = open_stage("sin_cos")
    # a closed table view holds nothing yet: its body is made when it first opens, with the
    # row of the step's event marked as the diagram's
    assert pg.locator(".st-table-wrap > :not(summary)").count() == 0
    pg.evaluate("() => window.stage.setStep(2)")
    pg.click(".st-table-wrap > summary")
    assert pg.is_visible("[data-testid=split-table]")
    current = pg.eval_on_selector_all("[data-testid=split-table] tbody tr.is-current",
                                      "(rows) => rows.map((r) => r.dataset.event)")
    assert current == ["1"]
    pg.evaluate("() => window.stage.setStep(3)")
    current = pg.eval_on_selector_all("[data-testid=split-table] tbody tr.is-current",
                                      "(rows) => rows.map((r) => r.dataset.event)")
    assert current == ["2"]
    headers = [th.text_content() for th in pg.query_selector_all(
        "[data-testid=split-table] thead th")]
    assert headers == ["Step", "Equation", "Line", "Program", "Reason", "Residuals"]
    rows = pg.query_selector_all("[data-testid=split-table] tbody tr")
    assert len(rows) == len(rec["events"])
    for ev, row in zip(rec["events"], rows):
        cells = [c.text_content().strip() for c in row.query_selector_all("th, td")]
        assert cells[1] == ev["short"]
        assert cells[2] == str(ev["line"])
        assert cells[3].endswith(ev["side"])
        assert cells[4] == ev["narration"].replace("`", "")
        for k in ev["residuals"]:
            assert f"creates r{k}" in cells[5]
    producer = rec["residuals"][0]["producer"]
    assert "produces r0" in rows[producer].text_content()


def test_copy_buttons(open_stage, stage_base):
    rec = record("sin_cos")
    origin = stage_base.split("/app/")[0]
    pg = open_stage("sin_cos")
    pg.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    for side in ("known", "unknown"):
        pg.click(f"[data-testid=copy-{side}]")
        pg.wait_for_function(
            f"() => document.querySelector('[data-testid=copy-{side}]').dataset.copied")
        assert pg.evaluate("() => navigator.clipboard.readText()") == rec[side]["text"]
        assert pg.text_content(f"[data-testid=copy-{side}]") == "Copied"


# --------------------------------------------------------------------------- linking


def test_linked_highlighting(open_stage):
    rec = record("sin_cos")
    pg = open_stage("sin_cos")
    hl = ("() => [...document.querySelectorAll('[data-testid=eqn].is-hl')]"
          ".map((e) => e.dataset.event)")

    # from the shell: a source line highlights every event traced from it
    line = 5
    want = sorted(str(e["i"]) for e in rec["events"] if e["line"] == line)
    pg.evaluate("(l) => window.stage.highlight({line: l})", line)
    assert sorted(pg.evaluate(hl)) == want
    assert pg.evaluate("() => document.querySelector('.stage').dataset.hl") == "on"
    pg.evaluate("() => window.stage.highlight(null)")
    assert pg.evaluate(hl) == []

    # hovering an unknown equation: its event, its residual edge, and onLink for the editor
    ev = next(e for e in rec["events"] if e["side"] == "unknown" and e["residuals"])
    pg.hover(f"[data-testid=unknown-jaxpr] [data-testid=eqn][data-event='{ev['i']}']")
    assert pg.evaluate("() => window.stageLinks.at(-1)") == {"event": ev["i"], "line": ev["line"]}
    assert str(ev["i"]) in pg.evaluate(hl)
    k = ev["residuals"][0]
    edge = f"[data-testid=residual-edge][data-k='{k}']"
    assert "is-hl" in pg.get_attribute(edge, "class")
    # the residual's producer is highlighted too? no: hovering an equation links that event
    # (and the residuals it reads); the residual chip links producer and consumers
    pg.hover("[data-testid=residual-chip][data-residual='0']")
    r = rec["residuals"][0]
    assert pg.evaluate("() => window.stageLinks.at(-1)") == {
        "residual": 0, "event": r["producer"], "line": rec["events"][r["producer"]]["line"]}
    assert sorted(pg.evaluate(hl)) == sorted(str(i) for i in [r["producer"], *r["consumers"]])

    # keyboard: focusing an equation links it (CE#6153: not mouse only)
    pg.mouse.move(0, 0)
    pg.focus("[data-testid=known-jaxpr] [data-testid=eqn][data-event='0']")
    assert pg.evaluate("() => window.stageLinks.at(-1)") == {
        "event": 0, "line": rec["events"][0]["line"]}
    pg.evaluate("() => document.activeElement.blur()")
    assert pg.evaluate("() => window.stageLinks.at(-1)") is None
    assert pg.evaluate(hl) == []


# --------------------------------------------------------------------------- other modes


def test_jit_grad_checkpoint_records(open_stage):
    rec = record("jit")
    pg = open_stage("jit")
    eqns = pg.query_selector_all("[data-testid=staged-jaxpr] [data-testid=eqn]")
    assert [e.get_attribute("data-event") for e in eqns] == [
        str(i) for i in range(len(rec["events"]))]
    assert pg.query_selector("[data-testid=known-jaxpr]") is None
    assert pg.query_selector_all("[data-testid=residual-edge]") == []

    rec = record("grad")
    pg = open_stage("grad")
    for pane in rec["panes"]:
        els = pg.query_selector_all(f"[data-testid={pane['id']}-jaxpr] [data-testid=eqn]")
        assert len(els) == len(pane["program"]["eqns"])
    pg.wait_for_timeout(100)
    assert visible_edges(pg) == sum(len(r["consumers"]) for r in rec["residuals"])
    pg.evaluate("() => window.stage.setStep(0)")
    assert pg.is_hidden("[data-testid=backward-jaxpr] [data-testid=eqn]")

    # jax's own words for what grad saves
    assert pg.text_content(".st-saved pre").splitlines() == [
        f"{r['aval']} {r['description']}" for r in rec["saved_residuals"]]

    # checkpoint: the policies side by side, and the selected policy's split animated below
    rec = record("checkpoint")
    pg = open_stage("checkpoint")
    cards = pg.query_selector_all("[data-testid=policy-card]")
    assert len(cards) == len(rec["policies"])
    for p, card in zip(rec["policies"], cards):
        text = card.text_content()
        assert p.get("label", p["name"]) in text and f"{p['residual_bytes']} B" in text
        assert f"{p['recomputed']} equation" in text
        selected = p["name"] == rec["selected"]
        assert card.get_attribute("data-selected") == ("true" if selected else "false")
        assert card.query_selector("details").evaluate("(d) => d.open") is False
        bar = card.query_selector(".st-bar-fill").evaluate("(e) => parseFloat(e.style.width)")
        most = max(q["residual_bytes"] for q in rec["policies"])
        assert abs(bar - 100 * p["residual_bytes"] / most) < 0.2
    assert pg.is_visible("[data-testid=play]")
    # the steps go inside the checkpointed function's remat (issue 44)
    n = len(rec["events"][0]["call"]["events"])
    assert pg.text_content("[data-testid=step-counter]") == f"Step {n} of {n}" and n > 1
    pg.wait_for_timeout(100)
    assert visible_edges(pg) == sum(len(r["consumers"]) for r in rec["residuals"])

    # an older checkpoint record without a split: cards only, the selected one expanded
    pg.evaluate("""(rec) => window.stage.setRecord({mode: 'checkpoint', policies: rec.policies,
                                                   selected: 1})""", rec)
    assert pg.is_hidden("[data-testid=play]")
    opened = [c.query_selector("details").evaluate("(d) => d.open")
              for c in pg.query_selector_all("[data-testid=policy-card]")]
    assert opened == [i == 1 for i in range(len(rec["policies"]))]


def test_error_record_keeps_the_last_split_stale(open_stage):
    pg = open_stage("sin_cos")
    pg.evaluate("() => window.stage.setRecord("
                "{error: {type: 'trace', message: 'boom', lineno: 3}})")
    assert pg.get_attribute(".stage", "data-stale") == "true"
    assert len(pg.query_selector_all("[data-testid=eqn]")) == 5
    pg.evaluate("async () => window.stage.setRecord(await (await fetch("
                "'../../tests/fixtures/records/linearize.json')).json())")
    assert pg.get_attribute(".stage", "data-stale") is None


# --------------------------------------------------------------------------- performance


def test_200_equations_build_once_and_step_cheaply(open_stage):
    rec = record("chain200")
    assert len(rec["events"]) == 200
    pg = open_stage("chain200", step=0)
    assert len(pg.query_selector_all("[data-testid=eqn]")) == 200
    assert pg.evaluate("() => window.stageRenderMs") < 2000
    # Chromium's own count of layouts (CDP Performance.getMetrics), not a time: layout thrash
    # (reading layout between writes) would lay the page out several times per step
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Performance.enable")

    def layouts() -> int:
        return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]
                    if m["name"] == "LayoutCount")
    layouts_before = layouts()
    # steps never rebuild the DOM: they toggle classes on what changed, a bounded amount
    stats = pg.evaluate("""() => new Promise((resolve) => {
        const first = document.querySelector('[data-testid=eqn]');
        first.__marker = true;
        let childList = 0, attrs = 0, maxPerStep = 0;
        const mo = new MutationObserver((ms) => {
            for (const m of ms) {
                if (m.type === 'childList' && m.target.closest('.st-panes, .st-trace')) childList++;
            }
        });
        mo.observe(document.querySelector('.stage'), {subtree: true, childList: true});
        const counter = new MutationObserver((ms) => { attrs = ms.length; });
        counter.observe(document.querySelector('.st-content'), {subtree: true, attributes: true,
                                                                attributeFilter: ['class']});
        const frames = [];
        let s = 0, last = performance.now();
        function frame(now) {
            frames.push(now - last); last = now;
            window.stage.setStep(++s);
            maxPerStep = Math.max(maxPerStep, counter.takeRecords().length);
            if (s < 200) requestAnimationFrame(frame);
            else {
                mo.disconnect(); counter.disconnect();
                frames.sort((a, b) => a - b);
                resolve({childList, maxPerStep, same: document.querySelector('[data-testid=eqn]')
                         .__marker === true, median: frames[100],
                         step: window.stage.getStep()});
            }
        }
        requestAnimationFrame(frame);
    })""")
    assert stats["step"] == 200
    assert stats["same"], "setStep rebuilt the equations"
    assert stats["childList"] == 0, "setStep added or removed elements in the panes"
    assert stats["maxPerStep"] <= 16, stats
    print(f"\nchain200: median frame {stats['median']:.1f} ms while stepping every frame; "
          f"render {pg.evaluate('() => window.stageRenderMs'):.0f} ms")
    per_step = (layouts() - layouts_before) / 200
    print(f"chain200: {per_step:.2f} layouts per step")
    assert per_step <= 1.5, per_step
    # edges: one per residual, every one drawn whatever the scroll: a reader further than
    # the panes show at once is reached by stubs, the edge still counts; no two labels overlap
    assert len(pg.query_selector_all("[data-testid=residual-edge]")) == 100
    pg.evaluate("() => window.stage.drawn()")
    assert visible_edges(pg) == 100
    geo = pg.evaluate(EDGE_GEOMETRY)
    assert not overlapping([e["label"] for e in geo])
    # the SVG scrolls with the panes: a scroll redraws nothing, the labels move with them
    label = ("() => document.querySelector('[data-testid=residual-label] rect')"
             ".getBoundingClientRect().top")
    before = pg.evaluate(label)
    pg.evaluate("() => { const w = document.querySelector('[data-testid=panes]');"
                " w.scrollTop = 0; w.scrollTop = 400; }")
    pg.evaluate("() => window.stage.drawn()")
    assert visible_edges(pg) == 100
    assert [e["subpaths"] for e in pg.evaluate(EDGE_GEOMETRY)] == [e["subpaths"] for e in geo]
    assert pg.evaluate(label) != before


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [360, 1440])
def test_screenshots(open_stage, scheme, width):
    """Not an assertion of looks: writes /tmp/shots/stage-*.png for a human to check."""
    out = Path("/tmp/shots")
    out.mkdir(exist_ok=True)
    for name in ("sin_cos", "vector"):
        pg = open_stage(name, width=width, color_scheme=scheme)
        pg.wait_for_timeout(150)
        pg.screenshot(path=str(out / f"stage-{name}-{width}-{scheme}.png"), full_page=True)
        # contrast sanity: the narration text is not the same colour as its background
        fg, bg = pg.evaluate("""() => { const s = getComputedStyle(document.querySelector('body'));
            return [s.color, s.backgroundColor]; }""")
        assert fg != bg


# --------------------------------------------------------------------------- the build's frame

# The build draws the first record's stage into the HTML (tools/prerender.mjs) and records the
# order the stage's code made its elements in; the page's stage takes those elements over. Here
# the same, for every record: stage A draws it and records (as the build), its HTML is parsed
# into root B (as the browser does), and stage B takes it over. What B writes while doing so,
# but for the edges (drawn from the page's layout) and its root's build marks, is a defect.
ADOPT = r"""async ({ url, key, spoil = null }) => {
  const { createStage } = await import("/app/stage/index.js");
  const record = await (await fetch(url)).json();
  const a = document.createElement("div");
  document.body.append(a);
  const made = [];
  const sa = createStage(a, { recordFirstFrame: made });
  sa.setRecord(record, { key });
  const place = new Map([...a.querySelectorAll("*")].map((el, i) => [el, i]));
  const order = made.map((el) => place.get(el) ?? -1);
  // a build and a page that disagree: the page's last element not the build's, one more, one
  // fewer
  const section = place.get(a.querySelector("section"));
  if (spoil === "other") order[order.length - 1] = order.indexOf(section);
  if (spoil === "short") order.pop();
  if (spoil === "long") order.push(section);
  a.dataset.made = order.join(",");
  a.dataset.prerendered = key;
  const host = document.createElement("div");
  host.innerHTML = a.outerHTML;
  delete a.dataset.made;
  delete a.dataset.prerendered;
  const b = host.firstElementChild;
  document.body.append(b);
  const before = new Set(b.querySelectorAll("*"));
  const firstOld = new Map();
  const structural = [];
  const onEdges = (n) => Boolean((n.nodeType === 1 ? n : n.parentElement)?.closest("svg.st-edges"));
  const take = (recs) => {
    for (const r of recs) {
      if (onEdges(r.target)) continue;
      if (r.type !== "attributes") {
        const cls = r.target.getAttribute?.("class") ?? "";
        structural.push(`${r.type} in ${r.target.nodeName} ${cls}`);
        continue;
      }
      const mark = ["data-made", "data-prerendered", "style"].includes(r.attributeName);
      if (r.target === b && mark) continue;
      if (!firstOld.has(r.target)) firstOld.set(r.target, new Map());
      const olds = firstOld.get(r.target);
      if (!olds.has(r.attributeName)) olds.set(r.attributeName, r.oldValue);
    }
  };
  const mo = new MutationObserver(take);
  mo.observe(b, { subtree: true, childList: true, characterData: true, attributes: true,
                  attributeOldValue: true });
  const errors = [];
  const consoleError = console.error;
  console.error = (...args) => errors.push(args.join(" "));
  const sb = createStage(b);
  sb.setRecord(record, { key });
  console.error = consoleError;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  sa.drawn();
  sb.drawn();
  take(mo.takeRecords());
  mo.disconnect();
  const changed = [];
  for (const [el, olds] of firstOld) {
    for (const [name, old] of olds) {
      const now = el.getAttribute(name);
      if (now !== old) changed.push(`${el.localName}.${el.className} ${name}: ${old} -> ${now}`);
    }
  }
  const fresh = [...b.querySelectorAll("*")].filter((el) => !before.has(el)).length;
  const kept = [...before].filter((el) => el.isConnected).length;
  // ids are drawn at random when an element is made (a stage drawn anew has its own)
  const html = (root) => root.innerHTML.replace(/ (id|aria-labelledby)="[^"]*"/g, "");
  const same = [html(a) === html(b)];
  // the taken-over stage works as the one drawn: the same DOM at other steps
  for (const s of [0, 1, Math.floor(sa.stepCount() / 2), sa.stepCount()]) {
    sa.setStep(s);
    sb.setStep(s);
    sa.drawn();
    sb.drawn();
    same.push(html(a) === html(b) && sa.getStep() === sb.getStep());
  }
  const out = { structural, changed, fresh, kept, all: before.size, same, errors };
  sa.destroy();
  sb.destroy();
  a.remove();
  b.remove();
  return out;
}"""


@pytest.mark.parametrize("name", sorted(make_records()))
def test_the_build_frame_is_taken_over(open_stage, stage_base, name):
    pg = open_stage("sin_cos")
    url = stage_base.replace("app/stage/demo.html", f"{RECORDS_URL.strip('/')}/{name}.json")
    got = pg.evaluate(ADOPT, {"url": url, "key": f"key-{name}"})
    assert got["structural"] == [] and got["changed"] == [], got
    assert got["fresh"] == 0 and got["kept"] == got["all"], got
    assert all(got["same"]) and got["errors"] == [], got


@pytest.mark.parametrize("spoil", ["other", "short", "long"])
def test_a_build_frame_that_disagrees_is_drawn_anew(open_stage, stage_base, spoil):
    """The page's stage finds the build's order of elements not its own (another element at a
    place, one more made than the build made, or one fewer): it says so and draws the record
    anew, the same as a stage that never had a first frame, at every step."""
    pg = open_stage("sin_cos")
    url = stage_base.replace("app/stage/demo.html", f"{RECORDS_URL.strip('/')}/grad_mlp.json")
    got = pg.evaluate(ADOPT, {"url": url, "key": "key-grad-mlp", "spoil": spoil})
    assert len(got["errors"]) == 1 and "first frame" in got["errors"][0], got
    assert got["fresh"] > 0 and got["structural"], got
    assert all(got["same"]), got
