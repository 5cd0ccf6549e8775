"""`jax.numpy`'s cumulative reductions beyond cumsum: cumprod, nancumsum, nancumprod,
cumulative_sum and cumulative_prod."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import cumulative, structural
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_arrays import _promote_integer
from .jnp_base import _canonical_axes, _check_arraylike, _dtype, _where_jit
from .structural import concatenate

# --------------------------------------------------------------------------- jnp


def _cumulative_reduction(reduction: Callable[[Any, int], Any], a: Any, axis: Any, dtype: Any,
                          fill_nan: bool = False, fill_value: float = 0,
                          promote_integers: bool = False) -> Any:
    _check_arraylike(a)
    if axis is None or not get_aval(a).ndim:
        a = lax.reshape(a, (get_aval(a).size,))
    axis = _canonical_axes(0 if axis is None else axis, get_aval(a).ndim)[0]
    if fill_nan:
        a = _where_jit(lax.ne(a, a), lax._const(a, fill_value), a)
    a_dtype = get_aval(a).dtype
    if dtype is None:
        result = (_promote_integer(a_dtype) if promote_integers or a_dtype == np.bool_
                  else a_dtype)
        computation = result
    elif _dtype(dtype) == np.bool_:
        # lax accumulates numbers only; and [-1, 1] must not cancel to False.
        result = np.dtype(np.bool_)
        if a_dtype != result:
            a = a != 0
        computation = _promote_integer(result)
    else:
        result = computation = _dtype(dtype)
    a = lax.convert_element_type(a, computation)
    return lax.convert_element_type(reduction(a, axis), result)


_STATIC = ("axis", "dtype")


@jit(static_argnames=_STATIC)
def cumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(cumulative.cumprod, a, axis, dtype)


@jit(static_argnames=_STATIC)
def nancumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(structural.cumsum, a, axis, dtype, fill_nan=True, fill_value=0)


@jit(static_argnames=_STATIC)
def nancumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(cumulative.cumprod, a, axis, dtype, fill_nan=True, fill_value=1)


@jit(static_argnames=_STATIC)
def _cumsum_with_promotion(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(structural.cumsum, a, axis, dtype, promote_integers=True)


def _cumulative_axis(x: Any, axis: Any, what: str) -> int:
    ndim = get_aval(x).ndim
    if ndim == 0:
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however "
                         "a scalar value or scalar array was given.")
    if axis is None:
        if ndim > 1:
            raise ValueError(f"The input array has rank {ndim}, however axis was not set to "
                             "an explicit value. The axis argument is only optional for "
                             "one-dimensional arrays.")
        axis = 0
    return _canonical_axes(axis, ndim)[0]


def _with_initial(x: Any, out: Any, axis: int, value: int) -> Any:
    shape = list(get_aval(x).shape)
    shape[axis] = 1
    return concatenate([lax.full(shape, value, dtype=get_aval(out).dtype), out], axis)


def cumulative_sum(x: Any, *, axis: Any = None, dtype: Any = None,
                   include_initial: bool = False) -> Any:
    _check_arraylike(x)
    axis = _cumulative_axis(x, axis, "sum")
    out = _cumsum_with_promotion(x, axis=axis, dtype=None if dtype is None else _dtype(dtype))
    return _with_initial(x, out, axis, 0) if include_initial else out


def cumulative_prod(x: Any, *, axis: Any = None, dtype: Any = None,
                    include_initial: bool = False) -> Any:
    _check_arraylike(x)
    axis = _cumulative_axis(x, axis, "product")
    out = _cumulative_reduction(cumulative.cumprod, x, axis, dtype)
    return _with_initial(x, out, axis, 1) if include_initial else out


__all__ = ["cumprod", "cumulative_prod", "cumulative_sum", "nancumprod",
           "nancumsum"]
