"""Partial evaluation of a nested jit: a known jit runs now, an unknown jit is staged."""
import numpy as np

import pe_engine as pe
import pe_engine.numpy as jnp
from pe_engine.partial_eval import partial_eval_jaxpr_nounits


def inner(a, b):
    return jnp.cos(a), jnp.sin(a) * b


def outer(x, y):
    return pe.jit(inner)(x, y)


def test_jit_splits_residuals_last():
    cj = pe.make_jaxpr(outer)(1.0, 2.0)
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(cj, [False, True], False)
    assert out_uk == [False, True] and len(res) == 1
    # jax-facts §7: known jit returns (cos, residual sin); the unknown jit equation
    # takes the unknown input first and the residual last.
    assert "c:f32[] = sin a" in str(known) and "b:f32[] = cos a" in str(known)
    text = str(unknown)
    assert text.startswith("{ lambda ; a:f32[] b:f32[]. let")
    assert "jaxpr={ lambda ; b:f32[] a:f32[]. let c:f32[] = mul a b in (c,) }" in text
    assert text.rstrip().endswith("] b a\n  in (c,) }")


def test_grad_through_nested_jit():
    f = lambda x: pe.jit(lambda a: pe.jit(jnp.sin)(a) * a)(x)
    assert np.allclose(float(pe.grad(f)(0.7)), np.cos(0.7) * 0.7 + np.sin(0.7), atol=1e-6)
