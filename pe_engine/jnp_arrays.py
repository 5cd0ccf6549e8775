"""More of `jax.numpy`: array creation, joining and reordering, and the reductions
prod, cumsum, var, std, argmax and argmin; lowered as JAX 0.10.2 lowers them
(with JAX's `jit` wrappers where JAX has them, so the same `jit` equations print).
"""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from . import lax_base as lax
from . import structural
from .api import jit
from .core import ArrayOps, Tracer, get_aval
from .jnp_base import (
    _canonical_axes,
    _check_arraylike,
    _dtype,
    _keep,
    _promote_dtypes,
    _where_jit,
    asarray,
    broadcast_to,
    expand_dims,
    mean,
    reshape,
    sum,
    weak_result_type,
)
from .structural import stack_p, tile_p

# --------------------------------------------------------------------------- creation


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Any:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if np.ndim(fill_value) == 0 and not (isinstance(fill_value, Tracer) and fill_value.ndim):
        if dtype is None:
            dt, weak = weak_result_type(fill_value)
        else:
            dt, weak = _dtype(dtype), False
        val = lax.convert_element_type(fill_value, dt, weak)
        return lax.broadcast_in_dim(val, shape, ()) if shape else val
    return broadcast_to(asarray(fill_value, dtype), shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    aval = get_aval(a)
    shape = aval.shape if shape is None else ((shape,) if isinstance(shape, int) else shape)
    weak = dtype is None and aval.weak_type
    dt = aval.dtype if dtype is None else _dtype(dtype)
    val = lax.convert_element_type(fill_value, dt, weak)
    return lax.broadcast_in_dim(val, shape, ()) if shape else val


def empty(shape: Any, dtype: Any = None) -> Any:
    return full(shape, 0, np.float32 if dtype is None else dtype)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Any:
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, Tracer):
            raise TypeError(f"jnp.arange's {name} must be concrete (a Python or NumPy "
                            "number), not a traced value: its result's length depends on it")
    if dtype is None:
        dtype = weak_result_type(*(x for x in (start, stop, step) if x is not None))[0]
    dtype = _dtype(dtype)
    if stop is None:
        start, stop = 0, start
    if step is not None:
        size = builtins.max(0, int(np.ceil((stop - start) / step)))
        iota = structural.broadcasted_iota(dtype, (size,), 0)
        return lax.convert_element_type(lax.add(
            lax.convert_element_type(start, dtype),
            lax.mul(lax.convert_element_type(step, dtype), iota)), dtype)
    if start == 0:
        return structural.broadcasted_iota(dtype, (builtins.max(0, int(np.ceil(stop))),), 0)
    size = builtins.max(0, int(np.ceil(stop - start)))
    return lax.add(lax.convert_element_type(start, dtype),
                   structural.broadcasted_iota(dtype, (size,), 0))


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:  # noqa: N803
    dtype = _dtype(np.float32 if dtype is None else dtype)
    m = N if M is None else M
    i = structural.broadcasted_iota(np.int32, (N, m), 0)
    j = structural.broadcasted_iota(np.int32, (N, m), 1)
    return (i + k == j).astype(dtype)


def identity(n: int, dtype: Any = None) -> Any:
    return eye(n, dtype=dtype)


# --------------------------------------------------------------------------- joining


@jit(inline=True)
def ravel(a: Any) -> Any:
    _check_arraylike(a)
    return reshape(a, (get_aval(a).size,))


