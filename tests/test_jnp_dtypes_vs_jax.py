"""jax.numpy's host-side dtype and shape questions (issue 45) against real JAX: every pair of
a grid of dtypes and Python scalar types through promote_types, can_cast, issubdtype and
isdtype; ndim, shape, size and isscalar of arrays, scalars and scalars."""
from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import pe_engine.numpy as pnp  # noqa: E402

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
TYPES = [np.dtype(d) for d in DTYPES] + [bool, int, float, complex]
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", np.float32, ("bool", "real floating")]
CATEGORIES = [np.integer, np.signedinteger, np.floating, np.inexact, np.number, np.generic]


@pytest.mark.parametrize("a", TYPES, ids=str)
def test_promote_types(a):
    for b in TYPES:
        assert pnp.promote_types(a, b) == jnp.promote_types(a, b), (a, b)


@pytest.mark.parametrize("a", DTYPES)
def test_can_cast_issubdtype_isdtype(a):
    for b in DTYPES:
        assert pnp.can_cast(a, b) == jnp.can_cast(a, b)
    for c in CATEGORIES + DTYPES:
        assert pnp.issubdtype(a, c) == jnp.issubdtype(a, c)
    for k in KINDS:
        assert pnp.isdtype(np.dtype(a), k) == jnp.isdtype(np.dtype(a), k), k


VALUES = [np.zeros((2, 3), np.float32), np.float32(1.0), 3, 2.5, np.zeros(4)]


@pytest.mark.parametrize("i", range(len(VALUES)))
def test_ndim_shape_size_isscalar(i):
    v = VALUES[i]
    for M in (pnp, jnp):
        x = M.asarray(v) if isinstance(v, np.ndarray) else v
        if M is pnp:
            ours = (pnp.ndim(x), pnp.shape(x), pnp.size(x), pnp.isscalar(x), pnp.iterable(x))
        else:
            theirs = (jnp.ndim(x), jnp.shape(x), jnp.size(x), jnp.isscalar(x), jnp.iterable(x))
    assert ours == theirs


def test_size_axis():
    a = np.zeros((2, 3, 4), np.float32)
    for axis in (0, -1, (0, 2)):
        assert pnp.size(pnp.asarray(a), axis) == jnp.size(jnp.asarray(a), axis)


def test_traced_shape_questions():
    """Asked of a tracer, the answers are static Python values (no equation)."""
    import pe_engine as pe

    def text(M, make_jaxpr):
        return str(make_jaxpr(lambda x: x * M.ndim(x) + M.size(x, 0) + len(M.shape(x)))(
            np.ones((2, 3), np.float32)))
    assert text(pnp, pe.make_jaxpr) == text(jnp, jax.make_jaxpr)
