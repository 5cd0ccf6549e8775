"""jax.lax's functions the engine has, each called as a user calls it."""
from __future__ import annotations

import numpy as np
from api_inputs import BA, BB, IDX, A, B, P, V

L = "jax.lax."


def _unary(name: str, arg=V, diff: bool = True) -> tuple:
    return (lambda M, x: getattr(M.lax, name)(x), (arg,), diff)


def _binary(name: str, args=(V, P), diff: bool = True) -> tuple:
    return (lambda M, x, y: getattr(M.lax, name)(x, y), args, diff)


def _gather(M, x, i):
    dn = M.lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                      start_index_map=(0,))
    return M.lax.gather(x, i[:, None], dn, (1,))


def _scatter(name):
    # JAX differentiates scatter_mul only with unique indices (IDX's are)
    def f(M, x, i):
        dn = M.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                           scatter_dims_to_operand_dims=(0,))
        return getattr(M.lax, name)(x, i[:, None], x[:3] * 2.0, dn, unique_indices=True)
    return (f, (V, IDX), True)


def _scan(M, x):
    def body(c, xi):
        c = c * 0.5 + M.lax.sin(xi)
        return c, c * xi
    return M.lax.scan(body, 0.0, x)


def _while(M, x):
    return M.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]


CASES: dict[str, tuple] = {
    **{L + n: _unary(n) for n in ("abs", "cos", "exp", "expm1", "neg", "sign", "sin", "tan",
                                  "tanh", "logistic", "erf", "erfc", "square", "floor", "ceil",
                                  "round", "stop_gradient")},
    **{L + n: _unary(n, P) for n in ("log", "log1p", "sqrt", "rsqrt")},
    L + "is_finite": _unary("is_finite", V, False),
    **{L + n: _binary(n) for n in ("add", "sub", "mul", "div", "max", "min", "pow", "atan2",
                                   "rem")},
    **{L + n: (lambda M, x, y, n=n: M.lax.select(getattr(M.lax, n)(x, y), x, y), (V, P), True)
       for n in ("eq", "ne", "lt", "le", "gt", "ge")},
    **{L + n: (lambda M, x, n=n: getattr(M.lax, n)((x * 10).astype(np.int32), np.int32(6)),
               (V,), False) for n in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    L + "bitwise_not": (lambda M, x: M.lax.bitwise_not((x * 10).astype(np.int32)), (V,), False),
    L + "integer_pow": (lambda M, x: M.lax.integer_pow(x, 3), (V,), True),
    L + "clamp": (lambda M, x: M.lax.clamp(-0.5, x, 0.5), (V,), True),
    L + "select": (lambda M, x, y: M.lax.select(x > y, x, y), (V, P), True),
    L + "select_n": (lambda M, x, y: M.lax.select_n(x > y, x, y), (V, P), True),
    L + "convert_element_type": (lambda M, x: M.lax.convert_element_type(x, np.int32), (V,),
                                 False),
    L + "reduce_precision": (lambda M, x: M.lax.reduce_precision(x, 5, 10), (V,), True),
    **{L + n: (lambda M, a, n=n: getattr(M.lax, n)(a, (1,)), (A,), True)
       for n in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod")},
    L + "argmax": (lambda M, a: M.lax.argmax(a, 1, np.int32), (A,), False),
    L + "argmin": (lambda M, a: M.lax.argmin(a, 0, np.int32), (A,), False),
    L + "cumsum": (lambda M, a: M.lax.cumsum(a, axis=1), (A,), True),
    L + "dot_general": (lambda M, a, b: M.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
                        (BA, BB), True),
    L + "broadcast_in_dim": (lambda M, x: M.lax.broadcast_in_dim(x, (2, 5), (1,)), (V,), True),
    L + "broadcasted_iota": (lambda M, a: a + M.lax.broadcasted_iota(np.float32, (2, 3), 1),
                             (A,), True),
    L + "iota": (lambda M, x: x * M.lax.iota(np.float32, 5), (V,), True),
    L + "full": (lambda M, x: x * M.lax.full((5,), 2.0), (V,), True),
    L + "full_like": (lambda M, x: x * M.lax.full_like(x, 3.0), (V,), True),
    L + "expand_dims": (lambda M, x: M.lax.expand_dims(x, (0,)), (V,), True),
    L + "reshape": (lambda M, a: M.lax.reshape(a, (3, 2)), (A,), True),
    L + "transpose": (lambda M, a: M.lax.transpose(a, (1, 0)), (A,), True),
    L + "squeeze": (lambda M, a: M.lax.squeeze(a[None], (0,)), (A,), True),
    L + "slice": (lambda M, a: M.lax.slice(a, (0, 1), (2, 3)), (A,), True),
    L + "rev": (lambda M, a: M.lax.rev(a, (1,)), (A,), True),
    L + "pad": (lambda M, x: M.lax.pad(x, 0.0, ((1, 2, 1),)), (V,), True),
    L + "concatenate": (lambda M, a, b: M.lax.concatenate([a, b.T[:, :3]], 0), (A, B), True),
    L + "split": (lambda M, x: M.lax.split(x, (2, 3)), (V,), True),
    L + "dynamic_slice": (lambda M, x, i: M.lax.dynamic_slice(x, (i,), (2,)),
                          (V, np.int32(4)), True),
    L + "dynamic_update_slice": (lambda M, x, i: M.lax.dynamic_update_slice(x, x[:2] * 3.0, (i,)),
                                 (V, np.int32(1)), True),
    L + "dynamic_index_in_dim/int_index": (
        lambda M, a, i: M.lax.dynamic_index_in_dim(a, i, 1, False), (A, np.int32(2)), True),
    L + "gather": (_gather, (V, IDX), True),
    **{L + n: _scatter(n) for n in ("scatter", "scatter_add", "scatter_mul", "scatter_min",
                                    "scatter_max")},
    L + "cond": (lambda M, x, y: M.lax.cond(x.sum() > 0, M.lax.sin, M.lax.cos, y), (V, P), True),
    L + "switch": (lambda M, x: M.lax.switch(2, [M.lax.sin, M.lax.cos, M.lax.exp], x), (V,),
                   True),
    L + "scan": (_scan, (V,), True),
    L + "fori_loop": (lambda M, x: M.lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x), (V,),
                      True),
    L + "while_loop": (_while, (V,), False),
    L + "map": (lambda M, a: M.lax.map(lambda r: M.lax.sin(r) * r.sum(), a), (A,), True),
}
