"""`jax.numpy`'s function-applying helpers (fromfunction, apply_along_axis, apply_over_axes),
the complex-object predicates and NumPy's printing (options, array_repr, array_str), built as
JAX 0.10.2 builds them: the helpers nest `vmap`s (their programs are the batched bodies), the
rest are Python.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .batching import vmap
from .jnp_arrays import arange
from .jnp_base import _canonical_axes, _check_arraylike, asarray, expand_dims


def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float,
                 **kwargs: Any) -> Any:
    """One vmap per axis, the first axis outermost: the function sees scalar indices."""
    shape = tuple(int(s) for s in (shape if isinstance(shape, Sequence) else (shape,)))
    n = len(shape)
    for i in range(n):
        function = vmap(function, in_axes=tuple(0 if k == n - 1 - i else None for k in range(n)))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any,
                     **kwargs: Any) -> Any:
    """The axes after `axis` are mapped innermost (out to the end), the ones before it
    outermost, so func1d sees the 1-D slices."""
    _check_arraylike(arr)
    ndim = np.ndim(arr)
    (axis,) = _canonical_axes(axis, ndim)

    def func(a: Any) -> Any:
        return func1d(a, *args, **kwargs)
    for i in range(1, ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Sequence[int]) -> Any:
    """func(a, axis) per axis in turn; a result that lost the axis gets it back (size 1)."""
    a = asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim - 1:
            b = expand_dims(b, axis)
        elif b.ndim != a.ndim:
            raise ValueError("function is not returning an array of the correct shape")
        a = b
    return a


def iscomplexobj(x: Any) -> bool:
    """By type, not value: the engine has no complex dtype, so only Python and NumPy complex
    objects are complex."""
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    kind = getattr(x, "dtype", None)
    return np.issubdtype(kind if kind is not None else np.asarray(x).dtype, np.complexfloating)


def isrealobj(x: Any) -> bool:
    return not iscomplexobj(x)


# Printing is NumPy's: JAX's jnp exports numpy's own array_repr and array_str.
array_repr = np.array_repr
array_str = np.array_str


def get_printoptions() -> Mapping[str, Any]:
    """Arrays print through NumPy, as JAX's do, so these are NumPy's options."""
    return np.get_printoptions()


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    return np.set_printoptions(*args, **kwargs)


def printoptions(*args: Any, **kwargs: Any) -> contextlib.AbstractContextManager:
    return np.printoptions(*args, **kwargs)


__all__ = ["apply_along_axis", "apply_over_axes", "array_repr", "array_str", "fromfunction",
           "get_printoptions", "iscomplexobj", "isrealobj", "printoptions", "set_printoptions"]
