"""The stage's "Waiting for the Python engine to start" note is about the answer on screen: it
goes away as soon as an answer is drawn, whether Python gave it or the build's precomputed
files did (a link to another example, an embed of one), and never stays beside a ready engine."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.contexts import new_context
from tests.browser.test_page import open_page
from tools.page_code import permalinks

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {e["id"]: e
            for e in json.loads((ROOT / "app" / "examples.json").read_text())["examples"]}


def _link(example_id: str) -> str:
    """A link to an example that is not the opening one: its answer is in the build's files."""
    ex = EXAMPLES[example_id]
    link, = permalinks([{k: ex[k] for k in ("code", "known", "values", "mode")}])
    assert link["ok"], link
    return link["hash"]


@pytest.mark.parametrize("prefix", ["", "?embed"])
def test_waiting_note_leaves_once_the_engine_is_ready(page, site, wait_engine_ready, prefix):
    open_page(page, site, f"{prefix}#{_link('grad-mlp')}", wait_engine_ready=wait_engine_ready)
    assert page.evaluate("() => window.explainer.state().mode") == "grad"
    assert not page.is_visible("[data-testid=waiting]")


def test_a_precomputed_answer_ends_the_wait_before_python(browser, site):
    ctx = new_context(browser)
    ctx.route("**/pyodide.asm.wasm", lambda route: None)  # never answered: the engine stays loading
    page = ctx.new_page()
    try:
        page.goto(site + "#" + _link("split-cond"))
        page.wait_for_function("() => window.explainer?.state?.().unknown", timeout=30_000)
        assert page.get_attribute("[data-testid=engine]", "data-state") == "loading"
        source = page.evaluate("() => window.explainer.state().source")
        assert source == EXAMPLES["split-cond"]["code"]
        assert not page.is_visible("[data-testid=waiting]")
    finally:
        ctx.close()
