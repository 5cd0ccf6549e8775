"""`jax.numpy`'s order statistics: quantile, percentile, median and their NaN-ignoring
forms; lowered as JAX 0.10.2 lowers them: sort along the axis, then gather the two
neighbours of each fractional position and combine them by the method. Weights (and
with them the 'inverted_cdf' method) are not supported.
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from . import elementwise, structural
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_base import (
    _canonical_axes,
    _check_arraylike,
    _promote_dtypes,
    _to_inexact,
    _where_jit,
    asarray,
    subtract,
    sum,
    true_divide,
)
from .jnp_reductions import any
from .slicing import GatherDimensionNumbers, gather
from .sorting import sort

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


def _flatten_axes(a: Any, axis: Any, keepdims: bool) -> tuple[Any, int, list[int]]:
    """`a` with the reduced axes made one last axis (or raveled); that axis, and the shape
    keepdims restores."""
    shape = get_aval(a).shape
    if axis is None:
        return a.ravel(), 0, [1] * len(shape) if keepdims else []
    if not isinstance(axis, tuple):
        return a, _canonical_axes(axis, len(shape))[0], []
    axes = _canonical_axes(axis, len(shape))
    keepdim = [1 if i in axes else d for i, d in enumerate(shape)]
    # A permutation putting the kept axes first, the reduced ones last, as JAX builds it.
    dims = list(range(len(shape)))
    for i, s in enumerate(sorted(set(range(len(shape))) - set(axes))):
        dims[i], dims[s] = dims[s], dims[i]
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    touched = math.prod(d for i, d in enumerate(shape) if i in axes)
    a = lax.reshape(a, kept + (touched,), dims)
    return a, len(kept), keepdim


def _neighbours_squashed(a: Any, q: Any, axis: int, keepdims: bool) -> tuple[Any, ...]:
    a = _where_jit(_isnan(a), np.nan, a)  # every NaN positive, so that they sort last
    a = sort(a, dimension=axis)
    q_ndim = get_aval(q).ndim
    counts = sum(elementwise.bitwise_not(_isnan(a)), axis=axis, dtype=get_aval(q).dtype,
                 keepdims=keepdims)
    reduced_shape = get_aval(counts).shape
    q = lax.expand_dims(q, tuple(range(q_ndim, len(reduced_shape) + q_ndim)))
    counts = lax.expand_dims(counts, tuple(range(q_ndim)))
    q = lax.mul(q, lax.sub(counts, lax._const(q, 1)))
    low, high = elementwise.floor(q), elementwise.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(lax._const(high_weight, 1), high_weight)
    low = lax.max(lax._const(low, 0), lax.min(low, counts - 1))
    high = lax.max(lax._const(high, 0), lax.min(high, counts - 1))
    low = lax.convert_element_type(low, np.int32)
    high = lax.convert_element_type(high, np.int32)
    out_shape = get_aval(q).shape[:q_ndim] + reduced_shape
    index = [structural.broadcasted_iota(np.int32, out_shape, dim + q_ndim)
             for dim in range(len(reduced_shape))]
    if keepdims:
        index[axis] = low
    else:
        index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
    return low_value, high_value, low_weight, high_weight


def _neighbours(a: Any, q: Any, axis: int, keepdims: bool) -> tuple[Any, ...]:
    shape = get_aval(a).shape
    q_ndim = get_aval(q).ndim
    a = _where_jit(any(_isnan(a), axis=axis, keepdims=True), np.nan, a)
    a = sort(a, dimension=axis)
    n = lax.convert_element_type(shape[axis], get_aval(q).dtype)
    # jnp arithmetic on the constant n: JAX stages it (an equation each time).
    q = lax.mul(q, subtract(n, 1))
    low, high = elementwise.floor(q), elementwise.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(lax._const(high_weight, 1), high_weight)
    low = elementwise.clamp(lax._const(low, 0), low, subtract(n, 1))
    high = elementwise.clamp(lax._const(high, 0), high, subtract(n, 1))
    low = lax.convert_element_type(low, np.int32)
    high = lax.convert_element_type(high, np.int32)
    slice_sizes = list(shape)
    slice_sizes[axis] = 1
    end = len(shape) + q_ndim if keepdims else len(shape) + q_ndim - 1
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(q_ndim, end)),
                                   collapsed_slice_dims=() if keepdims else (axis,),
                                   start_index_map=(axis,))
    low_value = gather(a, low[..., None], dnums, slice_sizes)
    high_value = gather(a, high[..., None], dnums, slice_sizes)
    if q_ndim == 1:
        low_weight = lax.broadcast_in_dim(low_weight, get_aval(low_value).shape, (0,))
        high_weight = lax.broadcast_in_dim(high_weight, get_aval(high_value).shape, (0,))
    return low_value, high_value, low_weight, high_weight


def _quantile(a: Any, q: Any, axis: Any, method: str, keepdims: bool,
              squash_nans: bool) -> Any:
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint' or "
                         "'nearest' here ('inverted_cdf', with weights, is not supported)")
    a, = _promote_dtypes(a, to=_to_inexact)
    if get_aval(a).dtype.kind == "c":
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    a, axis, keepdim = _flatten_axes(a, axis, keepdims)
    if get_aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {get_aval(q).shape}")
    q_dtype = get_aval(q).dtype
    find = _neighbours_squashed if squash_nans else _neighbours
    low_value, high_value, low_weight, high_weight = find(a, q, axis, keepdims)
    if method == "linear":
        result = lax.add(lax.mul(low_value.astype(q_dtype), low_weight),
                         lax.mul(high_value.astype(q_dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        pred = lax.le(high_weight, lax._const(high_weight, 0.5))
        result = lax.select_n(pred, high_value, low_value)
    else:
        result = lax.mul(lax.add(low_value, high_value), lax._const(low_value, 0.5))
    if keepdims and keepdim:
        if get_aval(q).ndim:
            keepdim = [get_aval(q).shape[0], *keepdim]
        result = result.reshape(keepdim)
    return lax.convert_element_type(result, get_aval(a).dtype)


_STATIC = ("axis", "overwrite_input", "keepdims", "method")


def _check(name: str, a: Any, q: Any, overwrite_input: bool) -> tuple[Any, Any]:
    _check_arraylike(a, q)
    if overwrite_input:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True")
    return asarray(a), asarray(q)


@functools.partial(jit, static_argnames=_STATIC)
def quantile(a: Any, q: Any, axis: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False) -> Any:
    a, q = _check("quantile", a, q, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, False)


@functools.partial(jit, static_argnames=_STATIC)
def nanquantile(a: Any, q: Any, axis: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False) -> Any:
    a, q = _check("nanquantile", a, q, overwrite_input)
    return _quantile(a, q, axis, method, keepdims, True)


def _percentile(name: str, of_quantile: Any) -> Any:
    """percentile or nanpercentile: `of_quantile` at q / 100, a jit named `name` as in JAX."""
    def percentile(a: Any, q: Any, axis: Any = None, overwrite_input: bool = False,
                   method: str = "linear", keepdims: bool = False) -> Any:
        a, q = _check(name, a, q, overwrite_input)
        q, = _promote_dtypes(q, to=_to_inexact)
        return of_quantile(a, true_divide(q, 100), axis=axis, overwrite_input=overwrite_input,
                           method=method, keepdims=keepdims)

    percentile.__name__ = percentile.__qualname__ = name
    return jit(percentile, static_argnames=_STATIC)


percentile = _percentile("percentile", quantile)
nanpercentile = _percentile("nanpercentile", nanquantile)


@functools.partial(jit, static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a: Any, axis: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    _check_arraylike(a)
    return quantile(a, 0.5, axis=axis, overwrite_input=overwrite_input, keepdims=keepdims,
                    method="midpoint")


@functools.partial(jit, static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a: Any, axis: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    _check_arraylike(a)
    return nanquantile(a, 0.5, axis=axis, overwrite_input=overwrite_input,
                       keepdims=keepdims, method="midpoint")


__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]
