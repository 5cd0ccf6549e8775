"""Grad and checkpoint records: forward, linear and backward programs, residual memory."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from pe_engine import explain
from pe_engine.explain import autodiff as explain_autodiff
from pe_engine.explain.values import parse_value

MLP = """import jax
import jax.numpy as jnp

def loss(W1, W2, x):
    h = jnp.tanh(x @ W1)
    y = jnp.sin(h @ W2)
    return jnp.sum(y ** 2)
"""
ARGS = [{"value": "ones((4, 3))"}, {"value": "[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]"},
        {"value": "[0.5, 1.0, -1.0, 2.0]"}]


@functools.cache
def grad_record():
    return explain.run("grad", source=MLP, args=ARGS)


@functools.cache
def checkpoint_record(policy="nothing_saveable"):
    return explain.run("checkpoint", source=MLP, args=ARGS, policy=policy)


def test_grad_has_three_programs_and_residuals_between_them():
    rec = grad_record()
    assert [p["id"] for p in rec["panes"]] == ["forward", "linear", "backward"]
    n_res = len(rec["residuals"])
    # forward: (primal out, *residuals); linear: (*residuals, *tangents); backward: cotangents
    assert len(rec["known"]["outvars"]) == 1 + n_res
    assert len(rec["unknown"]["invars"]) == n_res + 3
    assert len(rec["backward"]["outvars"]) == 3
    assert all(e["side"] in ("known", "unknown") for e in rec["events"])
    assert rec["residual_bytes"] == sum(r["bytes"] for r in rec["residuals"])


def test_grad_residuals_are_the_activations_jax_saves():
    rec = grad_record()
    descriptions = [r["description"] for r in rec["saved_residuals"]]
    assert "output of tanh from line 5 (loss)" in descriptions
    assert "output of cos from line 6 (loss)" in descriptions
    assert "from the argument W1" in descriptions
    assert len(rec["saved_residuals"]) == len(rec["residuals"])


def test_grad_values_match_jax():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    W1 = np.ones((4, 3), np.float32)
    W2 = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], np.float32)
    x = np.array([0.5, 1.0, -1.0, 2.0], np.float32)
    g = jax.grad(lambda W1, W2, x: jnp.sum(jnp.sin(jnp.tanh(x @ W1) @ W2) ** 2),
                 argnums=(0, 1, 2))(W1, W2, x)
    rec = grad_record()
    from pe_engine.explain.values import format_value
    assert rec["grads"] == [format_value(np.asarray(v)) for v in g]


GRAD_CASES = {  # body of f(x, y), the inputs differentiated (the others held)
    "held": ("return jnp.sum(jnp.sin(x) * y)", [0]),
    "both": ("return jnp.sum(jax.nn.relu(x - 1.0) ** 2) * y + y", [0, 1]),
    "jit": ("return jax.jit(lambda a, b: jnp.tanh(a) * b)(x, y).sum()", [0, 1]),
    "scan": ("return lax.scan(lambda c, a: (c * y + a, c), 0.5, x)[0]", [0, 1]),
    "python-if": ("return jnp.sum(x) * y if y > 1.0 else jnp.sum(x)", [0]),
    "unused": ("return y * 2.0", [0]),
    "constant": ("return 1.5", [0, 1]),
}


@pytest.mark.parametrize("case", GRAD_CASES)
def test_grad_values_are_the_gradients_grad_computes(case):
    """The gradient shown is the backward program run on the forward program's residuals:
    it is what grad computes eagerly, value for value (zeros for an input not read)."""
    from pe_engine import ad
    from pe_engine.explain.sandbox import load_function
    from pe_engine.explain.values import format_value, parse_value
    body, argnums = GRAD_CASES[case]
    source = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"
              f"def f(x, y):\n    {body}\n")
    values = ["[0.5, 1.5, -2.0]", "2.0"]
    args = [{"value": v, "known": i not in argnums} for i, v in enumerate(values)]
    rec = explain.run("grad", source=source, args=args)
    want = ad.grad(load_function(source).fn, argnums=tuple(argnums))(
        *[parse_value(v) for v in values])
    assert rec["grads"] == [format_value(g) for g in want]


@pytest.mark.parametrize("ret", ["(jnp.sum(x),)", "{'a': jnp.sum(x)}", "x * 2.0",
                                 "jnp.sum(x > 0.0)"])
def test_grad_values_only_for_one_float_scalar(ret):
    """grad's own condition: no gradient for a scalar in a tuple or dict, an array, an int."""
    source = f"import jax.numpy as jnp\n\ndef f(x):\n    return {ret}\n"
    rec = explain.run("grad", source=source, args=[{"value": "[0.5, 1.5]", "known": False}])
    assert "error" not in rec and rec["grads"] is None


def test_grad_counts_match_jax_saved_residuals():
    jax = pytest.importorskip("jax")
    from jax._src.ad_checkpoint import saved_residuals
    jnp = jax.numpy
    args = (np.ones((4, 3), np.float32), np.ones((3, 2), np.float32), np.ones(4, np.float32))
    theirs = saved_residuals(lambda W1, W2, x: jnp.sum(jnp.sin(jnp.tanh(x @ W1) @ W2) ** 2),
                             *args)
    assert sorted(a.str_short(short_dtypes=True) for a, _ in theirs) == sorted(
        r["aval"] for r in grad_record()["saved_residuals"])


