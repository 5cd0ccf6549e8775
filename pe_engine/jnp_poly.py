"""`jax.numpy`'s polynomials (coefficients highest power first): polyval, polyadd,
polysub, polyder, polyint, polymul and polydiv, and the 1-D convolve and correlate that
polymul builds on; lowered as JAX 0.10.2 lowers them (polyval is Horner's rule in a
`scan`; polyadd adds the shorter into the longer's tail with `.at[].add`; convolutions
bind conv_general_dilated).
"""
from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .control_flow import scan
from .convolution import conv_general_dilated
from .core import get_aval
from .jnp_arrays import arange, concatenate, flip, full
from .jnp_base import (
    _check_arraylike,
    _promote_dtypes,
    _to_inexact,
    broadcast_shapes,
    maximum,
    true_divide,
    zeros,
)
from .jnp_math import conjugate
from .jnp_shape import atleast_1d


@functools.partial(jit, static_argnames=("unroll",))
def polyval(p: Any, x: Any, *, unroll: int = 16) -> Any:
    _check_arraylike(p, x)
    p, x = _promote_dtypes(p, x)
    shape = broadcast_shapes(get_aval(p).shape[1:], get_aval(x).shape)
    y = lax.full_like(x, 0, shape=shape, dtype=get_aval(x).dtype)
    y, _ = scan(lambda y, c: (y * x + c, None), y, p, unroll=unroll)
    return y


@jit
def polyadd(a1: Any, a2: Any) -> Any:
    _check_arraylike(a1, a2)
    a1, a2 = _promote_dtypes(a1, a2)
    n1, n2 = get_aval(a1).shape[0], get_aval(a2).shape[0]
    if n2 <= n1:
        return a1.at[-n2:].add(a2)
    return a2.at[-n1:].add(a1)


@jit
def polysub(a1: Any, a2: Any) -> Any:
    _check_arraylike(a1, a2)
    a1, a2 = _promote_dtypes(a1, a2)
    return polyadd(a1, -a2)


@functools.partial(jit, static_argnames=("m",))
def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    m = operator.index(m)
    k = 0 if k is None else k
    _check_arraylike(p, k)
    p, k = _promote_dtypes(p, k, to=_to_inexact)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if get_aval(k).shape[0] == 1:
        k = full((m,), k[0])
    if get_aval(k).shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    dtype = get_aval(p).dtype
    # Row i holds the factors n, n-1, ... that the i-th integration divides by.
    grid = (arange(get_aval(p).shape[0] + m, dtype=dtype)[np.newaxis]
            - arange(m, dtype=dtype)[:, np.newaxis])
    coeff = maximum(1, grid).prod(0)[::-1]
    return true_divide(concatenate((p, k)), coeff)


@functools.partial(jit, static_argnames=("m",))
def polyder(p: Any, m: int = 1) -> Any:
    _check_arraylike(p)
    m = operator.index(m)
    p, = _promote_dtypes(p, to=_to_inexact)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    dtype = get_aval(p).dtype
    coeff = (arange(m, get_aval(p).shape[0], dtype=dtype)[np.newaxis]
             - arange(m, dtype=dtype)[:, np.newaxis]).prod(0)
    return p[:-m] * coeff[::-1]




def polydiv(u: Any, v: Any, *, trim_leading_zeros: bool = False) -> tuple[Any, Any]:
    """Long division, one quotient coefficient per step (unrolled, as JAX's)."""
    _check_arraylike(u, v)
    if trim_leading_zeros:
        raise NotImplementedError("jnp.polydiv's trim_leading_zeros (its result's length "
                                  "depends on the values)")
    u, v = _promote_dtypes(u, v, to=_to_inexact)
    m, n = get_aval(u).shape[0] - 1, get_aval(v).shape[0] - 1
    scale = 1. / v[0]
    q = zeros(max(m - n + 1, 1), dtype=get_aval(u).dtype)
    for k in range(m - n + 1):
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k:k + n + 1].add(-d * v)
    return q, u


# --------------------------------------------------------------------------- convolution


@functools.partial(jit, static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x: Any, y: Any, mode: str, op: str, precision: Any,
          preferred_element_type: Any = None) -> Any:
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = _promote_dtypes(x, y, to=_to_inexact)  # NumPy's rule: convolutions are inexact
    else:
        x, y = _promote_dtypes(x, y)
    nx, ny = get_aval(x).shape[0], get_aval(y).shape[0]
    if not nx or not ny:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {get_aval(x).shape} and "
                         f"{get_aval(y).shape}.")
    out_order = slice(None)
    if op == "correlate":
        y = conjugate(y)
        if nx < ny:
            x, y, nx, ny = y, x, ny, nx
            out_order = slice(None, None, -1)
    else:
        if nx < ny:
            x, y, nx, ny = y, x, ny, nx
        y = flip(y)
    pads = {"valid": (0, 0), "same": (ny // 2, ny - ny // 2 - 1), "full": (ny - 1, ny - 1)}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = conv_general_dilated(x[None, None, :], y[None, None, :], (1,), [pads[mode]],
                                  precision=precision,
                                  preferred_element_type=preferred_element_type)
    return result[0, 0, out_order]


def _conv_entry(op: str, default_mode: str) -> Any:
    def fn(a: Any, v: Any, mode: str = default_mode, *, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
        _check_arraylike(a, v)
        return _conv(a, v, mode=mode, op=op, precision=precision,
                     preferred_element_type=preferred_element_type)
    fn.__name__ = fn.__qualname__ = op
    return jit(fn, static_argnames=("mode", "precision", "preferred_element_type"))


convolve = _conv_entry("convolve", "full")
correlate = _conv_entry("correlate", "valid")


def polymul(a1: Any, a2: Any, *, trim_leading_zeros: bool = False) -> Any:
    _check_arraylike(a1, a2)
    a1, a2 = _promote_dtypes(a1, a2, to=_to_inexact)
    if trim_leading_zeros:
        raise NotImplementedError("jnp.polymul's trim_leading_zeros (its result's length "
                                  "depends on the values)")
    if not get_aval(a1).shape[0]:
        a1 = zeros(1, dtype=get_aval(a2).dtype)
    if not get_aval(a2).shape[0]:
        a2 = zeros(1, dtype=get_aval(a1).dtype)
    return convolve(a1, a2, mode="full")


__all__ = ["convolve", "correlate", "polyadd", "polyder", "polydiv", "polyint", "polymul",
           "polysub", "polyval"]
