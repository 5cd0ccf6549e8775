"""Split mode's `instantiate` (one bool per output: a known output forced into the unknown
program, as JAX's `partial_eval_jaxpr_nounits(..., instantiate=[...])` forces it), against
real JAX: the engine's partial evaluator under every mask and every instantiate (with JAX's
self-run), and the split record the page draws (both programs text for text, out_unknowns, the
residuals, the panes) for the same requests."""
from __future__ import annotations

import itertools

import pytest
from differential import compare, from_source, split_instantiate

from pe_engine import explain
from pe_engine.explain.values import parse_value

jax = pytest.importorskip("jax")
from jax._src.interpreters import partial_eval as jpe  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

# name -> (source of `f`, the inputs' values as the page writes them)
WORKLOADS = {
    "known_outputs": ("def f(x, y):\n    a = jnp.sin(x)\n    return a, a * y, x, 2.0\n",
                      ["1.0", "2.0"]),
    "diamond": ("def f(x, y, z):\n    a = jnp.exp(x)\n    return a * y * (a + z), a\n",
                ["0.1", "[0.2, 0.3]", "0.3"]),
    "pytree_out": ("def f(x, y):\n    return {'a': jnp.sin(x), 'b': (x * y, jnp.cos(y))}\n",
                   ["[0.5, 1.0]", "2.0"]),
    "cond": ("def f(p, x, w):\n    return lax.cond(p > 0, lambda v: (jnp.sin(v), v * w),\n"
             "                    lambda v: (jnp.cos(v), v), x)\n", ["1.0", "[0.5, 1.5]", "0.7"]),
    "scan": ("def f(x, w):\n"
             "    return lax.scan(lambda c, v: (c * w + v, jnp.tanh(c)), 0.0, x)\n",
             ["[0.5, 1.5, -0.5]", "0.7"]),
    "nested_jit": ("def f(x, y):\n"
                   "    a, b = jax.jit(lambda u, v: (jnp.sin(u) * v, jnp.cos(u)))(x, y)\n"
                   "    return a + x, b\n", ["1.0", "2.0"]),
}


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name", WORKLOADS)
def test_partial_eval_every_mask_and_instantiate_matches_jax(name, impl):
    source, values = WORKLOADS[name]
    got, want = compare(split_instantiate, impl, from_source(source),
                        [parse_value(v) for v in values])
    assert got == want


def _jax_split(source: str, values: list[str], unknowns: list[bool], inst: list[bool]):
    namespace: dict = {}
    exec(HEADER + source, namespace)  # noqa: S102 - the test's own workload, run by JAX
    closed = jax.make_jaxpr(namespace["f"])(*[parse_value(v) for v in values])
    return jpe.partial_eval_jaxpr_nounits(closed, unknowns, inst)


@pytest.mark.parametrize("name", WORKLOADS)
def test_split_record_follows_instantiate_as_jax(name):
    source, values = WORKLOADS[name]
    n_out = len(_jax_split(source, values, [False] * len(values), False)[2])
    for unknowns in itertools.product([False, True], repeat=len(values)):
        for inst in itertools.product([False, True], repeat=n_out):
            rec = explain.run("split", source=HEADER + source, instantiate=list(inst),
                              args=[{"value": v, "known": not uk}
                                    for v, uk in zip(values, unknowns)])
            known, unknown, out_uk, res = _jax_split(source, values, list(unknowns), list(inst))
            where = f"{name} unknowns={unknowns} instantiate={inst}"
            assert rec["known"]["text"] == str(known), where
            assert rec["unknown"]["text"] == str(unknown), where
            assert rec["out_unknowns"] == list(out_uk), where
            assert rec["instantiate"] == list(inst), where
            assert [r["aval"] for r in rec["residuals"]] == [
                a.str_short(short_dtypes=True) for a in res], where
            # a forced output is an unknown output: the unknown pane hands it out
            assert all(uk for uk, i in zip(rec["out_unknowns"], inst) if i), where
            kpane, upane = rec["panes"]
            assert sum(o["residual"] is not None for o in kpane["outputs"]) == len(res), where
            assert sum(i["residual"] is not None for i in upane["inputs"]) == len(res), where


def test_no_instantiate_is_none_forced():
    source, values = WORKLOADS["known_outputs"]
    args = [{"value": "1.0"}, {"value": "2.0", "known": False}]
    rec = explain.run("split", source=HEADER + source, args=args)
    assert rec["instantiate"] == [False] * 4
    assert rec == explain.run("split", source=HEADER + source, args=args,
                              instantiate=[False] * 4)


def test_a_forced_known_output_becomes_a_residual_the_unknown_program_returns():
    source, _ = WORKLOADS["known_outputs"]
    args = [{"value": "1.0"}, {"value": "2.0", "known": False}]
    rec = explain.run("split", source=HEADER + source, args=args,
                      instantiate=[True, False, False, False])
    assert rec["unknown"]["text"] == ("{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b "
                                      "in (a, c) }")
    sin = next(e for e in rec["events"] if e["primitive"] == "sin")
    (res,) = rec["residuals"]
    assert res["producer"] == sin["i"] and res["value"] == "0.8415"


@pytest.mark.parametrize("inst,kind,message", [
    ([True], "instantiate", "instantiate has 1 entry, but f returns 4 outputs"),
    ([True] * 5, "instantiate", "instantiate has 5 entries, but f returns 4 outputs"),
    # not a list of booleans: the request contract refuses it before anything is traced
    ([1, 0, 0, 0], "request", "the request breaks the contract: request.instantiate[0]: "
     "expected boolean; request.instantiate[1]: expected boolean; request.instantiate[2]: "
     "expected boolean; request.instantiate[3]: expected boolean"),
    ("yes", "request", "the request breaks the contract: request.instantiate: matches none "
     "of the allowed shapes"),
])
def test_bad_instantiate_is_a_clear_error(inst, kind, message):
    source, _ = WORKLOADS["known_outputs"]
    rec = explain.run("split", source=HEADER + source, instantiate=inst,
                      args=[{"value": "1.0"}, {"value": "2.0", "known": False}])
    assert rec["error"] == {"type": kind, "message": message, "lineno": None}
