"""`jax.numpy`'s differences and statistics: diff, ediff1d, gradient, trapezoid, unwrap,
cov and corrcoef; lowered as JAX 0.10.2 lowers them (each a `jit` of JAX's name, as
JAX's are; the slices are JAX's indexing and `lax.slice_in_dim`).
"""
from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_arrays import concatenate, cumsum, full
from .jnp_base import (
    _canonical_axes,
    _check_arraylike,
    _promote_args_inexact,
    _promote_dtypes,
    _to_inexact,
    abs,
    array,
    asarray,
    broadcast_to,
    dot,
    negative,
    sqrt,
    true_divide,
    weak_result_type,
    where,
)
from .jnp_creation import diag
from .jnp_math import conjugate, real
from .jnp_reductions import average
from .jnp_shape import atleast_2d, moveaxis
from .jnp_ufuncs import clip, floor_divide, mod
from .slicing_in_dim import slice_in_dim


@functools.partial(jit, static_argnames=("n", "axis"))
def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    _check_arraylike(a)
    n, axis = operator.index(n), operator.index(axis)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    ndim = get_aval(a).ndim
    if ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = _canonical_axes(axis, ndim)[0]
    edge_shape = list(get_aval(a).shape)
    edge_shape[axis] = 1

    def edge(v: Any) -> Any:
        _check_arraylike(v)
        return v if np.ndim(v) else broadcast_to(v, tuple(edge_shape))

    combined = [*([edge(prepend)] if prepend is not None else []), a,
                *([edge(append)] if append is not None else [])]
    if len(combined) > 1:
        a = concatenate(combined, axis)
    later = tuple(slice(1, None) if i == axis else slice(None) for i in range(ndim))
    earlier = tuple(slice(None, -1) if i == axis else slice(None) for i in range(ndim))
    op = operator.ne if get_aval(a).dtype == np.bool_ else operator.sub
    for _ in range(n):
        a = op(a[later], a[earlier])
    return a


@jit
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    _check_arraylike(ary)
    arr = asarray(ary).ravel()
    result = lax.sub(arr[1:], arr[:-1])
    dtype = get_aval(arr).dtype
    if to_begin is not None:
        _check_arraylike(to_begin)
        result = concatenate((asarray(to_begin).astype(dtype).ravel(), result))
    if to_end is not None:
        _check_arraylike(to_end)
        result = concatenate((result, asarray(to_end).astype(dtype).ravel()))
    return result


def _gradient_along_axis(a: Any, h: Any, axis: int) -> Any:
    """Central differences inside, one-sided ones at the two edges."""
    sliced = functools.partial(slice_in_dim, a, axis=axis)
    upper_edge = sliced(1, 2) - sliced(0, 1)
    lower_edge = sliced(-1, None) - sliced(-2, -1)
    if np.ndim(h) == 0:
        inner = (sliced(2, None) - sliced(None, -2)) * 0.5 / h
        lower_edge = lower_edge / h
        upper_edge = upper_edge / h
    elif np.ndim(h) == 1:
        if get_aval(h).shape[0] != get_aval(a).shape[axis]:
            raise ValueError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")
        h_shape = [1] * get_aval(a).ndim
        h_shape[axis] = get_aval(h).shape[0]
        h = h.reshape(h_shape)
        sliced_x = functools.partial(slice_in_dim, h, axis=axis)
        upper_edge = upper_edge / (sliced_x(1, 2) - sliced_x(0, 1))
        lower_edge = lower_edge / (sliced_x(-1, None) - sliced_x(-2, -1))
        dx1 = sliced_x(1, -1) - sliced_x(0, -2)
        dx2 = sliced_x(2, None) - sliced_x(1, -1)
        wa = -(dx2) / (dx1 * (dx1 + dx2))
        wb = (dx2 - dx1) / (dx1 * dx2)
        wc = dx1 / (dx2 * (dx1 + dx2))
        inner = wa * sliced(0, -2) + wb * sliced(1, -1) + wc * sliced(2, None)
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate((upper_edge, inner, lower_edge), axis=axis)


