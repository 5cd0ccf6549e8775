"""Differential cases for jax.numpy.packbits and unpackbits (jitted, uint8 bits)."""
from __future__ import annotations

import numpy as np
from api_inputs import I

BITS = np.array([[1, 0, 1, 1, 0, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 0, 0, 1, 1, 0],
                 [1, 1, 1, 1, 0, 0, 0, 0, 0, 1]], np.int32)
BYTES = np.array([[3, 200], [255, 17], [0, 128]], np.uint8)

CASES: dict[str, tuple] = {
    "jax.numpy.packbits": (lambda M, b: M.jnp.packbits(b), (BITS,), False),
    "jax.numpy.packbits/axis0_little": (
        lambda M, b: M.jnp.packbits(b > 0, axis=0, bitorder="little"), (BITS,), False),
    "jax.numpy.packbits/axis1_signs": (lambda M, x: M.jnp.packbits(x.reshape(1, 5), axis=1),
                                       (I,), False),
    "jax.numpy.unpackbits": (lambda M, b: M.jnp.unpackbits(b), (BYTES,), False),
    "jax.numpy.unpackbits/axis1_little": (
        lambda M, b: M.jnp.unpackbits(b, axis=1, bitorder="little"), (BYTES,), False),
    "jax.numpy.unpackbits/count": (lambda M, b: M.jnp.unpackbits(b, axis=0, count=5),
                                   (BYTES,), False),
    "jax.numpy.unpackbits/roundtrip": (
        lambda M, b: M.jnp.unpackbits(M.jnp.packbits(b, axis=-1), axis=-1, count=10),
        (BITS,), False),
}
