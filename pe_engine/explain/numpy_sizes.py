"""What numpy would allocate, computed before it does (numpy_facade.py checks it).

numpy converts nested lists, broadcasts and indexes in C, in one step: the size of the
result is known from shapes alone, and is checked against the page's element limit first.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import ArrayOps
from .budget import measure
from .limits import MAX_ARRAY_ELEMENTS


def check_elements(n: int, what: str = "an array") -> None:
    if n > MAX_ARRAY_ELEMENTS:
        raise ValueError(f"{what} of {n} elements is over the page's limit of "
                         f"{MAX_ARRAY_ELEMENTS} elements")


def shape_size(shape: Any) -> int:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    n = 1
    for d in shape:
        d = int(d)
        if d < 0:
            raise ValueError("negative dimensions are not allowed")
        n *= d
    return n


def _nested(x: Any) -> Any:
    return iter(x) if isinstance(x, (list, tuple)) else None


def _elements(x: Any) -> int:
    if isinstance(x, (str, bytes)):
        raise TypeError("numpy arrays of text are not supported here (numbers and booleans "
                        "only)")
    size = getattr(x, "size", 1) if isinstance(x, (np.ndarray, ArrayOps)) else 1
    return size if isinstance(size, int) else 1


def _too_deep() -> ValueError:
    return ValueError("a list nested more than 32 deep cannot be an array")


def _too_many(_: int) -> ValueError:
    return ValueError(f"an array of this list would have more than {MAX_ARRAY_ELEMENTS} "
                      f"elements, over the page's limit of {MAX_ARRAY_ELEMENTS} elements")


def check_sequence(x: Any) -> Any:
    """`x`, once sure the array numpy would make of it is within the element limit: nested
    lists are counted before numpy converts them (a row repeated by reference, as in
    `[[0.0] * 15000] * 15000`, is one list in memory and 225M elements in an array)."""
    if isinstance(x, (list, tuple)):
        measure(x, _nested, _elements, per_item=0, per_container=0, depth=32,
                limit=MAX_ARRAY_ELEMENTS, too_deep=_too_deep, too_big=_too_many)
    return x


def index_size(shape: tuple[Any, ...], key: Any) -> int | None:
    """The elements of `a[key]` when the key holds arrays or lists (advanced indexing: a
    copy, which can be far larger than `a`), None for basic indexing (a view)."""
    key = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, (list, tuple, np.ndarray, ArrayOps, bool, np.bool_)) for k in key):
        return None
    try:
        return _advanced_size(shape, key)
    except (IndexError, ValueError, TypeError):
        return None  # numpy raises its own error for the key


def _advanced_size(shape: tuple[int, ...], key: tuple[Any, ...]) -> int:
    consumed = sum(np.ndim(check_sequence(k)) if _is_mask(k) else 1 for k in key
                   if k is not None and k is not Ellipsis)
    kept, i = 1, 0
    advanced: list[tuple[int, ...]] = []
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            skipped = len(shape) - consumed
            kept *= math.prod(shape[i:i + skipped])
            i += skipped
        elif isinstance(k, slice):
            kept *= len(range(*k.indices(shape[i])))
            i += 1
        elif _is_mask(k):
            m = np.asarray(check_sequence(k))
            advanced.append((int(np.count_nonzero(m)),))
            i += m.ndim
        elif isinstance(k, (int, np.integer)):
            i += 1
        else:
            advanced.append(np.shape(check_sequence(k)))
            i += 1
    kept *= math.prod(shape[i:])
    return kept * shape_size(np.broadcast_shapes(*advanced))


def _is_mask(k: Any) -> bool:
    return isinstance(k, (bool, np.bool_)) or getattr(k, "dtype", None) == np.bool_ or (
        isinstance(k, list) and bool(k) and all(isinstance(v, bool) for v in k))


def matmul_size(a: tuple[Any, ...], b: tuple[Any, ...]) -> int:
    if not a or not b:
        return shape_size(np.broadcast_shapes(a, b))
    batch = np.broadcast_shapes(a[:-2], b[:-2]) if len(a) > 1 and len(b) > 1 else ()
    rows = a[-2] if len(a) > 1 else 1
    cols = b[-1] if len(b) > 1 else 1
    return shape_size(batch) * int(rows) * int(cols)
