"""Differential cases for jax.numpy's set operations (isin, by its default compare_all
method)."""
from __future__ import annotations

import numpy as np
from api_inputs import A, I, V

T = np.array([5, -1, 2], np.int32)

CASES: dict[str, tuple] = {
    "jax.numpy.isin": (lambda M, x, t: M.jnp.isin(x, t), (I, T), False),
    "jax.numpy.isin/invert_2d": (lambda M, a, x: M.jnp.where(M.jnp.isin(a, x, invert=True), a, 0.0),
                                 (A, V), True),
    "jax.numpy.isin/mixed_dtypes": (lambda M, x, t: M.jnp.isin(t, x * 1.0), (I, T), False),
    "jax.numpy.isin/scalar_set": (lambda M, x: M.jnp.isin(x, 5), (I,), False),
    "jax.numpy.isin/compare_all": (lambda M, x: x * M.jnp.isin(x, x[::-1], method="compare_all"),
                                   (V,), True),
}
