"""Known means held: Python control flow on a known input works in the split and in reverse
mode, as in JAX's partial evaluator (`pe.trace_to_jaxpr_nounits` with a known PartialVal)
and `jax.linearize`; on an unknown value it raises JAX's error, worded as JAX words it.

The engine's split traces the function with the known values held, then splits the
program; JAX's reference traces it under JaxprTrace directly. Workloads use `lax` (JAX wraps
each `jnp` function in an inline jit, which JaxprTrace keeps as a `jit` equation). Each runs
against the engine and against JAX itself (the harness's self-check).
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import ENGINE, JAX

jax = pytest.importorskip("jax")
from jax._src import api_util  # noqa: E402
from jax._src import core as jax_core  # noqa: E402
from jax._src import linear_util as lu  # noqa: E402
from jax._src.interpreters import partial_eval as jax_pe  # noqa: E402

import pe_engine  # noqa: E402
from pe_engine.api import trace_to_jaxpr  # noqa: E402
from pe_engine.core import get_aval  # noqa: E402
from pe_engine.partial_eval import (  # noqa: E402
    PartialVal,
    convert_constvars_jaxpr,
    partial_eval_jaxpr_nounits,
    trace_to_jaxpr_nounits,
)

V3 = np.array([0.5, -1.5, 2.0], np.float32)
NEG3 = -np.abs(V3)


def relu_or_sin(M, x, y):
    if M.lax.reduce_sum(x, (0,)) > 0:
        return M.lax.mul(M.lax.sin(x), y)
    return M.lax.mul(y, 2.0)


def steps(M, n, x):
    for _ in range(int(n)):
        x = M.lax.mul(M.lax.tanh(x), x)
    return x


def pick_row(M, i, table, y):
    return M.lax.mul(table[int(i)], y)


def nested(M, x, y):
    z = M.lax.exp(x)
    if z > 1.0:
        if z > 5.0:
            return M.lax.mul(z, y)
        return M.lax.add(M.lax.cos(z), y)
    return y


TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)
# (function, args, which are known)
SPLITS = {
    "branch_taken": (relu_or_sin, (V3, 1.5), (True, False)),
    "branch_not_taken": (relu_or_sin, (NEG3, 1.5), (True, False)),
    "loop_count": (steps, (np.int32(3), 0.7), (True, False)),
    "row_index": (pick_row, (np.int32(2), TABLE, V3), (True, True, False)),
    "nested_branches": (nested, (2.0, 3.0), (True, False)),
    "nested_other_way": (nested, (-1.0, 3.0), (True, False)),
}


def _engine_split(fn, args, known):
    closed, _ = trace_to_jaxpr(lambda *a: fn(ENGINE, *a), args, held=known)
    _, unknown, out_uk, res = partial_eval_jaxpr_nounits(closed, [not k for k in known], False)
    return f"{unknown}\n{out_uk}\n{[repr(r) for r in res]}"


def _jax_split(fn, args, known, M=JAX):
    f = lambda *a: [fn(M, *a)]
    dbg = api_util.debug_info("f", f, args, {})
    pvals = [jax_pe.PartialVal.known(a) if k else
             jax_pe.PartialVal.unknown(jax_core.typeof(a)) for a, k in zip(args, known)]
    jaxpr, out_pvals, res = jax_pe.trace_to_jaxpr_nounits(lu.wrap_init(f, debug_info=dbg), pvals)
    # The residuals are constvars here; the split puts them first among the inputs.
    unknown = jax_pe.convert_constvars_jaxpr(jaxpr)
    return (f"{unknown}\n{[not pv.is_known() for pv in out_pvals]}\n"
            f"{[repr(jax_core.typeof(r)) for r in res]}")


def _engine_trace_to_jaxpr_nounits(fn, args, known):
    f = lambda *a: [fn(ENGINE, *a)]
    pvals = [PartialVal.known(a) if k else PartialVal.unknown(get_aval(a))
             for a, k in zip(args, known)]
    jaxpr, out_pvals, res = trace_to_jaxpr_nounits(f, pvals)
    return (f"{convert_constvars_jaxpr(jaxpr)}\n{[not pv.is_known() for pv in out_pvals]}\n"
            f"{[repr(get_aval(r)) for r in res]}")


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_the_engines_partial_evaluator_holds_known_inputs_too(name):
    fn, args, known = SPLITS[name]
    assert _engine_trace_to_jaxpr_nounits(fn, args, known) == _jax_split(fn, args, known)


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_with_control_flow_on_known_inputs(name, impl):
    fn, args, known = SPLITS[name]
    got = _engine_split(fn, args, known) if impl == "engine" else _jax_split(fn, args, known)
    assert got == _jax_split(fn, args, known)


GRADS = {
    "branch_taken": (lambda M, x: M.lax.reduce_sum(relu_or_sin(M, x, x), (0,)), (V3,)),
    "branch_not_taken": (lambda M, x: M.lax.reduce_sum(relu_or_sin(M, x, x), (0,)), (NEG3,)),
    "nested": (lambda M, x: nested(M, x, x), (2.0,)),
}


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_with_control_flow_on_the_primal(name, impl):
    fn, args = GRADS[name]
    M = ENGINE if impl == "engine" else JAX
    got = M.grad(lambda *a: fn(M, *a))(*args)
    want = jax.grad(lambda *a: fn(JAX, *a))(*args)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)


@pytest.mark.parametrize("name", ["branch_taken", "loop_count", "nested_branches"])
def test_control_flow_on_an_unknown_value_raises_jaxs_error(name):
    fn, args, known = SPLITS[name]
    unknown_too = tuple(False for _ in known)
    with pytest.raises(TypeError) as ours:
        _engine_split(fn, args, unknown_too)
    with pytest.raises(TypeError) as theirs:
        _jax_split(fn, args, unknown_too)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert str(ours.value) == str(theirs.value)


def test_the_engine_is_what_the_suite_imports():
    assert ENGINE.jnp is pe_engine.numpy
