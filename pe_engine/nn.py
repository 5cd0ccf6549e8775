"""`jax.nn`: activations, softmax and friends, defined as JAX 0.10.2 defines them.

relu and relu6 are `custom_jvp` functions around a `jit` (so they stage as a
`custom_jvp_call` holding a `jit`); softplus, silu, log_softmax, one_hot and
standardize are `jit`s; sigmoid is inlined into its caller as `logistic`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import lax
from . import missing as _missing
from . import numpy as jnp
from .ad import zeros_like_aval
from .api import jit
from .core import get_aval
from .custom_derivatives import custom_jvp
from .jnp_arrays import full_like
from .jnp_base import _canonical_axes, _promote_args_inexact, tanh
from .jnp_ufuncs import clip, logaddexp

__all__ = ["gelu", "log_softmax", "logsumexp", "one_hot", "relu", "relu6", "sigmoid", "silu",
           "softmax", "softplus", "standardize", "swish", "tanh"]


def _zeros_like(g: Any) -> Any:
    return zeros_like_aval(get_aval(g))


@custom_jvp
@jit
def relu(x: Any) -> Any:
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, _zeros_like(g)))


@custom_jvp
@jit
def relu6(x: Any) -> Any:
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, _zeros_like(g)))

def sigmoid(x: Any) -> Any:
    return lax.logistic(x)


@jit
def softplus(x: Any) -> Any:
    return logaddexp(x, 0)


@jit
def silu(x: Any) -> Any:
    return x * sigmoid(x)


swish = silu


def gelu(x: Any, approximate: bool = True) -> Any:
    x, = _promote_args_inexact(x)
    dtype = get_aval(x).dtype
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dtype)
        cdf = 0.5 * (1.0 + tanh(sqrt_2_over_pi * (x + 0.044715 * x ** 3)))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=dtype)


def softmax(x: Any, axis: Any = -1) -> Any:
    # JAX 0.10.2's default (jax_softmax_custom_jvp=False): the max is a stop_gradient.
    x_max = jnp.max(x, axis, keepdims=True, initial=-np.inf)
    unnormalized = jnp.exp(x - lax.stop_gradient(x_max))
    return unnormalized / jnp.sum(unnormalized, axis, keepdims=True)


@jit(static_argnames=("axis",))
def log_softmax(x: Any, axis: Any = -1) -> Any:
    x_max = jnp.max(x, axis, keepdims=True, initial=-np.inf)
    shifted = x - lax.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, keepdims=True))
    return shifted - shifted_logsumexp


def logsumexp(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
    a, = _promote_args_inexact(a)
    dims = _canonical_axes(axis, get_aval(a).ndim)
    amax = jnp.max(a, axis=dims, keepdims=keepdims, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(lax.is_finite(amax), amax, full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, amax_with_dims.astype(get_aval(a).dtype)))
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims)
    lax.sign(sumexp)  # JAX computes the sign for return_sign and leaves it unused
    sumexp = abs(sumexp)
    return lax.add(lax.log(sumexp), amax.astype(get_aval(sumexp).dtype))


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    x = jnp.asarray(x)
    return _one_hot(x, num_classes, dtype=np.float32 if dtype is None else dtype, axis=axis)


@jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x: Any, num_classes: int, *, dtype: Any, axis: int) -> Any:
    ndim = get_aval(x).ndim
    out_axis = _canonical_axes(axis, ndim + 1)[0]
    lhs = lax.expand_dims(x, (axis,))
    rhs_shape = [1] * ndim
    rhs_shape.insert(out_axis, num_classes)
    rhs = lax.broadcasted_iota(get_aval(x).dtype, rhs_shape, out_axis)
    return (lhs == rhs).astype(dtype)


@jit(static_argnames=("axis",))
def standardize(x: Any, axis: Any = -1, mean: Any = None, variance: Any = None,
                epsilon: Any = 1e-5) -> Any:
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True)
    if variance is None:
        variance = jnp.mean(jnp.square(x), axis, keepdims=True) - jnp.square(mean)
        variance = clip(variance, 0)
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)

from .nn_activations import *  # noqa: E402, F403 - the rest of jax.nn, over the pieces above
from .nn_activations import __all__ as _activations  # noqa: E402
from .nn_attention import dot_product_attention  # noqa: E402, F401 - over softmax above

__all__ += [*_activations, "dot_product_attention"]

# A name JAX has and the engine lacks fails in one line ("jnp.fft is not in this engine").
__getattr__ = _missing.module_getattr("jax.nn")
