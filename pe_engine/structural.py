"""Structural `lax` primitives: iota, concatenate, stack/unstack, split, tile, rev, and the
reductions reduce_prod, argmax/argmin and cumsum; with their JVP, transpose and
batching rules written as JAX's, so that every transformation prints alike.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import ad, batching, core
from . import lax_base as lax
from .ad import defjvp_zero, deflinear
from .lax_base import _NUM, _def
from .lax_base_rules import pad


def _multi(name: str, abstract: Any, np_impl: Any) -> core.Primitive:
    """A primitive with several results and a numpy impl."""
    prim = core.Primitive(name, multiple_results=True)
    core.abstract_eval_rules[prim] = abstract

    def impl(*args: Any, **params: Any) -> list[core.Array]:
        avals = abstract(*map(core.get_aval, args), **params)
        vals = np_impl(*map(core.to_numpy, args), **params)
        return [core.Array(np.asarray(v, a.dtype), a.weak_type) for v, a in zip(vals, avals)]

    core.impl_rules[prim] = impl
    return prim


# --------------------------------------------------------------------------- iota


def _iota_abstract(*, dtype: np.dtype, shape: tuple, dimension: int, sharding: Any
                   ) -> core.ShapedArray:
    if dtype.kind not in "iuf":
        raise TypeError(f"iota does not accept dtype {dtype.name}.")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return core.ShapedArray(shape, dtype)


def _iota_impl(*, dtype: np.dtype, shape: tuple, dimension: int, sharding: Any) -> np.ndarray:
    idx = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(idx.reshape([-1 if i == dimension else 1
                                        for i in range(len(shape))]), shape)


iota_p = _def("iota", _iota_abstract, _iota_impl)


def broadcasted_iota(dtype: Any, shape: Any, dimension: int) -> Any:
    return core.bind(iota_p, dtype=core.canonicalize_dtype(dtype),
                     shape=tuple(int(d) for d in shape), dimension=int(dimension), sharding=None)


def iota(dtype: Any, size: int) -> Any:
    return broadcasted_iota(dtype, (size,), 0)


# --------------------------------------------------------------------------- concatenate


def _shapes(xs: Sequence[core.ShapedArray]) -> str:
    return ", ".join(str(x.shape) for x in xs)


def _check_alike(name: str, xs: Sequence[core.ShapedArray], error: type[Exception],
                 key: Callable[[core.ShapedArray], Any], unlike: str) -> None:
    """A join's first checks, as JAX words them: some operands, all alike in `key`."""
    if not xs:
        raise error(f"{name} expects at least one operand, got 0.")
    if len({key(x) for x in xs}) != 1:
        raise error(f"{unlike} {_shapes(xs)}.")


def _joined(name: str, xs: Sequence[core.ShapedArray], shape: list[int]) -> core.ShapedArray:
    """Operands joined into one array (concatenate, stack): one dtype, weak only if all are."""
    lax._check_same_dtypes(name, xs)
    return core.ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


def _concatenate_abstract(*xs: core.ShapedArray, dimension: int) -> core.ShapedArray:
    _check_alike("concatenate", xs, TypeError, lambda x: x.ndim,
                 "Cannot concatenate arrays with different numbers of dimensions: got")
    if not 0 <= dimension < xs[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {_shapes(xs)}.")
    rest = [x.shape[:dimension] + x.shape[dimension + 1:] for x in xs]
    if rest[:-1] != rest[1:]:
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions "
                        f"other than the one being concatenated: concatenating along "
                        f"dimension {dimension} for shapes {_shapes(xs)}.")
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return _joined("concatenate", xs, shape)


concatenate_p = _def("concatenate", _concatenate_abstract,
                     lambda *xs, dimension: np.concatenate(xs, axis=dimension))


def concatenate(operands: Any, dimension: int) -> Any:
    operands = list(operands)
    if len(operands) == 1 and lax._is_array(operands[0]):
        return operands[0]
    return core.bind(concatenate_p, *operands, dimension=int(dimension))


def _concatenate_jvp(primals: list, tangents: list, *, dimension: int) -> tuple[Any, Any]:
    ans = concatenate(primals, dimension)
    if all(type(t) is ad.Zero for t in tangents):
        return ans, ad.Zero(core.get_aval(ans))
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    return ans, concatenate(tangents, dimension)


