"""`jax.numpy`'s triangles, diagonals, grids and ranges: tri/tril/triu, trace, diag,
diag_indices, linspace/logspace/geomspace, meshgrid, ix_, indices, copy and empty_like;
lowered as JAX 0.10.2 lowers them, with its `jit` wrappers.
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import elementwise
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_arrays import eye, full_like, stack
from .jnp_base import (
    _check_arraylike,
    _dtype,
    _to_inexact,
    _where_jit,
    array,
    asarray,
    broadcast_shapes,
    broadcast_to,
    power,
    sign,
    sum,
    weak_result_type,
    zeros_like,
)
from .jnp_math import log10
from .jnp_shape import moveaxis
from .lax_base_rules import pad
from .structural import broadcasted_iota, concatenate, iota

# --------------------------------------------------------------------------- triangles


def _tri(dtype: np.dtype, shape: tuple[int, int], k: int) -> Any:
    """lax's `_tri`: ones where row + k >= column."""
    rows = lax.add(broadcasted_iota(np.int32, shape, 0), np.int32(k))
    return lax.convert_element_type(lax.ge(rows, broadcasted_iota(np.int32, shape, 1)), dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    return _tri(_dtype(np.float32 if dtype is None else dtype), (N, N if M is None else M), k)


def _masked(m: Any, k: int, name: str) -> Any:
    shape = get_aval(m).shape
    if len(shape) < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    rows, cols = shape[-2:]
    mask = _tri(np.dtype(bool), (rows, cols), k)
    return lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1)) \
        if len(shape) > 2 else mask


@jit(static_argnames=("k",))
def tril(m: Any, k: int = 0) -> Any:
    _check_arraylike(m)
    return lax.select_n(_masked(m, k, "tril"), zeros_like(m), m)


@jit(static_argnames=("k",))
def triu(m: Any, k: int = 0) -> Any:
    _check_arraylike(m)
    return lax.select_n(_masked(m, k - 1, "triu"), m, zeros_like(m))


@jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
    _check_arraylike(a)
    shape = get_aval(a).shape
    if axis1 % len(shape) == axis2 % len(shape):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = _where_jit(eye(shape[axis1], shape[axis2], k=offset, dtype=bool), a, zeros_like(a))
    return sum(a, axis=(-2, -1), dtype=dtype)


# --------------------------------------------------------------------------- diagonals


@jit(static_argnames=("k",))
def _diag(v: Any, k: int) -> Any:
    shape = get_aval(v).shape
    if len(shape) != 1:
        raise ValueError("diag input must be 1d or 2d")
    # Two zeros, as JAX makes them: under eager constant folding each is a constant.
    v = pad(v, full_like(v, 0, shape=()), ((builtins.max(0, -k), builtins.max(0, k), 0),))
    return _where_jit(eye(shape[0] + builtins.abs(k), k=k, dtype=bool), v[:, None],
                      full_like(v, 0, shape=()))


def diag(v: Any, k: int = 0) -> Any:
    _check_arraylike(v)
    if get_aval(v).ndim == 2:
        raise NotImplementedError("jnp.diag of a matrix (JAX takes its diagonal through "
                                  "platform_dependent, which the engine lacks); pass a vector")
    return _diag(v, operator.index(k))


def diag_indices(n: int, ndim: int = 2) -> tuple[Any, ...]:
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (iota(np.int32, n),) * ndim


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    _check_arraylike(arr)
    shape = get_aval(arr).shape
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], ndim=len(shape))


# --------------------------------------------------------------------------- ranges


