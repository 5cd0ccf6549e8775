"""`jax.numpy.pad` in the modes constant, wrap, edge, symmetric, reflect and empty, lowered as
JAX 0.10.2 lowers them (under JAX's `jit`, the widths static)."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .core import Tracer, get_aval
from .jnp_arrays import flip, repeat
from .jnp_base import _check_arraylike, asarray, broadcast_to, squeeze
from .jnp_creation import empty_like
from .lax_base_rules import pad as lax_pad
from .slicing_in_dim import slice_in_dim
from .structural import concatenate

_SHAPES = {(1, 2): lambda v, nd: (tuple(v[0]),) * nd, (2,): lambda v, nd: (tuple(v),) * nd,
           (1,): lambda v, nd: ((v[0], v[0]),) * nd, (): lambda v, nd: ((v[()], v[()]),) * nd}


def _pairs(nvals: Any, nd: int, name: str) -> tuple:
    """JAX's _broadcast_to_pairs: ((before, after),) per axis, as NumPy integers."""
    if any(isinstance(v, Tracer) for v in np.ravel(np.asarray(nvals, dtype=object))):
        raise TypeError(f"{name} argument of jnp.pad must be concrete")
    v = np.asarray(nvals)
    if v.shape == (nd, 2):
        return tuple((row[0], row[1]) for row in v)
    if v.shape not in _SHAPES:
        raise ValueError(f"jnp.pad: {name} with {nd=} has unsupported shape {v.shape}. "
                         f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
    return _SHAPES[v.shape](v, nd)


def _pad_constant(array: Any, widths: tuple, value: Any) -> Any:
    aval = get_aval(array)
    value = lax.convert_element_type(value, aval.dtype, aval.weak_type)
    vdim = get_aval(value).ndim
    if vdim == 0 or (vdim == 1 and get_aval(value).shape[-1] == 1):
        return lax_pad(array, value if vdim == 0 else squeeze(value),
                       [(lo, hi, 0) for lo, hi in widths])
    if vdim == 1 and get_aval(value).shape[-1] != 2:
        raise ValueError(f"jnp.pad: constant_values has unsupported shape "
                         f"{get_aval(value).shape}. If the shape is 1D or 2D, the last "
                         "dimension must be of size 1 or 2.")
    value = broadcast_to(value, (aval.ndim, 2))
    for i in range(aval.ndim):
        for side in (0, 1):
            if widths[i][side] != 0:
                cfg = [(0, 0, 0)] * aval.ndim
                cfg[i] = (widths[i][0], 0, 0) if side == 0 else (0, widths[i][1], 0)
                array = lax_pad(array, value[i, side], cfg)
    return array


def _no_padding(widths: tuple, mode: str) -> None:
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array: Any, widths: tuple) -> Any:
    for i, size in enumerate(get_aval(array).shape):
        if size == 0:
            _no_padding(widths[i], "wrap")
            continue
        left, left_rest = divmod(widths[i][0], size)
        right, right_rest = divmod(widths[i][1], size)
        parts = [slice_in_dim(array, size - left_rest, size, axis=i)] if left_rest > 0 else []
        parts += (left + right + 1) * [array]
        if right_rest > 0:
            parts.append(slice_in_dim(array, 0, right_rest, axis=i))
        array = concatenate(parts, i)
    return array


def _pad_edge(array: Any, widths: tuple) -> Any:
    for i, n in enumerate(get_aval(array).shape):
        if n == 0:
            _no_padding(widths[i], "edge")
            continue
        before = repeat(slice_in_dim(array, 0, 1, axis=i), widths[i][0], axis=i)
        after = repeat(slice_in_dim(array, n - 1, n, axis=i), widths[i][1], axis=i)
        array = concatenate([before, array, after], i)
    return array


def _reflected(array: Any, i: int, size: int, padding: int, before: bool, mode: str,
               odd: bool) -> Any:
    """One side's padding; `size` is the axis's size before either side was padded."""
    edge = slice_in_dim(array, 0, 1, axis=i) if before else slice_in_dim(array, -1, None, axis=i)
    offset = 1 if mode == "reflect" and size > 1 else 0
    while padding > 0:
        cur = min(padding, size - offset)
        padding -= cur
        if before:
            x = slice_in_dim(array, offset, offset + cur, axis=i)
        else:
            stop = None if mode == "symmetric" or size == 1 else -1
            x = slice_in_dim(array, -(cur + offset), stop, axis=i)
        x = flip(x, axis=i)
        if odd:
            x = 2 * edge - x
            if size > 1:
                edge = (slice_in_dim(x, 0, 1, axis=i) if before
                        else slice_in_dim(x, -1, None, axis=i))
        array = concatenate([x, array] if before else [array, x], i)
    return array


def _pad_symmetric_or_reflect(array: Any, widths: tuple, mode: str, reflect_type: str) -> Any:
    for i, size in enumerate(get_aval(array).shape):
        if size == 0:
            _no_padding(widths[i], mode)
            continue
        if widths[i][0] == 0 and widths[i][1] == 0:
            continue
        odd = reflect_type == "odd"
        array = _reflected(array, i, size, widths[i][0], True, mode, odd)
        array = _reflected(array, i, size, widths[i][1], False, mode, odd)
    return array


def _pad_empty(array: Any, widths: tuple) -> Any:
    for i in range(get_aval(array).ndim):
        shape = get_aval(array).shape
        before = empty_like(array, shape=shape[:i] + (widths[i][0],) + shape[i + 1:])
        after = empty_like(array, shape=shape[:i] + (widths[i][1],) + shape[i + 1:])
        array = concatenate([before, array, after], i)
    return array


_MODES = {"constant": ("constant_values",), "wrap": (), "edge": (), "empty": (),
          "symmetric": ("reflect_type",), "reflect": ("reflect_type",)}


@jit(static_argnums=(1, 2, 4))
def _pad(array: Any, widths: tuple, mode: str, constant_values: Any, reflect_type: str) -> Any:
    array = asarray(array)
    if get_aval(array).ndim == 0:
        return array
    if np.any(np.array(widths) < 0):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, widths, asarray(constant_values))
    if mode == "wrap":
        return _pad_wrap(array, widths)
    if mode == "edge":
        return _pad_edge(array, widths)
    if mode == "empty":
        return _pad_empty(array, widths)
    return _pad_symmetric_or_reflect(array, widths, mode, reflect_type)


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    _check_arraylike(array)
    array = asarray(array)
    widths = _pairs(pad_width, get_aval(array).ndim, "pad_width")
    if callable(mode) or mode not in _MODES:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad "
                                  "(the engine offers " + ", ".join(_MODES) + ")")
    unsupported = set(kwargs) - set(_MODES[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    return _pad(array, widths, mode, kwargs.get("constant_values", 0),
                kwargs.get("reflect_type", "even"))


__all__ = ["pad"]
