"""The differential harness for issue 11's names: one namespace per implementation.

Workloads are written once against `M`, either the engine (`ENGINE`) or JAX
(`JAX`). Each check runs a workload under two namespaces and compares what they
print and compute; `pairs()` yields (engine, JAX) and (JAX, JAX), so the harness
itself is checked on JAX alone and a failure of the first pair is the engine's.
"""
from __future__ import annotations

import itertools
import types

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax._src.interpreters import partial_eval as jpe  # noqa: E402

import pe_engine as pe  # noqa: E402
from pe_engine.partial_eval import partial_eval_jaxpr_nounits  # noqa: E402

ENGINE = types.SimpleNamespace(
    name="engine", jnp=pe.numpy, lax=pe.lax, nn=pe.nn, jit=pe.jit, grad=pe.grad, vjp=pe.vjp,
    jvp=pe.jvp, vmap=pe.vmap, jacfwd=pe.jacfwd, jacrev=pe.jacrev, hessian=pe.hessian,
    checkpoint=pe.checkpoint, policies=pe.checkpoint_policies, make_jaxpr=pe.make_jaxpr,
    linearize=pe.linearize, value_and_grad=pe.value_and_grad, custom_jvp=pe.custom_jvp,
    ensure_compile_time_eval=pe.ensure_compile_time_eval,
    split=lambda closed, mask, inst=False: partial_eval_jaxpr_nounits(closed, mask, inst))
JAX = types.SimpleNamespace(
    name="jax", jnp=jax.numpy, lax=jax.lax, nn=jax.nn, jit=jax.jit, grad=jax.grad, vjp=jax.vjp,
    jvp=jax.jvp, vmap=jax.vmap, jacfwd=jax.jacfwd, jacrev=jax.jacrev, hessian=jax.hessian,
    checkpoint=jax.checkpoint, policies=jax.checkpoint_policies, make_jaxpr=jax.make_jaxpr,
    linearize=jax.linearize, value_and_grad=jax.value_and_grad, custom_jvp=jax.custom_jvp,
    ensure_compile_time_eval=jax.ensure_compile_time_eval,
    split=lambda closed, mask, inst=False: jpe.partial_eval_jaxpr_nounits(closed, mask, inst))

PAIRS = [pytest.param(ENGINE, JAX, id="engine-vs-jax"), pytest.param(JAX, JAX, id="jax-vs-jax")]


def close(a, b, tol=2e-5):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape and x.dtype == y.dtype, (x.dtype, y.dtype, x.shape, y.shape)
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def masks(n: int, limit: int = 4) -> list[list[bool]]:
    """Some known/unknown masks: each input alone unknown, then the rest, up to `limit`."""
    all_masks = [list(m) for m in itertools.product([False, True], repeat=n)]
    singles = [[j == i for j in range(n)] for i in range(n)]
    rest = [m for m in all_masks if m not in singles and any(m) and not all(m)]
    return (singles + rest)[:limit] if n > 1 else [[True]]


def split_text(M, closed, mask):
    k, u, out_uk, res = M.split(closed, mask)
    return str(k), str(u), list(out_uk), [a.str_short(short_dtypes=True) for a in res]


def jvp_program(M, f, args):
    """The program the page's grad mode splits: primals and tangents in, JVP out."""
    n = len(args)

    def jvp_fun(*xs):
        p, t = M.jvp(f, tuple(xs[:n]), tuple(xs[n:]))
        return p, t

    return M.make_jaxpr(jvp_fun)(*args, *args)
