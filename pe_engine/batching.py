"""`jax.vmap`: the batching interpreter and its rule table.

A batched value is a `BatchTracer`: an array plus the axis (or None) along which
it carries the batch. Each primitive's rule receives the values and their batch
axes and returns the outputs and theirs, written the way JAX's rules are so that
a vmapped program prints as JAX prints it. Each primitive's rule is registered by the
module that defines it (`defvectorized`, `defbroadcasting`, `defreducer` below).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import lax_base as lax
from .core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    bind,
    get_aval,
    jaxpr_as_fun,
    new_main,
)
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

# primitive -> rule(axis_size, vals, dims, **params) -> (out(s), out dim(s));
# a dim is an int or None (not batched).
primitive_batchers: dict[Primitive, Callable[..., tuple[Any, Any]]] = {}


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")
    _trace: BatchTrace

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: int | None):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        aval = get_aval(self.val)
        if self.batch_dim is None:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return aval.update(shape=shape)

    def full_lower(self) -> Any:
        if self.batch_dim is None:
            v = self.val
            return v.full_lower() if isinstance(v, Tracer) else v
        return self


class BatchTrace(Trace):
    __slots__ = ()

    @property
    def axis_size(self) -> int:
        return self.main.global_data

    def pure(self, val: Any) -> BatchTracer:
        return BatchTracer(self, val, None)

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if all(d is None for d in dims):
            outs = bind(primitive, *vals, **params)
            return [self.pure(o) for o in (outs if primitive.multiple_results else [outs])]
        rule = primitive_batchers.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive}' not implemented")
        outs, out_dims = rule(self.axis_size, vals, dims, **params)
        if not primitive.multiple_results:
            outs, out_dims = [outs], [out_dims]
        return [BatchTracer(self, o, d) for o, d in zip(outs, out_dims, strict=True)]


# --------------------------------------------------------------------------- axis helpers


def i64(xs: Any) -> np.ndarray:
    """Integers as a numpy int64 array. JAX computes some params with numpy, so they print
    as np.int64(...); numpy's default integer is 32-bit in Pyodide, so say 64 outright."""
    return np.asarray(tuple(xs), dtype=np.int64)


def moveaxis(x: Any, src: int, dst: int) -> Any:
    if src == dst:
        return x
    ndim = get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst % ndim, src)
    return lax.transpose(x, perm)


def broadcast(x: Any, size: int, axis: int) -> Any:
    """Give an unbatched value a batch axis of `size` at `axis`."""
    shape = list(get_aval(x).shape)
    shape.insert(axis, size)
    # numpy's integers, as JAX computes them (they print as np.int64(...)).
    return lax.broadcast_in_dim(x, shape, tuple(np.delete(i64(range(len(shape))), axis)))


def bdim_at_front(x: Any, dim: int | None, size: int) -> Any:
    return broadcast(x, size, 0) if dim is None else moveaxis(x, dim, 0)


def matchaxis(size: int, src: int | None, dst: int | None, x: Any) -> Any:
    if src == dst:
        return x
    if src is None:
        return broadcast(x, size, dst % (get_aval(x).ndim + 1))
    if dst is None:
        raise ValueError("vmap has mapped output but out_axes is None")
    return moveaxis(x, src, dst)


# --------------------------------------------------------------------------- generic rules


def vectorized_batcher(prim: Primitive, size: int, vals: list, dims: list, **params: Any
                       ) -> tuple[Any, Any]:
    """Unary elementwise: the batch axis passes through."""
    out = bind(prim, *vals, **params)
    d = dims[0]
    return out, ([d] * len(out) if prim.multiple_results else d)


def broadcast_batcher(prim: Primitive, size: int, vals: list, dims: list, **params: Any
                      ) -> tuple[Any, Any]:
    """N-ary elementwise: bind directly when every batched operand agrees; otherwise
    move batch axes to the front and line up ranks."""
    shape, dim = next((get_aval(x).shape, d) for x, d in zip(vals, dims) if d is not None)
    if all(get_aval(x).shape == shape and d == dim
           for x, d in zip(vals, dims) if get_aval(x).ndim):
        out = bind(prim, *vals, **params)
        return out, ([dim] * len(out) if prim.multiple_results else dim)
    vals = [bdim_at_front(x, d, 1) if get_aval(x).ndim else x for x, d in zip(vals, dims)]
    ndim = max(get_aval(x).ndim for x in vals)
    vals = [x if d is None or get_aval(x).ndim == ndim
            else lax.expand_dims(x, tuple(range(get_aval(x).ndim, ndim)))
            for x, d in zip(vals, dims)]
    out = bind(prim, *vals, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)


def defvectorized(prim: Primitive) -> None:
    primitive_batchers[prim] = functools.partial(vectorized_batcher, prim)


def defbroadcasting(prim: Primitive) -> None:
    primitive_batchers[prim] = functools.partial(broadcast_batcher, prim)


def reducer_batcher(prim: Primitive, size: int, vals: list, dims: list, *, axes: tuple,
                    **params: Any) -> tuple[Any, Any]:
    x, = vals
    bdim, = dims
    axes = tuple(np.where(np.less(axes, bdim), i64(axes), np.add(i64(axes), 1)))  # as JAX's
    kept = list(np.delete(np.arange(get_aval(x).ndim), axes))
    return bind(prim, x, axes=axes, **params), int(kept.index(bdim))


def defreducer(prim: Primitive) -> None:
    primitive_batchers[prim] = functools.partial(reducer_batcher, prim)


# --------------------------------------------------------------------------- vmap