def _concatenate_transpose(ct: Any, *xs: Any, dimension: int) -> list[Any]:
    shapes = [x.aval.shape if ad.is_undefined_primal(x) else core.get_aval(x).shape for x in xs]
    outs = split(ct, tuple(s[dimension] for s in shapes), dimension)
    return [o if ad.is_undefined_primal(x) else None for o, x in zip(outs, xs)]


def _concatenate_batcher(size: int, vals: list, dims: list, *, dimension: int
                         ) -> tuple[Any, Any]:
    xs = [batching.moveaxis(x, d, 0) if d is not None else batching.broadcast(x, size, 0)
          for x, d in zip(vals, dims)]
    return concatenate(xs, dimension + 1), 0


ad.primitive_jvps[concatenate_p] = _concatenate_jvp
ad.primitive_transposes[concatenate_p] = _concatenate_transpose
batching.primitive_batchers[concatenate_p] = _concatenate_batcher


# --------------------------------------------------------------------------- split


def _split_abstract(x: core.ShapedArray, *, sizes: tuple, axis: int) -> list[core.ShapedArray]:
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if x.shape[axis] != sum(sizes):
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of "
                         f"the operand shape {list(x.shape)}")
    shape = list(x.shape)
    out = []
    for s in sizes:
        shape[axis] = int(s)
        out.append(core.ShapedArray(shape, x.dtype, x.weak_type))
    return out


split_p = _multi("split", _split_abstract,
                 lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis=axis))


def split(x: Any, sizes: Any, axis: int = 0) -> list[Any]:
    return core.bind(split_p, x, sizes=tuple(sizes), axis=int(axis))


def _split_jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
    return core.bind(split_p, *primals, **params), core.bind(split_p, *tangents, **params)


def _split_transpose(cts: list, x: Any, *, sizes: tuple, axis: int) -> list[Any]:
    if all(type(c) is ad.Zero for c in cts):
        return [ad.Zero(x.aval)]
    return [concatenate([ad.instantiate_zeros(c) for c in cts], axis)]


def _split_batcher(size: int, vals: list, dims: list, *, sizes: tuple, axis: int
                   ) -> tuple[Any, Any]:
    bdim = dims[0]
    outs = split(vals[0], sizes, axis + 1 if axis >= bdim else axis)
    return outs, [bdim] * len(outs)


ad.primitive_jvps[split_p] = _split_jvp
ad.primitive_transposes[split_p] = _split_transpose
batching.primitive_batchers[split_p] = _split_batcher


# --------------------------------------------------------------------------- stack and unstack


def _stack_abstract(*xs: core.ShapedArray, axis: int) -> core.ShapedArray:
    _check_alike("stack", xs, ValueError, lambda x: x.shape,
                 "All input arrays must have the same shape. Got")
    shape = list(xs[0].shape)
    shape.insert(axis, len(xs))
    return _joined("stack", xs, shape)


stack_p = _def("stack", _stack_abstract, lambda *xs, axis: np.stack(xs, axis=axis))


def _unstack_abstract(x: core.ShapedArray, *, axis: int) -> list[core.ShapedArray]:
    shape = list(x.shape)
    n = shape.pop(axis)
    return [core.ShapedArray(shape, x.dtype, x.weak_type)] * n


unstack_p = _multi("unstack", _unstack_abstract,
                   lambda x, *, axis: [np.take(x, i, axis) for i in range(x.shape[axis])])


def _stack_jvp(primals: list, tangents: list, *, axis: int) -> tuple[Any, Any]:
    ans = core.bind(stack_p, *primals, axis=axis)
    if all(type(t) is ad.Zero for t in tangents):
        return ans, ad.Zero(core.get_aval(ans))
    return ans, core.bind(stack_p, *map(ad.instantiate_zeros, tangents), axis=axis)


def _stack_transpose(ct: Any, *xs: Any, axis: int) -> list[Any]:
    return core.bind(unstack_p, ct, axis=axis)


def _unstack_transpose(cts: list, x: Any, *, axis: int) -> list[Any]:
    if all(type(c) is ad.Zero for c in cts):
        return [ad.Zero(x.aval)]
    return [core.bind(stack_p, *map(ad.instantiate_zeros, cts), axis=axis)]


