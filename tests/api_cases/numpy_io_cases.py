"""Differential cases for jax.numpy.frombuffer and fromstring (NumPy parses; the array is a
constant of the traced program, float64 text canonicalized to float32)."""
from __future__ import annotations

import numpy as np
from api_inputs import I, V

RAW = np.array([1.5, -2.0, 0.25, 4.0, 3.0], np.float32).tobytes()

CASES: dict[str, tuple] = {
    "jax.numpy.frombuffer": (lambda M, x: x * M.jnp.frombuffer(RAW, dtype=np.float32), (V,), True),
    "jax.numpy.frombuffer/count_offset": (
        lambda M, x: x[:2] + M.jnp.frombuffer(RAW, dtype=np.float32, count=2, offset=8),
        (V,), True),
    "jax.numpy.frombuffer/float64": (
        lambda M, x: x + M.jnp.frombuffer(np.arange(5.0).tobytes()), (V,), True),
    "jax.numpy.fromstring": (lambda M, x: x * M.jnp.fromstring("1 2.5 -3 4 0.5", sep=" "),
                             (V,), True),
    "jax.numpy.fromstring/int": (
        lambda M, x: x - M.jnp.fromstring("7,1,2,3,4", dtype=np.int32, sep=","), (I,), False),
}
