"""`jax.numpy.linalg`: the vector and Frobenius norms (what small programs use)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import jit
from .numpy import _canonical_axes, _promote_args_inexact, abs, max, min, sqrt, sum

__all__ = ["norm", "vector_norm"]


def vector_norm(x: Any, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
    if ord is None or ord == 2:
        return sqrt(sum(x * x, axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return max(abs(x), axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return min(abs(x), axis=axis, keepdims=keepdims)
    if ord == 1:
        return sum(abs(x), axis=axis, keepdims=keepdims)
    raise NotImplementedError(f"vector norm of order {ord!r}: orders 1, 2 and ±inf are "
                              "supported")


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
    if len(axis) == 2 and ord in (None, "f", "fro"):
        return sqrt(sum(x * x, axis=axis, keepdims=keepdims))
    raise NotImplementedError(f"matrix norm of order {ord!r}: the Frobenius norm is supported")
