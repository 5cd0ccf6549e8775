"""More `lax` primitives, those jnp's math functions bind: the inverse and hyperbolic
trigonometric functions, cbrt, exp2, nextafter, the shifts, population_count,
bitcast_convert_type, the logical reductions reduce_and/reduce_or, and the scaled
Bessel functions bessel_i0e/bessel_i1e; each with its JVP and batching rule written as
JAX's.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import batching
from . import lax_base as lax
from .ad import defjvp, defjvp_zero
from .core import ShapedArray, bind, get_aval
from .elementwise import rsqrt
from .lax_base import _FLOAT, _binop, _def, _unop

_INT = ("integer",)


def _shift_right_logical(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # numpy shifts signed integers arithmetically: shift their unsigned view instead.
    bits = x.dtype.itemsize * 8
    ux = x.astype(np.dtype(f"u{x.dtype.itemsize}"))
    uy = y.astype(ux.dtype)
    out = np.where(uy < bits, ux >> np.minimum(uy, bits - 1), 0)
    return out.astype(x.dtype)


def _shift_right_arithmetic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    return np.right_shift(x, np.clip(y, 0, bits - 1).astype(x.dtype))


def _shift_left(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    # XLA's rule: a shift by the width or more gives 0.
    return np.where((y >= 0) & (y < bits), np.left_shift(x, np.clip(y, 0, bits - 1)), 0)


def _population_count(x: np.ndarray) -> np.ndarray:
    u = x.astype(np.dtype(f"u{x.dtype.itemsize}"))
    return np.bitwise_count(u).astype(x.dtype)


asin_p = _unop("asin", np.arcsin, _FLOAT)
acos_p = _unop("acos", np.arccos, _FLOAT)
atan_p = _unop("atan", np.arctan, _FLOAT)
sinh_p = _unop("sinh", np.sinh, _FLOAT)
cosh_p = _unop("cosh", np.cosh, _FLOAT)
asinh_p = _unop("asinh", np.arcsinh, _FLOAT)
acosh_p = _unop("acosh", np.arccosh, _FLOAT)
atanh_p = _unop("atanh", np.arctanh, _FLOAT)
cbrt_p = _unop("cbrt", np.cbrt, ("floating",), accuracy=True)
exp2_p = _unop("exp2", np.exp2, _FLOAT, accuracy=True)
population_count_p = _unop("population_count", _population_count, _INT)
nextafter_p = _binop("nextafter", np.nextafter, ("floating",))
shift_left_p = _binop("shift_left", _shift_left, _INT)
shift_right_arithmetic_p = _binop("shift_right_arithmetic", _shift_right_arithmetic, _INT)
shift_right_logical_p = _binop("shift_right_logical", _shift_right_logical, _INT)


def _bitcast_abstract(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
    if x.dtype.itemsize != new_dtype.itemsize:
        raise NotImplementedError("bitcast_convert_type between dtypes of different widths")
    if (x.dtype.kind in "bc" or new_dtype.kind in "bc") and x.dtype != new_dtype:
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. "
                        f"Got operand dtype={x.dtype}, new_dtype={new_dtype}.")
    return ShapedArray(x.shape, new_dtype, False)  # JAX strips the weak type


bitcast_convert_type_p = _def("bitcast_convert_type", _bitcast_abstract,
                              lambda x, *, new_dtype: x.view(new_dtype))

_UNARY = {"asin": asin_p, "acos": acos_p, "atan": atan_p, "sinh": sinh_p, "cosh": cosh_p,
          "asinh": asinh_p, "acosh": acosh_p, "atanh": atanh_p,
          "population_count": population_count_p}
_BINARY = {"nextafter": nextafter_p, "shift_left": shift_left_p,
           "shift_right_arithmetic": shift_right_arithmetic_p,
           "shift_right_logical": shift_right_logical_p}


def _unary(prim: Any) -> Any:
    def f(x: Any) -> Any:
        return bind(prim, x)
    f.__name__ = prim.name
    return f


def _binary(prim: Any) -> Any:
    def f(x: Any, y: Any) -> Any:
        return bind(prim, x, y)
    f.__name__ = prim.name
    return f


asin, acos, atan, sinh, cosh, asinh, acosh, atanh, population_count = (
    _unary(p) for p in _UNARY.values())
nextafter, shift_left, shift_right_arithmetic, shift_right_logical = (
    _binary(p) for p in _BINARY.values())


def cbrt(x: Any, accuracy: Any = None) -> Any:
    return bind(cbrt_p, x, accuracy=accuracy)


def exp2(x: Any, accuracy: Any = None) -> Any:
    return bind(exp2_p, x, accuracy=accuracy)


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    return bind(bitcast_convert_type_p, x, new_dtype=np.dtype(new_dtype))


# --------------------------------------------------------------------------- JVP rules

def _one(x: Any) -> Any:
    return lax.full_like(x, 1, shape=())


defjvp(asin_p, lambda g, ans, x: lax.mul(g, rsqrt(lax.sub(lax._const(x, 1), lax.square(x)))))
defjvp(acos_p, lambda g, ans, x:
       lax.mul(g, lax.neg(rsqrt(lax.sub(lax._const(x, 1), lax.square(x))))))
defjvp(atan_p, lambda g, ans, x: lax.div(g, lax.add(lax._const(x, 1), lax.square(x))))
defjvp(sinh_p, lambda g, ans, x: lax.mul(g, cosh(x)))
defjvp(cosh_p, lambda g, ans, x: lax.mul(g, sinh(x)))
defjvp(asinh_p, lambda g, ans, x: lax.mul(g, rsqrt(lax.add(lax.square(x), _one(x)))))
defjvp(acosh_p, lambda g, ans, x: lax.mul(g, rsqrt(lax.sub(lax.square(x), _one(x)))))
defjvp(atanh_p, lambda g, ans, x: lax.mul(lax.integer_pow(lax.add(_one(x), x), -1),
                                          lax.div(g, lax.sub(_one(x), x))))
defjvp(cbrt_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.mul(lax._const(x, 1 / 3), lax.integer_pow(ans, -2))))
defjvp(exp2_p, lambda g, ans, x, accuracy=None:
       lax.mul(lax.log(lax._const(x, 2)), lax.mul(g, ans)))
for _p in (shift_left_p, shift_right_arithmetic_p, shift_right_logical_p,
           bitcast_convert_type_p):
    defjvp_zero(_p)

# --------------------------------------------------------------------------- batching

for _p in (*_UNARY.values(), cbrt_p, exp2_p, bitcast_convert_type_p):
    batching.defvectorized(_p)
for _p in _BINARY.values():
    batching.defbroadcasting(_p)


# --------------------------------------------------------------------------- reductions

def _reduce_logical_abstract(x: ShapedArray, *, axes: tuple) -> ShapedArray:
    lax._check_unop_dtype("reduce_and/reduce_or", x, ("bool", "integer"))
    return lax._reduce_abstract(x, axes=axes)


reduce_and_p = _def("reduce_and", _reduce_logical_abstract,
                    lambda x, *, axes: np.bitwise_and.reduce(x, axis=axes))
reduce_or_p = _def("reduce_or", _reduce_logical_abstract,
                   lambda x, *, axes: np.bitwise_or.reduce(x, axis=axes))


def reduce_and(x: Any, axes: Any) -> Any:
    return bind(reduce_and_p, x, axes=tuple(axes))


def reduce_or(x: Any, axes: Any) -> Any:
    return bind(reduce_or_p, x, axes=tuple(axes))


for _p in (reduce_and_p, reduce_or_p):
    defjvp_zero(_p)
    batching.defreducer(_p)





# --------------------------------------------------------------------------- Bessel


def _bessel_series_e(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(|x|) for order 0 or 1, by the power series summed in log space in
    float64 (every term positive, so no cancellation; no overflow for large |x|)."""
    a = np.abs(x.astype(np.float64))
    terms = int(a.max(initial=0.0)) + 40
    k = np.arange(terms, dtype=np.float64)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, terms + order + 1)))])
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0), and 0 * log(0) at x = 0
        log_half = np.log(a / 2)[..., None]
        log_terms = (2 * k + order) * log_half - log_fact[:terms] - log_fact[order:terms + order]
    # At x = 0 only the constant term (order 0) is left.
    log_terms = np.where(a[..., None] > 0, log_terms, np.where(k + order == 0, 0.0, -np.inf))
    out = np.exp(log_terms - a[..., None]).sum(-1)
    return (np.sign(x) * out if order else out).astype(x.dtype)