def _stack_batcher(size: int, vals: list, dims: list, *, axis: int) -> tuple[Any, Any]:
    bdim = dims[0]
    if bdim is not None and all(d == bdim for d in dims):
        out_axis, out_bdim = (axis, bdim + 1) if axis <= bdim else (axis + 1, bdim)
        return core.bind(stack_p, *vals, axis=out_axis), out_bdim
    xs = [batching.moveaxis(x, d, 0) if d is not None else batching.broadcast(x, size, 0)
          for x, d in zip(vals, dims)]
    return core.bind(stack_p, *xs, axis=axis + 1), 0


def _unstack_batcher(size: int, vals: list, dims: list, *, axis: int) -> tuple[Any, Any]:
    bdim = dims[0]
    out_axis, out_bdim = (axis, bdim - 1) if axis < bdim else (axis + 1, bdim)
    outs = core.bind(unstack_p, vals[0], axis=out_axis)
    return outs, [out_bdim] * len(outs)


ad.primitive_jvps[stack_p] = _stack_jvp
ad.primitive_transposes[stack_p] = _stack_transpose
ad.primitive_transposes[unstack_p] = _unstack_transpose
ad.primitive_jvps[unstack_p] = lambda primals, tangents, **p: (
    core.bind(unstack_p, *primals, **p), core.bind(unstack_p, *tangents, **p))
batching.primitive_batchers[stack_p] = _stack_batcher
batching.primitive_batchers[unstack_p] = _unstack_batcher


# --------------------------------------------------------------------------- tile and rev


