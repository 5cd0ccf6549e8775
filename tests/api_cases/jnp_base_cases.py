"""The jax.numpy names the engine had before issue 45's coverage table, as a user calls them.

New jnp names get their cases in the module of the branch that adds them (keys are unique
across tests/api_cases/; a second case of a name takes a variant, "jax.numpy.sum/axis").
"""
from __future__ import annotations

from api_inputs import BA, BB, A, B, P, V

J = "jax.numpy."


def _unary(name: str, arg=V) -> tuple:
    return (lambda M, x: getattr(M.jnp, name)(x), (arg,), True)


def _binary(name: str, args=(V, P)) -> tuple:
    return (lambda M, x, y: getattr(M.jnp, name)(x, y), args, True)


CASES: dict[str, tuple] = {
    **{J + n: _unary(n) for n in ("abs", "absolute", "cos", "exp", "negative", "sign", "sin",
                                  "tan", "tanh", "square", "expm1", "ceil", "floor", "round",
                                  "around")},
    **{J + n: _unary(n, P) for n in ("log", "log1p", "sqrt")},
    **{J + n: _binary(n) for n in ("add", "subtract", "multiply", "divide", "true_divide",
                                   "maximum", "minimum", "power", "arctan2", "logaddexp",
                                   "floor_divide", "mod", "remainder")},
    # a comparison's tangent is float0, which the engine does not make: each selects instead
    **{J + n: (lambda M, x, y, n=n: M.jnp.where(getattr(M.jnp, n)(x, y), x, y), (V, P), True)
       for n in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")},
    J + "isfinite": (lambda M, x: M.jnp.where(M.jnp.isfinite(x), x, 0.0), (V,), True),
    J + "round/decimals": (lambda M, x: M.jnp.round(x, 2), (V,), False),
    J + "clip": (lambda M, x: M.jnp.clip(x, -0.5, 0.5), (V,), True),
    **{J + n: (lambda M, x, y, n=n: M.jnp.where(getattr(M.jnp, n)(x > 0, y > 1), x, y),
               (V, P), True) for n in ("logical_and", "logical_or", "logical_xor")},
    J + "logical_not": (lambda M, x: M.jnp.where(M.jnp.logical_not(x > 0), x, 0.0), (V,), True),
    **{J + n: (lambda M, x, n=n: getattr(M.jnp, n)((x * 10).astype(M.jnp.int32), 6), (V,),
               False) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{J + n: (lambda M, x, n=n: getattr(M.jnp, n)((x * 10).astype(M.jnp.int32)), (V,), False)
       for n in ("bitwise_not", "invert")},
    J + "where": (lambda M, x, y: M.jnp.where(x > y, x, y), (V, P), True),
    # reductions
    **{J + n: (lambda M, a, n=n: getattr(M.jnp, n)(a, axis=1), (A,), True)
       for n in ("sum", "mean", "max", "min", "amax", "amin", "prod", "var", "std", "cumsum")},
    J + "sum/all": (lambda M, a: M.jnp.sum(a), (A,), True),
    J + "argmax": (lambda M, a: M.jnp.argmax(a), (A,), False),
    J + "argmin": (lambda M, a: M.jnp.argmin(a, axis=1), (A,), False),
    # products
    J + "dot": (lambda M, a, b: M.jnp.dot(a, b), (A, B), True),
    J + "matmul": (lambda M, a, b: M.jnp.matmul(a, b), (BA, BB), True),
    J + "outer": (lambda M, x, y: M.jnp.outer(x, y), (V, P), True),
    J + "einsum": (lambda M, a, b: M.jnp.einsum("ij,jk->ik", a, b), (A, B), True),
    # creation
    J + "array": (lambda M, x: M.jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]) * x, (V,), True),
    J + "asarray": (lambda M, x: M.jnp.asarray(x) + M.jnp.asarray(2.0), (V,), True),
    J + "arange": (lambda M, x: x + M.jnp.arange(5), (V,), True),
    J + "zeros": (lambda M, x: M.jnp.zeros(5) + x, (V,), True),
    J + "ones": (lambda M, x: M.jnp.ones((2, 3)) * x, (A,), True),
    J + "empty": (lambda M, x: M.jnp.empty(5) + x, (V,), True),
    J + "full": (lambda M, x: M.jnp.full((5,), 2.0) * x, (V,), True),
    J + "eye": (lambda M, a: M.jnp.eye(2, 3) * a, (A,), True),
    J + "identity": (lambda M, a: M.jnp.identity(3) @ a.T, (A,), True),
    J + "zeros_like": (lambda M, x: M.jnp.zeros_like(x) + x, (V,), True),
    J + "ones_like": (lambda M, x: M.jnp.ones_like(x) * x, (V,), True),
    J + "full_like": (lambda M, x: M.jnp.full_like(x, 3.0) * x, (V,), True),
    # shapes
    J + "astype": (lambda M, x: M.jnp.astype(x, M.jnp.int32), (V,), False),
    J + "reshape": (lambda M, a: M.jnp.reshape(a, (3, 2)), (A,), True),
    J + "ravel": (lambda M, a: M.jnp.ravel(a), (A,), True),
    J + "transpose": (lambda M, a: M.jnp.transpose(a), (BA,), True),
    J + "expand_dims": (lambda M, a: M.jnp.expand_dims(a, 1), (A,), True),
    J + "squeeze": (lambda M, a: M.jnp.squeeze(a[None]), (A,), True),
    J + "broadcast_to": (lambda M, x: M.jnp.broadcast_to(x, (2, 5)), (V,), True),
    J + "broadcast_arrays": (lambda M, a, x: M.jnp.broadcast_arrays(a, x[:3]), (A, V), True),
    J + "broadcast_shapes": (lambda M, a: M.jnp.zeros(M.jnp.broadcast_shapes(a.shape, (4, 1, 1)))
                             + a, (A,), True),
    J + "concatenate": (lambda M, x, y: M.jnp.concatenate([x, y, x]), (V, P), True),
    J + "stack": (lambda M, x, y: M.jnp.stack([x, y], axis=1), (V, P), True),
    J + "split": (lambda M, a: M.jnp.split(a, 3, axis=1), (A,), True),
    J + "tile": (lambda M, a: M.jnp.tile(a, (2, 1)), (A,), True),
    J + "repeat": (lambda M, a: M.jnp.repeat(a, 3, axis=0), (A,), True),
    J + "flip": (lambda M, a: M.jnp.flip(a, axis=1), (A,), True),
    J + "fliplr": (lambda M, a: M.jnp.fliplr(a), (A,), True),
    J + "flipud": (lambda M, a: M.jnp.flipud(a), (A,), True),
    J + "roll": (lambda M, a: M.jnp.roll(a, -1, axis=1), (A,), True),
}
CASES[J + "result_type"] = (lambda M, x: (x * 10).astype(M.jnp.int32).astype(
    M.jnp.result_type(M.jnp.int32, x)) * x, (V,), True)
