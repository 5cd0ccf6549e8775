"""`jax.numpy`'s selection by condition: where (one and three arguments), nonzero,
flatnonzero, argwhere, select, choose, compress, extract and bincount; lowered as JAX 0.10.2
lowers them. The forms whose result's length depends on values need `size=` under a trace,
as in JAX; without it they read the value, so they run on concrete inputs only.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import lax_base as lax
from .core import Tracer, get_aval, to_numpy
from .jnp_arrays import arange, cumsum, ravel, stack
from .jnp_base import (
    _check_arraylike,
    _promote_dtypes,
    _where_jit,
    array,
    asarray,
    broadcast_arrays,
    expand_dims,
    transpose,
    where,
    zeros,
)
from .jnp_creation import indices
from .jnp_shape import atleast_1d, moveaxis, vstack
from .jnp_sorting import argsort
from .jnp_ufuncs import clip, floor_divide, remainder


def _concrete_size(value: Any, what: str) -> int:
    if isinstance(value, Tracer):
        raise TypeError(f"The size argument of jnp.{what} must be statically specified to use "
                        f"jnp.{what} within JAX transformations.")
    return int(to_numpy(value))


def bincount(x: Any, weights: Any = None, minlength: int = 0, *, length: int | None = None
             ) -> Any:
    _check_arraylike(x)
    x = asarray(x)
    if get_aval(x).dtype == bool:
        x = lax.convert_element_type(x, np.int32)
    if get_aval(x).dtype.kind not in "iu":
        raise TypeError(f"x argument to bincount must have an integer type; got "
                        f"{get_aval(x).dtype}")
    if get_aval(x).ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        if isinstance(x, Tracer):
            raise TypeError("jnp.bincount of a traced array needs a static `length` argument")
        vals = to_numpy(x)
        length = max(minlength, vals.size and int(max(0, vals.max())) + 1)
    weights = np.array(1, np.int32) if weights is None else weights
    return zeros(length, get_aval(weights).dtype).at[clip(x, 0)].add(weights)


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple[Any, ...]:
    _check_arraylike(a)
    arr = asarray(a)
    shape = get_aval(arr).shape
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    mask = arr if get_aval(arr).dtype == bool else arr != 0
    n = _concrete_size(mask.sum(), "nonzero") if size is None else size
    if get_aval(arr).size == 0 or n == 0:
        return tuple(zeros(n, np.int32) for _ in shape)
    # The k-th nonzero's flat index: how many running counts fall below k, summed.
    flat = cumsum(bincount(cumsum(mask), length=n))
    strides = (np.cumprod(shape[::-1])[::-1] // shape).astype(np.int32)
    out = tuple(remainder(floor_divide(flat, s), d) for s, d in zip(strides, shape))
    if fill_value is not None:
        fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * len(shape)
        if any(np.shape(v) != () for v in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(shape)}; "
                             f"got {fill_value}")
        fill_mask = arange(n) >= mask.sum()
        out = tuple(_where_jit(fill_mask, v, o) for v, o in zip(fills, out))
    return out


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    _check_arraylike(a)
    a = asarray(a)
    result = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    if get_aval(a).ndim == 0:
        return result[:0].reshape(get_aval(result).shape[0], 0)
    return result.reshape(get_aval(result).shape[0], get_aval(a).ndim)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    if len(condlist) != len(choicelist):
        raise ValueError(f"condlist must have length equal to choicelist ({len(condlist)} vs "
                         f"{len(choicelist)})")
    if not condlist:
        raise ValueError("condlist must be non-empty")
    _check_arraylike(*condlist, *choicelist, default)
    conds = [asarray(c) for c in condlist]
    choices = _promote_dtypes(asarray(default), *[asarray(c) for c in choicelist])
    # The default goes first under a False condition: argmax of all-False is 0.
    which = stack(broadcast_arrays(False, *conds)).astype(bool).argmax(axis=0)
    return lax.select_n(*broadcast_arrays(which, *choices))


def choose(a: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    _check_arraylike(a, *choices)
    a, choices = asarray(a), [asarray(c) for c in choices]
    if get_aval(a).dtype.kind not in "iu":
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise TypeError("jnp.choose with mode='raise' reads its index array: under a "
                            "trace use mode='wrap' or mode='clip' instead.")
        if np.any((to_numpy(a) < 0) | (to_numpy(a) >= n)):
            raise ValueError("invalid entry in choice array")
        arr = a
    elif mode == "wrap":
        arr = a % n
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    return array(choices)[(arr, *indices(get_aval(arr).shape, sparse=True))]


def compress(condition: Any, a: Any, axis: int | None = None, *, size: int | None = None,
             fill_value: Any = 0, out: None = None) -> Any:
    _check_arraylike(condition, a, fill_value)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    cond, fill_value = asarray(condition).astype(bool), asarray(fill_value)
    if get_aval(cond).ndim != 1:
        raise ValueError("condition must be a 1D array")
    arr = ravel(a) if axis is None else moveaxis(a, axis, 0)
    axis = 0 if axis is None else axis
    n = get_aval(arr).shape[0]
    cond, extra = cond[:n], cond[n:]
    arr = arr[:get_aval(cond).shape[0]]
    if size is None:
        if isinstance(cond, Tracer):
            raise TypeError("jnp.compress of a traced condition needs a static `size`")
        if np.any(to_numpy(extra)):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[to_numpy(cond)]
    elif not 0 <= size <= get_aval(arr).shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={get_aval(arr).shape[0]}")
    else:
        mask = expand_dims(cond, range(1, get_aval(arr).ndim))
        arr = where(mask, arr, array(fill_value, dtype=get_aval(arr).dtype))
        result = arr[argsort(cond, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    _check_arraylike(condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


__all__ = ["argwhere", "bincount", "choose", "compress", "extract", "flatnonzero", "nonzero",
           "select"]
