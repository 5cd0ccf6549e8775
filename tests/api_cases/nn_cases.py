"""jax.nn's functions, each as a user calls it (see tests/test_api_cases_vs_jax.py)."""
from __future__ import annotations

from api_inputs import A, B, P, V

CASES: dict[str, tuple] = {
    "jax.nn.relu": (lambda M, x: M.nn.relu(x), (V,), True),
    "jax.nn.relu6": (lambda M, x: M.nn.relu6(x * 4.0), (V,), True),
    "jax.nn.sigmoid": (lambda M, x: M.nn.sigmoid(x), (V,), True),
    "jax.nn.softplus": (lambda M, x: M.nn.softplus(x), (V,), True),
    "jax.nn.silu": (lambda M, x: M.nn.silu(x), (V,), True),
    "jax.nn.swish": (lambda M, x: M.nn.swish(x), (V,), True),
    "jax.nn.tanh": (lambda M, x: M.nn.tanh(x), (V,), True),
    "jax.nn.gelu": (lambda M, x: M.nn.gelu(x), (V,), True),
    "jax.nn.gelu/exact": (lambda M, x: M.nn.gelu(x, approximate=False), (V,), True),
    "jax.nn.softmax": (lambda M, x: M.nn.softmax(x), (V,), True),
    "jax.nn.softmax/axis0": (lambda M, a: M.nn.softmax(a, axis=0), (A,), True),
    "jax.nn.log_softmax": (lambda M, x: M.nn.log_softmax(x), (V,), True),
    "jax.nn.logsumexp": (lambda M, x: M.nn.logsumexp(x), (V,), True),
    "jax.nn.logsumexp/axis1": (lambda M, a: M.nn.logsumexp(a, axis=1), (A,), True),
    "jax.nn.one_hot": (lambda M, x: M.nn.one_hot((x * 2).astype(M.jnp.int32) % 4, 4)
                       * x[:, None], (V,), True),
    "jax.nn.standardize": (lambda M, x: M.nn.standardize(x), (V,), True),
    "jax.nn.log_softmax/mlp": (lambda M, w, x: M.nn.log_softmax(M.nn.relu(x @ w) @ w.T),
                               (B, A), True),
}

N = "jax.nn."
CASES.update({
    **{N + n: (lambda M, x, n=n: getattr(M.nn, n)(x), (V,), True)
       for n in ("identity", "squareplus", "sparse_plus", "soft_sign", "sparse_sigmoid", "mish",
                 "log_sigmoid", "elu", "leaky_relu", "hard_tanh", "celu", "selu",
                 "hard_sigmoid", "hard_silu", "hard_swish")},
    N + "elu/alpha": (lambda M, x: M.nn.elu(x * 3.0, 0.5), (V,), True),
    N + "leaky_relu/slope": (lambda M, x: M.nn.leaky_relu(x, negative_slope=0.2), (V,), True),
    N + "celu/alpha": (lambda M, x: M.nn.celu(x, alpha=2.0), (V,), True),
    N + "squareplus/b": (lambda M, x: M.nn.squareplus(x, 1.0), (V,), True),
    N + "sparse_plus/wide": (lambda M, x: M.nn.sparse_plus(x * 3.0), (V,), True),
    N + "glu": (lambda M, a: M.nn.glu(a, axis=0), (A,), True),
    N + "logmeanexp": (lambda M, a: M.nn.logmeanexp(a, axis=1), (A,), True),
    N + "logmeanexp/all": (lambda M, x: M.nn.logmeanexp(x), (V,), True),
    N + "log1mexp": (lambda M, x: M.nn.log1mexp(x), (P,), True),
})