def _concatenate_array(arr: Any, axis: int | None, dtype: Any) -> Any:
    """JAX's path for one array of parts: its leading axis merged into `axis` by a reshape."""
    arr = asarray(arr, dtype)
    shape = get_aval(arr).shape
    if not shape or shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (get_aval(arr).size,))
    if len(shape) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = _canonical_axes(axis, len(shape) - 1)[0]
    new = shape[1:axis + 1] + (shape[0] * shape[axis + 1],) + shape[axis + 2:]
    return lax.reshape(arr, new, [*range(1, axis + 1), 0, *range(axis + 1, len(shape))])


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    if isinstance(arrays, (ArrayOps, np.ndarray)):
        return _concatenate_array(arrays, axis, dtype)
    arrays = list(arrays)
    _check_arraylike(*arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    if np.ndim(arrays[0]) == 0 and not get_aval(arrays[0]).shape:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = _canonical_axes(axis, get_aval(arrays[0]).ndim)[0]
    arrays = (_promote_dtypes(*arrays) if dtype is None
              else [asarray(a, dtype) for a in arrays])
    return structural.concatenate([asarray(a) for a in arrays], axis)


def stack(arrays: Any, axis: int = 0, dtype: Any = None) -> Any:
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    _check_arraylike(*arrays)
    arrays = (_promote_dtypes(*arrays) if dtype is None
              else [asarray(a, dtype) for a in arrays])
    axis = _canonical_axes(axis, get_aval(arrays[0]).ndim + 1)[0]
    return stack_p.bind(*[asarray(a) for a in arrays], axis=axis)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    _check_arraylike(ary)
    size = get_aval(ary).shape[axis]
    if isinstance(indices_or_sections, (tuple, list, np.ndarray)):
        idx = np.asarray([0, *indices_or_sections, size])
        sizes = list(np.diff(idx))
    else:
        n = operator.index(indices_or_sections)
        part, r = divmod(size, n)
        if r:
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
        sizes = [part] * n
    # JAX passes numpy integers, which the equation prints as such.
    return list(structural.split(ary, [np.int64(s) for s in sizes], axis=axis))


def tile(A: Any, reps: Any) -> Any:  # noqa: N803
    _check_arraylike(A)
    try:
        reps_t = tuple(iter(reps))
    except TypeError:
        reps_t = (reps,)
    reps_t = tuple(operator.index(r) for r in reps_t)
    ndim = get_aval(A).ndim
    reps_t = (1,) * (ndim - len(reps_t)) + reps_t
    if len(reps_t) > ndim:
        A = lax.expand_dims(A, tuple(range(len(reps_t) - ndim)))
    return tile_p.bind(A, reps=reps_t)


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Any:
    _check_arraylike(a)
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    if np.ndim(repeats) != 0:
        raise NotImplementedError("jnp.repeat with an array of repeats (JAX lowers it with a "
                                  "scatter and a gather); pass one integer")
    repeats = operator.index(repeats)
    shape = list(get_aval(a).shape)
    if not shape:
        return full((repeats,), a)
    axis = _canonical_axes(axis, len(shape))[0]
    aux = list(shape)
    aux.insert(axis + 1, repeats)
    a = lax.broadcast_in_dim(a, aux, [i for i in range(len(aux)) if i != axis + 1])
    shape[axis] *= repeats
    return reshape(a, shape)


@jit(static_argnames=("axis",))
def _flip(m: Any, axis: Any = None) -> Any:
    ndim = get_aval(m).ndim
    if axis is None:
        return structural.rev(m, list(range(ndim)))
    axis = (axis,) if isinstance(axis, int) else axis
    return structural.rev(m, [_canonical_axes(a, ndim)[0] for a in axis])


def flip(m: Any, axis: Any = None) -> Any:
    _check_arraylike(m)
    return _flip(asarray(m), None if axis is None else
                 (axis if isinstance(axis, int) else tuple(axis)))


def fliplr(m: Any) -> Any:
    return flip(m, 1)


def flipud(m: Any) -> Any:
    return flip(m, 0)


@jit(static_argnums=(1, 2))
def _roll_static(a: Any, shift: tuple, axis: tuple) -> Any:
    for ax, s in zip(*np.broadcast_arrays(axis, shift)):
        n = get_aval(a).shape[ax]
        if n == 0:
            continue
        i = -s % n
        a = structural.concatenate(
            [_slice_in_dim(a, i, n, int(ax)), _slice_in_dim(a, 0, i, int(ax))], int(ax))
    return a


def _slice_in_dim(a: Any, start: int, limit: int, axis: int) -> Any:
    shape = get_aval(a).shape
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = int(start), int(limit)
    return lax.slice(a, starts, limits, [1] * len(shape))


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    _check_arraylike(a)
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), get_aval(a).shape)
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    axis = tuple(_canonical_axes(ax, get_aval(a).ndim)[0] for ax in axis)
    if isinstance(shift, Tracer):
        raise NotImplementedError("jnp.roll by a traced shift (JAX lowers it with "
                                  "dynamic_slice); pass a Python integer")
    shift = (shift,) if np.ndim(shift) == 0 else tuple(shift)
    return _roll_static(a, tuple(operator.index(s) for s in shift), axis)


def outer(a: Any, b: Any) -> Any:
    _check_arraylike(a, b)
    a, b = _promote_dtypes(a, b)
    return ravel(a)[:, None] * ravel(b)[None, :]


# --------------------------------------------------------------------------- reductions


def _promote_integer(dtype: np.dtype) -> np.dtype:
    if dtype.kind == "b":
        return np.dtype("int32")
    if dtype.kind in "iu" and dtype.itemsize < 4:
        return np.dtype("int32" if dtype.kind == "i" else "uint32")
    return dtype


