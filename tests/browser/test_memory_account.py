"""One memory figure (issue 44, point 2): for one split, the residual list, the policy cards and
the memory chart show the same total, activations + inputs kept.

The figures are read as the reader sees them (the first byte figure of the residual list's
summary, of a card's "Memory" and of a chart legend's "peak"), on the built page with the
engine running in the browser, and checked against the engine's account computed here in
CPython: activations (residuals the forward pass computes) + inputs kept.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from pe_engine import explain
from pe_engine.explain.record import POLICY_NAMES, POLICY_ROWS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {e["id"]: e for e in
            json.loads((ROOT / "app" / "examples.json").read_text())["examples"]}
sys.path.insert(0, str(ROOT / "tools"))
import precompute  # noqa: E402

UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}
BYTES = re.compile(r"(\d+(?:\.\d+)?) (B|KiB|MiB)\b")

# The three figures on the stage: the list's, each card's (by policy) and each chart line's
# (by the record's memory order, which the legend follows).
FIGURES = """() => {
  const stage = document.getElementById('stage');
  const text = (el) => (el ? el.textContent : null);
  const list = text(stage.querySelector('[data-testid=residuals] .st-res-head'));
  const cards = {};
  for (const card of stage.querySelectorAll('[data-testid=policy-card]')) {
    const dts = [...card.querySelectorAll('.st-ckpt-stats dt')];
    const dt = dts.find((d) => d.textContent === 'Memory');
    cards[card.dataset.policy] = text(dt?.nextElementSibling);
  }
  const legend = [...stage.querySelectorAll('.st-mem-legend li:not([data-testid=memory-pending])')];
  const chart = legend.map((li) => (li.textContent.match(/peak (.*)/) || [null, null])[1]);
  const memory = window.explainer.record().memory.map((l) => l.policy);
  return {list, cards, chart: Object.fromEntries(memory.map((p, i) => [p, chart[i]]))};
}"""
SETTLED = ("() => !document.querySelector('#stage [data-testid=policy-pending], "
           "#stage [data-testid=memory-pending]')")


def _bytes(text: str | None) -> int | None:
    """The first byte figure of a text ("84 B: 3 activations (40 B) + ..." -> 84)."""
    m = BYTES.search(text or "")
    return None if m is None else round(float(m.group(1)) * UNITS[m.group(2)])


def _total(example: str, mode: str, policy: str | None = None) -> int:
    """The engine's total for one split, activations + inputs kept, from CPython."""
    ex = {**EXAMPLES[example], "mode": mode, **({"policy": policy} if policy else {})}
    req, = precompute.page_requests([ex])
    rec = explain.as_json(explain.run(req["mode"], **req["kwargs"]))
    computed = sum(r["bytes"] for r in rec["residuals"] if r["known_eqn"] is not None)
    kept = sum(r["bytes"] for r in rec["residuals"] if r["known_eqn"] is None)
    assert kept  # the MLP keeps inputs: the figure the chart used to leave out
    return computed + kept


def _figures(pg) -> dict:
    pg.wait_for_function(SETTLED, timeout=120_000)
    f = pg.evaluate(FIGURES)
    return {"list": _bytes(f["list"]), "cards": {k: _bytes(v) for k, v in f["cards"].items()},
            "chart": {k: _bytes(v) for k, v in f["chart"].items()}}


def test_grad_list_and_chart_show_one_total(opened):
    pg = opened
    pg.evaluate("(id) => window.explainer.loadExample(id)", "grad-mlp")
    want = _total("grad-mlp", "grad")
    f = _figures(pg)
    assert f["list"] == f["chart"][""] == want, f


def test_every_checkpoint_policy_shows_one_total(opened):
    pg = opened
    # "no checkpoint" is plain grad's split
    want = {"no checkpoint": _total("checkpoint-dots", "grad"),
            **{p: _total("checkpoint-dots", "checkpoint", p) for p in POLICY_NAMES}}
    pg.evaluate("(id) => window.explainer.loadExample(id)", "checkpoint-dots")
    for policy in POLICY_NAMES:
        pg.evaluate("(p) => window.explainer.setPolicy(p)", policy)
        f = _figures(pg)
        assert sorted(f["cards"]) == sorted(f["chart"]) == sorted(POLICY_ROWS), f
        # the selected split's list, its card and its line; every other card and its line
        assert f["list"] == f["cards"][policy] == f["chart"][policy] == want[policy], (policy, f)
        for name in POLICY_ROWS:
            assert f["cards"][name] == f["chart"][name] == want[name], (policy, name, f)
