"""Checkpoint's selected policy first (issue 14): a record asked with only_selected, then one
checkpoint_policy answer per pending policy, merged by the page, is exactly the record of
every policy (the one the CLI and the build's precompute ask for)."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import jsonschema
import pytest

from pe_engine import explain
from pe_engine.explain import entry, schema
from pe_engine.explain.record import POLICY_ROWS
from tests.node_script import node_json_lines

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from precompute import page_requests  # noqa: E402 - the page's request, built by the page's code

EXAMPLES = [e for e in json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
            if e["mode"] == "checkpoint"]
# A function of my own: a named value, a scan-free loop, a held (known) input
PASTED = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

def g(w, b, x, scale):
    for _ in range(2):
        x = checkpoint_name(jnp.cos(x @ w + b), "act")
    return jnp.sum(x * x) * scale
"""
PASTED_ARGS = [{"known": False, "value": "full((3, 3), 0.2)"},
               {"known": False, "value": "[0.1, 0.2, 0.3]"},
               {"known": True, "value": "ones((2, 3))"}, {"known": True, "value": "2.0"}]


def _requests() -> list[dict]:
    reqs = [r["kwargs"] for r in page_requests(EXAMPLES)]
    return [*reqs, *({"source": PASTED, "args": PASTED_ARGS, "policy": p}
                     for p in ("save_only_these_names", "everything_saveable"))]


def _json(x: dict) -> dict:
    return json.loads(json.dumps(explain.as_json(x)))


def page_merged(cases: list[tuple[dict, list[dict]]]) -> list[dict]:
    """What the page makes of each (first answer, policy answers): its own merge
    (app/page/pending-policies.js, run in Node by tests/js/merge_policies.mjs)."""
    return node_json_lines("merge_policies.mjs", ({"first": f, "answers": a} for f, a in cases))


@pytest.fixture(scope="module", params=range(len(EXAMPLES) + 2))
def case(request) -> tuple[dict, dict, list[dict]]:
    """(the whole record, the first answer, the pending policies' answers) for one request."""
    kw = _requests()[request.param]
    whole = _json(explain.run("checkpoint", **kw))
    first = _json(explain.run("checkpoint", **kw, only_selected=True))
    rest = [_json(explain.checkpoint_policy(**{**kw, "policy": p}))
            for p in first["pending_policies"]]
    return whole, first, rest


def test_the_first_answer_is_the_selected_policy_alone(case):
    whole, first, _ = case
    assert whole["pending_policies"] == []
    assert [p["name"] for p in first["policies"]] == [whole["selected"]]
    assert [m["policy"] for m in first["memory"]] == [whole["selected"]]
    assert first["pending_policies"] == [p for p in POLICY_ROWS if p != whole["selected"]]
    # the stage's split is the selected policy's, whole
    for key in ("events", "panes", "residuals", "known", "unknown", "backward",
                "saved_residuals", "jax_snippet", "names", "args"):
        assert first[key] == whole[key], key


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_pages_merge_makes_the_whole_record(case):
    whole, first, rest = case
    # in the order the page asks, and in any other
    in_order, reversed_ = page_merged([(first, rest), (first, rest[::-1])])
    assert in_order == whole
    assert reversed_ == whole


def test_answers_keep_the_contract(case):
    _, first, rest = case
    defs = schema.record_schema()["$defs"]
    for name, answer in [("CheckpointRecord", first), *(("PolicyAnswer", a) for a in rest)]:
        v = jsonschema.Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})
        assert not list(v.iter_errors(answer)), name


def test_the_worker_can_call_it_and_errors_are_answers():
    kw = {"source": PASTED, "args": PASTED_ARGS, "policy": "no checkpoint"}
    answer = json.loads(entry.call("pe_engine.explain.checkpoint_policy", json.dumps(kw)))
    assert answer["ok"] and answer["result"]["policy"]["name"] == "no checkpoint"
    assert answer["result"]["memory"]["policy"] == "no checkpoint"
    # a policy no card has breaks the request contract (request_contract.PolicyRequest)
    bad = explain.checkpoint_policy(**{**kw, "policy": "save_twice"})
    assert bad["error"]["type"] == "request" and "request.policy" in bad["error"]["message"]
    broken = explain.checkpoint_policy(**{**kw, "source": "def g(x):\n    return x +\n"})
    assert broken["error"]["lineno"] == 2


def _without_calls(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in ev.items() if k != "call"} for ev in events]


@pytest.mark.parametrize("n", range(len(EXAMPLES) + 2))
def test_a_policy_not_drawn_is_split_alike_with_its_calls_unopened(n):
    # the cards of the policies not selected never show their calls: they are not opened,
    # and everything else of the policy's record is as it is with them opened
    from pe_engine.explain.autodiff import _load_checkpoint, _policy_record
    kw = _requests()[n]
    ld = _load_checkpoint(kw["source"], kw["args"], kw.get("fn"))
    for name in POLICY_ROWS:
        card, rec = _policy_record(ld, name, True)
        card_unopened, rec_unopened = _policy_record(ld, name, False)
        assert _json(card_unopened) == _json(card)
        opened = [ev for ev in rec["events"] if "call" in ev]
        assert opened or name == "no checkpoint"  # every policy but none puts a remat call
        assert not [ev for ev in rec_unopened["events"] if "call" in ev]
        assert rec_unopened.get("unopened_calls", []) == [ev["i"] for ev in opened]
        assert "unopened_calls" not in rec
        assert _json({**rec_unopened, "events": [], "unopened_calls": None}) == _json(
            {**rec, "events": [], "unopened_calls": None})
        # the narration still says a call is a call
        assert _without_calls(_json(rec_unopened)["events"]) == _without_calls(
            _json(rec)["events"])
