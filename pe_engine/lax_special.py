"""lax's special-function primitives jax.scipy.special binds: lgamma and digamma, with JAX's
JVP of lgamma (g * digamma(x)). digamma's own JVP needs polygamma, which the engine lacks, so
differentiating digamma (a second derivative of gammaln) fails as a missing rule does."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import batching
from . import lax_base as lax
from .ad import defjvp
from .core import bind
from .lax_base import _FLOAT, _unop


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma, otypes=[x.dtype])(x) if x.size else x


def _digamma_scalar(x: float) -> float:
    """psi(x): the reflection formula below 0.5, the recurrence up to 6, then the asymptotic
    series (accurate to float64 rounding there)."""
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return _digamma_scalar(1.0 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return acc + math.log(x) - 0.5 / x - series


def _digamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(_digamma_scalar, otypes=[x.dtype])(x) if x.size else x


lgamma_p = _unop("lgamma", _lgamma, _FLOAT)
digamma_p = _unop("digamma", _digamma, _FLOAT)


def lgamma(x: Any) -> Any:
    return bind(lgamma_p, x)


def digamma(x: Any) -> Any:
    return bind(digamma_p, x)


defjvp(lgamma_p, lambda g, ans, x: lax.mul(g, digamma(x)))
for _p in (lgamma_p, digamma_p):
    batching.defvectorized(_p)
