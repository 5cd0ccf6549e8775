"""`jax.numpy` as this engine offers it: NumPy-style functions lowered to `lax` primitives.

Dtype promotion follows JAX's lattice without x64 (bool < int < float; Python
scalars are weakly typed and defer to arrays), and shapes follow JAX's rank
promotion: operands of different non-zero ranks are broadcast to a common rank with
`broadcast_in_dim`; size-1 and rank-0 operands are left to the primitives.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import lax
from .core import Array, ArrayOps, Tracer, bool_, float32, get_aval, int32

float32 = float32
int32 = int32
bool_ = bool_
ndarray = Array

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
_DEFAULT = {0: bool_, 1: int32, 2: float32, 3: np.dtype("complex64")}


def _is_python_scalar(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)


def result_type(*args: Any) -> tuple[np.dtype, bool]:
    """JAX's promotion on bool/int/float: (dtype, weak_type)."""
    avals = [get_aval(a) for a in args]
    top = max(_KIND_RANK[a.dtype.kind] for a in avals)
    strong = [a.dtype for a in avals if not a.weak_type and _KIND_RANK[a.dtype.kind] == top]
    if strong:
        return max(strong, key=lambda d: d.itemsize), False
    return _DEFAULT[top], True


def _convert_scalar(x: Any, dtype: np.dtype) -> Any:
    # A Python scalar stays a Python scalar (weakly typed, printed as typed) of the
    # promoted kind, so it becomes a literal, as JAX's typed scalars do.
    kind = dtype.kind
    if dtype == _DEFAULT[_KIND_RANK[kind]]:
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind](x)
    return np.asarray(x, dtype)


def _promote_dtypes(*args: Any) -> list[Any]:
    if len(args) < 2:
        return list(args)
    dtype, weak = result_type(*args)
    out = []
    for x in args:
        if _is_python_scalar(x):
            out.append(_convert_scalar(x, dtype))
            continue
        aval = get_aval(x)
        if aval.dtype != dtype or (aval.weak_type and not weak):
            x = lax.convert_element_type(x, dtype, weak_type=weak)
        out.append(x)
    return out


def _promote_shapes(*args: Any) -> list[Any]:
    shapes = [np.shape(a) if not isinstance(a, (Tracer, Array)) else a.aval.shape for a in args]
    nonscalar_ranks = {len(s) for s in shapes if s}
    if len(nonscalar_ranks) < 2:
        return list(args)
    rank = max(nonscalar_ranks)
    return [a if len(s) == rank else _broadcast_to_rank(a, s, rank) for a, s in zip(args, shapes)]


def _broadcast_to_rank(x: Any, shape: tuple, rank: int) -> Any:
    pad = rank - len(shape)
    return lax.broadcast_in_dim(x, (1,) * pad + tuple(shape), tuple(range(pad, rank)))


def promote_args(*args: Any) -> list[Any]:
    for a in args:
        if not isinstance(a, (ArrayOps, np.ndarray, np.generic)) and not _is_python_scalar(a):
            raise TypeError(f"Value {a!r} with type {type(a).__name__} is not a valid JAX type")
    return _promote_shapes(*_promote_dtypes(*args))


def _elementwise_binary(lax_fn: Callable[[Any, Any], Any], name: str) -> Callable[[Any, Any], Any]:
    def f(x: Any, y: Any) -> Any:
        return lax_fn(*promote_args(x, y))
    f.__name__ = name
    return f


def _float_unary(lax_fn: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """Unary functions of floats promote integer and bool inputs to float first."""
    def f(x: Any) -> Any:
        aval = get_aval(x)
        if aval.dtype.kind in "biu":
            x = lax.convert_element_type(x, float32, weak_type=aval.weak_type)
        elif _is_python_scalar(x):
            x = float(x)
        return lax_fn(x)
    f.__name__ = name
    return f


sin = _float_unary(lax.sin, "sin")
cos = _float_unary(lax.cos, "cos")
tan = _float_unary(lax.tan, "tan")
exp = _float_unary(lax.exp, "exp")
log = _float_unary(lax.log, "log")
tanh = _float_unary(lax.tanh, "tanh")
sqrt = _float_unary(lax.sqrt, "sqrt")

add = _elementwise_binary(lax.add, "add")
subtract = _elementwise_binary(lax.sub, "subtract")
multiply = _elementwise_binary(lax.mul, "multiply")
true_divide = divide = _elementwise_binary(lax.div, "true_divide")
maximum = _elementwise_binary(lax.max, "maximum")
minimum = _elementwise_binary(lax.min, "minimum")
greater = _elementwise_binary(lax.gt, "greater")
less = _elementwise_binary(lax.lt, "less")
greater_equal = _elementwise_binary(lax.ge, "greater_equal")
less_equal = _elementwise_binary(lax.le, "less_equal")
equal = _elementwise_binary(lax.eq, "equal")
not_equal = _elementwise_binary(lax.ne, "not_equal")


def negative(x: Any) -> Any:
    return lax.neg(x)


def abs(x: Any) -> Any:  # noqa: A001 - JAX's name
    return lax.abs(x)


def power(x: Any, y: Any) -> Any:
    if type(y) is int:
        return lax.integer_pow(x, y)
    return lax.pow(*promote_args(x, y))


ArrayOps._jnp = __import__(__name__, fromlist=["_"])