bessel_i0e_p = _unop("bessel_i0e", lambda x: _bessel_series_e(x, 0), ("floating",))
bessel_i1e_p = _unop("bessel_i1e", lambda x: _bessel_series_e(x, 1), ("floating",))


def bessel_i0e(x: Any) -> Any:
    return bind(bessel_i0e_p, x)


def bessel_i1e(x: Any) -> Any:
    return bind(bessel_i1e_p, x)


def _bessel_i1e_jvp(g: Any, y: Any, x: Any) -> Any:
    # Near 0 the quotient below is 0/0: the derivative's limit, 1/2, instead.
    eps = np.finfo(get_aval(x).dtype).eps
    x_is_not_tiny = lax.gt(lax.abs(x), lax._const(x, eps))
    safe_x = lax.select_n(x_is_not_tiny, lax.full_like(x, eps), x)
    dy_dx = lax.sub(bessel_i0e(safe_x),
                    lax.mul(y, lax.add(lax.sign(safe_x), lax.integer_pow(safe_x, -1))))
    dy_dx = lax.select_n(x_is_not_tiny, lax.full_like(x, 0.5), dy_dx)
    return lax.mul(g, dy_dx)


defjvp(bessel_i0e_p, lambda g, y, x: lax.mul(g, lax.sub(bessel_i1e(x), lax.mul(lax.sign(x), y))))
defjvp(bessel_i1e_p, _bessel_i1e_jvp)
batching.defvectorized(bessel_i0e_p)
batching.defvectorized(bessel_i1e_p)

__all__ = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "bessel_i0e", "bessel_i1e",
           "bitcast_convert_type", "cbrt",
           "cosh", "exp2", "nextafter", "population_count", "reduce_and",
           "reduce_or", "shift_left", "shift_right_arithmetic", "shift_right_logical", "sinh"]
