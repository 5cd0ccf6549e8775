"""NumPy indexing (`x[...]`) and indexed updates (`x.at[...].set(...)`), lowered as JAX
0.10.2 lowers them: static ints and slices become slice/rev/squeeze; a traced or
out-of-bounds integer becomes a clamping dynamic_slice; integer arrays become a gather,
and every `.at` update a scatter.
"""
from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from . import elementwise, slicing, structural
from . import lax_base as lax
from .core import ArrayOps, Tracer, get_aval
from .jnp_base import (
    _promote_dtypes,
    _traced_together,
    array,
    asarray,
    broadcast_arrays,
    broadcast_to,
    divide,
    squeeze,
)

# An index after parsing: its kind and the operand axis it consumes (None for None/...).
INT, ARRAY, SLICE, NONE, ELLIPSIS = "int", "array", "slice", "none", "ellipsis"


class Parsed(NamedTuple):
    index: Any
    kind: str


def _is_int_array(i: Any) -> bool:
    if isinstance(i, (list, tuple)):
        return True
    if isinstance(i, (ArrayOps, np.ndarray, np.generic)):
        kind = get_aval(i).dtype.kind
        if kind == "b":
            raise NotImplementedError("boolean-mask indexing (its result's shape depends on "
                                      "the mask's values; use jnp.where)")
        if kind not in "iu":
            raise IndexError("Indexer must have integer or boolean type, got indexer with "
                             f"type {get_aval(i).dtype.name}")
        return True
    return False


