"""jnp's math functions refuse what JAX refuses, with the same exception type; and what
the engine cannot do yet it refuses by name (NotImplementedError), not with a wrong answer.
"""
from __future__ import annotations

import numpy as np
import pytest
from breadth_harness import ENGINE, JAX

V = np.array([0.5, -1.0, 2.0], np.float32)
I = np.array([4, 6, 9], np.int32)  # noqa: E741

# name -> (f(M), the exception JAX raises)
REFUSED = {
    "gcd_of_floats": (lambda M: M.jnp.gcd(V, V), ValueError),
    "lcm_of_floats": (lambda M: M.jnp.lcm(V, V), ValueError),
    "ldexp_float_exponent": (lambda M: M.jnp.ldexp(V, V), ValueError),
    "quantile_bad_method": (lambda M: M.jnp.quantile(V, 0.5, method="bogus"), ValueError),
    "quantile_2d_q": (lambda M: M.jnp.quantile(V, np.ones((2, 2), np.float32)), ValueError),
    "diff_negative_n": (lambda M: M.jnp.diff(V, n=-1), ValueError),
    "diff_of_scalar": (lambda M: M.jnp.diff(np.float32(1.0)), ValueError),
    "cumulative_sum_2d_no_axis": (lambda M: M.jnp.cumulative_sum(np.ones((2, 2))), ValueError),
    "convolve_2d": (lambda M: M.jnp.convolve(np.ones((2, 2), np.float32), V), ValueError),
    "convolve_bad_mode": (lambda M: M.jnp.convolve(V, V, mode="bogus"), ValueError),
    "polyint_negative": (lambda M: M.jnp.polyint(V, -1), ValueError),
    "gradient_too_short": (lambda M: M.jnp.gradient(V[:1]), ValueError),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_jax(name):
    f, exc = REFUSED[name]
    with pytest.raises(exc):
        f(JAX)
    with pytest.raises(exc):
        f(ENGINE)


def test_vmap_of_convolve_over_both_operands_is_named():
    a = np.ones((2, 4), np.float32)
    with pytest.raises(NotImplementedError, match="feature groups"):
        ENGINE.vmap(ENGINE.jnp.convolve)(a, a[:, :2])


CONV_ONE_MAPPED = {
    "lhs_mapped": lambda M, x: M.jnp.convolve(x, V),
    "rhs_mapped": lambda M, x: M.jnp.correlate(V, x, "full"),
}


@pytest.mark.parametrize("name", sorted(CONV_ONE_MAPPED))
def test_conv_batches_one_operand_as_jax(name):
    f = CONV_ONE_MAPPED[name]
    a = np.arange(8, dtype=np.float32).reshape(2, 4)
    ours, theirs = (M.vmap(lambda x, M=M: f(M, x)) for M in (ENGINE, JAX))
    assert str(ENGINE.make_jaxpr(ours)(a)) == str(JAX.make_jaxpr(theirs)(a))
    np.testing.assert_allclose(np.asarray(ours(a)), np.asarray(theirs(a)), rtol=1e-5)
