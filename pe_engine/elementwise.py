"""More elementwise `lax` primitives: rounding, log1p/expm1, atan2, rem, clamp, logic,
erf, and `stop_gradient`; each with its JVP and batching rule written as JAX's.

Constants inside JVP rules are 0-d numpy values (JAX's `_const`), so they print as
literals (`mul 2.0:f32[] a`), never as a broadcast array.
"""
from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from . import batching, core, pretty
from . import lax_base as lax
from .ad import Zero, defjvp, defjvp_zero, primitive_jvps
from .core import ShapedArray, bind, get_aval
from .lax_base import _ANY, _BOOL_OR_INT, _FLOAT, _binop, _def, _hide, _unop
from .lax_base_rules import _zeros
from .pytree import tree_map


class RoundingMethod(enum.IntEnum):
    """lax.round's halfway rule, printed as JAX prints its IntEnum (by value)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1

    def __repr__(self) -> str:
        return str(int(self))

    __str__ = __repr__


def _round_impl(x: np.ndarray, *, rounding_method: RoundingMethod) -> np.ndarray:
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.round(x)
    return np.trunc(x + np.copysign(np.asarray(0.5, x.dtype), x))


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


def _erfc(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erfc, otypes=[x.dtype])(x) if x.size else x


log1p_p = _unop("log1p", np.log1p, _FLOAT, accuracy=True)
expm1_p = _unop("expm1", np.expm1, _FLOAT, accuracy=True)
rsqrt_p = _unop("rsqrt", lambda x: 1 / np.sqrt(x), _FLOAT, accuracy=True)
floor_p = _unop("floor", np.floor, _FLOAT)
ceil_p = _unop("ceil", np.ceil, _FLOAT)
erf_p = _unop("erf", _erf, _FLOAT)
erfc_p = _unop("erfc", _erfc, _FLOAT)
not_p = _unop("not", np.invert, _BOOL_OR_INT)
stop_gradient_p = _unop("stop_gradient", lambda x: x, _ANY)
core.impl_rules[stop_gradient_p] = lambda x: x  # run now, the value itself, as JAX's is


def _round_abstract(x: ShapedArray, *, rounding_method: RoundingMethod) -> ShapedArray:
    lax._check_unop_dtype("round", x, _FLOAT)
    return x


round_p = _def("round", _round_abstract, _round_impl)
atan2_p = _binop("atan2", np.arctan2, _FLOAT)
rem_p = _binop("rem", np.fmod, ("integer", "floating"))
xor_p = _binop("xor", np.bitwise_xor, _BOOL_OR_INT)


def _is_finite_abstract(x: ShapedArray) -> ShapedArray:
    lax._check_unop_dtype("is_finite", x, _FLOAT)
    return ShapedArray(x.shape, np.bool_, x.weak_type)  # JAX's unop keeps the weak type


is_finite_p = _def("is_finite", _is_finite_abstract, np.isfinite)


def _clamp_abstract(lo: ShapedArray, x: ShapedArray, hi: ShapedArray) -> ShapedArray:
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape "
                            f"== (), got {name}.shape={b.shape}, operand.shape={x.shape}.")
    lax._check_same_dtypes("clamp", (lo, x, hi))
    return ShapedArray(x.shape, x.dtype, lo.weak_type and x.weak_type and hi.weak_type)


clamp_p = _def("clamp", _clamp_abstract, lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi))


# --------------------------------------------------------------------------- wrappers


def log1p(x: Any, accuracy: Any = None) -> Any:
    return bind(log1p_p, x, accuracy=accuracy)


def expm1(x: Any, accuracy: Any = None) -> Any:
    return bind(expm1_p, x, accuracy=accuracy)


def rsqrt(x: Any, accuracy: Any = None) -> Any:
    return bind(rsqrt_p, x, accuracy=accuracy)


def floor(x: Any) -> Any:
    return bind(floor_p, x)


def ceil(x: Any) -> Any:
    return bind(ceil_p, x)


def round(x: Any, rounding_method: Any = RoundingMethod.AWAY_FROM_ZERO) -> Any:  # noqa: A001
    return bind(round_p, x, rounding_method=RoundingMethod(rounding_method))


def is_finite(x: Any) -> Any:
    return bind(is_finite_p, x)


def erf(x: Any) -> Any:
    return bind(erf_p, x)


def erfc(x: Any) -> Any:
    return bind(erfc_p, x)


def bitwise_not(x: Any) -> Any:
    return bind(not_p, x)


def bitwise_xor(x: Any, y: Any) -> Any:
    return bind(xor_p, x, y)


def atan2(x: Any, y: Any) -> Any:
    return bind(atan2_p, x, y)


def rem(x: Any, y: Any) -> Any:
    return bind(rem_p, x, y)


def clamp(lo: Any, x: Any, hi: Any) -> Any:
    return bind(clamp_p, lo, x, hi)


def stop_gradient(x: Any) -> Any:
    """The identity whose derivative is zero; maps over a pytree, as JAX's does."""
    return tree_map(lambda v: bind(stop_gradient_p, v), x)


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    return lax.select_n(pred, on_false, on_true)


