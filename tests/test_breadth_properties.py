"""Property test: random compositions of issue 11's operations (jnp and jax.nn functions,
indexing and .at updates, cond, fori_loop, vmap) agree with JAX on values and
gradients, and their traced programs print as JAX's."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")

import pe_engine as pe  # noqa: E402

ENGINE = (pe.numpy, pe.lax, pe.nn, pe.vmap)
JAX = (jax.numpy, jax.lax, jax.nn, jax.vmap)

# Each op maps (namespaces, a, b) -> an array of a's shape (3,); a and b are f32[3].
OPS = [
    lambda N, a, b: N[0].square(a) * 0.5 + b,
    lambda N, a, b: N[0].clip(a, -1.0, 1.0) * b,
    lambda N, a, b: N[0].logaddexp(a, b),
    lambda N, a, b: N[0].arctan2(a, b * b + 1.0),
    lambda N, a, b: N[0].cumsum(a) * 0.3 - b,
    lambda N, a, b: N[0].flip(a) + N[0].roll(b, 1),
    lambda N, a, b: a[::-1] * b[0] + a[1],
    lambda N, a, b: a.at[1].set(b[2]) * b,
    lambda N, a, b: a.at[np.array([0, 2])].add(b[:2]),
    lambda N, a, b: N[2].relu(a) + N[2].sigmoid(b),
    lambda N, a, b: N[2].softmax(a) * b + N[2].gelu(a),
    lambda N, a, b: N[2].silu(a) - N[2].softplus(b) * 0.1,
    lambda N, a, b: N[0].where(a > b, a, b * 2.0),
    lambda N, a, b: N[1].cond(N[0].sum(a) > 0, lambda u, v: N[0].sin(u) * v,
                              lambda u, v: u - v, a, b),
    lambda N, a, b: N[1].fori_loop(0, 2, lambda i, c: N[0].tanh(c) * b + i, a),
    lambda N, a, b: N[3](lambda u, v: u * N[0].exp(v * 0.1))(a, b),
    lambda N, a, b: N[0].concatenate([a, b])[1:4] + N[0].stack([a, b])[1],
    lambda N, a, b: N[0].tile(a[:1], 3) * N[0].prod(b * 0.5 + 1.0) + N[0].var(a),
]


def build(N, program):
    def f(x, y):
        vals = [N[0].asarray(x), N[0].asarray(y)]  # arrays of the library (they have .at)
        for op, i, j in program:
            vals.append(OPS[op](N, vals[i % len(vals)], vals[j % len(vals)]))
        return N[0].sum(vals[-1] * vals[-1]) * 0.1
    return f


programs = st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 20),
                              st.integers(0, 20)), min_size=1, max_size=5)
# No subnormal inputs: XLA's CPU backend flushes float32 subnormals to zero and numpy keeps
# them, so a value or gradient there differs by backend, not by tracing.
vectors = st.lists(st.floats(-1.5, 1.5, width=32, allow_subnormal=False), min_size=3,
                   max_size=3).map(
    lambda v: np.array(v, np.float32))


@settings(max_examples=30, deadline=None)
@given(programs, vectors, vectors)
def test_values_and_gradients_match_jax(program, x, y):
    ours, theirs = build(ENGINE, program), build(JAX, program)
    np.testing.assert_allclose(np.asarray(ours(x, y)), np.asarray(theirs(x, y)),
                               rtol=2e-4, atol=2e-4)
    g_ours = pe.grad(ours, argnums=(0, 1))(x, y)
    g_theirs = jax.grad(theirs, argnums=(0, 1))(x, y)
    for a, b in zip(g_ours, g_theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-3, atol=2e-3)


# jnp.logaddexp is left out of the printing check: JAX inlines a cached trace of it
# (jit(inline=True)), so two calls share one call_jaxpr, printed once; the engine
# traces each call (see the README's differences from JAX).
PRINTED_OPS = [i for i in range(len(OPS)) if i != 2]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PRINTED_OPS), st.integers(0, 20),
                          st.integers(0, 20)), min_size=1, max_size=5), vectors, vectors)
def test_programs_print_as_jax(program, x, y):
    assert str(pe.make_jaxpr(build(ENGINE, program))(x, y)) == \
        str(jax.make_jaxpr(build(JAX, program))(x, y))
