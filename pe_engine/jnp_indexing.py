"""`jax.numpy`'s indexing functions: take, take_along_axis and put_along_axis, lowered to
`gather` and `scatter` as JAX 0.10.2 lowers them (each under JAX's `jit`)."""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import elementwise
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_base import _canonical_axes, _check_arraylike, _where_jit, asarray, broadcast_shapes
from .jnp_base import broadcast_to as _broadcast_to
from .jnp_creation import indices as _indices
from .jnp_ufuncs import mod
from .slicing import GatherDimensionNumbers, GatherScatterMode, gather

_MODES = {None: GatherScatterMode.FILL_OR_DROP, "fill": GatherScatterMode.FILL_OR_DROP,
          "drop": GatherScatterMode.FILL_OR_DROP, "clip": GatherScatterMode.CLIP,
          "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS}


def _mode(mode: Any) -> GatherScatterMode:
    """JAX's GatherScatterMode.from_any (a mode by name; None is fill-or-drop)."""
    if isinstance(mode, GatherScatterMode):
        return mode
    if mode not in _MODES:
        raise ValueError(f'Unknown gather mode "{mode}"')
    return _MODES[mode]


@jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"))
def _take(a: Any, indices: Any, axis: int | None = None, mode: Any = None,
          unique_indices: bool = False, indices_are_sorted: bool = False,
          fill_value: Any = None) -> Any:
    a, indices = asarray(a), asarray(indices)
    if axis is None:
        a, axis = a.ravel(), 0
    shape = get_aval(a).shape
    axis = _canonical_axes(axis, len(shape))[0]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        indices = _where_jit(indices < 0, indices + shape[axis], indices)
    elif mode == "wrap":
        indices = mod(indices, lax._const(indices, shape[axis]))
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    index_dims = get_aval(indices).ndim
    if shape[axis] == 0 or get_aval(indices).size == 0:
        raise NotImplementedError("jnp.take from or with an empty array")
    slice_sizes = list(shape)
    slice_sizes[axis] = 1
    dnums = GatherDimensionNumbers(
        offset_dims=(*range(axis), *range(axis + index_dims, len(shape) + index_dims - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,))
    return gather(a, indices[..., None], dnums, tuple(slice_sizes), mode=gather_mode,
                  unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                  fill_value=fill_value)


def take(a: Any, indices: Any, axis: int | None = None, out: None = None, mode: Any = None,
         unique_indices: bool = False, indices_are_sorted: bool = False,
         fill_value: Any = None) -> Any:
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    _check_arraylike(a, indices)
    return _take(a, indices, None if axis is None else operator.index(axis), mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 fill_value=fill_value)


def _normalize_index(index: Any, size: int) -> Any:
    if get_aval(index).dtype.kind == "u":
        return index
    return elementwise.select(index < 0, lax.add(index, lax._const(index, size)), index)


@jit(static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices"))
def take_along_axis(arr: Any, indices: Any, axis: int | None = -1, mode: Any = None,
                    fill_value: Any = None, *, wrap_negative_indices: bool | None = None
                    ) -> Any:
    _check_arraylike(arr, indices)
    a, indices = asarray(arr), asarray(indices)
    if get_aval(indices).dtype.kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got "
                        f"{get_aval(indices).dtype}")
    idx_shape = get_aval(indices).shape
    if axis is None:
        if len(idx_shape) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{idx_shape}")
        a, axis = a.ravel(), 0
    rank = get_aval(a).ndim
    if rank != len(idx_shape):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{len(idx_shape)} vs. {rank}")
    axis = _canonical_axes(axis, rank)[0]
    size = get_aval(a).shape[axis]
    arr_shape = tuple(1 if i == axis else d for i, d in enumerate(get_aval(a).shape))
    out_shape = broadcast_shapes(idx_shape, arr_shape)
    if size == 0 or mode == "one_hot":
        raise NotImplementedError("jnp.take_along_axis on an empty axis or with mode one_hot")
    wrap = mode != "promise_in_bounds" if wrap_negative_indices is None else wrap_negative_indices
    if wrap:
        indices = _normalize_index(lax.convert_element_type(indices, np.int32), size)
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis or d != 1]
    gather_indices = lax.reshape(indices, (*(out_shape[i] for i in index_dims), 1))
    slice_sizes, offset, collapsed, batch_op, batch_idx, squeeze = [], [], [], [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == axis:
            slice_sizes.append(1)
            collapsed.append(new_i)
            start_map = (new_i,)
            new_i, j = new_i + 1, j + 1
        elif idx_shape[i] == 1:
            offset.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            batch_op.append(new_i)
            batch_idx.append(j)
            new_i, j = new_i + 1, j + 1
    dnums = GatherDimensionNumbers(tuple(offset), tuple(collapsed), start_map, tuple(batch_op),
                                   tuple(batch_idx))
    return gather(lax.squeeze(a, squeeze), gather_indices, dnums, tuple(slice_sizes),
                  mode=_mode(mode), fill_value=fill_value)


@jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Any:
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arrays are immutable. Pass inplace=False to instead return an updated "
                         "array.")
    if mode is not None:
        raise NotImplementedError("jnp.put_along_axis with a mode")
    _check_arraylike(arr, indices, values)
    arr, indices, values = asarray(arr), asarray(indices), asarray(values)
    original, original_axis = get_aval(arr).shape, axis
    if axis is None:
        arr, axis = arr.ravel(), 0
    if get_aval(arr).ndim != get_aval(indices).ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                         f"Got {get_aval(arr).ndim=} and {get_aval(indices).ndim=}.")
    values = _broadcast_to(values, get_aval(indices).shape)
    shape = get_aval(arr).shape
    idx = list(_indices(shape, sparse=True))
    idx[axis % len(shape)] = indices
    out = arr.at[tuple(idx)].set(values)
    return out.reshape(original) if original_axis is None else out


__all__ = ["put_along_axis", "take", "take_along_axis"]
