"""The linearize mode: jax.linearize as JVP + partial evaluation, the forward and linear panes
with no transpose, for any output. Built from table entries alone (README "How to add"): these
tests check the record; its "Copy as JAX" runs in real JAX beside it."""
from __future__ import annotations

import subprocess
import sys

import pytest

from pe_engine import explain
from pe_engine.explain.jaxcheck import printed_panes

MLP = """import jax
import jax.numpy as jnp

def loss(W1, W2, x):
    h = jnp.tanh(x @ W1)
    y = jnp.sin(h @ W2)
    return jnp.sum(y ** 2)
"""
MLP_ARGS = [{"value": "ones((4, 3))", "known": False},
            {"value": "[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]", "known": False},
            {"value": "[0.5, 1.0, -1.0, 2.0]", "known": True}]
# Outputs jax.grad refuses (a tuple of a vector and a scalar): linearize takes them. (An int
# output's tangent is JAX's float0, which the engine does not have: README "Differences".)
ANY_OUTPUT = """import jax.numpy as jnp

def f(x, y):
    h = jnp.sin(x) * y
    return h, jnp.cos(h).sum()
"""
ANY_ARGS = [{"value": "[0.5, 1.0, 2.0]", "known": False}, {"value": "2.0", "known": True}]


def _panes(rec: dict) -> dict[str, str]:
    return {p["id"]: p["program"]["text"] for p in rec["panes"]}


def test_linearize_is_grads_split_without_the_transpose():
    lin = explain.run("linearize", source=MLP, args=MLP_ARGS)
    grad = explain.run("grad", source=MLP, args=MLP_ARGS)
    assert "error" not in lin, lin.get("error")
    assert lin["mode"] == "linearize"
    assert [p["id"] for p in lin["panes"]] == ["forward", "linear"]
    grad_panes = _panes(grad)
    assert _panes(lin) == {k: grad_panes[k] for k in ("forward", "linear")}
    assert lin["residuals"] == grad["residuals"]
    assert lin["memory_account"] == grad["memory_account"]
    assert lin["memory"] == [] and "backward" not in lin
    # the held input is known, the differentiated ones are the linear program's tangents
    assert [a["known"] for a in lin["args"]] == [False, False, True]
    assert len(lin["unknown"]["invars"]) == len(lin["residuals"]) + 2


def test_linearize_takes_any_output():
    rec = explain.run("linearize", source=ANY_OUTPUT, args=ANY_ARGS)
    assert "error" not in rec, rec.get("error")
    # the linear program: one tangent per float output
    assert [v["aval"] for v in rec["unknown"]["outvars"]] == ["f32[3]", "f32[]"]
    # the forward program computes f's outputs now, then hands over the residuals
    assert len(rec["known"]["outvars"]) == 2 + len(rec["residuals"])
    assert rec["residuals"]


def test_linearize_asks_for_something_to_differentiate():
    args = [{**a, "known": True} for a in ANY_ARGS]
    rec = explain.run("linearize", source=ANY_OUTPUT, args=args)
    assert rec["error"]["message"].startswith("choose at least one input to differentiate")
    rec = explain.run("linearize", source="def f(n):\n    return n * 2\n",
                      args=[{"value": "3", "known": False}])
    assert "requires real floating-point inputs" in rec["error"]["message"]
    assert rec["error"]["input"] == "n"


@pytest.mark.parametrize("source, args", [(MLP, MLP_ARGS), (ANY_OUTPUT, ANY_ARGS)],
                         ids=["mlp", "any-output"])
def test_copy_as_jax_prints_both_panes_in_jax(source, args):
    pytest.importorskip("jax")
    rec = explain.run("linearize", source=source, args=args)
    proc = subprocess.run([sys.executable, "-c", rec["jax_snippet"]], cwd="/tmp",
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert printed_panes(proc.stdout) == _panes(rec)
