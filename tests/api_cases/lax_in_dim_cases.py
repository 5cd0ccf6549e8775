"""Differential cases for jax.lax's `*_in_dim` forms (issue 45): name -> (f(M, *args), args,
differentiable), as in tests/test_breadth_vs_jax.py's W table."""
from __future__ import annotations

import numpy as np

rng = np.random.default_rng(46)
A = rng.standard_normal((3, 4)).astype(np.float32)


def _i(M, a, shift=0):
    """A traced index drawn from the float input (every argument stays a float, so every
    check, the JVP program's included, applies)."""
    return M.jnp.argmax(a[0]) - shift


CASES: dict[str, tuple] = {
    "jax.lax.slice_in_dim": (lambda M, a: M.lax.slice_in_dim(a, 1, -1, axis=1), (A,), True),
    "jax.lax.slice_in_dim/stride": (lambda M, a: M.lax.slice_in_dim(a, None, None, 2), (A,), True),
    "jax.lax.index_in_dim": (lambda M, a: M.lax.index_in_dim(a, -1, keepdims=False), (A,), True),
    "jax.lax.index_in_dim/keepdims": (lambda M, a: M.lax.index_in_dim(a, 2, axis=1), (A,), True),
    "jax.lax.dynamic_slice_in_dim": (
        lambda M, a: M.lax.dynamic_slice_in_dim(a, _i(M, a, 2), 2, axis=1), (A,), True),
    "jax.lax.dynamic_slice_in_dim/static": (lambda M, a: M.lax.dynamic_slice_in_dim(a, -2, 2),
                                            (A,), True),
    "jax.lax.dynamic_index_in_dim": (
        lambda M, a: M.lax.dynamic_index_in_dim(a, _i(M, a, 3), 1, keepdims=False), (A,), True),
    "jax.lax.dynamic_index_in_dim/keepdims": (
        lambda M, a: M.lax.dynamic_index_in_dim(a, _i(M, a) % 3), (A,), True),
    "jax.lax.dynamic_update_slice_in_dim": (
        lambda M, a: M.lax.dynamic_update_slice_in_dim(a, a[:, :2] * 2.0, _i(M, a), axis=1),
        (A,), True),
    "jax.lax.dynamic_update_index_in_dim": (
        lambda M, a: M.lax.dynamic_update_index_in_dim(a, a[0] * 2.0, _i(M, a, 2), 0), (A,), True),
    "jax.lax.dynamic_update_index_in_dim/no_negative": (
        lambda M, a: M.lax.dynamic_update_index_in_dim(a, a[:, :1] + 1.0, _i(M, a), 1,
                                                       allow_negative_indices=False),
        (A,), True),
}
