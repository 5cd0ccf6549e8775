"""Issue 11's jnp, jax.nn and indexing names against real JAX 0.10.2.

Each workload is a function of `M` (the engine or JAX, see breadth_harness) and float
arrays, written the way a user writes it. For every workload: make_jaxpr prints the
same text; values, gradients (where the output can be summed) and the JVP program
agree; and the traced program splits the same way under several known/unknown masks.
"""
from __future__ import annotations

import numpy as np
import pytest
from breadth_harness import PAIRS, Workloads

rng = np.random.default_rng(11)
V = rng.standard_normal(5).astype(np.float32)
P = (np.abs(rng.standard_normal(5)) + 0.5).astype(np.float32)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
BA = rng.standard_normal((4, 2, 3)).astype(np.float32)
BB = rng.standard_normal((4, 3, 5)).astype(np.float32)
IDX = np.array([0, 3, 1], np.int32)

# name -> (f(M, *args), args, differentiable)
W: dict[str, tuple] = {
    # jax.numpy elementwise
    "square": (lambda M, x: M.jnp.square(x), (V,), True),
    "clip": (lambda M, x: M.jnp.clip(x, -0.5, 0.5), (V,), True),
    "clip_min_only": (lambda M, x: M.jnp.clip(x, 0.0), (V,), True),
    "log1p_expm1": (lambda M, x: M.jnp.log1p(x) + M.jnp.expm1(x), (P,), True),
    "logaddexp": (lambda M, x, y: M.jnp.logaddexp(x, y), (V, P), True),
    "arctan2": (lambda M, x, y: M.jnp.arctan2(x, y), (V, P), True),
    "floor_ceil_round": (lambda M, x: M.jnp.floor(x) + M.jnp.ceil(x) + M.jnp.round(x),
                         (V,), True),
    "round_decimals": (lambda M, x: M.jnp.round(x, 2), (V,), False),
    "float_floordiv_mod": (lambda M, x, y: (x // y, x % y), (V, P), True),
    "int_floordiv_mod": (lambda M, x: ((x * 10).astype(M.jnp.int32) // 3,
                                       (x * 10).astype(M.jnp.int32) % 3), (V,), False),
    "bool_ops": (lambda M, x, y: M.jnp.where((x > 0) & (y < 1) | ~(x > y), x, y), (V, P), True),
    "logical": (lambda M, x, y: M.jnp.where(M.jnp.logical_or(M.jnp.logical_and(x > 0, y > 1),
                                                             M.jnp.logical_not(x < -1)), x, 0.0),
                (V, P), True),
    "compare_astype": (lambda M, x: ((x > 0).astype(M.jnp.float32) * x,
                                     x.astype(M.jnp.int32), (x < 0).astype(M.jnp.int32) + 1),
                       (V,), False),
    "where_scalar": (lambda M, x: M.jnp.where(x > 0, x, 0.0), (V,), True),
    # reductions
    "prod": (lambda M, x: M.jnp.prod(x), (P,), True),
    "prod_axis": (lambda M, x: M.jnp.prod(x, axis=1), (A,), True),
    "cumsum": (lambda M, x: M.jnp.cumsum(x), (V,), True),
    "cumsum_axis": (lambda M, x: M.jnp.cumsum(x, axis=1), (A,), True),
    "var_std": (lambda M, x: (M.jnp.var(x), M.jnp.std(x)), (V,), True),
    "var_axis": (lambda M, x: M.jnp.var(x, axis=0), (A,), True),
    "min_max_grad": (lambda M, x: M.jnp.min(x * 2.0) + M.jnp.max(x, initial=0.0), (V,), True),
    "argmax_argmin": (lambda M, x: (M.jnp.argmax(x), M.jnp.argmin(x, axis=1)), (A,), False),
    "norm": (lambda M, x: M.jnp.linalg.norm(x), (V,), True),
    "norm_matrix": (lambda M, x: M.jnp.linalg.norm(x), (A,), True),
    "norm_axis": (lambda M, x: M.jnp.linalg.norm(x, axis=1), (A,), True),
    "outer": (lambda M, x, y: M.jnp.outer(x, y), (V, P), True),
    "mean_of_square": (lambda M, x: M.jnp.mean(M.jnp.square(x - M.jnp.mean(x))), (V,), True),
    # creation and joining
    "arange_int": (lambda M, x: x + M.jnp.arange(5), (V,), True),
    "arange_float": (lambda M, x: x * M.jnp.arange(0.0, 1.0, 0.2), (V,), True),
    "full_eye": (lambda M, x: M.jnp.full((3, 3), 2.0) * x[:3] + M.jnp.eye(3), (V,), True),
    "zeros_ones_like": (lambda M, x: M.jnp.zeros_like(x) + M.jnp.ones_like(x) * x, (V,), True),
    "concatenate": (lambda M, x, y: M.jnp.concatenate([x, y, x]), (V, P), True),
    "concatenate_axis1": (lambda M, a: M.jnp.concatenate([a, a * 2.0], axis=1), (A,), True),
    "stack": (lambda M, x, y: M.jnp.stack([x, y]), (V, P), True),
    "stack_axis1": (lambda M, x, y: M.jnp.stack([x, y], axis=1), (V, P), True),
    "split": (lambda M, a: M.jnp.split(a, 3, axis=1), (A,), True),
    "tile": (lambda M, x: M.jnp.tile(x, 2), (V,), True),
    "tile_2d": (lambda M, a: M.jnp.tile(a, (2, 1)), (A,), True),
    "repeat": (lambda M, x: M.jnp.repeat(x, 2), (V,), True),
    "repeat_axis": (lambda M, a: M.jnp.repeat(a, 3, axis=0), (A,), True),
    "flip": (lambda M, x: M.jnp.flip(x), (V,), True),
    "flip_axis": (lambda M, a: M.jnp.flip(a, axis=1), (A,), True),
    "roll": (lambda M, x: M.jnp.roll(x, 2), (V,), True),
    "roll_axis": (lambda M, a: M.jnp.roll(a, -1, axis=1), (A,), True),
    # contractions
    "einsum_ij_jk": (lambda M, a, b: M.jnp.einsum("ij,jk->ik", a, b), (A, B), True),
    "einsum_bij_bjk": (lambda M, a, b: M.jnp.einsum("bij,bjk->bik", a, b), (BA, BB), True),
    "batched_matmul": (lambda M, a, b: a @ b, (BA, BB), True),
    "matmul_broadcast": (lambda M, a, b: a @ b, (BA, B), True),
    # jax.nn (each function alone: tests/api_cases/nn_cases.py)
    "silu_swish": (lambda M, x: M.nn.silu(x) + M.nn.swish(x), (V,), True),
    "relu_twice": (lambda M, x: M.nn.relu(x) + M.nn.relu(x * 2.0), (V,), True),
    "mlp_nn": (lambda M, w, x: M.nn.log_softmax(M.nn.relu(x @ w) @ w.T), (B, A), True),
    "lax_stop_gradient": (lambda M, x: x * M.lax.stop_gradient(x), (V,), True),
    "lax_select": (lambda M, x, y: M.lax.select(x > y, x, y), (V, P), True),
    "lax_clamp": (lambda M, x: M.lax.clamp(-0.5, x, 0.5), (V,), True),
    # indexing
    "slice_step": (lambda M, x: x[::2], (V,), True),
    "slice_neg_step": (lambda M, x: x[::-1], (V,), True),
    "slice_neg_step2": (lambda M, x: x[3:0:-2], (V,), True),
    "none_ellipsis": (lambda M, a: a[None, ..., 1], (A,), True),
    "row_col": (lambda M, a: a[1] + a[:, 2].sum(), (A,), True),
    "negative_index": (lambda M, x: x[-1] * x[-2], (V,), True),
    "out_of_bounds_static": (lambda M, x: x[7], (V,), True),
    "int_array_gather": (lambda M, x: x[np.array([0, 2, 4])], (V,), True),
    "int_array_2d": (lambda M, a: a[:, np.array([0, 2])], (A,), True),
    "int_array_pair": (lambda M, a: a[np.array([1, 0]), np.array([2, 0])], (A,), True),
    "at_set": (lambda M, x: x.at[1].set(0.0), (V,), True),
    "at_set_slice": (lambda M, x: x.at[::2].set(1.0), (V,), True),
    "at_add_array": (lambda M, x: x.at[np.array([0, 2, 2])].add(x[:3]), (V,), True),
    "at_set_repeated": (lambda M, x, y: x.at[np.array([0, 2, 0])].set(y[:3] * 2.0), (V, P),
                        True),
    "at_mul": (lambda M, x: x.at[1:3].mul(2.0), (V,), True),
    "at_min_max": (lambda M, x: x.at[2].min(0.0) + x.at[0].max(1.0), (V,), True),
    "at_2d": (lambda M, a: a.at[0, 1].add(5.0), (A,), True),
}

# Workloads whose inputs include an integer index array or scalar.
W_INT: dict[str, tuple] = {
    "traced_int_index": (lambda M, x, i: x[i], (V, np.int32(2)), True),
    "traced_int_index_2d": (lambda M, a, i, j: a[i, j], (A, np.int32(1), np.int32(-1)), True),
    "traced_int_array": (lambda M, x, i: x[i], (V, IDX), True),
    "traced_at_add": (lambda M, x, i: x.at[i].add(1.0), (V, IDX), True),
    "traced_at_set": (lambda M, x, i: x.at[i].set(x[i] * 2.0), (V, np.int32(3)), True),
    "dynamic_slice": (lambda M, x, i: M.lax.dynamic_slice(x, (i,), (2,)), (V, np.int32(4)),
                      True),
    "dynamic_update_slice": (lambda M, x, i: M.lax.dynamic_update_slice(x, x[:2] * 3.0, (i,)),
                             (V, np.int32(1)), True),
}
ALL = {**W, **W_INT}

# JAX derives a jit's JVP afresh when that jit is called inside another jit (jnp.std calls
# jnp.var's jit): it prints `_var` and `_var1`, where the engine shares one JVP. Strict, so
# the marker goes once the engine caches as JAX does.
JVP_SHARED_UNLIKE_JAX = {("jvp_program_text", "var_std"), ("grad_mode_split", "var_std")}

WL = Workloads(ALL)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("check,name", WL.params())
def test_workload(check, name, ours, theirs, request):
    if ours.name == "engine" and (check, name) in JVP_SHARED_UNLIKE_JAX:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="JAX re-derives the JVP of a jit called inside another jit "
                                "(jnp.std's jnp.var); the engine shares one"))
    WL.check(check, name, ours, theirs)
