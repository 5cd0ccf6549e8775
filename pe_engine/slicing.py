"""`lax`'s indexing primitives: dynamic_slice, dynamic_update_slice, gather and the
scatters, with their JVP, transpose and batching rules written as JAX's (so that
`grad` through `x[i]`, `x[idx]` and `.at[...]` prints the programs JAX prints).

Out-of-bounds starts are clamped, as XLA clamps them; a scatter drops windows that
fall outside the operand (JAX's FILL_OR_DROP, what `.at[...]` asks for).
"""
from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import ad, batching, core, structural
from . import lax_base as lax
from .elementwise import select
from .staging import trace_to_jaxpr_dynamic


class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2
    ONE_HOT = 3

    def __str__(self) -> str:
        return f"GatherScatterMode.{self.name}"


# --------------------------------------------------------------------------- dynamic_slice


def _clamped_starts(shape: tuple, starts: Any, sizes: tuple) -> list[int]:
    return [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, shape, sizes)]


def _dynamic_slice_abstract(x: core.ShapedArray, *idx: core.ShapedArray, slice_sizes: tuple
                            ) -> core.ShapedArray:
    if len(idx) != x.ndim:
        raise TypeError(f"dynamic_slice start_indices must have length equal to the number "
                        f"of dimensions of the operand, got indices {len(idx)} for operand "
                        f"shape {x.shape}")
    if any(not 0 <= n <= d for n, d in zip(slice_sizes, x.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, "
                        f"got slice_sizes {slice_sizes} for operand shape {x.shape}")
    return core.ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_impl(x: Any, *idx: Any, slice_sizes: tuple) -> core.Array:
    xv = core.to_numpy(x)
    starts = _clamped_starts(xv.shape, map(core.to_numpy, idx), slice_sizes)
    out = xv[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes))]
    return core.Array(np.array(out), core.get_aval(x).weak_type)


dynamic_slice_p = core.Primitive("dynamic_slice")
core.impl_rules[dynamic_slice_p] = _dynamic_slice_impl
core.abstract_eval_rules[dynamic_slice_p] = _dynamic_slice_abstract


def _dynamic_update_slice_abstract(x: core.ShapedArray, update: core.ShapedArray,
                                   *idx: core.ShapedArray) -> core.ShapedArray:
    if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {update.shape} for operand shape {x.shape}.")
    lax._check_same_dtypes("dynamic_update_slice", (x, update))
    return x


def _dynamic_update_slice_impl(x: Any, update: Any, *idx: Any) -> core.Array:
    xv = np.array(core.to_numpy(x))
    uv = core.to_numpy(update)
    starts = _clamped_starts(xv.shape, map(core.to_numpy, idx), uv.shape)
    xv[tuple(slice(s, s + n) for s, n in zip(starts, uv.shape))] = uv
    return core.Array(xv, core.get_aval(x).weak_type)


dynamic_update_slice_p = core.Primitive("dynamic_update_slice")
core.impl_rules[dynamic_update_slice_p] = _dynamic_update_slice_impl
core.abstract_eval_rules[dynamic_update_slice_p] = _dynamic_update_slice_abstract


def _normalize(i: Any, d: int, allow_negative: bool = True) -> Any:
    if isinstance(i, (int, np.integer)):
        if i < 0 and not allow_negative:
            raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                             "allow_negative_indices=False")
        return lax.convert_element_type(i + d if i < 0 else i, core.get_aval(i).dtype)
    if core.get_aval(i).dtype.kind == "u" or not allow_negative:
        return i
    # The size is cast as JAX casts it (an operation: under eager constant folding it runs
    # now, and the jaxpr holds an array constvar).
    return select(i < 0, i + lax.convert_element_type(d, core.get_aval(i).dtype), i)


def _normalized(shape: tuple, start_indices: Any, allow_negative: Any) -> list[Any]:
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {shape})")
    if isinstance(allow_negative, bool):
        allow_negative = [allow_negative] * len(shape)
    return [_normalize(i, d, a) for i, d, a in zip(start_indices, shape, allow_negative)]


