"""Property: running the known jaxpr, then the unknown one on its residuals and the
unknown inputs, equals running the whole function — for random programs and masks."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pe_engine
import pe_engine.numpy as jnp
from pe_engine.core import eval_jaxpr
from pe_engine.partial_eval import partial_eval_jaxpr_nounits

UNARY = [jnp.sin, jnp.cos, jnp.tanh, jnp.negative, lambda x: x * 0.5, lambda x: x ** 2]
BINARY = [jnp.add, jnp.multiply, jnp.subtract, jnp.maximum, lambda x, y: x * 2.0 + y]


@st.composite
def programs(draw):
    n_in = draw(st.integers(1, 4))
    ops = draw(st.lists(st.tuples(st.booleans(), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6),
                                  st.integers(0, 10 ** 6)), min_size=1, max_size=12))
    n_out = draw(st.integers(1, 3))
    outs = draw(st.lists(st.integers(0, 10 ** 6), min_size=n_out, max_size=n_out))
    mask = draw(st.lists(st.booleans(), min_size=n_in, max_size=n_in))
    inst = draw(st.booleans())
    return n_in, ops, outs, mask, inst


def build(n_in, ops, outs):
    def f(*xs):
        vals = list(xs)
        for binary, k, a, b in ops:
            if binary:
                vals.append(BINARY[k % len(BINARY)](vals[a % len(vals)], vals[b % len(vals)]))
            else:
                vals.append(UNARY[k % len(UNARY)](vals[a % len(vals)]))
        return tuple(vals[o % len(vals)] for o in outs)
    return f


@settings(max_examples=150, deadline=None)
@given(programs())
def test_known_then_unknown_equals_whole(prog):
    n_in, ops, outs, mask, inst = prog
    f = build(n_in, ops, outs)
    rng = np.random.default_rng(len(ops))
    args = [rng.standard_normal(3).astype(np.float32) for _ in range(n_in)]
    closed = pe_engine.make_jaxpr(f)(*args)
    whole = eval_jaxpr(closed.jaxpr, closed.consts, *args)

    known, unknown, out_uk, res_avals = partial_eval_jaxpr_nounits(closed, mask, inst)
    known_args = [a for a, uk in zip(args, mask) if not uk]
    unknown_args = [a for a, uk in zip(args, mask) if uk]
    k_out = eval_jaxpr(known.jaxpr, known.consts, *known_args)
    num_res = len(res_avals)
    known_outs, residuals = k_out[:len(k_out) - num_res], k_out[len(k_out) - num_res:]
    assert [np.shape(r) for r in residuals] == [a.shape for a in res_avals]
    u_out = eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, *unknown_args)
    assert len(known_outs) + len(u_out) == len(whole) == len(out_uk)
    assert len(unknown.jaxpr.invars) == num_res + sum(mask)
    ki, ui = iter(known_outs), iter(u_out)
    for w, uk in zip(whole, out_uk):
        got = next(ui) if uk else next(ki)
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=1e-6, atol=1e-6)
    if inst:
        assert all(out_uk)


def _split_uniform(prog, unknown):
    """A generated program traced on ones and split with every input `unknown` alike."""
    n_in, ops, outs, _, _ = prog
    closed = pe_engine.make_jaxpr(build(n_in, ops, outs))(*[np.ones(2, np.float32)] * n_in)
    return closed, partial_eval_jaxpr_nounits(closed, [unknown] * n_in, False)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_all_known_leaves_unknown_empty(prog):
    closed, (known, unknown, out_uk, res) = _split_uniform(prog, unknown=False)
    assert not any(out_uk) and res == [] and unknown.jaxpr.eqns == []
    assert len(known.jaxpr.eqns) == len(closed.jaxpr.eqns)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_all_unknown_keeps_every_live_equation(prog):
    closed, (known, unknown, out_uk, res) = _split_uniform(prog, unknown=True)
    assert known.jaxpr.eqns == [] and res == []
    # every equation reachable from the outputs is staged; dead ones are dropped
    live = _live_eqns(closed.jaxpr)
    assert len(unknown.jaxpr.eqns) == live


def _live_eqns(jaxpr):
    needed = {v for v in jaxpr.outvars if hasattr(v, "aval") and not hasattr(v, "val")}
    count = 0
    for e in reversed(jaxpr.eqns):
        if any(v in needed for v in e.outvars):
            count += 1
            needed.update(v for v in e.invars if not hasattr(v, "val"))
    return count
