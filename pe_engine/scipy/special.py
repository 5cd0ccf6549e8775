"""`jax.scipy.special`, the functions defined as JAX 0.10.2 defines them: most promote to a
float and bind one primitive; logit, xlogy and xlog1py are `custom_jvp`s, as in JAX, so
they stage as a `custom_jvp_call`; logsumexp, softmax and log_softmax are jax.nn's."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import elementwise, jnp_math
from .. import jnp_base as jnp
from .. import lax_base as lax
from .. import missing as _missing
from ..custom_derivatives import custom_jvp
from ..jnp_base import _promote_args_inexact
from ..lax_special import digamma as _digamma
from ..lax_special import lgamma
from ..nn import log_softmax, logsumexp, softmax

__all__ = ["digamma", "entr", "erf", "erfc", "expit", "factorial", "gammaln", "kl_div",
           "log_softmax", "logit", "logsumexp", "ndtr", "rel_entr", "softmax", "xlog1py",
           "xlogy"]


def gammaln(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return lgamma(x)


def digamma(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return _digamma(x)


def erf(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return elementwise.erf(x)


def erfc(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return elementwise.erfc(x)


def expit(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return lax.logistic(x)


def factorial(n: Any, exact: bool = False) -> Any:
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = _promote_args_inexact(n)
    return jnp.where(n < 0, 0, lax.exp(lgamma(n + 1)))


def ndtr(x: Any) -> Any:
    """The standard normal CDF, from erf near 0 and erfc in the tails (JAX's branches)."""
    x = jnp.asarray(x)
    dtype = x.dtype
    if dtype != np.float32:
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    typ = dtype.type
    half_sqrt_2 = typ(0.5) * np.sqrt(2., dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = elementwise.select(
        lax.lt(z, half_sqrt_2), typ(1.) + elementwise.erf(w),
        elementwise.select(lax.gt(w, typ(0.)), typ(2.) - elementwise.erfc(z), elementwise.erfc(z)))
    return typ(0.5) * y


@custom_jvp
def logit(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return lax.log(lax.div(x, lax.sub(lax._const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(lax._const(x, 1), x))))


def _x_times_log(name: str, log: Any, y_tangent: Any) -> Any:
    """x * log(y) (xlogy) or x * log1p(y) (xlog1py), 0 where x is 0: a custom_jvp each, as
    JAX defines them. `y_tangent(y_dot, x, y)` is the tangent through y, as JAX orders it."""
    @custom_jvp
    def primal(x: Any, y: Any) -> Any:
        x, y = _promote_args_inexact(x, y)
        x_ok = x != 0.
        return jnp.where(x_ok | jnp_math.isnan(y), lax.mul(x, log(y)), jnp.zeros_like(x))

    def jvp(primals: Any, tangents: Any) -> Any:
        (x, y), (x_dot, y_dot) = primals, tangents
        result = primal(x, y)
        return result, (x_dot * log(y) + y_tangent(y_dot, x, y)).astype(result.dtype)

    # the names its custom_jvp_call prints
    primal.fun.__name__ = primal.fun.__qualname__ = name
    jvp.__name__ = jvp.__qualname__ = f"_{name}_jvp"
    primal.defjvp(jvp)
    return primal


xlogy = _x_times_log("xlogy", lax.log, lambda t, x, y: t * x / y)
xlog1py = _x_times_log("xlog1py", elementwise.log1p, lambda t, x, y: t * x / (1 + y))


@custom_jvp
def _xlogx(x: Any) -> Any:
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals: Any, tangents: Any) -> Any:
    x, = primals
    x_dot, = tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


def entr(x: Any) -> Any:
    x, = _promote_args_inexact(x)
    return elementwise.select(lax.lt(x, lax._const(x, 0)), lax.full_like(x, -np.inf),
                              lax.neg(_xlogx(x)))


def rel_entr(p: Any, q: Any) -> Any:
    p, q = _promote_args_inexact(p, q)
    zero = lax._const(p, 0.0)
    both_gt_zero = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    one_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p = jnp.where(both_gt_zero, p, 1)
    safe_q = jnp.where(both_gt_zero, q, 1)
    log_val = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_gt_zero, log_val, jnp.where(one_zero, zero, np.inf))


def kl_div(p: Any, q: Any) -> Any:
    p, q = _promote_args_inexact(p, q)
    return rel_entr(p, q) - p + q


__getattr__ = _missing.module_getattr("jax.scipy.special")