def dynamic_slice(x: Any, start_indices: Any, slice_sizes: Any, *,
                  allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    idx = _normalized(core.get_aval(x).shape, start_indices, allow_negative_indices)
    return core.bind(dynamic_slice_p, x, *idx, slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_update_slice(x: Any, update: Any, start_indices: Any, *,
                         allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    idx = _normalized(core.get_aval(x).shape, start_indices, allow_negative_indices)
    return core.bind(dynamic_update_slice_p, x, update, *idx)


def _dynamic_slice_jvp(primals: list, tangents: list, *, slice_sizes: tuple
                       ) -> tuple[Any, Any]:
    t = tangents[0]
    if type(t) is not ad.Zero:
        t = core.bind(dynamic_slice_p, t, *primals[1:], slice_sizes=slice_sizes)
    else:
        t = ad.Zero(core.ShapedArray(slice_sizes, t.aval.dtype))
    return core.bind(dynamic_slice_p, *primals, slice_sizes=slice_sizes), t


def _dynamic_slice_transpose(ct: Any, x: Any, *idx: Any, slice_sizes: tuple) -> list[Any]:
    zeros = ad.zeros_like_aval(x.aval)
    return [core.bind(dynamic_update_slice_p, zeros, ct, *idx), *([None] * len(idx))]


def _dynamic_update_slice_jvp(primals: list, tangents: list) -> tuple[Any, Any]:
    x, update, *idx = primals
    tx, tu = tangents[:2]
    out = core.bind(dynamic_update_slice_p, x, update, *idx)
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        return out, ad.Zero(core.get_aval(out))
    return out, core.bind(dynamic_update_slice_p, ad.instantiate_zeros(tx),
                          ad.instantiate_zeros(tu), *idx)


def _dynamic_update_slice_transpose(ct: Any, x: Any, update: Any, *idx: Any) -> list[Any]:
    u_aval = update.aval if ad.is_undefined_primal(update) else core.get_aval(update)
    x_ct = (core.bind(dynamic_update_slice_p, ct, ad.zeros_like_aval(u_aval), *idx)
            if ad.is_undefined_primal(x) else None)
    u_ct = (core.bind(dynamic_slice_p, ct, *idx, slice_sizes=u_aval.shape)
            if ad.is_undefined_primal(update) else None)
    return [x_ct, u_ct, *([None] * len(idx))]


ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose
ad.primitive_jvps[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.primitive_transposes[dynamic_update_slice_p] = _dynamic_update_slice_transpose


# --------------------------------------------------------------------------- gather


def _gather_shape(x: tuple, idx: tuple, dn: GatherDimensionNumbers, slice_sizes: tuple
                  ) -> tuple[int, ...]:
    batch = list(idx[:-1])
    window = [s for d, s in enumerate(slice_sizes)
              if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    out: list[int] = []
    b, w = iter(batch), iter(window)
    for i in range(len(batch) + len(window)):
        out.append(next(w) if i in dn.offset_dims else next(b))
    return tuple(out)


def _gather_abstract(x: core.ShapedArray, idx: core.ShapedArray, *, dimension_numbers: Any,
                     slice_sizes: tuple, **_: Any) -> core.ShapedArray:
    if idx.dtype.kind not in "iu":
        raise TypeError(f"gather indices must have an integer type, got {idx.dtype.name}")
    shape = _gather_shape(x.shape, idx.shape, dimension_numbers, slice_sizes)
    return core.ShapedArray(shape, x.dtype, x.weak_type)


def _windows(operand_shape: tuple, idx: np.ndarray, start_index_map: tuple,
             operand_batching_dims: tuple, indices_batching_dims: tuple, sizes: tuple,
             clip: bool) -> Any:
    """(batch index, window start per operand dim, in bounds) for each index vector."""
    for b in np.ndindex(*idx.shape[:-1]):
        start = [0] * len(operand_shape)
        for k, d in enumerate(start_index_map):
            start[d] = int(idx[b][k])
        for od, idim in zip(operand_batching_dims, indices_batching_dims):
            start[od] = b[idim]
        ok = all(0 <= s <= d - n for s, d, n in zip(start, operand_shape, sizes))
        if clip:
            start = [int(np.clip(s, 0, d - n)) for s, d, n in zip(start, operand_shape, sizes)]
        yield b, start, ok


def _gather_impl(x: Any, idx: Any, *, dimension_numbers: Any, slice_sizes: tuple,
                 mode: Any, fill_value: Any, **_: Any) -> core.Array:
    xv, iv = core.to_numpy(x), core.to_numpy(idx)
    dn = dimension_numbers
    drop = {*dn.collapsed_slice_dims, *dn.operand_batching_dims}
    window_shape = tuple(s for d, s in enumerate(slice_sizes) if d not in drop)
    fill = mode == GatherScatterMode.FILL_OR_DROP
    out = np.zeros(iv.shape[:-1] + window_shape, xv.dtype)
    for b, start, ok in _windows(xv.shape, iv, dn.start_index_map, dn.operand_batching_dims,
                                 dn.start_indices_batching_dims, slice_sizes, not fill):
        if fill and not ok:
            out[b] = fill_value
            continue
        win = xv[tuple(slice(s, s + n) for s, n in zip(start, slice_sizes))]
        out[b] = win.reshape(window_shape)
    nb = len(iv.shape) - 1
    out = np.moveaxis(out, list(range(nb, nb + len(window_shape))), list(dn.offset_dims))
    return core.Array(out, core.get_aval(x).weak_type)


gather_p = core.Primitive("gather")
core.impl_rules[gather_p] = _gather_impl
core.abstract_eval_rules[gather_p] = _gather_abstract


def gather(x: Any, indices: Any, dimension_numbers: GatherDimensionNumbers, slice_sizes: Any,
           *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: Any = None, fill_value: Any = None) -> Any:
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    if mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            dtype = core.get_aval(x).dtype
            fill_value = (np.nan if dtype.kind in "fc" else np.iinfo(dtype).min
                          if dtype.kind == "i" else np.iinfo(dtype).max
                          if dtype.kind == "u" else True)
    else:
        fill_value = None
    return core.bind(gather_p, x, indices, dimension_numbers=dimension_numbers,
                     slice_sizes=tuple(slice_sizes), unique_indices=bool(unique_indices),
                     indices_are_sorted=bool(indices_are_sorted), mode=mode, fill_value=fill_value)


def _gather_jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
    out = core.bind(gather_p, *primals, **params)
    t = tangents[0]
    if type(t) is ad.Zero:
        return out, ad.Zero(core.get_aval(out))
    # As JAX's: the tangent's fill value is 0 (the primal's is NaN or the like).
    p = {k: v for k, v in params.items() if k != "fill_value"}
    return out, gather(t, primals[1], p.pop("dimension_numbers"), p.pop("slice_sizes"),
                       fill_value=0, **p)


def _to_scatter_dnums(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
                                   dn.operand_batching_dims, dn.start_indices_batching_dims)


def _to_gather_dnums(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims,
                                  dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                  dn.scatter_indices_batching_dims)


def _gather_transpose(ct: Any, x: Any, idx: Any, *, dimension_numbers: Any, slice_sizes: tuple,
                      unique_indices: bool, indices_are_sorted: bool, mode: Any,
                      fill_value: Any) -> list[Any]:
    shape = x.aval.shape
    zero = np.zeros((), core.get_aval(ct).dtype)
    zeros = lax.broadcast_in_dim(zero, shape, ()) if shape else zero
    out = scatter_add(zeros, idx, ct, _to_scatter_dnums(dimension_numbers),
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      mode=mode)
    return [out, None]


ad.primitive_jvps[gather_p] = _gather_jvp
ad.primitive_transposes[gather_p] = _gather_transpose


# --------------------------------------------------------------------------- scatter


def _scatter_abstract(x: core.ShapedArray, idx: core.ShapedArray, updates: core.ShapedArray,
                      **_: Any) -> core.ShapedArray:
    if idx.dtype.kind not in "iu":
        raise TypeError(f"scatter indices must have an integer type, got {idx.dtype.name}")
    lax._check_same_dtypes("scatter", (x, updates))
    return x


_COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "scatter": lambda old, new: new, "scatter-add": np.add, "scatter-mul": np.multiply,
    "scatter-min": np.minimum, "scatter-max": np.maximum}


def _scatter_impl(name: str, x: Any, idx: Any, updates: Any, *, dimension_numbers: Any,
                  mode: Any, **_: Any) -> core.Array:
    xv, iv, uv = np.array(core.to_numpy(x)), core.to_numpy(idx), core.to_numpy(updates)
    dn = dimension_numbers
    scatter_dims = [d for d in range(uv.ndim) if d not in dn.update_window_dims]
    # One update window per index vector: move the scatter dims of updates in front.
    uv = np.moveaxis(uv, scatter_dims, list(range(len(scatter_dims))))
    window = uv.shape[len(scatter_dims):]
    sizes, it = [], iter(window)
    for d in range(xv.ndim):
        inserted = d in dn.inserted_window_dims or d in dn.operand_batching_dims
        sizes.append(1 if inserted else next(it))
    combine = _COMBINE[name]
    for b, start, ok in _windows(xv.shape, iv, dn.scatter_dims_to_operand_dims,
                                 dn.operand_batching_dims, dn.scatter_indices_batching_dims,
                                 tuple(sizes), mode == GatherScatterMode.CLIP):
        if not ok and mode != GatherScatterMode.CLIP:
            continue
        region = tuple(slice(s, s + n) for s, n in zip(start, sizes))
        xv[region] = combine(xv[region], uv[b].reshape(sizes))
    return core.Array(xv, core.get_aval(x).weak_type)


def _scatter_prim(name: str) -> core.Primitive:
    prim = core.Primitive(name)
    core.impl_rules[prim] = functools.partial(_scatter_impl, name)
    core.abstract_eval_rules[prim] = _scatter_abstract
    return prim


scatter_p = _scatter_prim("scatter")
scatter_add_p = _scatter_prim("scatter-add")
scatter_mul_p = _scatter_prim("scatter-mul")
scatter_min_p = _scatter_prim("scatter-min")
scatter_max_p = _scatter_prim("scatter-max")


@functools.cache
def _reduction_jaxpr(op: Any, dtype: np.dtype) -> core.Jaxpr:
    """The scalar combiner a scatter prints as update_jaxpr (one object per op and dtype,
    as JAX caches it, so a program with two scatter-adds shares it)."""
    aval = core.ShapedArray((), dtype)
    return trace_to_jaxpr_dynamic(lambda a, b: [op(a, b)], [aval, aval]).jaxpr


def _scatter_op(prim: core.Primitive, combine: Any, name: str) -> Callable[..., Any]:
    """lax.scatter and its combining variants: one signature, the primitive and the update
    jaxpr's operation (None: the update replaces) tell them apart."""
    def op(x: Any, idx: Any, updates: Any, dimension_numbers: ScatterDimensionNumbers, *,
           indices_are_sorted: bool = False, unique_indices: bool = False,
           mode: Any = None) -> Any:
        mode = GatherScatterMode.FILL_OR_DROP if mode is None else mode
        jaxpr = None if combine is None else _reduction_jaxpr(combine, core.get_aval(x).dtype)
        return core.bind(prim, x, idx, updates, dimension_numbers=dimension_numbers,
                         indices_are_sorted=bool(indices_are_sorted), mode=mode,
                         unique_indices=bool(unique_indices), update_consts=(),
                         update_jaxpr=jaxpr)
    op.__name__ = op.__qualname__ = name
    return op


scatter = _scatter_op(scatter_p, None, "scatter")
scatter_add = _scatter_op(scatter_add_p, lax.add, "scatter_add")
scatter_mul = _scatter_op(scatter_mul_p, lax.mul, "scatter_mul")
scatter_min = _scatter_op(scatter_min_p, lax.min, "scatter_min")
scatter_max = _scatter_op(scatter_max_p, lax.max, "scatter_max")


def _window_sizes(dn: ScatterDimensionNumbers, operand_ndim: int, updates_shape: tuple
                  ) -> list[int]:
    sizes, pos = [], 0
    for i in range(operand_ndim):
        if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    return sizes


def _scatter_add_jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
    x, idx, updates = primals
    tx, _, tu = tangents
    out = core.bind(scatter_add_p, x, idx, updates, **params)
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        return out, ad.Zero(core.get_aval(out))
    return out, core.bind(scatter_add_p, ad.instantiate_zeros(tx), idx,
                          ad.instantiate_zeros(tu), **params)


def _scatter_add_transpose(ct: Any, x: Any, idx: Any, updates: Any, *, dimension_numbers: Any,
                           mode: Any, **params: Any) -> list[Any]:
    x_ct = ct if ad.is_undefined_primal(x) else None
    u_ct = None
    if ad.is_undefined_primal(updates):
        sizes = _window_sizes(dimension_numbers, core.get_aval(ct).ndim, updates.aval.shape)
        u_ct = gather(ct, idx, _to_gather_dnums(dimension_numbers), sizes, mode=mode,
                      fill_value=0)
    return [x_ct, None, u_ct]


def _scatter_jvp(primals: list, tangents: list, *, unique_indices: bool, **params: Any
                 ) -> tuple[Any, Any]:
    x, idx, updates = primals
    tx, _, tu = tangents
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        out = core.bind(scatter_p, x, idx, updates, unique_indices=unique_indices, **params)
        return out, ad.Zero(core.get_aval(out))
    tx, tu = ad.instantiate_zeros(tx), ad.instantiate_zeros(tu)
    if unique_indices:
        out = core.bind(scatter_p, x, idx, updates, unique_indices=True, **params)
        return out, core.bind(scatter_p, tx, idx, tu, unique_indices=True, **params)
    return _scatter_jvp_masked(x, idx, updates, tx, tu, **params)


def _scatter_jvp_masked(x: Any, idx: Any, updates: Any, tx: Any, tu: Any, *,
                        dimension_numbers: Any, indices_are_sorted: bool, mode: Any,
                        **_: Any) -> tuple[Any, Any]:
    """JAX's rule for indices that may repeat: scatter an id per update, gather back
    which one won each position, and rebuild both the value and the tangent as
    scatter-adds of the winners only (so the tangent is linear)."""
    dn = dimension_numbers
    u_aval = core.get_aval(updates)
    ids_shape = list(u_aval.shape)
    for d in dn.update_window_dims:
        ids_shape[d] = 1
    num_ids = int(np.prod(ids_shape))
    id_dtype = np.dtype("uint32") if num_ids < 2 ** 32 else np.dtype("uint64")
    update_ids = lax.add(lax.reshape(structural.iota(id_dtype, num_ids), ids_shape),
                         _ones_like_aval(u_aval.update(dtype=id_dtype, weak_type=False)))
    zero_ids = lax.broadcast_in_dim(np.zeros((), id_dtype), core.get_aval(x).shape, ())
    scattered_ids = scatter(zero_ids, idx, update_ids, dn, indices_are_sorted=indices_are_sorted,
                            unique_indices=False, mode=mode)
    sizes = _window_sizes(dn, len(core.get_aval(scattered_ids).shape), u_aval.shape)
    gathered_ids = gather(scattered_ids, idx, _to_gather_dnums(dn), sizes)
    x_aval = core.get_aval(x)
    masked_x = select(lax.eq(scattered_ids, ad.zeros_like_aval(core.get_aval(scattered_ids))),
                      x, ad.zeros_like_aval(x_aval))
    masked_u = select(lax.eq(update_ids, gathered_ids), updates, ad.zeros_like_aval(u_aval))
    masked_tx = select(lax.eq(scattered_ids, ad.zeros_like_aval(core.get_aval(scattered_ids))),
                       tx, ad.zeros_like_aval(core.get_aval(tx)))
    masked_tu = select(lax.eq(update_ids, gathered_ids), tu,
                           ad.zeros_like_aval(core.get_aval(tu)))
    kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=False, mode=mode)
    return (scatter_add(masked_x, idx, masked_u, dn, **kw),
            scatter_add(masked_tx, idx, masked_tu, dn, **kw))


def _scatter_transpose(ct: Any, x: Any, idx: Any, updates: Any, *, dimension_numbers: Any,
                       indices_are_sorted: bool, unique_indices: bool, mode: Any,
                       **params: Any) -> list[Any]:
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    u_aval = updates.aval if ad.is_undefined_primal(updates) else core.get_aval(updates)
    x_ct = u_ct = None
    if ad.is_undefined_primal(x):
        zeros = ad.zeros_like_aval(u_aval.update(dtype=core.get_aval(ct).dtype, weak_type=False))
        x_ct = scatter(ct, idx, zeros, dimension_numbers, indices_are_sorted=indices_are_sorted,
                       unique_indices=True, mode=mode)
    if ad.is_undefined_primal(updates):
        sizes = _window_sizes(dimension_numbers, core.get_aval(ct).ndim, u_aval.shape)
        u_ct = gather(ct, idx, _to_gather_dnums(dimension_numbers), sizes, mode=mode,
                      fill_value=0)
    return [x_ct, None, u_ct]


def _scatter_mul_jvp(primals: list, tangents: list, *, unique_indices: bool,
                     dimension_numbers: Any, indices_are_sorted: bool, mode: Any,
                     **params: Any) -> tuple[Any, Any]:
    x, idx, updates = primals
    tx, _, tu = tangents
    kw = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
              mode=mode, unique_indices=unique_indices)
    out = core.bind(scatter_mul_p, x, idx, updates, **kw, **params)
    t: Any = ad.Zero(core.get_aval(out))
    if type(tx) is not ad.Zero:
        t = core.bind(scatter_mul_p, tx, idx, updates, **kw, **params)
    if type(tu) is not ad.Zero:
        if not unique_indices:
            raise NotImplementedError("scatter_mul gradients are only implemented if "
                                      "`unique_indices=True`")
        tu_out = lax.mul(x, scatter_add(ad.zeros_like_aval(core.get_aval(x)), idx, tu,
                                        dimension_numbers, indices_are_sorted=indices_are_sorted,
                                        unique_indices=unique_indices, mode=mode))
        t = tu_out if type(t) is ad.Zero else lax.add_any_p.bind(t, tu_out)
    return out, t


def _ones_like_aval(aval: core.ShapedArray) -> Any:
    one = np.ones((), aval.dtype)
    return lax.broadcast_in_dim(one, aval.shape, ()) if aval.shape else one


def _scatter_mul_transpose(ct: Any, x: Any, idx: Any, updates: Any, *, dimension_numbers: Any,
                           indices_are_sorted: bool, unique_indices: bool, mode: Any,
                           **params: Any) -> list[Any]:
    x_ct = u_ct = None
    if ad.is_undefined_primal(x):
        x_ct = scatter_mul(ct, idx, updates, dimension_numbers,
                           indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                           mode=mode)
    if ad.is_undefined_primal(updates):
        if not unique_indices:
            raise NotImplementedError("scatter_mul gradients are only implemented if "
                                      "`unique_indices=True`")
        sizes = _window_sizes(dimension_numbers, core.get_aval(ct).ndim, updates.aval.shape)
        u_ct = gather(lax.mul(ct, x), idx, _to_gather_dnums(dimension_numbers), sizes,
                      mode=mode, fill_value=0)
    return [x_ct, None, u_ct]


def _scatter_extremal_jvp(prim: core.Primitive, primals: list, tangents: list,
                          **params: Any) -> tuple[Any, Any]:
    x, idx, updates = primals
    tx, _, tu = tangents
    dn = params["dimension_numbers"]
    out = core.bind(prim, x, idx, updates, **params)
    if type(tx) is ad.Zero and type(tu) is ad.Zero:
        return out, ad.Zero(core.get_aval(out))
    tx, tu = ad.instantiate_zeros(tx), ad.instantiate_zeros(tu)
    gdn = _to_gather_dnums(dn)
    sizes = _window_sizes(dn, core.get_aval(x).ndim, core.get_aval(updates).shape)
    x_aval, u_aval = core.get_aval(x), core.get_aval(updates)
    initial = gather(x, idx, gdn, sizes)
    target = gather(out, idx, gdn, sizes)
    successful = updates == target
    retained = initial == target
    num_updates = gather(scatter_add(ad.zeros_like_aval(x_aval), idx, select(
        successful, _ones_like_aval(u_aval), ad.zeros_like_aval(u_aval)), dn), idx, gdn, sizes)
    num_refs = gather(scatter_add(ad.zeros_like_aval(x_aval), idx, _ones_like_aval(u_aval), dn),
                      idx, gdn, sizes)
    updates_normalizer = select(retained, 1.0 / (num_updates + 1), 1.0 / num_updates)
    updates_coef = select(successful, updates_normalizer, ad.zeros_like_aval(u_aval))
    operand_normalizer = select(retained, 1.0 / (num_updates + 1),
                                    ad.zeros_like_aval(core.get_aval(num_updates)))
    operand_coef = (-1.0 + operand_normalizer) / num_refs
    target_tangents = gather(tx, idx, gdn, sizes)
    tangent_updates = target_tangents * operand_coef + tu * updates_coef
    return out, scatter_add(tx, idx, tangent_updates, dn,
                            indices_are_sorted=params["indices_are_sorted"],
                            unique_indices=params["unique_indices"], mode=params["mode"])


ad.primitive_jvps[scatter_add_p] = _scatter_add_jvp
ad.primitive_transposes[scatter_add_p] = _scatter_add_transpose
ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.primitive_transposes[scatter_p] = _scatter_transpose
ad.primitive_jvps[scatter_mul_p] = _scatter_mul_jvp
ad.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose
ad.primitive_jvps[scatter_min_p] = functools.partial(_scatter_extremal_jvp, scatter_min_p)
ad.primitive_jvps[scatter_max_p] = functools.partial(_scatter_extremal_jvp, scatter_max_p)


# --------------------------------------------------------------------------- batching


def _gather_batcher(size: int, vals: list, dims: list, *, dimension_numbers: Any,
                    slice_sizes: tuple, unique_indices: bool, indices_are_sorted: bool,
                    mode: Any, fill_value: Any) -> tuple[Any, Any]:
    x, idx = vals
    xd, idd = dims
    dn = dimension_numbers
    bump = lambda ds: tuple(np.add(1, batching.i64(ds)))  # noqa: E731 - as JAX's print
    kw = dict(mode=mode, fill_value=fill_value)
    if idd is None:
        x = batching.moveaxis(x, xd, 0)
        gdn = GatherDimensionNumbers((0, *bump(dn.offset_dims)), bump(dn.collapsed_slice_dims),
                                     bump(dn.start_index_map), bump(dn.operand_batching_dims),
                                     dn.start_indices_batching_dims)
        return core.bind(gather_p, x, idx, dimension_numbers=gdn,
                         slice_sizes=(core.get_aval(x).shape[0], *slice_sizes),
                         unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                         **kw), 0
    if xd is None:
        idx = batching.moveaxis(idx, idd, 0)
        gdn = GatherDimensionNumbers(tuple(1 + d for d in dn.offset_dims),
                                     dn.collapsed_slice_dims, dn.start_index_map,
                                     dn.operand_batching_dims,
                                     bump(dn.start_indices_batching_dims))
        return core.bind(gather_p, x, idx, dimension_numbers=gdn, slice_sizes=slice_sizes,
                         unique_indices=False, indices_are_sorted=False, **kw), 0
    x = batching.moveaxis(x, xd, 0)
    idx = batching.moveaxis(idx, idd, 0)
    gdn = GatherDimensionNumbers(bump(dn.offset_dims), bump(dn.collapsed_slice_dims),
                                 bump(dn.start_index_map), (0, *bump(dn.operand_batching_dims)),
                                 (0, *bump(dn.start_indices_batching_dims)))
    return core.bind(gather_p, x, idx, dimension_numbers=gdn,
                     slice_sizes=((0 if core.get_aval(x).shape[0] == 0 else 1), *slice_sizes),
                     unique_indices=unique_indices, indices_are_sorted=indices_are_sorted, **kw), 0


def _batch_dynamic_slice_indices(indices: list, dims: list) -> tuple[Any, int | None]:
    """The scalar start indices as one index vector (per batch element if batched)."""
    if not indices:
        return np.array([], np.int32), None
    size = next((core.get_aval(x).shape[d] for x, d in zip(indices, dims) if d is not None), None)
    if size is None:
        return structural.concatenate([lax.broadcast_in_dim(i, (1,), ()) for i in indices], 0), None
    return structural.concatenate([lax.broadcast_in_dim(x, (size, 1), (0,) if d is not None else ())
                            for x, d in zip(indices, dims)], 1), 0


def _dynamic_slice_batcher(size: int, vals: list, dims: list, *, slice_sizes: tuple
                           ) -> tuple[Any, Any]:
    # JAX batches a dynamic_slice as a gather of one window per batch element.
    x, *idx = vals
    xd, *idds = dims
    nd = len(idx)
    index, index_dim = _batch_dynamic_slice_indices(idx, idds)
    dn = GatherDimensionNumbers(tuple(range(nd)), (), tuple(range(nd)))
    return _gather_batcher(size, [x, index], [xd, index_dim], dimension_numbers=dn,
                           slice_sizes=slice_sizes, unique_indices=True,
                           indices_are_sorted=True, mode=GatherScatterMode.CLIP,
                           fill_value=None)


def _dynamic_update_slice_batcher(size: int, vals: list, dims: list) -> tuple[Any, Any]:
    # ... and a dynamic_update_slice as a scatter.
    x, update, *idx = vals
    xd, ud, *idds = dims
    shape = core.get_aval(update).shape
    if ud is not None:
        shape = shape[:ud] + shape[ud + 1:]
    ds = tuple(range(len(shape)))
    dn = ScatterDimensionNumbers(ds, (), ds)
    index, index_dim = _batch_dynamic_slice_indices(idx, idds)

    def one(x: Any, i: Any, u: Any) -> Any:
        return scatter(x, i, u, dn, indices_are_sorted=True, unique_indices=True,
                       mode=GatherScatterMode.CLIP)

    return batching.vmap(one, in_axes=(xd, index_dim, ud), out_axes=0)(x, index, update), 0


batching.primitive_batchers[dynamic_update_slice_p] = _dynamic_update_slice_batcher
batching.primitive_batchers[gather_p] = _gather_batcher
batching.primitive_batchers[dynamic_slice_p] = _dynamic_slice_batcher


def _scatter_batcher(prim: core.Primitive, size: int, vals: list, dims: list, *,
                     dimension_numbers: Any, **params: Any) -> tuple[Any, Any]:
    x, idx, updates = vals
    xd, idd, ud = dims
    dn = dimension_numbers
    bump = lambda ds: tuple(np.add(1, batching.i64(ds)))  # noqa: E731 - as JAX's print
    x = batching.bdim_at_front(x, xd, size)
    updates = batching.bdim_at_front(updates, ud, size)
    if idd is None:
        sdn = ScatterDimensionNumbers((0, *bump(dn.update_window_dims)),
                                      bump(dn.inserted_window_dims),
                                      bump(dn.scatter_dims_to_operand_dims),
                                      bump(dn.operand_batching_dims),
                                      dn.scatter_indices_batching_dims)
    else:
        idx = batching.bdim_at_front(idx, idd, size)
        sdn = ScatterDimensionNumbers(bump(dn.update_window_dims),
                                      bump(dn.inserted_window_dims),
                                      bump(dn.scatter_dims_to_operand_dims),
                                      (0, *bump(dn.operand_batching_dims)),
                                      (0, *bump(dn.scatter_indices_batching_dims)))
    return core.bind(prim, x, idx, updates, dimension_numbers=sdn, **params), 0


for _p in (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    batching.primitive_batchers[_p] = functools.partial(_scatter_batcher, _p)
