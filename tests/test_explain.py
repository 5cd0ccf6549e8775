"""The explanation record: enough to animate the split without calling back."""
from __future__ import annotations

import json

import pytest

from pe_engine import explain
from tests.fixtures.make_records import SIN_COS as SEED


def split(known_x=True, known_y=False, source=SEED, **kw):
    return explain.run("split", source=source, args=[
        {"known": known_x, "value": "2.0"}, {"known": known_y, "value": "3.0"}], **kw)


def test_record_is_plain_json():
    rec = split()
    assert json.loads(json.dumps(rec)) == rec


def test_events_follow_trace_order_with_decisions_and_reasons():
    rec = split()
    assert [e["short"] for e in rec["events"]] == [
        "c = sin a", "d = mul c b", "e = cos a", "f = add e 1.0:f32[]", "g = add d f"]
    assert [e["side"] for e in rec["events"]] == ["known", "unknown", "known", "known", "unknown"]
    assert [e["line"] for e in rec["events"]] == [3, 4, 5, 5, 6]
    mul = rec["events"][1]
    assert [(i["name"], i["known"], i["origin"]) for i in mul["inputs"]] == [
        ("c", True, "equation 0"), ("b", False, "argument y")]
    # issue 44: said in the names of the pane that holds the equation (the unknown program's
    # `d = mul a c`, not the traced `d = mul c b`), its inputs named as the user wrote them
    assert mul["unknown_short"] == ["d = mul a c"] and mul["known_short"] == []
    assert mul["narration"] == (
        "`d = mul a c` is staged in the unknown program: `c` is the unknown input y; the known "
        "program's `b` becomes residual r0, `a` here.")
    assert rec["events"][0]["value"] == ["0.9093"]
    assert rec["events"][0]["narration"] == (
        "`b = sin a` runs now: every input is known (`a` is x); b = 0.9093.")
    # each event carries its source line as the user wrote it
    assert [e["source"] for e in rec["events"]] == [
        "a = jnp.sin(x)", "b = a * y", "c = jnp.cos(x) + 1.0", "c = jnp.cos(x) + 1.0",
        "return b + c"]


def test_both_programs_print_as_jax_prints_them_and_map_back_to_events():
    rec = split()
    assert rec["known"]["text"] == ("{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n"
                                    "    c:f32[] = cos a\n    d:f32[] = add c 1.0:f32[]\n"
                                    "  in (b, d) }")
    assert rec["unknown"]["text"] == ("{ lambda ; a:f32[] b:f32[] c:f32[]. let\n"
                                      "    d:f32[] = mul a c\n    e:f32[] = add d b\n  in (e,) }")
    for ev in rec["events"]:
        for k in ev["known_eqns"]:
            assert rec["known"]["eqns"][k].split(" = ")[1].split()[0] == ev["primitive"]
        for u in ev["unknown_eqns"]:
            assert rec["unknown"]["eqns"][u].split(" = ")[1].split()[0] == ev["primitive"]
    assert rec["known"]["header"] + " " + "; ".join(rec["known"]["eqns"]) != ""


def test_residuals_carry_producer_consumers_names_and_bytes():
    rec = split()
    assert [(r["known_name"], r["unknown_name"], r["aval"], r["bytes"], r["producer"],
             r["consumers"]) for r in rec["residuals"]] == [
        ("b", "a", "f32[]", 4, 0, [1]), ("d", "b", "f32[]", 4, 3, [4])]
    assert rec["residual_bytes"] == 8 and rec["out_unknowns"] == [True]
    assert rec["events"][1]["residuals"] == [0] and rec["events"][4]["residuals"] == [1]


def test_a_known_input_read_by_unknown_work_is_a_residual_too():
    src = "import jax.numpy as jnp\ndef g(a, b):\n    return jnp.sin(a) * b, a * b\n"
    rec = split(source=src)
    assert [r["from_input"] for r in rec["residuals"]] == [None, "a"]
    assert rec["known"]["text"] == "{ lambda ; a:f32[]. let b:f32[] = sin a in (b, a) }"


def test_all_known_runs_everything_now():
    rec = split(known_y=True)
    assert {e["side"] for e in rec["events"]} == {"known"}
    assert rec["residuals"] == [] and rec["unknown"]["eqns"] == []


def test_dead_unknown_equation_is_reported_dropped():
    src = "import jax.numpy as jnp\ndef g(x, y):\n    jnp.cos(y)\n    return jnp.sin(x)\n"
    rec = split(source=src)
    assert [e["side"] for e in rec["events"]] == ["unknown-dropped", "known"]


def test_jit_record_keeps_sin_of_a_literal_and_folding_removes_it():
    src = "import jax.numpy as jnp\ndef f(x):\n    return x + jnp.sin(1.0)\n"
    rec = explain.run("jit", source=src, args=[{"value": "1.0"}])
    assert "b:f32[] = sin 1.0:f32[]" in rec["program"]["text"]
    assert rec["const_fold_rules"] == ["convert_element_type", "device_put", "stage"]
    assert "no constant-folding rule" in rec["events"][0]["narration"]
    folded = explain.run("jit", source=src, args=[{"value": "1.0"}], eager_constant_folding=True)
    assert "sin" not in folded["program"]["text"]
    assert [v["name"] for v in folded["program"]["constvars"]] == ["a"]