@jit(static_argnames=("axis", "dtype", "keepdims"), inline=True)
def prod(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False,
         initial: Any = None) -> Any:
    _check_arraylike(a)
    a = asarray(a)
    if get_aval(a).dtype.kind == "b":
        a = lax.convert_element_type(a, np.int32)
    axes = _canonical_axes(axis, get_aval(a).ndim)
    out_dtype = _promote_integer(get_aval(a).dtype) if dtype is None else _dtype(dtype)
    a = lax.convert_element_type(a, out_dtype)
    result = structural.reduce_prod(a, axes)
    if initial is not None:
        result = lax.mul(lax.convert_element_type(initial, out_dtype), result)
    return lax.convert_element_type(_keep(result, axes, keepdims), out_dtype)


@jit(static_argnames=("axis", "dtype"))
def cumsum(a: Any, axis: int | None = None, dtype: Any = None) -> Any:
    _check_arraylike(a)
    if axis is None or not get_aval(a).shape:
        a = lax.reshape(a, (get_aval(a).size,))
        axis = 0
    axis = _canonical_axes(axis, get_aval(a).ndim)[0]
    kind = get_aval(a).dtype.kind
    result_type_ = (np.dtype("int32") if dtype is None and kind == "b"
                    else get_aval(a).dtype if dtype is None else _dtype(dtype))
    a = lax.convert_element_type(a, result_type_)
    return lax.convert_element_type(structural.cumsum(a, axis), result_type_)


def _var_types(a_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    if dtype is not None:
        return _dtype(dtype), _dtype(dtype)
    if a_dtype.kind not in "fc":
        return np.dtype("float32"), np.dtype("float32")
    return a_dtype, a_dtype


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a: Any, *, axis: Any = None, dtype: Any = None, correction: Any = 0,
         keepdims: bool = False) -> Any:
    computation, dtype = _var_types(get_aval(a).dtype, dtype)
    a = asarray(a).astype(computation)
    a_mean = mean(a, axis, keepdims=True)
    centered = lax.square(lax.sub(a, a_mean))
    axes = _canonical_axes(axis, get_aval(a).ndim)
    count = int(np.prod([get_aval(a).shape[i] for i in axes], dtype=np.int64))
    # JAX's _count: the count cast to the computation type, an operation (see mean).
    normalizer = lax.sub(lax.convert_element_type(count, computation),
                         lax.convert_element_type(correction, computation))
    result = sum(centered, axis, keepdims=keepdims)
    result = lax.div(result, normalizer).astype(dtype)
    return _where_jit(normalizer > 0, result, np.nan)


def var(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False,
        *, correction: Any = None) -> Any:
    _check_arraylike(a)
    return _var(a, axis=_axes_arg(axis), dtype=dtype,
                correction=ddof if correction is None else correction, keepdims=keepdims)


@jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a: Any, *, axis: Any = None, dtype: Any = None, correction: Any = 0,
         keepdims: bool = False) -> Any:
    return lax.sqrt(var(a, axis=axis, dtype=dtype, correction=correction, keepdims=keepdims))


def std(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False,
        *, correction: Any = None) -> Any:
    _check_arraylike(a)
    return _std(a, axis=_axes_arg(axis), dtype=dtype,
                correction=ddof if correction is None else correction, keepdims=keepdims)


def _axes_arg(axis: Any) -> Any:
    """A hashable axis (JAX passes it as a static argument)."""
    return tuple(axis) if isinstance(axis, list) else axis


def _argminmax(prim_fn: Any, a: Any, axis: Any, keepdims: bool) -> Any:
    _check_arraylike(a)
    a = asarray(a)
    if axis is None:
        dims = list(range(get_aval(a).ndim))
        a = ravel(a)
        axis = 0
    else:
        dims = [axis]
    if get_aval(a).shape[axis] == 0:
        raise ValueError("attempt to get argmax of an empty sequence")
    result = prim_fn(a, _canonical_axes(axis, get_aval(a).ndim)[0], np.int32)
    return expand_dims(result, dims) if keepdims else result


def argmax(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _argminmax(structural.argmax, a, None if axis is None else operator.index(axis),
                      keepdims)


def argmin(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return _argminmax(structural.argmin, a, None if axis is None else operator.index(axis),
                      keepdims)


__all__ = ["arange", "argmax", "argmin", "concatenate", "cumsum", "empty", "eye", "flip",
           "fliplr", "flipud", "full", "full_like", "identity", "outer", "prod", "ravel",
           "repeat", "roll", "split", "stack", "std", "tile", "var"]
