"""lax's sorting primitives: `sort` (several operands, ordered lexicographically by the first
`num_keys`) and `top_k`, with JVP and batching rules written as JAX's, so that every
transformation prints alike; and the lax functions over them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import ad, batching, core, structural
from . import lax_base as lax
from .slicing import GatherDimensionNumbers, GatherScatterMode, gather

# --------------------------------------------------------------------------- sort


def _sort_abstract(*avals: core.ShapedArray, dimension: int, is_stable: bool, num_keys: int
                   ) -> list[core.ShapedArray]:
    if any(a.shape != avals[0].shape for a in avals[1:]):
        shapes = " ".join(str(a.shape) for a in avals)
        raise TypeError(f"Arguments to sort must have equal shapes, got: {shapes}")
    return list(avals)


def _sort_keys(x: np.ndarray) -> list[np.ndarray]:
    """A key's sort keys, least significant first (np.lexsort's order): NumPy already orders
    floats as JAX's comparator does (-0 with 0, NaN last); complex by real, then imaginary."""
    return [x.imag, x.real] if x.dtype.kind == "c" else [x]


def _sort_impl(*args: Any, dimension: int, is_stable: bool, num_keys: int) -> list[core.Array]:
    avals = _sort_abstract(*map(core.get_aval, args), dimension=dimension,
                           is_stable=is_stable, num_keys=num_keys)
    vals = [np.moveaxis(core.to_numpy(a), dimension, -1) for a in args]
    keys = [k for v in reversed(vals[:num_keys]) for k in _sort_keys(v)]
    perm = np.lexsort(keys, axis=-1) if vals[0].ndim else np.zeros((), np.intp)
    out = [np.moveaxis(np.take_along_axis(v, perm, -1), -1, dimension) if v.ndim else v
           for v in vals]
    return [core.Array(np.asarray(o, a.dtype), a.weak_type) for o, a in zip(out, avals)]


sort_p = core.Primitive("sort", multiple_results=True)
core.abstract_eval_rules[sort_p] = _sort_abstract
core.impl_rules[sort_p] = _sort_impl


def _index_dtype(shape: Sequence[int]) -> np.dtype:
    """JAX's unsigned index type for a shape: uint32, or uint64 past uint32's range."""
    return np.dtype("uint32") if max(shape, default=0) < 2 ** 32 else np.dtype("uint64")


def _sort_jvp(primals: list, tangents: list, *, dimension: int, is_stable: bool,
              num_keys: int) -> tuple[list, list]:
    shape = core.get_aval(primals[0]).shape
    iota = structural.broadcasted_iota(_index_dtype(shape), shape, dimension)
    out = core.bind(sort_p, *primals, iota, dimension=dimension, is_stable=is_stable,
                    num_keys=num_keys)
    # NumPy integers, as JAX's np.delete makes them (the equation prints them so).
    batch = tuple(np.int64(d) for d in range(len(shape)) if d != dimension)
    dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(dimension,),
                                   start_index_map=(dimension,), operand_batching_dims=batch,
                                   start_indices_batching_dims=batch)
    idx = lax.expand_dims(out[-1], (len(shape),))
    tangents_out = [t if type(t) is ad.Zero else
                    gather(t, idx, dnums, (1,) * len(shape),
                           mode=GatherScatterMode.PROMISE_IN_BOUNDS)
                    for t in tangents]
    return list(out[:-1]), tangents_out


def _sort_batcher(size: int, vals: list, dims: list, *, dimension: int, is_stable: bool,
                  num_keys: int) -> tuple[Any, Any]:
    proto, bdim = next((v, d) for v, d in zip(vals, dims) if d is not None)
    proto_shape = core.get_aval(proto).shape
    args = []
    for v, d in zip(vals, dims):
        if d is None:
            keep = [i for i in range(len(proto_shape)) if i != bdim]
            args.append(lax.broadcast_in_dim(v, proto_shape, keep))
        else:
            args.append(batching.moveaxis(v, d, bdim))
    outs = core.bind(sort_p, *args, dimension=dimension + (bdim <= dimension),
                     is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


ad.primitive_jvps[sort_p] = _sort_jvp
batching.primitive_batchers[sort_p] = _sort_batcher


def _axis(dimension: int, ndim: int) -> int:
    if not -ndim <= dimension < max(ndim, 1):
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension {ndim}")
    return dimension % ndim if ndim else dimension


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1) -> Any:
    if isinstance(operand, Sequence):
        if not operand:
            raise TypeError("Sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"{num_keys=} must be between 1 and {len(operand)=}")
        dimension = _axis(dimension, core.get_aval(operand[0]).ndim)
        return tuple(core.bind(sort_p, *operand, dimension=dimension, is_stable=is_stable,
                               num_keys=num_keys))
    if num_keys != 1:
        raise ValueError(f"{num_keys=} must equal 1 for a single operand.")
    dimension = _axis(dimension, core.get_aval(operand).ndim)
    return core.bind(sort_p, operand, dimension=dimension, is_stable=is_stable, num_keys=1)[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
                 ) -> tuple[Any, Any]:
    dimension = _axis(dimension, core.get_aval(keys).ndim)
    k, v = core.bind(sort_p, keys, values, dimension=dimension, is_stable=is_stable,
                     num_keys=1)
    return k, v


__all__ = ["sort", "sort_key_val", "sort_p"]