def _parse(idx: Any, shape: tuple) -> list[Parsed]:
    if isinstance(idx, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    idx = idx if isinstance(idx, tuple) else (idx,)
    out = []
    for i in idx:
        if i is None:
            out.append(Parsed(None, NONE))
        elif i is Ellipsis:
            out.append(Parsed(None, ELLIPSIS))
        elif isinstance(i, builtins.slice):
            for part in (i.start, i.stop, i.step):
                if isinstance(part, Tracer):
                    raise IndexError("Array slice indices must have static start/stop/step "
                                     "to be used with NumPy indexing syntax; use "
                                     "lax.dynamic_slice")
            out.append(Parsed(i, SLICE))
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            out.append(Parsed(int(i), INT))
        elif _is_int_array(i):
            arr = np.asarray(i) if isinstance(i, (list, tuple)) else i
            out.append(Parsed(arr, ARRAY))
        else:
            raise TypeError(f"Indexing mode not supported: {i!r}")
    if builtins.sum(p.kind == ELLIPSIS for p in out) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = builtins.sum(p.kind in (INT, ARRAY, SLICE) for p in out)
    if n_real > len(shape):
        raise IndexError(f"Too many indices: {len(shape)}-dimensional array indexed with "
                         f"{n_real} regular indices.")
    fill = [Parsed(builtins.slice(None), SLICE)] * (len(shape) - n_real)
    if any(p.kind == ELLIPSIS for p in out):
        e = next(k for k, p in enumerate(out) if p.kind == ELLIPSIS)
        return out[:e] + fill + out[e + 1:]
    return out + fill


def _axes(parsed: list[Parsed]) -> list[int]:
    """The operand axis each index consumes (a None index consumes none: it is given the
    next one's, which nothing reads)."""
    axes, ax = [], 0
    for p in parsed:
        axes.append(ax)
        ax += p.kind != NONE
    return axes


# --------------------------------------------------------------------------- reads


def getitem(x: Any, idx: Any) -> Any:
    shape = get_aval(x).shape
    parsed = _parse(idx, shape)
    static_ints = all(p.kind != ARRAY for p in parsed)
    if static_ints and all(-shape[a] <= p.index < shape[a] for p, a in zip(parsed, _axes(parsed))
                           if p.kind == INT):
        return _static_slice(x, parsed, shape)
    scalar_arrays = all(p.kind != ARRAY or np.ndim(p.index) == 0 for p in parsed)
    unit_steps = all(p.kind != SLICE or p.index.step in (None, 1, -1) for p in parsed)
    if scalar_arrays and unit_steps:
        return _dynamic_slice(x, parsed, shape)
    return _gather(x, parsed, shape)


class _Basic:
    """A basic index's work besides the slice, static or dynamic alike: flip the
    negative-step axes, drop the integer-indexed ones, insert the `None` ones."""

    def __init__(self) -> None:
        self.rev: list[int] = []
        self.squeeze: list[int] = []
        self.new: list[int] = []

    def sliced(self, parsed: list[Parsed]) -> Iterator[tuple[Parsed, int]]:
        """Each entry that slices an operand axis, with its axis; a `None` entry is noted as
        a new axis where it lands in the result (the caller notes squeezes as it goes)."""
        seen = 0
        for p, axis in zip(parsed, _axes(parsed)):
            if p.kind == NONE:
                self.new.append(seen - len(self.squeeze) + len(self.new))
            else:
                seen += 1
                yield p, axis

    def finish(self, out: Any) -> Any:
        if self.rev:
            out = structural.rev(out, self.rev)
        if self.squeeze:
            out = lax.squeeze(out, self.squeeze)
        if self.new:
            out = lax.expand_dims(out, self.new)
        return out


def _static_slice(x: Any, parsed: list[Parsed], shape: tuple) -> Any:
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    basic = _Basic()
    for p, axis in basic.sliced(parsed):
        if p.kind == INT:
            k = p.index + shape[axis] if p.index < 0 else p.index
            starts.append(k)
            limits.append(k + 1)
            strides.append(1)
            basic.squeeze.append(axis)
        else:
            size = shape[axis]
            start, stop, step = p.index.indices(size)
            if step < 0:
                new_start = builtins.min(size, stop + 1 + builtins.abs(start - stop - 1) % -step)
                starts.append(new_start)
                limits.append(builtins.max(new_start, start + 1))
                strides.append(-step)
                basic.rev.append(axis)
            else:
                starts.append(start)
                limits.append(builtins.max(start, stop))
                strides.append(step)
    trivial = all((lo, hi, s) == (0, d, 1) for lo, hi, s, d in zip(starts, limits, strides,
                                                                  shape))
    out = x if trivial else lax.slice(x, starts, limits,
                                      None if all(s == 1 for s in strides) else strides)
    return basic.finish(out)


def _dynamic_slice(x: Any, parsed: list[Parsed], shape: tuple) -> Any:
    starts: list[Any] = []
    sizes: list[int] = []
    basic = _Basic()
    for p, axis in basic.sliced(parsed):
        if p.kind in (INT, ARRAY):
            starts.append(asarray(p.index))
            sizes.append(1)
            basic.squeeze.append(axis)
        else:
            start, stop, step = p.index.indices(shape[axis])
            if step < 0:
                new_start = stop + 1 + builtins.abs(start - stop - 1) % -step
                starts.append(new_start)
                sizes.append(builtins.max(0, start + 1 - new_start))
                basic.rev.append(axis)
            else:
                starts.append(start)
                sizes.append(builtins.max(0, stop - start))
    if len(starts) > 1:
        starts = [lax.convert_element_type(i, np.int32) for i in starts]
    out = slicing.dynamic_slice(x, starts, sizes)
    return basic.finish(out)


class _GatherIndexer(NamedTuple):
    slice_shape: list
    newaxis_dims: tuple
    gather_slice_shape: list
    reversed_y_dims: list
    dnums: slicing.GatherDimensionNumbers
    gather_indices: Any
    unique_indices: bool
    indices_are_sorted: bool


def _normalize_index(index: Any, size: int) -> Any:
    if isinstance(index, int):
        return index + size if index < 0 else index
    if get_aval(index).dtype.kind == "u":
        return index
    # The size takes the index's type, weak type included (JAX's `_const`): a fori counter
    # stays weak here, and the cast to int32 that follows is an equation.
    return elementwise.select(index < 0, lax.add(index, lax._const(index, size)), index)


def _index_to_gather(parsed: list[Parsed], shape: tuple) -> _GatherIndexer:
    is_adv = [k for k, p in enumerate(parsed) if p.kind in (ARRAY, INT)]
    contiguous = bool(np.all(np.diff(is_adv) == 1))
    axes = _axes(parsed)
    parsed = [Parsed(_normalize_index(p.index, shape[a]), p.kind) if p.kind in (INT, ARRAY)
              else p for p, a in zip(parsed, axes)]
    advanced = any(p.kind == ARRAY and np.ndim(p.index) > 0 for p in parsed)
    adv_idx, adv_pos, adv_axes = [], [], []
    if advanced:
        without_none = [(k, p) for k, p in enumerate(parsed) if p.kind != NONE]
        for j, (k, p) in enumerate(without_none):
            if p.kind in (ARRAY, INT):
                adv_idx.append(asarray(p.index))
                adv_pos.append(k)
                adv_axes.append(j)
    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed, start_index_map = [], [], []
    gather_indices: list[tuple[Any, int]] = []
    gather_indices_shape: list[int] = []
    slice_shape: list[int] = []
    newaxis_dims: list[int] = []
    reversed_y_dims: list[int] = []
    gather_slice_shape: list[int] = []
    for pos, p in enumerate(parsed):
        if adv_idx and ((contiguous and pos == adv_pos[0]) or (not contiguous and pos == 0)):
            arrs = broadcast_arrays(*adv_idx)
            ashape = get_aval(arrs[0]).shape
            start_dim = len(gather_indices_shape)
            gather_indices.extend((lax.convert_element_type(a, np.int32), start_dim)
                                  for a in arrs)
            gather_indices_shape += ashape
            start_index_map.extend(adv_axes)
            collapsed.extend(adv_axes)
            slice_shape.extend(ashape)
            y_axis += len(ashape)
            collapsed_y_axis += len(ashape)
        if pos in adv_pos:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.kind in (INT, ARRAY) and np.ndim(p.index) == 0:
            gather_indices.append((lax.convert_element_type(p.index, np.int32),
                                   len(gather_indices_shape)))
            collapsed.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.kind == NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        else:
            start, stop, step = p.index.indices(shape[x_axis])
            size = builtins.max(0, -(-(stop - start) // step))
            slice_shape.append(size)
            if step == 1:
                if size != shape[x_axis]:
                    gather_indices.append((lax.convert_element_type(start, np.int32),
                                           len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                indices = array(start, dtype=np.int32) + array(step, dtype=np.int32) * \
                    structural.iota(np.int32, size)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    indices = structural.rev(indices, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((indices, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
    if not gather_indices:
        gather_array: Any = np.zeros((0,), np.int32)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        gather_array = lax.expand_dims(g, (get_aval(g).ndim,))
    else:
        last = len(gather_indices_shape)
        gather_indices_shape.append(1)
        # Under eager constant folding, a constant index array beside a traced one is
        # broadcast in the trace, as JAX's is (see _traced_together).
        arrays = _traced_together(*(g for g, _ in gather_indices))
        gather_array = structural.concatenate(
            [lax.broadcast_in_dim(g, gather_indices_shape,
                                  tuple(range(i, i + get_aval(g).ndim)))
             for g, (_, i) in zip(arrays, gather_indices)], last)
    dnums = slicing.GatherDimensionNumbers(tuple(offset_dims), tuple(sorted(collapsed)),
                                           tuple(start_index_map))
    return _GatherIndexer(slice_shape, tuple(newaxis_dims), gather_slice_shape,
                          reversed_y_dims, dnums, gather_array, not advanced, not advanced)


def _gather(x: Any, parsed: list[Parsed], shape: tuple) -> Any:
    ix = _index_to_gather(parsed, shape)
    y = x
    if 0 in ix.slice_shape:
        return lax.full_like(x, 0, shape=ix.slice_shape)
    if 0 not in get_aval(ix.gather_indices).shape:
        y = slicing.gather(y, ix.gather_indices, ix.dnums, ix.gather_slice_shape,
                           unique_indices=ix.unique_indices,
                           indices_are_sorted=ix.indices_are_sorted)
    if ix.reversed_y_dims:
        y = structural.rev(y, ix.reversed_y_dims)
    return lax.expand_dims(y, ix.newaxis_dims)


# --------------------------------------------------------------------------- updates


def _scatter_update(x: Any, idx: Any, y: Any, op: Any) -> Any:
    x = asarray(x)
    aval = get_aval(x)
    if isinstance(y, int) and aval.dtype.kind in "iu":
        y = asarray(y, dtype=aval.dtype)
    else:
        y = asarray(y)
    ix = _index_to_gather(_parse(idx, aval.shape), aval.shape)
    if 0 in ix.slice_shape:
        return x
    x, y = _promote_dtypes(x, y)
    y = broadcast_to(y, tuple(ix.slice_shape))
    y = squeeze(y, ix.newaxis_dims) if ix.newaxis_dims else y
    if ix.reversed_y_dims:
        y = structural.rev(y, ix.reversed_y_dims)
    d = ix.dnums
    dnums = slicing.ScatterDimensionNumbers(d.offset_dims, d.collapsed_slice_dims,
                                            d.start_index_map, d.operand_batching_dims,
                                            d.start_indices_batching_dims)
    out = op(x, ix.gather_indices, y, dnums, indices_are_sorted=ix.indices_are_sorted,
             unique_indices=ix.unique_indices)
    return lax.convert_element_type(out, aval.dtype, aval.weak_type)


class IndexUpdateRef:
    """`x.at[idx]`: the pending update, applied by one of its methods."""

    def __init__(self, array: Any, index: Any):
        self.array, self.index = array, index

    def get(self) -> Any:
        return getitem(self.array, self.index)

    def set(self, values: Any) -> Any:
        return _scatter_update(self.array, self.index, values, slicing.scatter)

    def add(self, values: Any) -> Any:
        return _scatter_update(self.array, self.index, values, slicing.scatter_add)

    def subtract(self, values: Any) -> Any:
        return self.add(-asarray(values))

    def multiply(self, values: Any) -> Any:
        return _scatter_update(self.array, self.index, values, slicing.scatter_mul)

    mul = multiply

    def divide(self, values: Any) -> Any:
        return self.multiply(divide(1, values))

    def min(self, values: Any) -> Any:
        return _scatter_update(self.array, self.index, values, slicing.scatter_min)

    def max(self, values: Any) -> Any:
        return _scatter_update(self.array, self.index, values, slicing.scatter_max)


class IndexUpdateHelper:
    """What `x.at` is: indexing it makes an `IndexUpdateRef`."""

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index: Any) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)
