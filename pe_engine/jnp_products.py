"""`jax.numpy`'s products beyond dot and matmul (tensordot, inner, vdot, vecdot, matvec,
vecmat, kron, cross), `vectorize` (which JAX builds the vector products on), and rot90 and
vander; lowered as JAX 0.10.2 lowers them, with its `jit` wrappers.
"""
from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from . import lax_base as lax
from .api import jit
from .batching import vmap
from .core import get_aval
from .jnp_arrays import flip
from .jnp_base import (
    _canonical_axes,
    _check_arraylike,
    _promote_dtypes,
    array,
    asarray,
    broadcast_shapes,
    dot,
    expand_dims,
    matmul,
    power,
    reshape,
    squeeze,
    transpose,
    weak_result_type,
    zeros_like,
)
from .jnp_shape import moveaxis
from .structural import iota

# --------------------------------------------------------------------------- vectorize

_ARG = r"\((?:\w+(?:,\w+)*)?\)"
_SIGNATURE = f"^{_ARG}(?:,{_ARG})*->{_ARG}(?:,{_ARG})*$"


def _core_dims(signature: str) -> list[tuple[str, ...]]:
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins = signature.split("->")[0]
    return [tuple(re.findall(r"\w+", arg)) for arg in re.findall(_ARG, ins)]


def vectorize(pyfunc: Callable, *, excluded: Any = frozenset(), signature: str | None = None
              ) -> Callable:
    """JAX's vectorize: the loop (batch) axes of the arguments broadcast against each other,
    one `vmap` per loop axis, innermost first; size-1 loop axes are squeezed and mapped
    with in_axes None, and an axis no argument maps comes back by expand_dims."""
    if excluded:
        raise NotImplementedError("jnp.vectorize with excluded arguments")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any) -> Any:
        args = tuple(map(asarray, args))
        core = _core_dims(signature) if signature is not None else [()] * len(args)
        if len(core) != len(args):
            raise TypeError(f"wrong number of positional arguments: expected {len(core)}, "
                            f"got {len(args)}")
        loops = [get_aval(a).shape[:get_aval(a).ndim - len(c)] for a, c in zip(args, core)]
        shape = broadcast_shapes(*loops)
        squeezed = [squeeze(a, axis=tuple(i for i, d in enumerate(s) if d == 1))
                    for a, s in zip(args, loops)]
        rev = [((1,) * (len(shape) - len(s)) + s)[::-1] for s in loops]
        fn, expand = pyfunc, []
        for neg, sizes in enumerate(zip(*rev)):
            in_axes = tuple(None if d == 1 else 0 for d in sizes)
            if all(a is None for a in in_axes):
                expand.append(len(shape) - 1 - neg)
            else:
                fn = vmap(fn, in_axes)
        out = fn(*squeezed)
        if not expand:
            return out
        if isinstance(out, tuple):
            return tuple(expand_dims(o, expand) for o in out)
        return expand_dims(out, expand)
    return wrapped


# --------------------------------------------------------------------------- products


@jit
def matvec(x1: Any, x2: Any, /) -> Any:
    _check_arraylike(x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@jit
def vecmat(x1: Any, x2: Any, /) -> Any:
    _check_arraylike(x1, x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(x1, x2)


def _dims(axes: Any, a_ndim: int, b_ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if type(axes) is int:
        if axes > min(a_ndim, b_ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks")
        return tuple(range(a_ndim - axes, a_ndim)), tuple(range(axes))
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            return _canonical_axes(ax1, a_ndim), _canonical_axes(ax2, b_ndim)
        if isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError(f"tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            return (tuple(_canonical_axes(i, a_ndim)[0] for i in ax1),
                    tuple(_canonical_axes(i, b_ndim)[0] for i in ax2))
    raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair of "
                    "lists/tuples of ints.")


def tensordot(a: Any, b: Any, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    _check_arraylike(a, b)
    a, b = asarray(a), asarray(b)
    dtype, weak = weak_result_type(a, b)
    if preferred_element_type is not None:
        dtype, weak = np.dtype(preferred_element_type), False
    dims = _dims(axes, get_aval(a).ndim, get_aval(b).ndim)
    out = lax.dot_general(a, b, (dims, ((), ())), precision=precision,
                          preferred_element_type=dtype)
    return lax.convert_element_type(out, dtype, weak)


@jit(static_argnames=("precision", "preferred_element_type"), inline=True)
def inner(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    _check_arraylike(a, b)
    a, b = asarray(a), asarray(b)
    if get_aval(a).ndim == 0 or get_aval(b).ndim == 0:
        if preferred_element_type is not None:
            a, b = a.astype(preferred_element_type), b.astype(preferred_element_type)
        return a * b
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


@jit(static_argnames=("precision", "preferred_element_type"), inline=True)
def vdot(a: Any, b: Any, *, precision: Any = None, preferred_element_type: Any = None) -> Any:
    _check_arraylike(a, b)
    a, b = asarray(a), asarray(b)
    if get_aval(a).dtype.kind == "c":
        raise NotImplementedError("jnp.vdot of complex arrays")
    return dot(a.ravel(), b.ravel())


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    _check_arraylike(x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if get_aval(x1).shape[axis] != get_aval(x2).shape[axis]:
        raise ValueError(f"axes must match; got shapes {get_aval(x1).shape} and "
                         f"{get_aval(x2).shape} with {axis=}")
    fn = functools.partial(vdot, precision=precision,
                           preferred_element_type=preferred_element_type)
    return vectorize(fn, signature="(n),(n)->()")(moveaxis(x1, axis, -1),
                                                   moveaxis(x2, axis, -1))


@jit
def kron(a: Any, b: Any) -> Any:
    _check_arraylike(a, b)
    a, b = _promote_dtypes(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na < nb:
        a = expand_dims(a, range(nb - na))
    elif nb < na:
        b = expand_dims(b, range(na - nb))
    n = get_aval(a).ndim
    out_shape = tuple(int(d) for d in np.multiply(get_aval(a).shape, get_aval(b).shape))
    return reshape(lax.mul(expand_dims(a, range(1, 2 * n, 2)), expand_dims(b, range(0, 2 * n, 2))),
                   out_shape)


@jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    _check_arraylike(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    na, nb = get_aval(a).shape[-1], get_aval(b).shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if na == 2 and nb == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if na == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if nb == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


# --------------------------------------------------------------------------- rot90, vander


@jit(static_argnames=("k", "axes"))
def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    _check_arraylike(m)
    ndim = get_aval(m).ndim
    if ndim < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {get_aval(m).shape}, which has ndim "
                         f"{ndim}")
    ax1, ax2 = (_canonical_axes(a, ndim)[0] for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k %= 4
    if k == 0:
        return asarray(m)
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


@jit(static_argnames=("N", "increasing"))
def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:  # noqa: N803
    _check_arraylike(x)
    if get_aval(x).ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    n = get_aval(x).shape[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError("N must be nonnegative")
    powers = iota(get_aval(x).dtype, n)
    if not increasing:
        powers = lax.sub(lax._const(powers, n - 1), powers)
    return power(x[..., None], expand_dims(powers, (0,)))


__all__ = ["cross", "inner", "kron", "matvec", "rot90", "tensordot", "vander", "vdot",
           "vecdot", "vecmat", "vectorize"]