@pytest.mark.parametrize("source,args,kind,line,words", [
    ("def f(x):\n    return x +\n", [{"value": "1.0"}], "syntax", 2, "SyntaxError"),
    ("import os\ndef f(x):\n    return x\n", [{"value": "1.0"}], "restricted", 1, "'os'"),
    ("def f(x):\n    return x.__class__\n", [{"value": "1.0"}], "restricted", 2, "__class__"),
    ("def f(x):\n    return eval('x')\n", [{"value": "1.0"}], "restricted", 2, "eval"),
    ("def f(x, y):\n    return x\n", [{"value": "1.0"}], "arity", 1, "takes 2 input"),
    ("def f(x):\n    return x\n", [{"value": "[1, [2]]"}], "value", None, "input x"),
    ("import jax.numpy as jnp\ndef f(x):\n    y = jnp.sin(x)\n    return y + jnp.ones(4)\n",
     [{"value": "[1.0, 2.0, 3.0]"}], "trace", 4, "incompatible shapes"),
    ("def f(x):\n    if x > 0:\n        return x\n    return -x\n",
     [{"value": "1.0", "known": False}], "trace", 2,
     "TracerBoolConversionError: Attempted boolean conversion of traced array with shape "
     "bool[].\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors."
     "TracerBoolConversionError"),
])
def test_errors_are_located_in_the_users_code(source, args, kind, line, words):
    rec = explain.run("split", source=source, args=args)
    assert rec["error"]["type"] == kind
    assert rec["error"]["lineno"] == line
    assert words in rec["error"]["message"]


BRANCH = """import jax.numpy as jnp

def f(x, y):
    s = jnp.sum(x)
    if s > 0:
        return jnp.sin(x) * y
    return y * 2.0
"""


@pytest.mark.parametrize("mode", ["split", "grad"])
@pytest.mark.parametrize("x,taken", [("[1.0, 2.0]", True), ("[-1.0, -2.0]", False)])
def test_a_known_value_decides_python_control_flow(mode, x, taken):
    # As in JAX's partial evaluator (and jax.linearize), a known input is held: the branch
    # its value selects is traced, and the record says which value decided it, where.
    rec = explain.run(mode, source=BRANCH, args=[{"value": x}, {"value": "3.0",
                                                                 "known": mode == "grad"}])
    assert "error" not in rec, rec.get("error")
    (d,) = rec["decisions"]
    assert (d["line"], d["kind"], d["value"]) == (5, "bool", taken)
    assert rec["events"][d["event"]]["primitive"] == "gt"
    assert rec["events"][d["event"]]["side"] in ("known", "known-dropped")
    assert ("sin" in rec["program"]["text"]) == taken  # only the branch taken is traced


def test_unknown_mode_is_an_error_not_a_crash():
    assert explain.run("nope")["error"]["type"] == "mode"


INTERP = """import jax.numpy as jnp

def f(x, y):
    a = jnp.sin(x)
    unused = jnp.cos(y)
    return a * y + jnp.sin(1.0)
"""


def test_two_interpreters_side_by_side():
    rec = explain.run("interpreters", source=INTERP, args=[
        {"known": True, "value": "2.0"}, {"known": False, "value": "[1.0, 3.0]"}])
    pe, dyn = rec["jaxpr_trace"], rec["dynamic_trace"]
    # JaxprTrace computed sin(x) and sin(1.0) now: both are residuals, not equations
    assert [v["name"] for v in pe["program"]["constvars"]] == ["a", "b"]
    assert pe["residuals"] == ["0.9093", "0.8415"]
    assert [e.split(" = ")[1].split()[0] for e in pe["program"]["eqns"]] == ["mul", "add"]
    # every operation passes through JaxprTrace: the known ones are executed there
    assert [(e["primitive"], e["decision"]) for e in pe["log"]] == [
        ("sin", "executed"), ("cos", "recipe"), ("convert_element_type", "executed"),
        ("mul", "recipe"), ("sin", "executed"), ("convert_element_type", "executed"),
        ("add", "recipe")]
    # DynamicJaxprTrace staged everything, the unused cos included ...
    assert [f["short"].split(" = ")[1].split()[0] for f in dyn["frame"]] == [
        "sin", "cos", "convert_element_type", "mul", "sin", "convert_element_type", "add"]
    # ... which an auto-DCE frame collects before the jaxpr is built
    assert [f["collected"] for f in dyn["frame"]] == [False, True] + [False] * 5
    assert "cos" not in dyn["auto_dce_program"]["text"] and "cos" in dyn["program"]["text"]


def test_variables_carry_identity_name_and_recipe_origin():
    rec = explain.run("interpreters", source=INTERP, args=[
        {"known": True, "value": "2.0"}, {"known": False, "value": "[1.0, 3.0]"}])
    vs = rec["jaxpr_trace"]["variables"]
    by_origin = {}
    for v in vs:
        by_origin.setdefault(v["origin"], []).append(v)
    assert [v["name"] for v in by_origin["ConstVar"]] == ["a", "b"]
    assert [v["name"] for v in by_origin["LambdaBinding"]] == ["c"]
    assert all(v["repr"].startswith("Var(id=") for v in vs if v["origin"] != "Literal")
    assert len({v["repr"] for v in vs}) == len(vs)
    staged = rec["dynamic_trace"]["variables"]
    assert [v["origin"] for v in staged if v["name"] == "_"] == ["DropVar"]
    assert any(v["origin"] == "Literal" and v["value"] == "1.0" for v in staged)
