"""`jax.numpy`'s functions on a float's parts and on closeness: frexp, ldexp, spacing,
divmod, logaddexp2, sinc, nan_to_num, isclose, allclose, array_equal and array_equiv;
lowered as JAX 0.10.2 lowers them (frexp takes the IEEE fields apart with bit shifts
of the float's integer view; sinc's value at 0 is a custom_jvp of its Maclaurin series).
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import jnp_base as jnp
from . import lax_base as lax
from . import lax_math
from .ad import jvp
from .api import jit
from .core import get_aval
from .custom_derivatives import custom_jvp
from .jnp_base import (
    _check_arraylike,
    _promote_args_inexact,
    _promote_dtypes,
    _to_inexact,
    _to_numeric,
)
from .jnp_bits import right_shift
from .jnp_math import copysign, exp2, isinf, isnan, isneginf, isposinf
from .jnp_reductions import all
from .jnp_ufuncs import (
    _float_divmod,
    floor_divide,
    isfinite,
    log_add_exp,
    logical_and,
    logical_or,
    remainder,
)

_INT_OF_WIDTH = {16: np.int16, 32: np.int32, 64: np.int64}


@jit
def divmod(x1: Any, x2: Any) -> tuple[Any, Any]:  # noqa: A001 - JAX's name
    _check_arraylike(x1, x2)
    x1, x2 = jnp.promote_args(*_promote_dtypes(x1, x2, to=_to_numeric))
    if get_aval(x1).dtype.kind in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


# --------------------------------------------------------------------------- logaddexp2


_logaddexp2 = log_add_exp("logaddexp2", lax_math.exp2, scale=1 / np.log(2))


def logaddexp2(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_args_inexact(x1, x2)
    if get_aval(x1).dtype.kind != "f":
        raise NotImplementedError("jnp.logaddexp2 of complex values")
    return _logaddexp2(x1, x2)


# --------------------------------------------------------------------------- frexp, ldexp


def _normalize_float(x: Any) -> tuple[Any, Any]:
    """Subnormals scaled up into the normal range; the exponent they were scaled by."""
    info = np.finfo(get_aval(x).dtype)
    int_type = _INT_OF_WIDTH[info.bits]
    cond = lax.abs(x) < info.tiny
    x1 = jnp.where(cond, x * lax._const(x, 1 << info.nmant), x)
    x2 = jnp.where(cond, int_type(-info.nmant), int_type(0))
    return lax_math.bitcast_convert_type(x1, int_type), x2


def _frexp_primal(x: Any) -> tuple[Any, Any]:
    dtype = get_aval(x).dtype
    info = np.finfo(dtype)
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 = x2 + ((right_shift(x1, info.nmant) & mask) - bias + 1)
    x1 = x1 & ~(mask << info.nmant)
    x1 = x1 | ((bias - 1) << info.nmant)
    x1 = lax_math.bitcast_convert_type(x1, dtype)
    cond = isinf(x) | isnan(x) | (x == 0)
    x2 = jnp.where(cond, lax.full_like(x2, 0), x2)
    return jnp.where(cond, x, x1), lax.convert_element_type(x2, np.int32)


_frexp_primal.__name__ = "_frexp"
_frexp = custom_jvp(_frexp_primal)


@_frexp.defjvp
def _frexp_jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    x, = primals
    t, = tangents
    m, e = frexp(x)
    mdot = t * exp2(-e.astype(get_aval(t).dtype))
    # JAX's exponent tangent is float0; the engine has none, and gives integer zeros.
    return (m, e), (mdot, lax.full_like(e, 0))


@jit
def frexp(x: Any) -> tuple[Any, Any]:
    _check_arraylike(x)
    x, = _promote_dtypes(x, to=_to_inexact)
    if get_aval(x).dtype.kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit
def ldexp(x1: Any, x2: Any) -> Any:
    _check_arraylike(x1, x2)
    d1, d2 = get_aval(x1).dtype, get_aval(x2).dtype
    if d1.kind == "c" or d2.kind in "fc":
        raise ValueError(f"ldexp not supported for input types {(d1, d2)}")
    x1, = _promote_args_inexact(x1)
    x2 = lax.convert_element_type(x2, get_aval(x1).dtype)
    # The exponent split off first, so that a small x1 and a large x2 do not overflow.
    m, e = frexp(x1)
    e = (e.astype(get_aval(x2).dtype) + x2).astype(get_aval(x1).dtype)
    m = jnp.where(e > 0, m * 2, m)
    e = jnp.where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(get_aval(m).dtype))
    return jnp.where(isinf(x1) | (x1 == 0), x1, x)


def spacing(x: Any) -> Any:
    arr, = _promote_args_inexact(x)
    dtype = get_aval(arr).dtype
    if dtype.kind == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = lax._const(arr, np.inf)
    if dtype == np.float16:  # NumPy's rule for half precision
        return lax_math.nextafter(arr, inf) - arr
    result = lax_math.nextafter(arr, copysign(inf, arr)) - arr
    return jnp.where(result == 0, copysign(np.finfo(dtype).smallest_subnormal, arr), result)


# --------------------------------------------------------------------------- sinc


def _sinc_maclaurin_primal(k: int, x: Any) -> Any:
    # The k-th derivative of sin(x)/x at 0, shaped like x (its monomial term is the JVP's).
    if k % 2:
        return x * 0
    return x * 0 + lax._const(x, (-1) ** (k // 2) / (k + 1))


_sinc_maclaurin_primal.__name__ = "_sinc_maclaurin"
_sinc_maclaurin = custom_jvp(_sinc_maclaurin_primal, nondiff_argnums=(0,))


@_sinc_maclaurin.defjvp
def _sinc_maclaurin_jvp(k: int, primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), _sinc_maclaurin(k + 1, x) * t


@jit
def sinc(x: Any) -> Any:
    _check_arraylike(x)
    x, = _promote_dtypes(x, to=_to_inexact)
    eq_zero = lax.eq(x, lax._const(x, 0))
    pi_x = lax.mul(lax._const(x, np.pi), x)
    safe_pi_x = jnp.where(eq_zero, lax._const(x, 1), pi_x)
    return jnp.where(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


# --------------------------------------------------------------------------- i0


def _i0_primal(x: Any) -> Any:
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax_math.bessel_i0e(abs_x))


_i0_primal.__name__ = "_i0"
_i0 = custom_jvp(_i0_primal)


@_i0.defjvp
def _i0_jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
    # |x|'s derivative at 0 is a choice; i0's is 0 there.
    out, tangent = jvp(_i0_primal, primals, tangents)
    return out, jnp.where(primals[0] == 0, 0.0, tangent)


@jit
def i0(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    if get_aval(x).dtype.kind != "f":
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {get_aval(x).dtype}")
    return _i0(x)


# --------------------------------------------------------------------------- closeness


@jit
def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    _check_arraylike(x)
    dtype = get_aval(x).dtype
    if dtype.kind not in "fc":
        return x
    if dtype.kind == "c":
        raise NotImplementedError("jnp.nan_to_num of complex values")
    info = np.finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = jnp.where(isnan(x), jnp.asarray(nan, dtype=dtype), x)
    out = jnp.where(isposinf(out), jnp.asarray(posinf, dtype=dtype), out)
    return jnp.where(isneginf(out), jnp.asarray(neginf, dtype=dtype), out)


@functools.partial(jit, static_argnames=("equal_nan",))
def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
            equal_nan: bool = False) -> Any:
    a, b = jnp.promote_args(a, b)
    a, b = _promote_args_inexact(a, b)
    dtype = get_aval(a).dtype
    if dtype.kind == "c":
        raise NotImplementedError("jnp.isclose of complex values")
    rtol = lax.convert_element_type(rtol, dtype)
    atol = lax.convert_element_type(atol, dtype)
    both_nan = logical_and(isnan(a), isnan(b))
    check_fin = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_fin, in_range))
    return logical_or(out, both_nan) if equal_nan else out


@functools.partial(jit, static_argnames=("equal_nan",))
def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08,
             equal_nan: bool = False) -> Any:
    _check_arraylike(a, b)
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    if get_aval(a1).shape != get_aval(a2).shape:
        return jnp.array(False, dtype=np.bool_)
    eq = jnp.asarray(a1 == a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)


def array_equiv(a1: Any, a2: Any) -> Any:
    a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    try:
        eq = jnp.equal(a1, a2)
    except ValueError:  # shapes that do not broadcast
        return jnp.array(False)
    return all(eq)


__all__ = ["allclose", "array_equal", "array_equiv", "divmod", "frexp", "i0", "isclose", "ldexp",
           "logaddexp2", "nan_to_num", "sinc", "spacing"]
