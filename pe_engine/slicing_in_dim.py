"""lax's `*_in_dim` forms: a slice, index or dynamic update along one axis, the other axes
whole; as JAX 0.10.2 writes them (the dynamic index forms under JAX's `jit`)."""
from __future__ import annotations

from typing import Any

from . import core
from . import lax_base as lax
from .api import jit
from .slicing import dynamic_slice, dynamic_update_slice


def slice_in_dim(operand: Any, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Any:
    shape = core.get_aval(operand).shape
    axis = int(axis)
    start = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    size = shape[axis]
    lo = 0 if start_index is None else int(start_index)
    hi = size if limit_index is None else int(limit_index)
    start[axis] = lo + size if lo < 0 else lo
    limit[axis] = hi + size if hi < 0 else hi
    strides[axis] = int(stride)
    return lax.slice(operand, start, limit, strides)


def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    index, axis = int(index), int(axis)
    size = core.get_aval(operand).shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    out = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return out if keepdims else lax.squeeze(out, (axis,))


def _only(axis: int, ndim: int, allow: bool) -> list[bool]:
    flags = [False] * ndim
    flags[axis] = allow
    return flags


def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Any:
    shape = core.get_aval(operand).shape
    axis = int(axis)
    starts = [lax._const(start_index, 0)] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, starts, sizes,
                         allow_negative_indices=_only(axis, len(shape), allow_negative_indices))


@jit(static_argnames=["axis", "keepdims", "allow_negative_indices"])
def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Any:
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else lax.squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Any:
    ndim = core.get_aval(operand).ndim
    axis = int(axis)
    starts = [lax._const(start_index, 0)] * ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts,
                                allow_negative_indices=_only(axis, ndim, allow_negative_indices))


@jit(static_argnames=["axis", "allow_negative_indices"])
def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Any:
    axis = int(axis)
    if core.get_aval(update).ndim != core.get_aval(operand).ndim:
        update = lax.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


__all__ = ["dynamic_index_in_dim", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
           "dynamic_update_slice_in_dim", "index_in_dim", "slice_in_dim"]
