"""A split with its calls unopened (issue 14): the page asks an edit's split with open_calls
false (grad's with saved false too), draws it, then asks the same request whole for the rest.
The record without them is the whole record less each call event's `call`, and names those
events in `unopened_calls`; grad's has saved_residuals and saved_bytes None."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from pe_engine import explain
from pe_engine.explain import record, request_contract, schema
from pe_engine.explain.calls import INNER

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from precompute import page_requests  # noqa: E402 - the page's requests, by the page's code

EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
# the modes whose request may leave the calls unopened (request_contract.py)
OPENING = {m for m, r in request_contract.REQUESTS.items() if "open_calls" in r.__annotations__}
REQUESTS = [r for r in page_requests(EXAMPLES) if r["mode"] in OPENING]


def _json(x: dict) -> dict:
    return json.loads(json.dumps(explain.as_json(x)))


def _first(req: dict) -> dict:
    """The record an edit asks first, as app/page/pending-policies.js's firstRequest asks it
    (less its selected policy alone: test_checkpoint_pending.py)."""
    saved = {"saved": False} if req["mode"] == "grad" else {}
    return _json(explain.run(req["mode"], **req["kwargs"], open_calls=False, **saved))


@pytest.mark.parametrize("req", REQUESTS, ids=lambda r: r["key"][:60])
def test_a_first_answer_is_the_whole_record_less_its_calls_and_saved_residuals(req):
    whole = _json(explain.run(req["mode"], **req["kwargs"]))
    first = _first(req)
    calls = [ev["i"] for ev in whole["events"] if "call" in ev]
    assert calls == [ev["i"] for ev in whole["events"] if ev["primitive"] in INNER]
    assert first.get("unopened_calls", []) == calls
    assert "unopened_calls" not in whole
    assert not [ev for ev in first["events"] if "call" in ev]
    opened = {**first, "events": [{**ev, **({"call": w["call"]} if "call" in w else {})}
                                  for ev, w in zip(first["events"], whole["events"])]}
    opened.pop("unopened_calls", None)
    if req["mode"] == "grad":
        # what print_saved_residuals prints is left to the whole request
        assert first["saved_residuals"] is None and first["saved_bytes"] is None
        assert isinstance(whole["saved_residuals"], list)
        opened.update(saved_residuals=whole["saved_residuals"], saved_bytes=whole["saved_bytes"])
    assert opened == whole
    name = record.RECORDS[req["mode"]].__name__
    v = jsonschema.Draft202012Validator({"$defs": schema.record_schema()["$defs"],
                                         "$ref": f"#/$defs/{name}"})
    assert not list(v.iter_errors(first))


def test_some_example_has_calls_in_every_mode():
    # the test above compares something: calls unopened in each of those modes
    modes = {r["mode"] for r in REQUESTS if _first(r).get("unopened_calls")}
    assert modes == OPENING