# --------------------------------------------------------------------------- JVP rules

defjvp(log1p_p, lambda g, ans, x, accuracy=None: lax.div(g, lax.add(x, lax._const(x, 1))))
defjvp(expm1_p, lambda g, ans, x, accuracy=None: lax.mul(g, lax.add(ans, lax._const(ans, 1))))
defjvp(rsqrt_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.mul(lax._const(x, -0.5), lax.div(ans, x))))
defjvp(erf_p, lambda g, ans, x: lax.mul(lax._const(x, 2. / np.sqrt(np.pi)),
                                        lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp(erfc_p, lambda g, ans, x: lax.mul(lax._const(x, -2. / np.sqrt(np.pi)),
                                         lax.mul(g, lax.exp(lax.neg(lax.square(x))))))
defjvp(atan2_p,
       lambda g, ans, x, y: lax.mul(g, lax.div(y, lax.add(lax.square(x), lax.square(y)))),
       lambda g, ans, x, y: lax.mul(g, lax.div(lax.neg(x), lax.add(lax.square(x), lax.square(y)))))


def _rem_jvp_y(g: Any, ans: Any, x: Any, y: Any) -> Any:
    return lax.mul(lax.neg(g), lax.mul(lax.sign(lax.div(x, y)), floor(lax.abs(lax.div(x, y)))))


def _rem_jvp_x(g: Any, ans: Any, x: Any, y: Any) -> Any:
    shape = get_aval(ans).shape
    return g if get_aval(g).shape == shape else lax.broadcast_in_dim(g, shape, ())


defjvp(rem_p, _rem_jvp_x, _rem_jvp_y)


defjvp(clamp_p,
       lambda g, ans, lo, x, hi: select(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)),
                                        g, _zeros(x)),
       lambda g, ans, lo, x, hi: select(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)),
                                        g, _zeros(x)),
       lambda g, ans, lo, x, hi: select(lax.lt(hi, x), g, _zeros(x)))

for _p in (floor_p, ceil_p, round_p, is_finite_p, not_p, xor_p):
    defjvp_zero(_p)





def _stop_gradient_jvp(primals: list, tangents: list) -> tuple[Any, Any]:
    x, = primals
    return stop_gradient(x), Zero(get_aval(x).to_tangent_aval())


primitive_jvps[stop_gradient_p] = _stop_gradient_jvp


# --------------------------------------------------------------------------- batching


def _clamp_batcher(size: int, vals: list, dims: list) -> tuple[Any, Any]:
    lo, x, hi = vals
    ld, xd, hd = dims
    nd = lambda v: get_aval(v).ndim  # noqa: E731
    if ld == xd == hd:
        if get_aval(lo).shape == get_aval(x).shape == get_aval(hi).shape:
            return clamp(lo, x, hi), xd
        if nd(lo) == nd(hi) == 0:
            return clamp(lo, x, hi), xd
    elif nd(lo) == 0 and nd(hi) == 0 and xd is not None:
        return clamp(lo, x, hi), xd
    lo = batching.bdim_at_front(lo, ld, size) if nd(lo) else lo
    hi = batching.bdim_at_front(hi, hd, size) if nd(hi) else hi
    x = batching.bdim_at_front(x, xd, size) if nd(x) else x
    shape = get_aval(x).shape
    lo = lax.broadcast_in_dim(lo, shape, () if nd(lo) == 0 else [0]) if nd(lo) < nd(x) else lo
    hi = lax.broadcast_in_dim(hi, shape, () if nd(hi) == 0 else [0]) if nd(hi) < nd(x) else hi
    return clamp(lo, x, hi), 0


for _p in (log1p_p, expm1_p, rsqrt_p, floor_p, ceil_p, round_p, is_finite_p, erf_p, erfc_p,
           not_p, stop_gradient_p):
    batching.defvectorized(_p)
for _p in (atan2_p, rem_p, xor_p):
    batching.defbroadcasting(_p)
batching.primitive_batchers[clamp_p] = _clamp_batcher

pretty.pp_param_rules[rsqrt_p] = _hide("accuracy")
