"""`jax.numpy`'s reductions beyond sum/max/min/mean: all, any, count_nonzero, ptp,
average, the NaN-ignoring family, and the cumulative products and sums; lowered as
JAX 0.10.2 lowers them, with JAX's `jit` wrappers where it has them.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import elementwise, lax_math
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_arrays import _axes_arg, _var_types, argmax, argmin, prod
from .jnp_base import (
    _canonical_axes,
    _check_arraylike,
    _dtype,
    _keep,
    _promote_dtypes,
    _to_inexact,
    _where_jit,
    asarray,
    broadcast_to,
    max,
    mean,
    min,
    sum,
    where,
)


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


def _to_bool(x: Any) -> Any:
    return lax.convert_element_type(x, np.bool_)


def _logical_reduction(reduce_fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def reduction(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        _check_arraylike(a)
        a = _to_bool(a)
        axes = _canonical_axes(axis, get_aval(a).ndim)
        return _keep(reduce_fn(a, axes), axes, keepdims)
    return reduction


_all = jit(_logical_reduction(lax_math.reduce_and), static_argnames=("axis", "keepdims"),
           inline=True)
_any = jit(_logical_reduction(lax_math.reduce_or), static_argnames=("axis", "keepdims"),
           inline=True)


def all(a: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001 - JAX's name
    return _all(a, axis=_axes_arg(axis), keepdims=keepdims)


def any(a: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001 - JAX's name
    return _any(a, axis=_axes_arg(axis), keepdims=keepdims)


@jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    _check_arraylike(a)
    return sum(lax.ne(a, lax._const(a, 0)), axis=axis, dtype=np.int32, keepdims=keepdims)


@jit(static_argnames=("axis", "keepdims"))
def _ptp(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return lax.sub(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


def ptp(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    _check_arraylike(a)
    return _ptp(a, _axes_arg(axis), keepdims)


@jit(static_argnames=("axis", "returned", "keepdims"), inline=True)
def _average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
             keepdims: bool = False) -> Any:
    axes = _canonical_axes(axis, get_aval(a).ndim)
    if weights is None:
        _check_arraylike(a)
        a, = _promote_dtypes(a, to=_to_inexact)
        avg = mean(a, axis=axis, keepdims=keepdims)
        size = math.prod(get_aval(a).shape[d] for d in axes)
        weights_sum = lax.full((), size, dtype=get_aval(avg).dtype)
    else:
        _check_arraylike(a, weights)
        a, weights = _promote_dtypes(a, weights, to=_to_inexact)
        shape, w_shape = get_aval(a).shape, get_aval(weights).shape
        if shape != w_shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if w_shape != tuple(shape[d] for d in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            new_shape = tuple(d if i in axes else 1 for i, d in enumerate(shape))
            weights = lax.reshape(weights, new_shape, tuple(np.argsort(axes)))
        weights_sum = sum(weights, axis=axis, keepdims=keepdims)
        avg = sum(a * weights, axis=axis, keepdims=keepdims) / weights_sum
    if returned:
        if get_aval(avg).shape != get_aval(weights_sum).shape:
            weights_sum = broadcast_to(weights_sum, get_aval(avg).shape)
        return avg, weights_sum
    return avg


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:
    return _average(a, _axes_arg(axis), weights, returned, keepdims)


# --------------------------------------------------------------------------- NaN-ignoring


def _init_val(a: Any, init: float) -> np.ndarray:
    return np.array(init, get_aval(a).dtype)


def _nan_reduction(a: Any, reduction: Callable[..., Any], init: float, nan_if_all_nan: bool,
                   axis: Any, keepdims: bool, **kwargs: Any) -> Any:
    """The reduction of `a` with its NaNs replaced by the reduction's identity (NaN where
    all were NaN, for max and min)."""
    _check_arraylike(a)
    if get_aval(a).dtype.kind not in "fc":
        return reduction(a, axis=axis, keepdims=keepdims, **kwargs)
    out = reduction(_where_jit(_isnan(a), _init_val(a, init), a), axis=axis,
                    keepdims=keepdims, **kwargs)
    if not nan_if_all_nan:
        return out
    return _where_jit(all(_isnan(a), axis=axis, keepdims=keepdims), lax._const(a, np.nan), out)


@jit(static_argnames=("axis", "keepdims"))
def nanmin(a: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    return _nan_reduction(a, min, np.inf, initial is None, axis, keepdims, initial=initial)


@jit(static_argnames=("axis", "keepdims"))
def nanmax(a: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
    return _nan_reduction(a, max, -np.inf, initial is None, axis, keepdims, initial=initial)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    return _nan_reduction(a, sum, 0, False, axis, keepdims, dtype=dtype)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    return _nan_reduction(a, prod, 1, False, axis, keepdims, dtype=dtype)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    _check_arraylike(a)
    kind = get_aval(a).dtype.kind
    if kind in "biu":
        if dtype is not None:
            raise NotImplementedError("jnp.nanmean of integers with a dtype")
        return mean(a, axis, keepdims=keepdims)
    dtype = _to_inexact(get_aval(a).dtype) if dtype is None else _dtype(dtype)
    normalizer = sum(elementwise.bitwise_not(_isnan(a)), axis=axis, dtype=dtype, keepdims=keepdims)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims), normalizer)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a: Any, axis: Any = None, dtype: Any = None, ddof: Any = 0,
           keepdims: bool = False) -> Any:
    _check_arraylike(a)
    computation, dtype = _var_types(get_aval(a).dtype, dtype)
    a = asarray(a).astype(computation)
    a_mean = nanmean(a, axis, dtype=computation, keepdims=True)
    # The double-where trick: a NaN's centred value is 0, so its gradient is too.
    centered = lax.square(where(_isnan(a), 0, lax.sub(a, a_mean)))
    normalizer = sum(elementwise.bitwise_not(_isnan(a)), axis=axis, keepdims=keepdims) - ddof
    normalizer_mask = lax.le(normalizer, lax.full_like(normalizer, 0, shape=()))
    result = sum(centered, axis, keepdims=keepdims)
    result = where(normalizer_mask, np.nan, result)
    divisor = where(normalizer_mask, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, get_aval(result).dtype))
    return lax.convert_element_type(result, dtype)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a: Any, axis: Any = None, dtype: Any = None, ddof: Any = 0,
           keepdims: bool = False) -> Any:
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def _nanarg(arg_fn: Callable[..., Any], fill: float, name: str) -> Callable[..., Any]:
    def fn(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if get_aval(a).dtype.kind not in "fc":
            return arg_fn(a, axis=axis, keepdims=keepdims)
        nan_mask = _isnan(a)
        res = arg_fn(where(nan_mask, fill, a), axis=axis, keepdims=keepdims)
        return where(all(nan_mask, axis=axis, keepdims=keepdims), -1, res)
    fn.__name__ = fn.__qualname__ = name
    return jit(fn, static_argnames=("axis", "keepdims"))


_nanargmax = _nanarg(argmax, -np.inf, "_nanargmax")
_nanargmin = _nanarg(argmin, np.inf, "_nanargmin")


def nanargmax(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    _check_arraylike(a)
    return _nanargmax(a, None if axis is None else operator.index(axis), bool(keepdims))


def nanargmin(a: Any, axis: Any = None, keepdims: Any = None) -> Any:
    _check_arraylike(a)
    return _nanargmin(a, None if axis is None else operator.index(axis), bool(keepdims))


__all__ = ["all", "any", "average", "count_nonzero", "nanargmax", "nanargmin", "nanmax",
           "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "ptp"]
