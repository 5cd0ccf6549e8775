"""`jax.numpy`'s questions about dtypes and shapes, answered on the host (nothing is staged):
ndim, shape, size, isscalar, iterable, issubdtype, isdtype, can_cast and promote_types.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import ArrayOps
from .jnp_base import _canonical_axes

can_cast = np.can_cast  # JAX's is NumPy's
iterable = np.iterable


def ndim(a: Any) -> int:
    return a.ndim if hasattr(a, "ndim") else np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    return a.shape if hasattr(a, "shape") else np.shape(a)


def size(a: Any, axis: int | Sequence[int] | None = None) -> int:
    if axis is None and hasattr(a, "size"):
        return a.size
    dims = shape(a)
    return math.prod(dims[i] for i in _canonical_axes(axis, len(dims)))


def isscalar(element: Any) -> bool:
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, ArrayOps)):
        return element.ndim == 0
    return False


def issubdtype(arg1: Any, arg2: Any) -> bool:
    return np.issubdtype(arg1, arg2)


_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
          "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype: Any, kind: Any) -> bool:
    the_dtype = np.dtype(dtype)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            if the_dtype.kind in _KINDS[k]:
                return True
        elif isinstance(k, str) and k not in np.sctypeDict:
            raise ValueError(f"Unrecognized kind={k!r} expected one of {list(_KINDS)}, or a "
                             "compatible input for jnp.dtype()")
        elif the_dtype == np.dtype(k):
            return True
    return False


# JAX's promotion lattice on NumPy's dtypes (bfloat16 and the 8-bit floats aside): Python's
# scalar types are weak (a kind without a width), and an integer beside an unsigned one of
# at least its width needs the next signed width, at most int32 without x64 (an integer's
# join with uint64 is a float).
_WEAK = {bool: np.dtype(bool), int: np.dtype("int64"), float: np.dtype("float64"),
         complex: np.dtype("complex128")}
_ORDER = "buifc"
_WEAK_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # a weak int defers to an unsigned one


def _join(a: np.dtype, b: np.dtype) -> np.dtype:
    ka, kb = sorted((a.kind, b.kind), key=_ORDER.index)
    if a.kind == b.kind:
        return max(a, b, key=lambda d: d.itemsize)
    if ka == "b":
        return b if a.kind == "b" else a
    if (ka, kb) == ("u", "i"):
        u, i = (a, b) if a.kind == "u" else (b, a)
        if i.itemsize > u.itemsize:
            return i
        if u.itemsize == 8:
            return np.dtype("float64")
        return np.dtype(f"int{min(32, 16 * u.itemsize)}")  # int64 only under x64
    wide = a if a.kind == kb else b
    if kb == "c" and ka == "f":
        narrow = b if wide is a else a
        return np.dtype(f"complex{16 * max(narrow.itemsize, wide.itemsize // 2)}")
    return wide


def promote_types(a: Any, b: Any) -> np.dtype:
    """Not canonicalized: JAX answers int64 for int32 and uint32 even without x64."""
    weak_a, weak_b = a in _WEAK and type(a) is type, b in _WEAK and type(b) is type
    da = _WEAK[a] if weak_a else np.dtype(a)
    db = _WEAK[b] if weak_b else np.dtype(b)
    if weak_a == weak_b:
        return _join(da, db)
    strong, weak = (db, da) if weak_a else (da, db)
    if _WEAK_RANK[weak.kind] <= _WEAK_RANK[strong.kind]:
        return strong
    if weak.kind == "c" and strong.kind == "f":
        return np.dtype(f"complex{max(64, 16 * strong.itemsize)}")
    return weak


__all__ = ["can_cast", "isdtype", "isscalar", "issubdtype", "iterable", "ndim",
           "promote_types", "shape", "size"]
