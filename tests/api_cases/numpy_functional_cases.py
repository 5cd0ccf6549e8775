"""Differential cases for jax.numpy's function-applying helpers (fromfunction,
apply_along_axis, apply_over_axes: nested vmaps), the complex-object predicates and the
print options (plain Python in both: the cases scale by what they return).
"""
from __future__ import annotations

import numpy as np
from api_inputs import A, V

# printed as NumPy arrays: a jnp array made under make_jaxpr is a tracer in JAX
THIRDS = np.arange(6, dtype=np.float32).reshape(2, 3) / 3
A3 = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5) - 2.0


def _with_set_precision(M, x):
    old = M.jnp.get_printoptions()
    M.jnp.set_printoptions(precision=3)
    try:
        p = M.jnp.get_printoptions()["precision"]
    finally:
        M.jnp.set_printoptions(**old)
    return x * p


def _in_printoptions(M, x):
    with M.jnp.printoptions(precision=2, suppress=True):
        p = M.jnp.get_printoptions()["precision"]
    return x * p + M.jnp.get_printoptions()["precision"]


def _obj_flags(M, x):
    flags = (M.jnp.iscomplexobj(x), M.jnp.iscomplexobj(1j), M.jnp.iscomplexobj(np.complex64(1)),
             M.jnp.iscomplexobj(2.0), M.jnp.iscomplexobj(np.ones(2, np.complex64)))
    return x * sum(2 ** k * f for k, f in enumerate(flags))


def _real_flags(M, x):
    flags = (M.jnp.isrealobj(x), M.jnp.isrealobj(1j), M.jnp.isrealobj(3), M.jnp.isrealobj([1.0]))
    return x * sum(2 ** k * f for k, f in enumerate(flags))


CASES: dict[str, tuple] = {
    "jax.numpy.fromfunction": (
        lambda M, a: a * M.jnp.fromfunction(lambda i, j: i + 2 * j, (2, 3), dtype=np.float32),
        (A,), True),
    "jax.numpy.fromfunction/int_closure": (
        lambda M, x: M.jnp.fromfunction(lambda i: x[i] * i, (5,), dtype=np.int32), (V,), True),
    "jax.numpy.fromfunction/3d_pytree": (
        lambda M, x: M.jnp.fromfunction(lambda i, j, k: (i * x[k], j - k), (2, 3, 5),
                                             dtype=np.int32)[0].sum(0),
        (V,), True),
    "jax.numpy.apply_along_axis": (
        lambda M, a: M.jnp.apply_along_axis(lambda r: M.jnp.sum(r * r), 1, a), (A,), True),
    "jax.numpy.apply_along_axis/3d_middle": (
        lambda M, a: M.jnp.apply_along_axis(lambda r, s: M.jnp.cumsum(r) * s, 1, a, 2.0),
        (A3,), True),
    "jax.numpy.apply_along_axis/last": (
        lambda M, a: M.jnp.apply_along_axis(lambda r: r[::-1] + r[0], -1, a), (A3,), True),
    "jax.numpy.apply_over_axes": (
        lambda M, a: M.jnp.apply_over_axes(M.jnp.sum, a, [0, 2]), (A3,), True),
    "jax.numpy.apply_over_axes/keepdims_fn": (
        lambda M, a: M.jnp.apply_over_axes(lambda b, ax: M.jnp.cumsum(b, axis=ax), a, (1,)),
        (A,), True),
    "jax.numpy.iscomplexobj": (_obj_flags, (V,), True),
    "jax.numpy.isrealobj": (_real_flags, (V,), True),
    "jax.numpy.get_printoptions": (
        lambda M, x: x * M.jnp.get_printoptions()["precision"]
        + M.jnp.get_printoptions()["linewidth"], (V,), True),
    "jax.numpy.set_printoptions": (_with_set_precision, (V,), True),
    "jax.numpy.printoptions": (_in_printoptions, (V,), True),
    "jax.numpy.array_repr": (
        lambda M, x: x * len(M.jnp.array_repr(THIRDS, precision=3)),
        (V,), True),
    "jax.numpy.array_str": (
        lambda M, x: x * len(M.jnp.array_str(THIRDS[0], max_line_width=12)),
        (V,), True),
}
