"""`jax.numpy`'s cumulative reductions beyond cumsum: cumprod, nancumsum, nancumprod,
cumulative_sum and cumulative_prod; and `lax.associative_scan`, the parallel prefix scan
JAX differentiates cumprod through (its JVP is the JVP of that scan, as JAX's is).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import ad, lax_math, structural
from . import lax_base as lax
from .ad_rules import pad
from .api import jit
from .core import get_aval
from .jnp_arrays import _promote_integer
from .jnp_base import _canonical_axes, _check_arraylike, _dtype, _where_jit
from .pytree import tree_flatten, tree_unflatten
from .slicing_in_dim import slice_in_dim
from .structural import concatenate


def _interleave(a: Any, b: Any, axis: int) -> Any:
    """a's and b's elements alternately along `axis` (a first): each padded with zeros
    between its elements, then the two summed."""
    na, nb = get_aval(a).shape[axis], get_aval(b).shape[axis]
    a_pad = [(0, 0, 0)] * get_aval(a).ndim
    b_pad = [(0, 0, 0)] * get_aval(b).ndim
    a_pad[axis] = (0, 1 if na == nb else 0, 1)
    b_pad[axis] = (1, 0 if na == nb else 1, 1)
    op = lax.bitwise_or if get_aval(a).dtype == np.bool_ else lax.add
    return op(pad(a, lax._const(a, 0), a_pad), pad(b, lax._const(b, 0), b_pad))


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Prefix scan of an associative `fn` by recursive halving: combine neighbouring pairs,
    scan those, then fill in the even positions from the odd ones."""
    flat, tree = tree_flatten(elems)
    if reverse:
        flat = [structural.rev(e, [axis]) for e in flat]
    axis = _canonical_axes(axis, get_aval(flat[0]).ndim)[0]

    def combine(a_flat: list, b_flat: list) -> list:
        out, _ = tree_flatten(fn(tree_unflatten(tree, a_flat), tree_unflatten(tree, b_flat)))
        return out

    def scan(elems: list) -> list:
        n = get_aval(elems[0]).shape[axis]
        if n < 2:
            return elems
        reduced = combine([slice_in_dim(e, 0, -1, 2, axis) for e in elems],
                          [slice_in_dim(e, 1, None, 2, axis) for e in elems])
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([slice_in_dim(e, 0, -1, axis=axis) for e in odd],
                           [slice_in_dim(e, 2, None, 2, axis) for e in elems])
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, 2, axis) for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, axis=axis), r], axis)
                for e, r in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scans = scan(flat)
    if reverse:
        scans = [structural.rev(s, [axis]) for s in scans]
    return tree_unflatten(tree, scans)


def _cumprod_jvp(primals: list, tangents: list, *, axis: int, reverse: bool
                 ) -> tuple[Any, Any]:
    scan = functools.partial(associative_scan, lax.mul, axis=axis, reverse=reverse)
    return ad.jvp(scan, tuple(primals), tuple(ad.instantiate_zeros(t) for t in tangents))


ad.primitive_jvps[lax_math.cumprod_p] = _cumprod_jvp


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
    return _cumulative_reduction(lax_math.cumprod, a, axis, dtype)


@jit(static_argnames=_STATIC)
def nancumsum(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(structural.cumsum, a, axis, dtype, fill_nan=True, fill_value=0)


@jit(static_argnames=_STATIC)
def nancumprod(a: Any, axis: Any = None, dtype: Any = None) -> Any:
    return _cumulative_reduction(lax_math.cumprod, a, axis, dtype, fill_nan=True, fill_value=1)


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
    out = _cumulative_reduction(lax_math.cumprod, x, axis, dtype)
    return _with_initial(x, out, axis, 1) if include_initial else out


__all__ = ["associative_scan", "cumprod", "cumulative_prod", "cumulative_sum", "nancumprod",
           "nancumsum"]
