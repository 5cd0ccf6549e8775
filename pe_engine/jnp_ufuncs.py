"""More of `jax.numpy`'s elementwise functions, lowered as JAX 0.10.2 lowers them.

Those JAX wraps in a plain `jit` (floor_divide, remainder, clip, round) are wrapped in
this engine's `jit` too, so they print as a `jit` equation of the same name; JAX's
`jit(inline=True)` functions are traced straight into their caller.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import elementwise
from . import lax_base as lax
from .ad import zeros_like_aval
from .api import jit
from .core import get_aval
from .custom_derivatives import custom_jvp
from .jnp_base import (
    _check_arraylike,
    _full_like,
    _promote_args_inexact,
    _promote_dtypes,
    _to_numeric,
    _where_jit,
    array,
    asarray,
    maximum,
    minimum,
    promote_args,
)


def _promote_numeric(*args: Any) -> Sequence[Any]:
    _check_arraylike(*args)
    return promote_args(*_promote_dtypes(*args, to=_to_numeric))


def square(x: Any) -> Any:
    _check_arraylike(x)
    x, = _promote_dtypes(x, to=_to_numeric)
    return lax.square(x)


def log1p(x: Any) -> Any:
    return elementwise.log1p(*_promote_args_inexact(x))


def expm1(x: Any) -> Any:
    return elementwise.expm1(*_promote_args_inexact(x))


def arctan2(x1: Any, x2: Any) -> Any:
    return elementwise.atan2(*_promote_args_inexact(x1, x2))


@jit(inline=True)
def floor(x: Any) -> Any:
    _check_arraylike(x)
    if get_aval(x).dtype.kind in "biu":
        return x
    return elementwise.floor(*_promote_args_inexact(x))


@jit(inline=True)
def ceil(x: Any) -> Any:
    _check_arraylike(x)
    if get_aval(x).dtype.kind in "biu":
        return asarray(x)
    return elementwise.ceil(*_promote_args_inexact(x))


def isfinite(x: Any) -> Any:
    _check_arraylike(x)
    aval = get_aval(x)
    if aval.dtype.kind == "f":
        return elementwise.is_finite(x)
    return lax.full_like(x, True, dtype=np.bool_)


@jit(static_argnames=("decimals",))
def round(a: Any, decimals: int = 0) -> Any:  # noqa: A001 - JAX's name
    _check_arraylike(a)
    dtype = get_aval(a).dtype
    if dtype.kind in "iub":
        return a
    even = elementwise.RoundingMethod.TO_NEAREST_EVEN
    if decimals == 0:
        return elementwise.round(a, even)
    factor = lax._const(a, 10 ** decimals)
    return lax.div(elementwise.round(lax.mul(a, factor), even), factor)


@jit(static_argnames=("decimals",))  # a jit of its own in JAX, around round's
def around(a: Any, decimals: int = 0) -> Any:
    return round(a, decimals)


@jit
def clip(arr: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002 - JAX's names
    _check_arraylike(arr)
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


def _float_divmod(x1: Any, x2: Any) -> tuple[Any, Any]:
    mod = elementwise.rem(x1, x2)
    x1_corrected = _where_jit(x2 == 0, x1, lax.sub(x1, mod))
    div = lax.div(x1_corrected, x2)
    ind = lax.bitwise_and(mod != 0, lax.sign(x2) != lax.sign(mod))
    mod = elementwise.select(ind, mod + x2, mod)
    div = elementwise.select(ind, div - 1.0, div)
    return elementwise.round(div), mod


@jit
def floor_divide(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_numeric(x1, x2)
    kind = get_aval(x1).dtype.kind
    if kind == "u":
        return lax.div(x1, x2)
    if kind in "ib":
        quotient = lax.div(x1, x2)
        select = logical_and(lax.sign(x1) != lax.sign(x2), elementwise.rem(x1, x2) != 0)
        return _where_jit(select, quotient - 1, quotient)
    return _float_divmod(x1, x2)[0]


@jit
def remainder(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_numeric(x1, x2)
    # JAX's constants, made as it makes them: jnp.array and full_like are operations, so
    # under eager constant folding they run now and the jaxpr holds them as constvars.
    zero = array(0, get_aval(x1).dtype)
    if get_aval(x2).dtype.kind in "iu":
        x2 = _where_jit(x2 == 0, _full_like(x2, 1, None), x2)
    trunc_mod = elementwise.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return elementwise.select(do_plus, lax.add(trunc_mod, x2), trunc_mod)


mod = remainder


def _to_bool(x: Any) -> Any:
    return x if get_aval(x).dtype == np.bool_ else lax.ne(x, lax._const(x, 0))


def logical_and(x: Any, y: Any) -> Any:
    return lax.bitwise_and(*map(_to_bool, promote_args(x, y)))


def logical_or(x: Any, y: Any) -> Any:
    return lax.bitwise_or(*map(_to_bool, promote_args(x, y)))


def logical_xor(x: Any, y: Any) -> Any:
    return elementwise.bitwise_xor(*map(_to_bool, promote_args(x, y)))


def logical_not(x: Any) -> Any:
    return elementwise.bitwise_not(*map(_to_bool, promote_args(x)))


def bitwise_and(x: Any, y: Any) -> Any:
    return lax.bitwise_and(*promote_args(x, y))


def bitwise_or(x: Any, y: Any) -> Any:
    return lax.bitwise_or(*promote_args(x, y))


def bitwise_xor(x: Any, y: Any) -> Any:
    return elementwise.bitwise_xor(*promote_args(x, y))


def bitwise_not(x: Any) -> Any:
    return elementwise.bitwise_not(*promote_args(x))


invert = bitwise_not


# --------------------------------------------------------------------------- logaddexp


def _replace_inf(x: Any) -> Any:
    aval = get_aval(x)
    is_posinf = lax.eq(x, np.array(np.inf, aval.dtype))
    return elementwise.select(is_posinf, zeros_like_aval(aval), x)


def log_add_exp(name: str, exp: Callable[[Any], Any], scale: float | None = None) -> custom_jvp:
    """logaddexp (`exp`) or logaddexp2 (`exp2`, its log1p scaled by 1/ln 2): a custom_jvp each,
    as JAX defines them; the primal and the JVP print under `name` in custom_jvp_call."""
    def primal(x1: Any, x2: Any) -> Any:
        amax = lax.max(x1, x2)
        delta = lax.sub(x1, x2)

        def scaled(v: Any) -> Any:
            return v if scale is None else lax.mul(lax._const(amax, scale), v)
        return elementwise.select(lax.ne(delta, delta), lax.add(x1, x2),
                                  lax.add(amax, scaled(elementwise.log1p(
                                      exp(lax.neg(lax.abs(delta)))))))

    def jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
        x1, x2 = primals
        t1, t2 = tangents
        out = fn(x1, x2)
        tangent = lax.add(lax.mul(t1, exp(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                          lax.mul(t2, exp(lax.sub(_replace_inf(x2), _replace_inf(out)))))
        return out, tangent

    primal.__name__ = primal.__qualname__ = name
    jvp.__name__ = jvp.__qualname__ = f"_{name}_jvp"
    fn = custom_jvp(primal)
    fn.defjvp(jvp)
    return fn


_logaddexp = log_add_exp("logaddexp", lax.exp)


def logaddexp(x1: Any, x2: Any) -> Any:
    return _logaddexp(*_promote_args_inexact(x1, x2))


__all__ = ["arctan2", "around", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
           "ceil", "clip", "expm1", "floor", "floor_divide", "invert", "isfinite", "log1p",
           "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "mod",
           "remainder", "round", "square"]