@pytest.mark.parametrize("value", ["[1.0, 2.0]", "1.0", "3"])
def test_saved_residuals_see_a_held_input_as_an_array_as_jax_does(value):
    """Found by the fuzzer (tests/test_fuzz_entry.py): print_saved_residuals' trace closed
    over the held inputs as the parsed NumPy values, whose methods the sandbox hides, so
    `x.sum()`, which the other traces ran, failed there as an engine error. JAX closes over
    arrays: its saved residuals of the same function are the page's."""
    jax = pytest.importorskip("jax")
    from jax._src.ad_checkpoint import saved_residuals
    source = "def f(x, y):\n    return y * x.sum()\n"
    rec = explain.run("grad", source=source, args=[{"value": value, "known": True},
                                                   {"value": "2.0", "known": False}])
    assert "error" not in rec, rec["error"]
    x = jax.numpy.asarray(parse_value(value))
    theirs = saved_residuals(lambda y: y * x.sum(), 2.0)
    assert [(a.str_short(short_dtypes=True), d.split(" from ")[0]) for a, d in theirs] == [
        (r["aval"], r["description"].split(" from ")[0]) for r in rec["saved_residuals"]]


def test_checkpoint_policies_trade_memory_for_recompute():
    rec = checkpoint_record()
    rows = {p["name"]: p for p in rec["policies"]}
    assert list(rows) == ["no checkpoint", *explain_autodiff.POLICY_NAMES]
    none, every, nothing = rows["no checkpoint"], rows["everything_saveable"], rows[
        "nothing_saveable"]
    assert none["recomputed"] == 0 and every["recomputed"] == 0
    assert nothing["residual_bytes"] < rows["dots_saveable"]["residual_bytes"] <= every[
        "residual_bytes"]
    assert nothing["recomputed"] > rows["dots_saveable"]["recomputed"] > 0
    # nothing_saveable keeps only the inputs
    assert all(r["description"].startswith("from the argument")
               for r in nothing["saved_residuals"])


def test_checkpoint_counts_match_jax_for_each_policy():
    jax = pytest.importorskip("jax")
    from jax._src.ad_checkpoint import saved_residuals
    jnp = jax.numpy
    args = (np.ones((4, 3), np.float32), np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]],
                                                  np.float32), np.ones(4, np.float32))

    def loss(W1, W2, x):
        return jnp.sum(jnp.sin(jnp.tanh(x @ W1) @ W2) ** 2)
    rec = checkpoint_record()
    for row in rec["policies"]:
        name = row["name"]
        if name == "no checkpoint":
            f = loss
        elif name.startswith("save_"):
            f = jax.checkpoint(loss, policy=getattr(jax.checkpoint_policies, name)())
        else:
            f = jax.checkpoint(loss, policy=getattr(jax.checkpoint_policies, name))
        theirs = sorted(a.str_short(short_dtypes=True) for a, _ in saved_residuals(f, *args))
        assert theirs == sorted(r["aval"] for r in row["saved_residuals"]), name


def test_selected_policy_carries_the_full_record():
    rec = checkpoint_record("dots_saveable")
    assert rec["selected"] == "dots_saveable"
    assert "remat2" in rec["unknown"]["text"] and rec["events"]


def test_unknown_policy_and_integer_inputs_are_user_errors():
    # a policy the page does not offer breaks the request contract (CheckpointRequest)
    bad = explain.run("checkpoint", source=MLP, args=ARGS, policy="save_everything_twice")
    assert bad["error"]["type"] == "request" and "request.policy" in bad["error"]["message"]
    ints = explain.run("grad", source="def f(x):\n    return x * x\n", args=[{"value": "3"}])
    assert ints["error"]["type"] == "value" and "decimal point" in ints["error"]["message"]


NAMED = """import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name

def loss(W1, W2, x):
    h = checkpoint_name(jnp.tanh(x @ W1), "hidden")
    y = jnp.sin(h @ W2)
    return jnp.sum(y ** 2)
"""


def test_name_policies_use_the_names_in_the_code_and_match_jax():
    jax = pytest.importorskip("jax")
    from jax._src.ad_checkpoint import saved_residuals
    from jax.ad_checkpoint import checkpoint_name
    jnp = jax.numpy
    rec = explain.run("checkpoint", source=NAMED, args=ARGS, policy="save_only_these_names")
    assert rec["names"] == ["hidden"]
    rows = {p["name"]: p for p in rec["policies"]}
    assert rows["save_only_these_names"]["label"] == "save_only_these_names('hidden')"

    def loss(W1, W2, x):
        h = checkpoint_name(jnp.tanh(x @ W1), "hidden")
        return jnp.sum(jnp.sin(h @ W2) ** 2)
    args = (np.ones((4, 3), np.float32), np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]],
                                                  np.float32),
            np.array([0.5, 1.0, -1.0, 2.0], np.float32))
    for name in ("save_only_these_names", "save_any_names_but_these"):
        policy = getattr(jax.checkpoint_policies, name)("hidden")
        theirs = saved_residuals(jax.checkpoint(loss, policy=policy), *args)
        assert sorted(a.str_short(short_dtypes=True) for a, _ in theirs) == sorted(
            r["aval"] for r in rows[name]["saved_residuals"]), name
