"""`jax.numpy`'s axis shuffling, at-least-n-d views, stacking and splitting, lowered as JAX
0.10.2 lowers them (each `jit` wrapper where JAX has one, so the same equations print).
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .core import ArrayOps, get_aval
from .jnp_arrays import concatenate, ravel, split
from .jnp_base import _canonical_axes, _check_arraylike, asarray
from .structural import unstack_p

# --------------------------------------------------------------------------- axes


def _index_tuple(x: Any) -> tuple[int, ...]:
    return (operator.index(x),) if np.ndim(x) == 0 else tuple(map(operator.index, x))


def _axis(axis: int, ndim: int) -> int:
    return _canonical_axes(operator.index(axis), ndim)[0]


def permute_dims(a: Any, /, axes: tuple[int, ...]) -> Any:
    _check_arraylike(a)
    return lax.transpose(a, tuple(axes))


def matrix_transpose(x: Any, /) -> Any:
    _check_arraylike(x)
    ndim = get_aval(x).ndim
    if ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got {ndim=}")
    return lax.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


@jit(static_argnames=("axis1", "axis2"), inline=True)
def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    _check_arraylike(a)
    perm = list(range(get_aval(a).ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, perm)


@jit(static_argnames=("source", "destination"), inline=True)
def _moveaxis(a: Any, source: tuple[int, ...], destination: tuple[int, ...]) -> Any:
    ndim = get_aval(a).ndim
    source = tuple(_axis(i, ndim) for i in source)
    destination = tuple(_axis(i, ndim) for i in destination)
    if len(source) != len(destination):
        raise ValueError(f"Inconsistent number of elements: {len(source)} vs "
                         f"{len(destination)}")
    perm = [i for i in range(ndim) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax.transpose(a, perm)


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    _check_arraylike(a)
    return _moveaxis(asarray(a), _index_tuple(source), _index_tuple(destination))


@jit(static_argnames=("axis", "start"))
def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    _check_arraylike(a)
    ndim = get_aval(a).ndim
    axis = _axis(axis, ndim)
    start = operator.index(start)
    if not -ndim <= start <= ndim:
        raise ValueError(f"{start=} must satisfy {-ndim}<=start<={ndim}")
    start += ndim if start < 0 else 0
    start -= 1 if start > axis else 0
    return moveaxis(a, axis, start)


# --------------------------------------------------------------------------- at least n-d


def _ndmin(x: Any, n: int) -> Any:
    """`jnp.array(x, copy=False, ndmin=n)`: leading size-1 axes, no copy."""
    x = asarray(x)
    ndim = get_aval(x).ndim
    return lax.expand_dims(x, tuple(range(n - ndim))) if ndim < n else x


def _each(fn: Any, arys: tuple) -> Any:
    return fn(arys[0]) if len(arys) == 1 else [fn(a) for a in arys]


@jit
def atleast_1d(*arys: Any) -> Any:
    _check_arraylike(*arys)
    return _each(lambda a: _ndmin(a, 1), arys)


@jit
def atleast_2d(*arys: Any) -> Any:
    _check_arraylike(*arys)
    return _each(lambda a: _ndmin(a, 2), arys)


_AT_LEAST_3D = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}


@jit
def atleast_3d(*arys: Any) -> Any:
    _check_arraylike(*arys)
    if len(arys) != 1:
        return [atleast_3d(a) for a in arys]
    a = asarray(arys[0])
    return lax.expand_dims(a, _AT_LEAST_3D.get(get_aval(a).ndim, ()))


# --------------------------------------------------------------------------- stacking


def _each_row(fn: Any, tup: Any) -> Any:
    """JAX maps the at-least-n-d function over the rows of one array (vmap), or over the
    items of a sequence."""
    if isinstance(tup, (ArrayOps, np.ndarray)):
        from .batching import vmap
        return vmap(fn)(tup)
    _check_arraylike(*tup)
    return [fn(m) for m in tup]


def vstack(tup: Any, dtype: Any = None) -> Any:
    return concatenate(_each_row(atleast_2d, tup), axis=0, dtype=dtype)


def hstack(tup: Any, dtype: Any = None) -> Any:
    arrs = _each_row(atleast_1d, tup)
    ndim0 = get_aval(arrs).ndim - 1 if isinstance(arrs, ArrayOps) else get_aval(arrs[0]).ndim
    return concatenate(arrs, axis=0 if ndim0 == 1 else 1, dtype=dtype)


def dstack(tup: Any, dtype: Any = None) -> Any:
    return concatenate(_each_row(atleast_3d, tup), axis=2, dtype=dtype)


def column_stack(tup: Any) -> Any:
    if isinstance(tup, (ArrayOps, np.ndarray)):
        from .batching import vmap
        arrs = vmap(lambda x: atleast_2d(x).T)(tup) if get_aval(tup).ndim < 3 else tup
    else:
        _check_arraylike(*tup)
        arrs = [atleast_2d(a).T if get_aval(a).ndim < 2 else a for a in map(asarray, tup)]
    return concatenate(arrs, axis=1)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    _check_arraylike(*arrays)
    return concatenate(arrays, axis=axis)


@jit(static_argnames=("axis",))
def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


def _at_least_nd(x: Any, n: int) -> Any:
    ndim = get_aval(x).ndim
    if ndim >= n:
        return asarray(x)
    return lax.broadcast_in_dim(x, (1,) * (n - ndim) + get_aval(x).shape,
                                tuple(range(n - ndim, n)))


def _block(xs: Any) -> tuple[Any, int]:
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    parts, depths = zip(*[_block(x) for x in xs])
    if any(d != depths[0] for d in depths[1:]):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = max(depths[0], max(get_aval(x).ndim for x in parts))
    return concatenate([_at_least_nd(x, rank) for x in parts], axis=-depths[0]), depths[0] + 1


@jit
def block(arrays: Any) -> Any:
    return _block(arrays)[0]


# --------------------------------------------------------------------------- splitting


def _split(ary: Any, indices_or_sections: Any, axis: int, equal: bool) -> list[Any]:
    """JAX's `_split`; array_split (equal False) lets the first parts be one longer."""
    if equal or np.ndim(indices_or_sections) > 0 or isinstance(indices_or_sections, list):
        return split(ary, indices_or_sections, axis)
    n = operator.index(indices_or_sections)
    part, r = divmod(get_aval(ary).shape[axis], n)
    if not r:
        return split(ary, n, axis)
    ends = np.cumsum([part + 1] * r + [part] * (n - r))[:-1]
    return split(ary, [int(e) for e in ends], axis)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    _check_arraylike(ary)
    return _split(ary, indices_or_sections, axis, equal=False)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    return split(ary, indices_or_sections, 0)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    _check_arraylike(ary)
    return split(ary, indices_or_sections, 0 if get_aval(ary).ndim == 1 else 1)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    return split(ary, indices_or_sections, 2)


@jit(static_argnames=("axis",), inline=True)
def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    _check_arraylike(x)
    return tuple(unstack_p.bind(x, axis=_axis(axis, get_aval(x).ndim)))


__all__ = ["append", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "block",
           "column_stack", "concat", "dsplit", "dstack", "hsplit", "hstack", "matrix_transpose",
           "moveaxis", "permute_dims", "rollaxis", "swapaxes", "unstack", "vsplit", "vstack"]
