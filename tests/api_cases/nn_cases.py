"""jax.nn's functions, each as a user calls it (see tests/test_api_cases_vs_jax.py)."""
from __future__ import annotations

import numpy as np
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

# dot_product_attention: (B,T,N,H) queries over (B,S,K,H) keys, and the (T,N,H) form. JAX
# vmaps its core over the query-head groups, so each case checks the batched program's text.
_r = np.random.default_rng(451)
_f32 = "float32"
Q = _r.standard_normal((2, 3, 4, 2)).astype(_f32)
KV = _r.standard_normal((2, 5, 4, 2)).astype(_f32)
KV2 = _r.standard_normal((2, 5, 2, 2)).astype(_f32)  # 2 key heads for 4 query heads (GQA)
BIAS = _r.standard_normal((2, 4, 3, 5)).astype(_f32)
BIAS1 = _r.standard_normal((1, 1, 3, 5)).astype(_f32)
MASK = _r.standard_normal((2, 4, 3, 5)) > -0.5
Q3, KV3 = (_r.standard_normal((3, 4, 2)).astype(_f32) for _ in range(2))
DPA = N + "dot_product_attention"
CASES.update({
    DPA: (lambda M, q, k, v: M.nn.dot_product_attention(q, k, v), (Q, KV, KV), True),
    DPA + "/tnh": (lambda M, q, k, v: M.nn.dot_product_attention(q, k, v), (Q3, KV3, KV3), True),
    DPA + "/gqa": (lambda M, q, k, v: M.nn.dot_product_attention(q, k, v), (Q, KV2, KV2), True),
    DPA + "/bias": (lambda M, q, k, v, b: M.nn.dot_product_attention(q, k, v, b),
                    (Q, KV, KV, BIAS), True),
    DPA + "/bias_broadcast": (lambda M, q, k, b: M.nn.dot_product_attention(q, k, k, bias=b),
                              (Q, KV2, BIAS1), True),
    DPA + "/mask": (lambda M, q, k, v: M.nn.dot_product_attention(q, k, v, mask=MASK),
                    (Q, KV, KV), True),
    DPA + "/causal_gqa": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, mask=MASK, is_causal=True), (Q, KV2, KV2), True),
    DPA + "/causal_tnh_scale": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, is_causal=True, scale=0.3), (Q3, KV3, KV3), True),
})

# The padding, window and residual forms (JAX's XLA path: masks built in the vmapped core).
QL, KVL = np.array([2, 3], "int32"), np.array([4, 2], "int32")
CASES.update({
    DPA + "/seq_lengths": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, query_seq_lengths=QL, key_value_seq_lengths=KVL), (Q, KV, KV), True),
    DPA + "/kv_lengths_causal_gqa": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, key_value_seq_lengths=KVL, is_causal=True), (Q, KV2, KV2), True),
    DPA + "/window": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, local_window_size=1), (Q, KV, KV), True),
    DPA + "/window_tnh": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, local_window_size=(2, 0)), (Q3, KV3, KV3), True),
    DPA + "/residual": (lambda M, q, k, v: M.nn.dot_product_attention(
        q, k, v, return_residual=True), (Q, KV2, KV2), True),
})
