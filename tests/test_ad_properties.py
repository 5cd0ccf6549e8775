"""Property test: for random small programs, vjp cotangents equal JAX's gradients
(or central finite differences when JAX is absent)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pe_engine as pe

try:
    import jax
except ImportError:  # fall back to finite differences
    jax = None

# Each op maps (M, a, b) -> value, written for either numpy namespace.
OPS = [
    lambda M, a, b: M.sin(a) * b,
    lambda M, a, b: M.cos(a) + b,
    lambda M, a, b: M.tanh(a - b),
    lambda M, a, b: a * b,
    lambda M, a, b: M.exp(a * 0.1) - b,
    lambda M, a, b: a / (b * b + 1.0),
    lambda M, a, b: M.maximum(a, b) * a,
]


def build(M, program):
    def f(x, y):
        vals = [x, y]
        for op, i, j in program:
            vals.append(OPS[op](M, vals[i % len(vals)], vals[j % len(vals)]))
        return vals[-1]
    return f


programs = st.lists(st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 20),
                              st.integers(0, 20)), min_size=1, max_size=8)


# no subnormals: XLA's CPU backend flushes them to zero, numpy keeps them (a backend difference)
scalars = st.floats(-1.5, 1.5, width=32, allow_subnormal=False)


@settings(max_examples=40, deadline=None)
@given(programs, scalars, scalars)
def test_vjp_matches_reference(program, x, y):
    x, y = np.float32(x), np.float32(y)
    out, f_vjp = pe.vjp(build(pe.numpy, program), x, y)
    cts = f_vjp(np.float32(1.0))
    if jax is not None:
        ref = jax.grad(build(jax.numpy, program), argnums=(0, 1))(x, y)
        np.testing.assert_allclose(np.float32(out), build(jax.numpy, program)(x, y),
                                   rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose([float(c) for c in cts], [float(r) for r in ref],
                                   rtol=1e-3, atol=1e-3)
    else:
        f64 = build(np, program)
        eps = 1e-4
        fd = [(f64(x + eps, y) - f64(x - eps, y)) / (2 * eps),
              (f64(x, y + eps) - f64(x, y - eps)) / (2 * eps)]
        np.testing.assert_allclose([float(c) for c in cts], fd, rtol=1e-2, atol=1e-2)
