"""`jax.numpy`'s elementwise math: inverse and hyperbolic trigonometry, logs and
exponentials of other bases, angles, signs and the float-inspecting functions, lowered
as JAX 0.10.2 lowers them. JAX's plain-`jit` functions (arccosh, rint, copysign,
signbit, isinf, heaviside, hypot, trunc, fmin, fmax...) are this engine's `jit` too,
so they print as a `jit` equation of the same name.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import elementwise, lax_math
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .elementwise import RoundingMethod
from .jnp_base import (
    _check_arraylike,
    _promote_args_inexact,
    _promote_dtypes,
    _to_inexact,
    _to_numeric,
    array,
    asarray,
    greater,
    less,
    maximum,
    minimum,
    promote_args,
    weak_result_type,
    where,
)
from .jnp_bits import right_shift
from .jnp_ufuncs import arctan2, ceil, floor


def _inexact_unary(lax_fn: Any, name: str) -> Any:
    def f(x: Any) -> Any:
        return lax_fn(*_promote_args_inexact(x))
    f.__name__ = f.__qualname__ = name
    return f


arcsin = _inexact_unary(lax_math.asin, "arcsin")
arccos = _inexact_unary(lax_math.acos, "arccos")
arctan = _inexact_unary(lax_math.atan, "arctan")
sinh = _inexact_unary(lax_math.sinh, "sinh")
cosh = _inexact_unary(lax_math.cosh, "cosh")
arcsinh = _inexact_unary(lax_math.asinh, "arcsinh")
arctanh = _inexact_unary(lax_math.atanh, "arctanh")
cbrt = _inexact_unary(lax_math.cbrt, "cbrt")
exp2 = _inexact_unary(lax_math.exp2, "exp2")


@jit
def arccosh(x: Any) -> Any:
    _check_complex("arccosh", x)
    return lax_math.acosh(*_promote_args_inexact(x))


def _check_complex(name: str, *xs: Any) -> None:
    if any(get_aval(x).dtype.kind == "c" for x in xs):
        raise NotImplementedError(f"jnp.{name} of complex values (the engine has no complex "
                                  "primitives)")


def _alias(target: Any, name: str) -> Any:
    """JAX's Array API names: the target applied to the promoted arguments."""
    def f(*xs: Any) -> Any:
        return target(*promote_args(*xs))
    f.__name__ = f.__qualname__ = name
    return f


acos = _alias(arccos, "acos")
acosh = _alias(arccosh, "acosh")
asin = _alias(arcsin, "asin")
asinh = _alias(arcsinh, "asinh")
atan = _alias(arctan, "atan")
atanh = _alias(arctanh, "atanh")


def atan2(x1: Any, x2: Any) -> Any:
    return arctan2(*promote_args(x1, x2))


def fabs(x: Any) -> Any:
    _check_arraylike(x)
    _check_complex("fabs", x)
    return lax.abs(*_promote_args_inexact(x))


def positive(x: Any) -> Any:
    return asarray(*promote_args(x))


def reciprocal(x: Any) -> Any:
    _check_arraylike(x)
    x, = _promote_dtypes(x, to=_to_inexact)
    return lax.integer_pow(x, -1)


def float_power(x: Any, y: Any) -> Any:
    return lax.pow(*_promote_args_inexact(x, y))


def nextafter(x: Any, y: Any) -> Any:
    return lax_math.nextafter(*_promote_args_inexact(x, y))


