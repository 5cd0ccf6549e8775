"""JAX's function transforms, each inside a traced function as a user nests them."""
from __future__ import annotations

import functools

from api_inputs import A, P, V


def _clipped_sin(M):
    """A user's custom_jvp, as written in JAX's docs: defined with defjvp."""
    @M.custom_jvp
    def f(x):
        return M.jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), M.jnp.clip(M.jnp.cos(x), -0.5, 0.5) * t
    return f


def _loss(M):
    return lambda x, y: M.jnp.sum(M.jnp.sin(x) * y)


CASES: dict[str, tuple] = {
    "jax.jit": (lambda M, x, y: M.jit(_loss(M))(x, y), (V, P), True),
    "jax.grad": (lambda M, x, y: M.grad(_loss(M))(x, y), (V, P), True),
    "jax.grad/argnums": (lambda M, x, y: M.grad(_loss(M), argnums=(0, 1))(x, y), (V, P), True),
    "jax.value_and_grad": (lambda M, x, y: M.value_and_grad(_loss(M))(x, y), (V, P), True),
    "jax.vmap": (lambda M, a, x: M.vmap(lambda r: r * M.jnp.sum(r))(a) + x[:3], (A, V), True),
    # jnp.max is an inline jit: batched as a jaxpr then inlined, its Python `initial` folds
    # to a literal under eager constant folding (run on the batch tracers, it was a constvar).
    "jax.vmap/inline_jit": (lambda M, a: M.vmap(lambda r: M.jnp.max(r, initial=-1.5))(a),
                            (A,), True),
    "jax.jvp": (lambda M, x, y: M.jvp(M.jnp.sin, (x,), (y,)), (V, P), True),
    "jax.vjp": (lambda M, x, y: M.vjp(M.jnp.sin, x)[1](y), (V, P), True),
    "jax.linearize": (lambda M, x, y: M.linearize(M.jnp.sin, x)[1](y), (V, P), True),
    "jax.jacfwd": (lambda M, x: M.jacfwd(M.jnp.sin)(x), (V,), True),
    "jax.jacrev": (lambda M, x: M.jacrev(M.jnp.sin)(x), (V,), True),
    "jax.hessian": (lambda M, x, y: M.hessian(_loss(M))(x, y), (V, P), True),
    "jax.custom_jvp": (lambda M, x: _clipped_sin(M)(x) * _clipped_sin(M)(x + 1.0), (V,), True),
    "jax.checkpoint": (lambda M, x: M.checkpoint(lambda a: M.jnp.sin(M.jnp.sin(a)))(x), (V,),
                       True),
    "jax.remat": (lambda M, x: M.remat(lambda a: M.jnp.cos(M.jnp.sin(a)))(x), (V,), True),
    "jax.ensure_compile_time_eval": (lambda M, x: x * _folded(M), (V,), True),
    "jax.make_jaxpr": (lambda M, x: x * len(M.make_jaxpr(M.jnp.sin)(x).eqns), (V,), True),
}


def _folded(M):
    with M.ensure_compile_time_eval():
        return M.jnp.sin(M.jnp.arange(5.0))


def _sin_times(M):
    """A user's custom_vjp, as in JAX's docs: fwd saves residuals, bwd maps g to cotangents."""
    @M.custom_vjp
    def f(x, y):
        return M.jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (M.jnp.cos(x), M.jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    return f


def _clip_gradient(M):
    """custom_vjp with nondiff_argnums (JAX's docs' clip_gradient), bwd returning a tuple."""
    @functools.partial(M.custom_vjp, nondiff_argnums=(0, 1))
    def clip_gradient(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, None

    def bwd(lo, hi, _, g):
        return (M.jnp.clip(g, lo, hi),)

    clip_gradient.defvjp(fwd, bwd)
    return clip_gradient


CASES.update({
    "jax.custom_vjp": (lambda M, x, y: _sin_times(M)(x * 2.0, y) + 1.0, (V, P), True),
    "jax.custom_vjp/nondiff_argnums": (
        lambda M, x: _clip_gradient(M)(-0.5, 0.5, M.jnp.sin(x) * 3.0), (V,), True),
})
CASES.update({
    "jax.jacobian": (lambda M, x: M.jacobian(lambda a: M.jnp.sin(a) * a)(x), (V,), True),
    "jax.eval_shape": (lambda M, a: a * M.eval_shape(lambda b: b.T @ b, a).shape[0], (A,), True),
    "jax.eval_shape/pytree": (lambda M, x, y: x * M.eval_shape(
        lambda d: {"s": d["u"] + d["v"].sum()}, {"u": x, "v": y})["s"].size, (V, P), True),
})
