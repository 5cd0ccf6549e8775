"""Permalinks keep the checkpoint policy and jit's folding switch in every mode: a link made
in split mode after choosing them opens with them, and switching to checkpoint or jit (and
back) finds them; the link the page writes then still carries them."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.browser.test_page import open_page, state
from tools.page_code import permalinks

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CODE = "import jax.numpy as jnp\n\n\ndef f(x, y):\n    return jnp.sin(x) * jnp.dot(y, y)\n"


def _decode(url: str) -> dict:
    """The state in a link, read by the page's own decoder in Node."""
    line = json.dumps({"op": "decode", "hash": url.split("#", 1)[1]}) + "\n"
    proc = subprocess.run(["node", str(ROOT / "tools" / "permalink_decode.mjs")], input=line,
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=True)
    answer = json.loads(proc.stdout)
    assert answer["ok"], answer
    return answer["state"]


def _switch(page, mode: str) -> dict:
    page.click(f"[data-testid=mode-{mode}]")
    s = page.evaluate("() => window.explainer.settled()")
    assert s["mode"] == mode
    return s


def test_policy_and_folding_survive_mode_switches_and_links(page, site, wait_engine_ready):
    link, = permalinks([{"code": CODE, "known": {"x": True, "y": False},
                         "values": {"y": "[1.0, 2.0]"}, "mode": "split",
                         "policy": "dots_saveable", "folding": True}])
    open_page(page, site, "#" + link["hash"], wait_engine_ready=wait_engine_ready)
    s = state(page)
    assert (s["mode"], s["policy"], s["folding"]) == ("split", "dots_saveable", True)

    s = _switch(page, "checkpoint")
    assert page.input_value("[data-testid=policy]") == "dots_saveable"
    assert s["policy"] == "dots_saveable" and s["error"] is None
    s = _switch(page, "jit")
    assert page.is_checked("[data-testid=folding]")
    assert s["folding"] is True and s["error"] is None
    s = _switch(page, "split")

    url = page.evaluate("() => window.explainer.permalink()")
    decoded = _decode(url)
    assert (decoded["mode"], decoded["policy"], decoded["folding"]) == (
        "split", "dots_saveable", True)

    other = page.context.new_page()
    try:
        open_page(other, site, "#" + url.split("#", 1)[1], wait_engine_ready=wait_engine_ready)
        _switch(other, "jit")
        assert other.is_checked("[data-testid=folding]")
        _switch(other, "checkpoint")
        assert other.input_value("[data-testid=policy]") == "dots_saveable"
    finally:
        other.close()
