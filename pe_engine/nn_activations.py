"""jax.nn's other activations, each defined as JAX 0.10.2 defines it (a `jit` of the same
jnp calls, so the same `jit` equation prints), from the pieces in nn.py."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import lax
from . import numpy as jnp
from .api import jit
from .core import get_aval
from .custom_derivatives import custom_jvp
from .jnp_arrays import split
from .jnp_ufuncs import clip, expm1, log1p
from .nn import logsumexp, relu6, sigmoid, softplus

__all__ = ["celu", "elu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
           "identity", "leaky_relu", "log1mexp", "log_sigmoid", "logmeanexp", "mish", "selu",
           "soft_sign", "sparse_plus", "sparse_sigmoid", "squareplus"]


@jit
def identity(x: Any) -> Any:
    return jnp.asarray(x)


def _as_array(x: Any) -> Any:
    """lax.asarray, which JAX's ensure_arraylike calls: a Python scalar becomes an array of its
    weak type (under eager constant folding, a constant the jaxpr hoists)."""
    if type(x) in (bool, int, float):
        return lax.convert_element_type(x, get_aval(x).dtype, weak_type=True)
    return x


@jit
def squareplus(x: Any, b: Any = 4) -> Any:
    b = _as_array(b)
    y = x + jnp.sqrt(jnp.square(x) + b)
    return y / 2


@jit
def sparse_plus(x: Any) -> Any:
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x: Any) -> Any:
    return x / (jnp.abs(x) + 1)


@jit
def sparse_sigmoid(x: Any) -> Any:
    return 0.5 * clip(x + 1.0, 0.0, 2.0)


@jit
def mish(x: Any) -> Any:
    return x * jnp.tanh(softplus(x))


@jit
def log_sigmoid(x: Any) -> Any:
    return -softplus(-x)


@jit
def elu(x: Any, alpha: Any = 1.0) -> Any:
    return jnp.where(x > 0, x, alpha * expm1(jnp.where(x > 0, 0., x)))


@jit
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x: Any) -> Any:
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def celu(x: Any, alpha: Any = 1.0) -> Any:
    return jnp.maximum(x, 0.0) + alpha * expm1(jnp.minimum(x, 0.0) / alpha)


# SELU's constants, to JAX's digits (Klambauer et al. 2017)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x: Any) -> Any:
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


@jit(static_argnames=("axis",))
def glu(x: Any, axis: int = -1) -> Any:
    assert get_aval(x).shape[axis] % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = split(x, 2, axis)
    return x1 * sigmoid(x2)


@jit
def hard_sigmoid(x: Any) -> Any:
    return relu6(x + 3.) / 6.


@jit
def hard_silu(x: Any) -> Any:
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    lse = logsumexp(x, axis=axis, keepdims=keepdims)
    shape = get_aval(x).shape
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    count = int(np.prod([shape[a] for a in axes]))
    return lse - jnp.log(lax.convert_element_type(count, get_aval(lse).dtype))


@custom_jvp
@jit
def log1mexp(x: Any) -> Any:
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-expm1(-x)), log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / expm1(x))
