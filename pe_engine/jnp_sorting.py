"""`jax.numpy`'s sorting: sort, argsort and lexsort over lax's `sort` primitive, as JAX 0.10.2
lowers them (each under JAX's `jit`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_base import _canonical_axes, _check_arraylike, _dtype, asarray
from .sorting import sort as lax_sort
from .sorting import sort_key_val
from .structural import broadcasted_iota, rev


def _unsupported(kind: Any, order: Any, name: str) -> None:
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")


@jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Any:
    _check_arraylike(a)
    _unsupported(kind, order, "sort")
    arr = asarray(a)
    if axis is None:
        arr, axis = arr.ravel(), 0
    dimension = _canonical_axes(axis, get_aval(arr).ndim)[0]
    out = lax_sort(arr, dimension=dimension, is_stable=stable)
    return rev(out, [dimension]) if descending else out


@jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a: Any, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False, dtype: Any = None) -> Any:
    _check_arraylike(a)
    _unsupported(kind, order, "argsort")
    arr = asarray(a)
    if axis is None:
        arr, axis = arr.ravel(), 0
    shape = get_aval(arr).shape
    dimension = _canonical_axes(axis, len(shape))[0]
    iota = broadcasted_iota(np.int32 if dtype is None else _dtype(dtype), shape, dimension)
    if descending and stable:
        arr, iota = rev(arr, [dimension]), rev(iota, [dimension])
    _, indices = sort_key_val(arr, iota, dimension=dimension, is_stable=stable)
    return rev(indices, [dimension]) if descending else indices


@jit(static_argnames=("axis",))
def lexsort(keys: Sequence[Any], axis: int = -1) -> Any:
    keys = tuple(keys)
    _check_arraylike(*keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    keys = tuple(map(asarray, keys))
    if len({get_aval(k).shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    shape = get_aval(keys[0]).shape
    if not shape:
        return lax.full((), 0, np.int32)
    axis = _canonical_axes(axis, len(shape))[0]
    iota = broadcasted_iota(np.int32, shape, axis)
    return lax_sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


__all__ = ["argsort", "lexsort", "sort"]
