"""The residual memory lines of grad and checkpoint records (issue 12): live residual bytes
over the forward then the backward pass, one line per policy."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pe_engine import explain

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from precompute import page_requests  # noqa: E402 - the page's request, built by the page's code

EXAMPLES = {e["id"]: e for e in
            json.loads((ROOT / "app" / "examples.json").read_text())["examples"]}


def _record(example: str, mode: str) -> dict:
    (req,) = page_requests([{**EXAMPLES[example], "mode": mode}])
    rec = explain.run(req["mode"], **req["kwargs"])
    assert "error" not in rec, rec.get("error")
    return rec


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {(ex, mode): _record(ex, mode) for ex in ("grad-mlp", "checkpoint-nothing",
                                                     "grad-scan", "grad-jit-inside")
            for mode in ("grad", "checkpoint")}


def test_every_line_keeps_its_invariants(records):
    for (ex, mode), rec in records.items():
        assert len(rec["memory"]) == (1 if mode == "grad" else len(rec["policies"]))
        for line in rec["memory"]:
            points = line["points"]
            assert [p["step"] for p in points] == list(range(len(points)))
            phases = [p["phase"] for p in points]
            assert phases == sorted(phases, key=["forward", "backward"].index), (ex, mode)
            assert line["peak_bytes"] == max(p["bytes"] for p in points)
            assert all(p["bytes"] >= 0 for p in points)
            # the inputs kept live throughout; every activation is freed by the end
            assert points[-1]["phase"] == "backward", (ex, mode)
            assert points[-1]["bytes"] == line["account"]["input_bytes"], (ex, mode)
            assert min(p["bytes"] for p in points) == line["account"]["input_bytes"]
            forward = [p["bytes"] for p in points if p["phase"] == "forward"]
            assert forward == sorted(forward)  # the forward pass only makes residuals
            backward = [p["bytes"] for p in points if p["phase"] == "backward"]
            assert backward == sorted(backward, reverse=True)  # the backward only frees them


def test_grad_line_is_the_records_residuals(records):
    rec = records[("grad-mlp", "grad")]
    (line,) = rec["memory"]
    computed = sum(r["bytes"] for r in rec["residuals"] if r["known_eqn"] is not None)
    kept = sum(r["bytes"] for r in rec["residuals"] if r["known_eqn"] is None)
    assert kept and computed  # the MLP keeps W2 and x beside its activations
    assert max(p["bytes"] for p in line["points"] if p["phase"] == "forward") == computed + kept
    assert line["recomputed"] == rec["recomputed"] == 0
    n_fwd = len(rec["panes"][0]["program"]["eqns"])
    assert [p["eqn"] for p in line["points"] if p["phase"] == "forward"] == list(range(n_fwd))


@pytest.mark.parametrize("example", ["grad-mlp", "checkpoint-nothing"])
def test_saving_nothing_costs_less_memory_and_more_recompute(records, example):
    lines = {line["policy"]: line for line in records[(example, "checkpoint")]["memory"]}
    nothing, everything = lines["nothing_saveable"], lines["everything_saveable"]
    # fewer activations; the inputs kept may grow (the MLP's nothing_saveable keeps W1 too)
    assert nothing["account"]["activation_bytes"] < everything["account"]["activation_bytes"]
    assert nothing["recomputed"] > everything["recomputed"]
    policies = records[(example, "checkpoint")]["policies"]
    assert [line["policy"] for line in records[(example, "checkpoint")]["memory"]] == [
        p["name"] for p in policies]
    assert all(line["recomputed"] == p["recomputed"] for line, p in
               zip(records[(example, "checkpoint")]["memory"], policies))


def test_one_account_everywhere(records):
    """Issue 44: the residual list, the policy cards and the memory chart show one total for
    one split, activations + inputs kept (tests/browser/test_memory_account.py: the page)."""
    for (ex, mode), rec in records.items():
        acct = rec["memory_account"]
        assert acct["total_bytes"] == acct["activation_bytes"] + acct["input_bytes"]
        listed = sum(r["bytes"] for r in rec["residuals"])
        assert acct["total_bytes"] == rec["residual_bytes"] == listed
        assert acct["activations"] + acct["inputs_kept"] == len(rec["residuals"])
        lines = rec["memory"]
        if mode == "grad":
            assert lines[0]["account"] == acct and lines[0]["peak_bytes"] == acct["total_bytes"]
            continue
        for line, card in zip(lines, rec["policies"], strict=True):
            assert line["account"] == card["account"], (ex, card["name"])
            assert line["peak_bytes"] == card["residual_bytes"] == card["account"]["total_bytes"]
            assert card["residual_count"] == len(card["saved_residuals"]), (ex, card["name"])
            if card["name"] == rec["selected"]:
                assert card["account"] == acct
