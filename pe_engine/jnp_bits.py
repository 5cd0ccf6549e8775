"""`jax.numpy`'s integer functions: the shifts, bitwise_count and bitwise_invert, gcd
and lcm; lowered as JAX 0.10.2 lowers them (gcd's Euclid runs in a `while_loop`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import elementwise, lax_math
from . import lax_base as lax
from .api import jit
from .core import get_aval
from .jnp_base import (
    _check_arraylike,
    _promote_dtypes,
    abs,
    broadcast_arrays,
    multiply,
    promote_args,
    where,
)
from .jnp_reductions import any as reduce_any
from .jnp_ufuncs import _promote_numeric, floor_divide
from .loops import while_loop


def left_shift(x: Any, y: Any) -> Any:
    return lax_math.shift_left(*_promote_numeric(x, y))


def bitwise_left_shift(x: Any, y: Any) -> Any:
    return lax_math.shift_left(*_promote_numeric(x, y))


def right_shift(x1: Any, x2: Any) -> Any:
    x1, x2 = _promote_numeric(x1, x2)
    # An unsigned operand shifts in zeros; a signed one copies its sign bit.
    if get_aval(x1).dtype.kind == "u":
        return lax_math.shift_right_logical(x1, x2)
    return lax_math.shift_right_arithmetic(x1, x2)


def bitwise_right_shift(x1: Any, x2: Any) -> Any:
    return right_shift(x1, x2)


def bitwise_invert(x: Any) -> Any:
    return elementwise.bitwise_not(*promote_args(x))


@jit
def bitwise_count(x: Any) -> Any:
    x, = _promote_numeric(x)
    # NumPy's convention: the bits of the absolute value, counted as uint8.
    return lax.convert_element_type(lax_math.population_count(abs(x)), np.uint8)


def _gcd_cond(xs: tuple[Any, Any]) -> Any:
    return reduce_any(xs[1] != 0)


def _gcd_body(xs: tuple[Any, Any]) -> tuple[Any, Any]:
    x1, x2 = xs
    x1, x2 = (where(x2 != 0, x2, x1), where(x2 != 0, elementwise.rem(x1, x2), lax._const(x2, 0)))
    return where(x1 < x2, x2, x1), where(x1 < x2, x1, x2)


def _check_integers(name: str, x: Any) -> None:
    if get_aval(x).dtype.kind not in "iu":
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")


@jit
def gcd(x1: Any, x2: Any) -> Any:
    _check_arraylike(x1, x2)
    x1, x2 = _promote_dtypes(x1, x2)
    _check_integers("gcd", x1)
    x1, x2 = broadcast_arrays(x1, x2)
    out, _ = while_loop(_gcd_cond, _gcd_body, (abs(x1), abs(x2)))
    return out


@jit
def lcm(x1: Any, x2: Any) -> Any:
    _check_arraylike(x1, x2)
    x1, x2 = _promote_dtypes(x1, x2)
    x1, x2 = abs(x1), abs(x2)
    _check_integers("lcm", x1)
    d = gcd(x1, x2)
    return where(d == 0, lax._const(d, 0), multiply(x1, floor_divide(x2, d)))


__all__ = ["bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift", "gcd",
           "lcm", "left_shift", "right_shift"]