def deg2rad(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return lax.mul(x, lax._const(x, np.pi / 180))


def rad2deg(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return lax.mul(x, lax._const(x, 180 / np.pi))


def degrees(x: Any) -> Any:
    return rad2deg(x)


def radians(x: Any) -> Any:
    return deg2rad(x)


def log2(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    _check_complex("log2", x)
    return lax.div(lax.log(x), lax.log(array(2, get_aval(x).dtype)))


def log10(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    _check_complex("log10", x)
    # 1 / log(10) in the operand's precision, a constant JAX writes out exactly.
    return lax.mul(lax.log(x), np.array(0.4342944819032518, get_aval(x).dtype))


# --------------------------------------------------------------------------- real parts


def _check_real(name: str, x: Any) -> Any:
    _check_arraylike(x)
    _check_complex(name, x)
    return x


def conjugate(x: Any) -> Any:
    return asarray(_check_real("conjugate", x))


def conj(x: Any) -> Any:
    return conjugate(x)


def real(val: Any) -> Any:
    return asarray(_check_real("real", val))


@jit(inline=True)
def imag(val: Any) -> Any:
    # A jit of its own in JAX: under eager constant folding its zeros come out of it staged.
    return lax.full_like(_check_real("imag", val), 0)


@jit
def iscomplex(x: Any) -> Any:
    i = imag(x)
    return lax.ne(i, lax._const(i, 0))


@jit
def isreal(x: Any) -> Any:
    i = imag(x)
    return lax.eq(i, lax._const(i, 0))


@jit(static_argnames=("deg",))
def angle(z: Any, deg: bool = False) -> Any:
    _check_arraylike(z)
    re, im = real(z), imag(z)
    dtype = get_aval(re).dtype
    if dtype.kind not in "fc" or (get_aval(z).dtype.kind == "f" and not get_aval(z).ndim):
        re = lax.convert_element_type(re, np.float32)
        im = lax.convert_element_type(im, np.float32)
    result = elementwise.atan2(im, re)
    return degrees(result) if deg else result


# --------------------------------------------------------------------------- float tests


def isnan(x: Any) -> Any:
    _check_arraylike(x)
    return lax.ne(x, x)


@jit
def isinf(x: Any) -> Any:
    _check_real("isinf", x)
    if get_aval(x).dtype.kind == "f":
        return lax.eq(lax.abs(x), array(np.inf, get_aval(x).dtype))
    return lax.full_like(x, False, dtype=np.bool_)


def _isposneginf(infinity: float, x: Any) -> Any:
    _check_real("isposinf/isneginf", x)
    if get_aval(x).dtype.kind == "f":
        return lax.eq(x, array(infinity, get_aval(x).dtype))
    return lax.full_like(x, False, dtype=np.bool_)


def isposinf(x: Any) -> Any:
    return _isposneginf(np.inf, x)


def isneginf(x: Any) -> Any:
    return _isposneginf(-np.inf, x)


@jit
def signbit(x: Any) -> Any:
    x, = promote_args(x)
    dtype = get_aval(x).dtype
    if dtype.kind in "iu":
        return lax.lt(x, array(0, dtype))
    if dtype.kind == "b":
        return lax.full_like(x, False, dtype=np.bool_)
    if dtype.kind != "f":
        raise ValueError(f"jax.numpy.signbit is not well defined for {dtype}")
    info = np.finfo(dtype)
    # The sign bit, shifted down arithmetically: all ones (true) or all zeros.
    bits = lax_math.bitcast_convert_type(x, np.dtype(f"int{info.bits}"))
    return lax.convert_element_type(right_shift(bits, info.nexp + info.nmant), np.bool_)


@jit
def copysign(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_args_inexact(x1, x2)
    _check_complex("copysign", x1)
    return where(signbit(x2).astype(np.bool_), lax.neg(lax.abs(x1)), lax.abs(x1))


@jit
def rint(x: Any) -> Any:
    _check_real("rint", x)
    if get_aval(x).dtype.kind in "biu":
        return lax.convert_element_type(x, np.float32)
    return elementwise.round(x, RoundingMethod.TO_NEAREST_EVEN)


@jit
def trunc(x: Any) -> Any:
    _check_arraylike(x)
    if get_aval(x).dtype.kind in "biu":
        return x
    return where(lax.lt(x, lax._const(x, 0)), ceil(x), floor(x))


@jit
def fmin(x1: Any, x2: Any) -> Any:
    return where(less(x1, x2) | isnan(x2), x1, x2)


@jit
def fmax(x1: Any, x2: Any) -> Any:
    return where(greater(x1, x2) | isnan(x2), x1, x2)


@jit
def heaviside(x1: Any, x2: Any) -> Any:
    _check_arraylike(x1, x2)
    x1, x2 = _promote_dtypes(x1, x2, to=_to_inexact)
    zero = lax._const(x1, 0)
    return where(lax.lt(x1, zero), zero,
                 where(lax.gt(x1, zero), lax._const(x1, 1), where(lax.ne(x1, x1), x1, x2)))


@jit
def hypot(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_args_inexact(x1, x2)
    _check_complex("hypot", x1)
    x1, x2 = lax.abs(x1), lax.abs(x2)
    idx_inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    is_zero = x1 == 0
    safe = where(x1 == 0, lax.full_like(x1, 1), x1)
    x = where(is_zero, x1, x1 * lax.sqrt(1 + lax.square(lax.div(x2, safe))))
    return where(idx_inf, lax._const(x, np.inf), x)


@jit
def fmod(x1: Any, x2: Any) -> Any:
    _check_arraylike(x1, x2)
    if weak_result_type(x1, x2)[0].kind in "iu":
        x2 = where(x2 == 0, lax.full_like(x2, 1), x2)
    x1, x2 = promote_args(*_promote_dtypes(x1, x2, to=_to_numeric))
    return elementwise.rem(x1, x2)


@jit
def modf(x: Any) -> tuple[Any, Any]:
    _check_arraylike(x)
    x, = _promote_dtypes(x, to=_to_inexact)
    whole = where(lax.ge(x, lax.full_like(x, 0, shape=())), floor(x), ceil(x))
    return x - whole, whole


__all__ = ["acos", "acosh", "angle", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
           "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "conj", "conjugate",
           "copysign", "cosh", "deg2rad", "degrees", "exp2", "fabs", "float_power", "fmax",
           "fmin", "fmod", "heaviside", "hypot", "imag", "iscomplex", "isinf", "isnan",
           "isneginf", "isposinf", "isreal", "log10", "log2", "modf", "nextafter", "positive",
           "rad2deg", "radians", "real", "reciprocal", "rint", "signbit", "sinh", "trunc"]
