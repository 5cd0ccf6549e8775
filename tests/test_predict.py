"""Predict mode's state machine (app/stage/predict.js), run in Node on the stage's model of
records the engine makes here: the truth it asks against is the engine's judgement of each
equation, the operands it asks about at a mixed equation are the record's staged operands (in
the unknown pane's names, as the reveal and the narration speak), and the score counts what the
reader got right."""
from __future__ import annotations

import json
import shutil

import pytest

from pe_engine import explain
from tests.node_script import node_json_lines

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

SIN = "import jax\nimport jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.sin(x) * y\n"
SIN_ARGS = [{"known": True, "value": "1.0"}, {"known": False, "value": "2.0"}]
MLP = """import jax
import jax.numpy as jnp

def f(W1, W2, x):
    h = jnp.tanh(W1 @ x)
    y = W2 @ h
    return jnp.sum(y * y)
"""
MLP_ARGS = [{"known": False, "value": "ones((4, 3))"}, {"known": False, "value": "ones((2, 4))"},
            {"known": True, "value": "[1.0, 2.0, 3.0]"}]
MODES = {"split": {}, "grad": {}, "jit": {"eager_constant_folding": False},
         "checkpoint": {"policy": "nothing_saveable"}}
SIDE = {"known": "known", "known-dropped": "known", "unknown": "unknown",
        "unknown-dropped": "unknown", "staged": "unknown", "both": "both"}


def record(mode: str, source: str = SIN, args: list | None = None) -> dict:
    rec = explain.run(mode, source=source, args=args or SIN_ARGS, **MODES[mode])
    return json.loads(json.dumps(explain.as_json(rec)))


def run_machine(cases: list[tuple[dict, list[dict]]]) -> list[dict]:
    return node_json_lines("predict_machine.mjs", ({"record": r, "script": s} for r, s in cases))


def residual_operands(ev: dict) -> list[str]:
    """The operands that become residuals at a staged equation: the record's staged operands
    that receive a residual, in the unknown pane's names. A call that splits ("both") is asked
    no operands."""
    if SIDE[ev["side"]] != "unknown":
        return []
    return [o["name"] for o in ev.get("staged_operands", []) if o["residual"] is not None]


def truthful_script(rec: dict) -> list[dict]:
    script = []
    for ev in rec["events"]:
        script.append({"side": SIDE[ev["side"]]})
        if residual_operands(ev):
            script.append({"residuals": residual_operands(ev)})
    return script


