"""`jax.numpy`'s index arithmetic and diagonal/triangle index sets: unravel_index,
ravel_multi_index, tril/triu_indices(_from), diagflat, fill_diagonal and resize;
as JAX 0.10.2 lowers them."""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .api import jit
from .core import Tracer, get_aval, to_numpy
from .jnp_arrays import arange, ravel, tile
from .jnp_base import (
    _check_arraylike,
    _dtype,
    array,
    asarray,
    ones,
    reshape,
    weak_result_type,
    where,
    zeros,
)
from .jnp_creation import diag_indices, tril, triu
from .jnp_float import divmod
from .jnp_selection import nonzero
from .jnp_ufuncs import clip


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    _check_arraylike(indices)
    idx = asarray(indices)
    shape = list(shape) if isinstance(shape, Sequence) else [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out: list[Any] = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        idx, out[i] = divmod(idx, s)
    oob_pos = idx > 0
    oob_neg = asarray(False) if get_aval(idx).dtype.kind == "u" else idx < -1
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, out))


_MODES = {"clip": lambda i, d: clip(i, 0, d - 1), "wrap": lambda i, d: i % d,
          "ignore": lambda i, d: i, "raise": lambda i, d: i}


def ravel_multi_index(multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise",
                      order: str = "C", *, dtype: Any = None) -> Any:
    if len(multi_index) != len(dims):
        raise ValueError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(operator.index(d) for d in dims)
    _check_arraylike(*multi_index)
    idx = [asarray(i) for i in multi_index]
    dtype = weak_result_type(1, *idx)[0] if dtype is None else _dtype(dtype)
    if dtype.kind not in "iu":
        raise ValueError(f"{dtype=} is not an integer type.")
    if any(get_aval(i).dtype.kind not in "iu" for i in idx):
        raise TypeError("only int indices permitted")
    if mode not in _MODES:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or "
                         "'ignore'.")
    if mode == "raise":
        if any(isinstance(i, Tracer) for i in idx):
            raise TypeError("ravel_multi_index with mode='raise' reads its indices: under a "
                            "trace use mode='wrap' or mode='clip' instead.")
        if any(np.any((to_numpy(i) < 0) | (to_numpy(i) >= d)) for i, d in zip(idx, dims)):
            raise ValueError("invalid entry in coordinates array")
    idx = [_MODES[mode](i, d) for i, d in zip(idx, dims)]
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=dtype)
    for i, s in zip(idx, strides):
        result = result + i.astype(dtype) * int(s)
    return result


def _triu_size(n: int, m: int, k: int) -> int:
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    i, j = nonzero(triu(ones((n, m)), k=k), size=_triu_size(n, m, k))
    return i, j


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Any, Any]:
    n, k = operator.index(n), operator.index(k)
    m = n if m is None else operator.index(m)
    i, j = nonzero(tril(ones((n, m)), k=k), size=_triu_size(m, n, -k))
    return i, j


def _shape_2d(arr: Any) -> tuple[int, ...]:
    shape = arr.shape if hasattr(arr, "shape") else get_aval(asarray(arr)).shape
    if len(shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return shape


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    shape = _shape_2d(arr)
    return triu_indices(shape[0], k=k, m=shape[1])


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, Any]:
    shape = _shape_2d(arr)
    return tril_indices(shape[0], k=k, m=shape[1])


def diagflat(v: Any, k: int = 0) -> Any:
    _check_arraylike(v)
    flat = ravel(v)
    n = get_aval(flat).shape[0]
    size = n + abs(k)
    res = zeros(size * size, dtype=get_aval(flat).dtype)
    i = arange(0, size - abs(k))
    fi = i + k + i * size if k >= 0 else i + (i - k) * size
    return res.at[fi].set(flat).reshape(size, size)


def _tile_to_size(arr: Any, size: int) -> Any:
    n = get_aval(arr).size
    if n < size:
        arr = tile(arr, int(np.ceil(size / n)))
    return arr[:size] if get_aval(arr).size > size else arr


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    _check_arraylike(a, val)
    a, val = asarray(a), asarray(val)
    shape = get_aval(a).shape
    if len(shape) < 2:
        raise ValueError("array must be at least 2-d")
    if len(shape) > 2 and not all(n == shape[0] for n in shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(shape)
    values = val if get_aval(val).ndim == 0 else _tile_to_size(val.ravel(), n)
    return a.at[diag_indices(n, len(shape))].set(values)


@jit(static_argnames=("new_shape",))
def resize(a: Any, new_shape: Any) -> Any:
    _check_arraylike(a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(new_shape)
    if any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(a)
    new_size = math.prod(new_shape)
    if get_aval(arr).size == 0 or new_size == 0:
        raise NotImplementedError("jnp.resize of or to an empty array")
    arr = tile(arr, -(-new_size // get_aval(arr).size))[:new_size]
    return reshape(arr, new_shape)


__all__ = ["diagflat", "fill_diagonal", "ravel_multi_index", "resize", "tril_indices",
           "tril_indices_from", "triu_indices", "triu_indices_from",
           "unravel_index"]
