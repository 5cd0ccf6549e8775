"""JAX's function transforms, each inside a traced function as a user nests them."""
from __future__ import annotations

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