def _flatten_axes(what: str, tree: Any, axes: Any) -> list[Any]:
    """One axis per leaf of `tree`: `axes` is a prefix of the tree's structure."""
    if axes is None or isinstance(axes, int):
        return [axes] * len(tree_flatten(tree)[0])
    if isinstance(axes, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(axes) != len(tree):
            raise ValueError(f"vmap {what} specification must be a tree prefix of the "
                             f"corresponding value, got specification {axes!r} for value "
                             f"tree {tree_flatten(tree)[1]}.")
        return [a for t, ax in zip(tree, axes) for a in _flatten_axes(what, t, ax)]
    if isinstance(axes, dict) and isinstance(tree, dict):
        return [a for k in sorted(tree) for a in _flatten_axes(what, tree[k], axes[k])]
    raise ValueError(f"vmap {what} specification must be a tree prefix of the "
                     f"corresponding value, got specification {axes!r} for value tree "
                     f"{tree_flatten(tree)[1]}.")


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0,
         axis_size: int | None = None) -> Callable[..., Any]:
    """`jax.vmap`: map `fun` over an axis of its arguments, as one batched program."""
    @functools.wraps(fun)
    def batched(*args: Any) -> Any:
        axes = in_axes
        if isinstance(axes, list):
            axes = tuple(axes)
        if isinstance(axes, tuple) and len(axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(axes)}, "
                             f"len(args)={len(args)}")
        flat, in_tree = tree_flatten(args)
        flat_axes = _flatten_axes("in_axes", args, axes if isinstance(axes, tuple)
                                  else (axes,) * len(args))
        flat_axes = [None if a is None else a % get_aval(x).ndim if get_aval(x).ndim
                     else a for x, a in zip(flat, flat_axes)]
        sizes = {get_aval(x).shape[a] for x, a in zip(flat, flat_axes)
                 if a is not None and get_aval(x).ndim > a}
        for x, a in zip(flat, flat_axes):
            if a is not None and not get_aval(x).ndim:
                raise ValueError(f"vmap was requested to map its argument along axis {a}, "
                                 "which implies that its rank should be at least "
                                 f"{a + 1}, but is only 0 (its shape is ())")
        if axis_size is not None:
            sizes.add(axis_size)
        if len(sizes) != 1:
            raise ValueError("vmap got inconsistent sizes for array axes to be mapped"
                             if sizes else "vmap must have at least one non-None value "
                             "in in_axes")
        size = sizes.pop()
        out_tree: list = []

        def flat_fun(*xs: Any) -> list:
            out = fun(*tree_unflatten(in_tree, xs))
            leaves, tree = tree_flatten(out)
            out_tree[:] = [tree, out]
            return leaves

        outs, dims = vmap_flat(flat_fun, size, flat, flat_axes)
        tree, structure = out_tree
        out_axes_flat = _flatten_axes("out_axes", structure, out_axes)
        outs = [matchaxis(size, d, None if a is None else a % (get_aval(o).ndim
                          + (d is None)), o)
                for o, d, a in zip(outs, dims, out_axes_flat)]
        return tree_unflatten(tree, outs)
    return batched


def vmap_flat(fun: Callable[..., Sequence[Any]], size: int, args: Sequence[Any],
              in_dims: Sequence[int | None]) -> tuple[list[Any], list[int | None]]:
    with new_main(BatchTrace, size) as main:
        trace = BatchTrace(main)
        tracers = [BatchTracer(trace, x, d) if d is not None else x
                   for x, d in zip(args, in_dims)]
        outs = [trace.full_raise(o) for o in fun(*tracers)]
        vals = [o.val for o in outs]
        dims = [o.batch_dim for o in outs]
    return [v.full_lower() if isinstance(v, Tracer) else v for v in vals], dims


def _trace_batched(closed: Any, size: int, in_dims: Sequence[int | None],
                   finish: Callable[[list, list], list]) -> Any:
    """Stage the vmap of a jaxpr; `finish` maps (outputs, their batch dims) to the outputs."""
    fun = jaxpr_as_fun(closed)
    avals = [a if d is None else _batched_aval(a, size, d)
             for a, d in zip(closed.in_avals, in_dims)]
    return trace_to_jaxpr_dynamic(lambda *xs: finish(*vmap_flat(fun, size, xs, in_dims)),
                                  avals)


def _batched_aval(aval: ShapedArray, size: int, dim: int) -> ShapedArray:
    shape = list(aval.shape)
    shape.insert(dim, size)
    return aval.update(shape=shape)


def batch_jaxpr(closed: Any, size: int, in_dims: Sequence[int | None],
                out_dims: Sequence[int | None] | int | None = 0) -> Any:
    """The batched version of a closed jaxpr, every output batched at `out_dims`."""
    n_out = len(closed.out_avals)
    want = list(out_dims) if isinstance(out_dims, Sequence) else [out_dims] * n_out
    return _trace_batched(closed, size, in_dims, lambda outs, dims: [
        matchaxis(size, d, w, o) for o, d, w in zip(outs, dims, want)])


def batch_jaxpr_keep_dims(closed: Any, size: int, in_dims: Sequence[int | None]
                          ) -> tuple[Any, list[int | None]]:
    """The batched jaxpr with inputs batched where they are and outputs batched wherever
    the rules leave them (JAX's batch_jaxpr2, what a batched jit holds)."""
    box: list = []

    def keep(outs: list, dims: list) -> list:
        box[:] = dims
        return outs

    return _trace_batched(closed, size, in_dims, keep), box


def batched_out_dims(closed: Any, size: int, in_dims: Sequence[int | None]) -> list[bool]:
    """Which outputs of a jaxpr come out batched, given which inputs are."""
    return [d is not None for d in batch_jaxpr_keep_dims(closed, size, in_dims)[1]]