@jit(static_argnames=("num", "endpoint", "retstep", "dtype", "axis"))
def _linspace(start: Any, stop: Any, num: int, endpoint: bool, retstep: bool, dtype: Any,
              axis: int) -> Any:
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype = _to_inexact(weak_result_type(start, stop)[0]) if dtype is None else _dtype(dtype)
    computation = _to_inexact(dtype)
    start = lax.convert_element_type(asarray(start), computation)
    stop = lax.convert_element_type(asarray(stop), computation)
    bounds = list(broadcast_shapes(get_aval(start).shape, get_aval(stop).shape))
    b_start, b_stop = broadcast_to(start, bounds), broadcast_to(stop, bounds)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    bounds.insert(axis, 1)
    div = num - 1 if endpoint else num
    if num > 1:
        delta = (stop - start) / asarray(div, computation)
        iota_shape = [1] * len(bounds)
        iota_shape[axis] = div
        step = lax.reshape(iota(computation, div), iota_shape) / asarray(div, computation)
        out = b_start.reshape(bounds) * (1 - step) + b_stop.reshape(bounds) * step
        if endpoint:
            out = concatenate([out, lax.expand_dims(b_stop, (axis,))], axis)
    elif num == 1:
        delta = asarray(np.nan if endpoint else stop - start, computation)
        out = b_start.reshape(bounds)
    else:
        raise NotImplementedError("jnp.linspace with num=0")
    if dtype.kind in "iu":
        out = elementwise.floor(out)
    result = lax.convert_element_type(out, dtype)
    return (result, delta) if retstep else result


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0) -> Any:
    return _linspace(start, stop, operator.index(num), endpoint, retstep, dtype,
                     operator.index(axis))


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _logspace(start: Any, stop: Any, num: int, endpoint: bool, base: Any, dtype: Any,
              axis: int) -> Any:
    dtype = _to_inexact(weak_result_type(start, stop)[0]) if dtype is None else _dtype(dtype)
    computation = _to_inexact(dtype)
    start = lax.convert_element_type(asarray(start), computation)
    stop = lax.convert_element_type(asarray(stop), computation)
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return lax.convert_element_type(power(base, lin), dtype)


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
    return _logspace(start, stop, operator.index(num), endpoint, base, dtype,
                     operator.index(axis))


@jit(static_argnames=("num", "endpoint", "dtype", "axis"))
def _geomspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: Any, axis: int) -> Any:
    dtype = _to_inexact(weak_result_type(start, stop)[0]) if dtype is None else _dtype(dtype)
    computation = _to_inexact(dtype)
    start = lax.convert_element_type(asarray(start), computation)
    stop = lax.convert_element_type(asarray(stop), computation)
    s = sign(start)
    res = s * logspace(log10(start / s), log10(stop / s), num, endpoint=endpoint, base=10.0,
                       dtype=computation, axis=0)
    ndim = get_aval(res).ndim
    axis = axis % ndim
    if axis:
        res = lax.transpose(res, (*range(1, axis + 1), 0, *range(axis + 1, ndim)))
    return lax.convert_element_type(res, dtype)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
    return _geomspace(start, stop, operator.index(num), endpoint, dtype, operator.index(axis))


# --------------------------------------------------------------------------- grids


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy"
             ) -> list[Any]:
    _check_arraylike(*xi)
    args = [asarray(x) for x in xi]
    if not copy:
        raise ValueError("jax.numpy.meshgrid only supports copy=True")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    if any(get_aval(a).ndim != 1 for a in args):
        raise ValueError("Arguments to jax.numpy.meshgrid must be 1D, got shapes "
                         f"{[get_aval(a).shape for a in args]}")
    swap = indexing == "xy" and len(args) >= 2
    if swap:
        args[0], args[1] = args[1], args[0]
    sizes = [get_aval(a).shape[0] for a in args]
    shape = [1] * len(args) if sparse else sizes

    def out_shape(i: int) -> list[int]:
        return [*shape[:i], sizes[i], *shape[i + 1:]] if sparse else shape
    out = [lax.broadcast_in_dim(a, out_shape(i), (i,)) for i, a in enumerate(args)]
    if swap:
        out[0], out[1] = out[1], out[0]
    return out


def ix_(*args: Any) -> tuple[Any, ...]:
    _check_arraylike(*args)
    out = []
    for i, a in enumerate(map(asarray, args)):
        aval = get_aval(a)
        if aval.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{aval.shape}")
        if aval.dtype == bool:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = aval.shape[0]
        out.append(lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    dtype = _dtype(np.int32 if dtype is None else dtype)
    dims = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dims):
        shape = (1,) * i + (d,) + (1,) * (len(dims) - i - 1) if sparse else dims
        out.append(lax.broadcast_in_dim(iota(dtype, d), shape, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else array([], dtype=dtype)


# --------------------------------------------------------------------------- copies


def copy(a: Any, order: str | None = None) -> Any:
    _check_arraylike(a)
    return array(a)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None) -> Any:
    _check_arraylike(prototype)
    return lax.full_like(prototype, 0, None if dtype is None else _dtype(dtype), shape)


__all__ = ["copy", "diag", "diag_indices", "diag_indices_from", "empty_like", "geomspace",
           "indices", "ix_", "linspace", "logspace", "meshgrid", "trace", "tri", "tril", "triu"]