def _tile_abstract(x: core.ShapedArray, *, reps: tuple) -> core.ShapedArray:
    if x.ndim != len(reps):
        raise TypeError(f"reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return x.update(shape=tuple(d * r for d, r in zip(x.shape, reps)))


tile_p = _def("tile", _tile_abstract, lambda x, *, reps: np.tile(x, reps))


def _tile_transpose(ct: Any, x: Any, *, reps: tuple) -> list[Any]:
    shape = x.aval.shape
    ct = lax.reshape(ct, tuple(k for pair in zip(reps, shape) for k in pair))
    return [lax.reduce_sum(ct, tuple(2 * i for i in range(len(shape))))]


def _tile_batcher(size: int, vals: list, dims: list, *, reps: tuple) -> tuple[Any, Any]:
    new = list(reps)
    new.insert(dims[0], 1)
    return core.bind(tile_p, vals[0], reps=tuple(new)), dims[0]


def _rev_abstract(x: core.ShapedArray, *, dimensions: tuple) -> core.ShapedArray:
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < x.ndim:
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {x.ndim}.")
    return x


rev_p = _def("rev", _rev_abstract, lambda x, *, dimensions: np.flip(x, dimensions))


def rev(x: Any, dimensions: Any) -> Any:
    return core.bind(rev_p, x, dimensions=tuple(dimensions))


def _rev_batcher(size: int, vals: list, dims: list, *, dimensions: tuple) -> tuple[Any, Any]:
    bdim = dims[0]
    return rev(vals[0], [d + 1 if d >= bdim else d for d in dimensions]), bdim


deflinear(tile_p, _tile_transpose)
deflinear(rev_p, lambda ct, x, *, dimensions: [rev(ct, dimensions)])
batching.primitive_batchers[tile_p] = _tile_batcher
batching.primitive_batchers[rev_p] = _rev_batcher


# --------------------------------------------------------------------------- reductions


reduce_prod_p = _def("reduce_prod", lax._reduce_abstract,
                     lambda x, *, axes: np.prod(x, axis=axes))


def reduce_prod(x: Any, axes: Any) -> Any:
    return core.bind(reduce_prod_p, x, axes=tuple(axes))


def _reduce_prod_jvp(primals: list, tangents: list, *, axes: tuple) -> tuple[Any, Any]:
    # JAX's _reduce_jvp: move the reduced axes to the front as one, then multiply
    # halves together pairwise (a tree of vmapped products), differentiated by jvp.
    x, = primals
    t = ad.instantiate_zeros(tangents[0])
    shape = np.array(core.get_aval(x).shape, dtype=int)
    n = int(np.prod(shape[list(axes)]))
    non_axes = [int(a) for a in np.delete(np.arange(len(shape)), axes)]
    perm = tuple(axes) + tuple(non_axes)
    new_shape = (n, *(int(d) for d in shape[non_axes]))
    x = lax.reshape(x, new_shape, perm)
    t = lax.reshape(t, new_shape, perm)
    reducer: Any = lax.mul
    for _ in range(len(non_axes) + 1):
        reducer = batching.vmap(reducer)
    one = np.array(1, core.get_aval(x).dtype)

    def tree(v: Any) -> Any:
        while core.get_aval(v).shape[0] > 1:
            m = core.get_aval(v).shape[0]
            m1 = (m + 1) // 2
            v1 = lax.slice(v, (0,) * v.ndim, (m1, *core.get_aval(v).shape[1:]), (1,) * v.ndim)
            v2 = lax.slice(v, (m1,) + (0,) * (v.ndim - 1), core.get_aval(v).shape, (1,) * v.ndim)
            if m - m1 != m1:
                cfg = [(0, 0, 0)] * v.ndim
                cfg[0] = (0, 1, 0)
                v2 = pad(v2, one, cfg)
            v = reducer(v1, v2)
        if core.get_aval(v).shape[0] == 0:
            return lax.broadcast_in_dim(one, tuple(shape[non_axes]), ())
        return lax.squeeze(v, (0,))

    return ad.jvp(tree, (x,), (t,))


ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp
batching.defreducer(reduce_prod_p)


def _argminmax_abstract(x: core.ShapedArray, *, axes: tuple, index_dtype: np.dtype
                        ) -> core.ShapedArray:
    axis, = axes
    if not 0 <= axis < x.ndim:
        raise ValueError(f"Invalid axis {axis} for operand shape {x.shape}")
    if x.shape[axis] < 1:
        raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={x.shape} axis={axis}")
    return core.ShapedArray(x.shape[:axis] + x.shape[axis + 1:], index_dtype)


argmax_p = _def("argmax", _argminmax_abstract,
                lambda x, *, axes, index_dtype: np.argmax(x, axis=axes[0]))
argmin_p = _def("argmin", _argminmax_abstract,
                lambda x, *, axes, index_dtype: np.argmin(x, axis=axes[0]))


def argmax(x: Any, axis: int, index_dtype: Any) -> Any:
    return core.bind(argmax_p, x, axes=(int(axis),),
                     index_dtype=core.canonicalize_dtype(index_dtype))


def argmin(x: Any, axis: int, index_dtype: Any) -> Any:
    return core.bind(argmin_p, x, axes=(int(axis),),
                     index_dtype=core.canonicalize_dtype(index_dtype))


for _p in (argmax_p, argmin_p):
    defjvp_zero(_p)
    batching.defreducer(_p)


def cumulative_p(name: str, np_fn: Any, kinds: tuple[str, ...]) -> core.Primitive:
    """A cumulative reduction along one axis (cumsum, cumprod): numpy's `np_fn`, reversed by
    flipping before and after, of the dtype `kinds` allow; the shape unchanged."""
    def abstract(x: core.ShapedArray, *, axis: int, reverse: bool) -> core.ShapedArray:
        if not 0 <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        lax._check_unop_dtype(name, x, kinds)
        return x

    def impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        if reverse:
            return np.flip(np_fn(np.flip(x, axis), axis=axis), axis)
        return np_fn(x, axis=axis)
    return _def(name, abstract, impl)


cumsum_p = cumulative_p("cumsum", np.cumsum, _NUM)


def cumsum(x: Any, axis: int = 0, reverse: bool = False) -> Any:
    return core.bind(cumsum_p, x, axis=int(axis), reverse=bool(reverse))


def _cumsum_batcher(size: int, vals: list, dims: list, *, axis: int, reverse: bool
                    ) -> tuple[Any, Any]:
    bdim = dims[0]
    return cumsum(vals[0], axis + (axis >= bdim), reverse), bdim


deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum(ct, axis, not reverse)])
batching.primitive_batchers[cumsum_p] = _cumsum_batcher

