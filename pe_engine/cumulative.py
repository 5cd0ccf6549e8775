"""`lax.cumprod` with all its rules, and `lax.associative_scan`, the parallel prefix scan JAX
differentiates cumprod through (its JVP is the JVP of that scan, as JAX's is)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import ad, batching, structural
from . import lax_base as lax
from .core import bind, get_aval
from .jnp_base import _canonical_axes
from .lax_base_rules import pad
from .pytree import tree_flatten, tree_unflatten
from .slicing_in_dim import slice_in_dim
from .structural import concatenate

__all__ = ["associative_scan", "cumprod"]


cumprod_p = structural.cumulative_p("cumprod", np.cumprod,
                                   ("integer", "floating", "complexfloating"))


def cumprod(x: Any, axis: int = 0, reverse: bool = False) -> Any:
    return bind(cumprod_p, x, axis=int(axis), reverse=bool(reverse))


def _cumprod_batcher(size: int, vals: list, dims: list, *, axis: int, reverse: bool
                     ) -> tuple[Any, Any]:
    bdim = dims[0]
    return cumprod(vals[0], axis + (axis >= bdim), reverse), bdim


batching.primitive_batchers[cumprod_p] = _cumprod_batcher


def _interleave(a: Any, b: Any, axis: int) -> Any:
    """a's and b's elements alternately along `axis` (a first): each padded with zeros
    between its elements, then the two summed."""
    na, nb = get_aval(a).shape[axis], get_aval(b).shape[axis]
    a_pad = [(0, 0, 0)] * get_aval(a).ndim
    b_pad = [(0, 0, 0)] * get_aval(b).ndim
    a_pad[axis] = (0, 1 if na == nb else 0, 1)
    b_pad[axis] = (1, 0 if na == nb else 1, 1)
    op = lax.bitwise_or if get_aval(a).dtype == np.bool_ else lax.add
    return op(pad(a, lax._const(a, 0), a_pad), pad(b, lax._const(b, 0), b_pad))


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Prefix scan of an associative `fn` by recursive halving: combine neighbouring pairs,
    scan those, then fill in the even positions from the odd ones."""
    flat, tree = tree_flatten(elems)
    if reverse:
        flat = [structural.rev(e, [axis]) for e in flat]
    axis = _canonical_axes(axis, get_aval(flat[0]).ndim)[0]

    def combine(a_flat: list, b_flat: list) -> list:
        out, _ = tree_flatten(fn(tree_unflatten(tree, a_flat), tree_unflatten(tree, b_flat)))
        return out

    def scan(elems: list) -> list:
        n = get_aval(elems[0]).shape[axis]
        if n < 2:
            return elems
        reduced = combine([slice_in_dim(e, 0, -1, 2, axis) for e in elems],
                          [slice_in_dim(e, 1, None, 2, axis) for e in elems])
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([slice_in_dim(e, 0, -1, axis=axis) for e in odd],
                           [slice_in_dim(e, 2, None, 2, axis) for e in elems])
        else:
            even = combine(odd, [slice_in_dim(e, 2, None, 2, axis) for e in elems])
        even = [concatenate([slice_in_dim(e, 0, 1, axis=axis), r], axis)
                for e, r in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scans = scan(flat)
    if reverse:
        scans = [structural.rev(s, [axis]) for s in scans]
    return tree_unflatten(tree, scans)


def _cumprod_jvp(primals: list, tangents: list, *, axis: int, reverse: bool
                 ) -> tuple[Any, Any]:
    scan = functools.partial(associative_scan, lax.mul, axis=axis, reverse=reverse)
    return ad.jvp(scan, tuple(primals), tuple(ad.instantiate_zeros(t) for t in tangents))


ad.primitive_jvps[cumprod_p] = _cumprod_jvp
