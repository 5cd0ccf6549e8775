"""`jax.numpy.linalg`: the vector norms and the matrix norms made of sums and maxima (what
small programs use), lowered as JAX 0.10.2 lowers them."""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import jit
from .core import get_aval
from .jnp_base import (
    _canonical_axes,
    _promote_args_inexact,
    abs,
    max,
    min,
    not_equal,
    power,
    sqrt,
    sum,
)

__all__ = ["matrix_norm", "norm", "vector_norm"]


def vector_norm(x: Any, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    if ord is None or ord == 2:
        return sqrt(sum(x * x, axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    if ord == np.inf:
        # JAX's maximum starts from 0 (`max 0.0` after the reduction): its JVP saves one more
        # residual than a bare reduce_max.
        return max(abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return min(abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(not_equal(x, 0), axis=axis, keepdims=keepdims, dtype=get_aval(x).dtype)
    if ord == 1:
        return sum(abs(x), axis=axis, keepdims=keepdims)
    abs_x = abs(x)
    # The order as a constant of abs_x's dtype, and its inverse computed in that dtype.
    p = np.array(ord, get_aval(abs_x).dtype)
    total = sum(abs_x ** p, axis=axis, keepdims=keepdims)
    return power(total, np.array(1.0 / p, p.dtype))


def _matrix_norm(x: Any, ord: Any, row: int, col: int, keepdims: bool) -> Any:
    """The induced 1- and inf-norms: a sum over one axis, then the extreme over the other."""
    if ord in (1, -1):
        summed, kept = row, col
    elif ord in (np.inf, -np.inf):
        summed, kept = col, row
    else:
        raise NotImplementedError(f"matrix norm of order {ord!r}: the Frobenius, 1 and inf "
                                  "norms are supported (the others need an SVD)")
    if not keepdims and kept > summed:
        kept -= 1
    sums = sum(abs(x), axis=summed, keepdims=keepdims)
    if ord > 0:
        return max(sums, axis=kept, keepdims=keepdims, initial=0)
    return min(sums, axis=kept, keepdims=keepdims)


@jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    x, = _promote_args_inexact(x)
    ndim = x.ndim
    if axis is None:
        if ord is None:
            return sqrt(sum(x * x, keepdims=keepdims))
        axis = tuple(range(ndim))
    axis = _canonical_axes(axis, ndim)
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) == 2:
        if ord in (None, "f", "fro"):
            return sqrt(sum(x * x, axis=axis, keepdims=keepdims))
        row, col = axis
        return _matrix_norm(x, ord, row, col, keepdims)
    raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to compute "
                     "a vector-norm, or two axes to compute a matrix-norm.")


def matrix_norm(x: Any, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))