def test_the_default_example_with_a_known_sequence_of_answers():
    rec = record("split")
    right, wrong, mixed = run_machine([
        (rec, [{"side": "known"}, {"side": "unknown"}, {"residuals": ["a"]}]),
        (rec, [{"side": "unknown"}, {"side": "known"}, {"residuals": ["b"]}]),
        (rec, [{"side": "known"}, {"side": "both"}, {"residuals": ["a", "b"]}]),
    ])
    # sin runs now; mul is staged, mixed: asked in the unknown pane's names (`c = mul a b`),
    # where its operand a is the residual the known program's b (sin x) crosses as
    asked = [(q["short"], q["staged"], q["truth"], q["operands"], q["sources"], q["residuals"])
             for q in right["questions"]]
    assert asked == [("c = sin a", "", "known", [], [], []),
                     ("d = mul c b", "c = mul a b", "unknown", ["a", "b"],
                      ["from line 5", "argument y"], ["a"])]
    assert rec["events"][1]["staged_operands"] == [
        {"name": "a", "residual": 0, "known_name": "b", "arg": None, "line": 5},
        {"name": "b", "residual": None, "known_name": None, "arg": "y", "line": None}]
    phases = [(s["phase"], s["at"]) for s in right["steps"]]
    assert phases == [("side", 1), ("residuals", 1), ("done", 2)]
    assert right["steps"][-1]["score"] == {"right": 3, "asked": 3,
                                           "sides": {"right": 2, "asked": 2},
                                           "residuals": {"right": 1, "asked": 1}}
    assert right["final"] == "You predicted 3 of 3: known or unknown 2 of 2; residuals 1 of 1."
    # the reveal is the engine's own sentence, in the names of the pane the equation lands in
    first = rec["events"][0]["narration"]
    assert right["steps"][0]["reveal"].startswith("Right: it is known. " + first)
    assert "`b = sin a` runs now" in rec["events"][0]["narration"]
    # half way through the mixed equation the side is revealed and the residual question asked
    assert right["steps"][1]["reveal"] == ("Right: it is unknown. "
                                           "Now: which of its operands become residuals?")
    assert right["steps"][2]["reveal"].startswith(
        "Right: it is unknown. Right: `a` becomes a residual. `c = mul a b` is staged in the "
        "unknown program")
    # the reveal's operand is the one the engine's narration names as the residual, here
    assert "becomes residual r0, `a` here" in right["steps"][2]["reveal"]
    assert wrong["steps"][-1]["score"]["right"] == 0
    assert wrong["steps"][0]["reveal"].startswith("Not this time: it is known.")
    assert mixed["final"] == "You predicted 1 of 3: known or unknown 1 of 2; residuals 0 of 1."


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("fn", ["sin", "mlp"])
def test_every_mode_asks_the_engines_judgement(mode, fn):
    rec = record(mode, *((SIN, SIN_ARGS) if fn == "sin" else (MLP, MLP_ARGS)))
    events = rec["events"]
    assert events
    (out,) = run_machine([(rec, truthful_script(rec))])
    assert out["total"] == len(events)
    assert [q["truth"] for q in out["questions"]] == [SIDE[e["side"]] for e in events]
    assert [q["residuals"] for q in out["questions"]] == [residual_operands(e) for e in events]
    # one set of names: each residual operand asked is the unknown pane's, as the narration
    # (the reveal's reason) names it, and the residual the record says it receives
    for ev in events:
        for o in ev["staged_operands"] if residual_operands(ev) else []:
            if o["residual"] is not None:
                r = rec["residuals"][o["residual"]]
                assert o["name"] == r["unknown_name"] and o["known_name"] == r["known_name"]
                assert f"residual r{o['residual']}, `{o['name']}` here" in ev["narration"]
    # split and grad ask some (checkpoint's outer event is one remat call; jit has no residuals)
    assert any(residual_operands(e) for e in events) == (mode in ("split", "grad"))
    # answered with the engine's own judgement, every answer is right and every step lands once
    last = out["steps"][-1]
    assert last["phase"] == "done" and last["at"] == len(events)
    assert last["score"]["right"] == last["score"]["asked"] == len(out["steps"])
    ats = [s["at"] for s in out["steps"]]
    assert ats == sorted(ats) and set(ats) - {0} == set(range(1, len(events) + 1))


def test_answers_out_of_turn_change_nothing():
    rec = record("split")
    script = [{"residuals": ["a"]}, {"side": "maybe"}, {"side": "known"}, {"side": "unknown"},
              {"side": "known"}, {"residuals": ["a", "nope"]}]
    (out,) = run_machine([(rec, script)])
    phases = [(s["phase"], s["at"], s["score"]["asked"]) for s in out["steps"]]
    assert phases == [("side", 0, 0), ("side", 0, 0), ("side", 1, 1), ("residuals", 1, 2),
                      ("residuals", 1, 2), ("done", 2, 3)]
    assert out["steps"][-1]["score"]["residuals"] == {"right": 1, "asked": 1}


def tour(records: list[dict | None]) -> list[list[dict]]:
    return node_json_lines("tour_steps.mjs", records)


def test_the_tour_speaks_of_the_readers_function_in_every_mode():
    recs = {mode: record(mode, MLP, MLP_ARGS) for mode in MODES}
    steps = dict(zip([*recs, "none"], tour([*recs.values(), None])))
    ids = ["rule", "residuals", "constant-folding", "variables", "interpreters"]
    for mode, path in steps.items():
        assert [s["id"] for s in path] == ids, mode
        assert all(s["targets"] and s["text"] for s in path), mode
    split = recs["split"]
    known = sum(e["side"] in ("known", "known-dropped") for e in split["events"])
    n = len(split["events"])
    rule, res, fold, _, interp = (s["text"] for s in steps["split"])
    assert rule.startswith(f"Your function traced {n} equations: {known} ran now (known)")
    assert f"Your split has {len(split['residuals'])} residual" in res
    assert f"`{split['residuals'][0]['known_name']}`" in res
    assert f"all {n} equations of your function are staged" in fold
    assert f"JaxprTrace ran {known} of these {n} equations" in interp
    # grad's events are the function with its tangents: said so, no count of the function's own
    grad = [s["text"] for s in steps["grad"]]
    n_grad = len(recs["grad"]["events"])
    assert grad[0].startswith(f"Under grad, your function with its tangents traced {n_grad}")
    assert "every equation of your function is staged" in grad[2]
    # jit: no residuals, every equation staged
    jit = [s["text"] for s in steps["jit"]]
    assert jit[0].startswith("In jit mode all") and jit[1].startswith("jit has no residuals")
    assert steps["none"][0]["text"].startswith("Your function has no traced equations yet")