@functools.partial(jit, static_argnames=("axis", "edge_order"))
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = None) -> Any:
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    _check_arraylike(f, *varargs)
    a, *spacing = _promote_dtypes(f, *varargs, to=_to_inexact)
    shape = get_aval(a).shape
    axes = _canonical_axes(axis, len(shape))
    if not axes:
        return []
    if min(shape[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least 2 elements are required.")
    if not spacing:
        dx: list[Any] = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along_axis(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


@functools.partial(jit, static_argnames=("axis",))
def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    if x is None:
        _check_arraylike(y)
        y, = _promote_dtypes(y, to=_to_inexact)
        dx = asarray(dx)
        if get_aval(dx).ndim:
            dx = lax.expand_dims(dx, range(get_aval(y).ndim - get_aval(dx).ndim))
            dx = moveaxis(dx, axis, -1)
    else:
        _check_arraylike(y, x)
        y, x = _promote_dtypes(y, x, to=_to_inexact)
        dx = diff(x) if get_aval(x).ndim == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    # A spacing constant along the axis: the sum less half of the two ends.
    if get_aval(dx).ndim == 0 or get_aval(dx).shape[-1] == 1:
        dx_reduced = dx if get_aval(dx).ndim == 0 else dx[..., 0]
        return dx_reduced * (y.sum(-1) - 0.5 * (y[..., 0] + y[..., -1]))
    return 0.5 * (dx * (y[..., 1:] + y[..., :-1])).sum(-1)


@functools.partial(jit, static_argnames=("axis",))
def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    _check_arraylike(p)
    # JAX's promote_dtypes binds both casts: under eager constant folding the period's runs
    # now, an array (a constvar) whose arithmetic below runs now too.
    dtype, weak = weak_result_type(p, period)
    p, period = (lax.convert_element_type(v, dtype, weak) for v in (p, period))
    if get_aval(p).dtype.kind == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if get_aval(p).shape[axis] == 0:
        return p
    # jnp operations even on a constant period: JAX stages them (they print as equations).
    if discont is None:
        discont = true_divide(period, 2)
    interval = (floor_divide(period, 2) if get_aval(p).dtype.kind in "iu"
                else true_divide(period, 2))
    dd = diff(p, axis=axis)
    ddmod = mod(dd + interval, period) - interval
    ddmod = where((ddmod == negative(interval)) & (dd > 0), interval, ddmod)
    ph_correct = where(abs(dd) < discont, 0, ddmod - dd)
    return concatenate((slice_in_dim(p, 0, 1, axis=axis),
                        slice_in_dim(p, 1, None, axis=axis) + cumsum(ph_correct, axis=axis)),
                       axis=axis)


@functools.partial(jit, static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:
    if y is not None:
        m, y = _promote_args_inexact(m, y)
    else:
        m, = _promote_args_inexact(m)
    if get_aval(m).ndim > 2 or (y is not None and get_aval(y).ndim > 2):
        raise ValueError("m has more than 2 dimensions")
    if fweights is not None or aweights is not None:
        raise NotImplementedError("jnp.cov with fweights or aweights")
    X = atleast_2d(m)  # noqa: N806 - NumPy's name
    if not rowvar and get_aval(m).ndim != 1:
        X = X.T  # noqa: N806
    if get_aval(X).shape[0] == 0:
        return array([]).reshape(0, 0)
    if y is not None:
        y = atleast_2d(y)
        if not rowvar and get_aval(y).shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)  # noqa: N806
    rows, cols = get_aval(X).shape
    if cols == 0:
        return full(() if rows == 1 else (rows, rows), np.nan, dtype=get_aval(X).dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    if dtype is not None:
        X = X.astype(dtype)  # noqa: N806
    avg, w_sum = average(X, axis=1, weights=None, returned=True)
    w_sum[0]  # unused without weights, but JAX indexes it: an equation its jaxpr keeps
    f = cols - ddof
    X = X - avg[:, None]  # noqa: N806
    return true_divide(dot(X, conjugate(X.T)), f).squeeze()


@functools.partial(jit, static_argnames=("rowvar", "dtype"))
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    _check_arraylike(x)
    c = cov(x, y, rowvar, dtype=dtype)
    if not get_aval(c).ndim:
        # nan for nan/nan, inf/inf and 0/0; otherwise 1
        return true_divide(c, c)
    d = diag(c)
    stddev = sqrt(real(d)).astype(get_aval(c).dtype)
    c = c / stddev[:, None] / stddev[None, :]
    return clip(real(c), -1, 1)


__all__ = ["corrcoef", "cov", "diff", "ediff1d", "gradient", "trapezoid", "unwrap"]
