"""JAX's type promotion without x64, on bool < int < float < complex: Python scalars are weakly
typed and defer to arrays; within a kind the widest strongly typed dtype wins."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import ShapedArray, canonicalize_dtype, get_aval

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_DEFAULT = {0: np.dtype("bool"), 1: np.dtype("int32"), 2: np.dtype("float32"),
            3: np.dtype("complex64")}


def _dtype(dtype: Any) -> np.dtype:
    if isinstance(dtype, type) and issubclass(dtype, np.generic):  # np.float32 and the like
        return canonicalize_dtype(dtype)
    return canonicalize_dtype(getattr(dtype, "dtype", dtype))


def _is_python_scalar(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)


def weak_result_type(*args: Any) -> tuple[np.dtype, bool]:
    """JAX's promotion on bool/int/float/complex: (dtype, weak_type)."""
    return _result_type([get_aval(a) for a in args])


def result_type(*args: Any) -> np.dtype:
    """jnp.result_type: the dtype arrays, scalars and dtypes promote to."""
    return weak_result_type(*[x if _is_python_scalar(x) or not _is_dtype_like(x)
                              else np.zeros((), _dtype(x)) for x in args])[0]


def _is_dtype_like(x: Any) -> bool:
    return isinstance(x, (np.dtype, str, type))


def _result_type(avals: Sequence[ShapedArray]) -> tuple[np.dtype, bool]:
    """The highest kind wins; within it, the widest strongly typed dtype (the first of equal
    widths), or the kind's default, weakly typed, when all of that kind are weak."""
    top, widest = -1, None
    for aval in avals:
        dt = aval.dtype
        rank = _KIND_RANK[dt.kind]
        if rank > top:
            top, widest = rank, None
        if (rank == top and not aval.weak_type
                and (widest is None or dt.itemsize > widest.itemsize)):
            widest = dt
    if widest is not None:
        return widest, False
    return _DEFAULT[top], True
