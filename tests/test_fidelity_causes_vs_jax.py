"""Issue 45's causes of difference from JAX 0.10.2, one section each (cause 5, the checkpoint
trace cache, is tested with the caches), and their siblings: the same mistake elsewhere.

Workloads are written once against `M` (tests/differential.py) as a user would write them and
compared through the views where the engine differed, once against the engine and once
against JAX itself (the harness's self-check).
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import (
    backward,
    compare,
    folded,
    grad_record,
    grad_values,
    jvp_program,
    output_types,
    saved,
    staged,
)

rng = np.random.default_rng(45)
V5 = rng.standard_normal(5).astype(np.float32)
P5 = (np.abs(rng.standard_normal(5)) + 0.5).astype(np.float32)
A23 = rng.standard_normal((2, 3)).astype(np.float32)
A34 = rng.standard_normal((3, 4)).astype(np.float32)
I5 = np.arange(1, 6, dtype=np.int32)
J5 = np.array([2, 3, -2, 3, 4], np.int32)

WORKLOADS: dict[str, tuple] = {}


def workload(*args, views):
    def register(fn):
        WORKLOADS[fn.__name__] = (fn, args, views)
        return fn
    return register


# ------------------------------------------------- 1 eager constant folding: literal or constvar
# JAX keeps a Python scalar an inline jit was given a literal; what an operation computed
# from constants alone is an array, hoisted as a constvar, one per object (an inline jit's
# cached trace makes its constants once).


@workload(V5, views=(folded,))
def folded_softmax_family(M, x):
    return M.nn.softmax(x) + M.nn.log_softmax(x) + M.nn.logsumexp(x)


@workload(A23, views=(folded,))
def folded_max_min_initial(M, a):
    return M.jnp.max(a, axis=1, initial=0.0) + M.jnp.min(a, axis=1, initial=0.5) \
        + M.jnp.prod(a, axis=1, initial=2.0)


@workload(V5, np.int32(-2), views=(folded,))
def folded_index_normalisation(M, x, i):
    return x[i] + M.lax.dynamic_slice(x, (i,), (2,)).sum() + x.at[i].set(0.0).sum()


@workload(V5, views=(folded,))
def folded_var_std(M, x):
    return M.jnp.var(x) + M.jnp.std(x, ddof=1)


@workload(V5, P5, views=(folded,))
def folded_remainder(M, x, y):
    return x % 3.0 + M.jnp.remainder(x, y) + (M.jnp.arange(5) % 3)


@workload(V5, views=(folded,))
def folded_mean_twice(M, x):
    # jnp.mean's count is one constant of its cached trace: JAX shares its constvar
    return M.jnp.mean(x) + M.jnp.mean(x * 2.0) + M.nn.standardize(x).sum()


@workload(np.int32(3), V5, views=(folded,))
def folded_fori_dynamic(M, n, x):
    return M.lax.fori_loop(0, n, lambda i, c: M.jnp.sin(c) + M.jnp.mean(c), x)


@workload(V5, I5, views=(folded,))
def folded_where_int_condition(M, x, k):
    return M.jnp.where(k, x, 2.0) + M.jnp.where(x > 0, x, 0.0)


@workload(V5, views=(folded,))
def folded_norms(M, x):
    return M.jnp.linalg.norm(x, ord=np.inf) + M.jnp.linalg.norm(x.reshape(1, 5), ord=1)


# ----------------------------------------------------------------- 2 jacfwd's split and casts


@workload(V5[:3], views=(staged,))
def jacfwd_one_argument(M, x):
    return M.jacfwd(lambda v: M.jnp.sin(v) * 2.0)(x)


@workload(V5[:3], A23, views=(staged,))
def jacfwd_two_arguments(M, x, a):
    return M.jacfwd(lambda v, w: v * M.jnp.sum(w), argnums=(0, 1))(x, a)


@workload(A23, views=(staged,))
def jacrev_and_hessian(M, a):
    f = lambda w: M.jnp.sum(M.jnp.sin(w) ** 2)  # noqa: E731
    return M.jacrev(lambda w: M.jnp.tanh(w) * 2.0)(a), M.hessian(f)(a[0])


@workload(np.float32(1.5), views=(staged,))
def jacfwd_of_a_pytree_scalar(M, s):
    return M.jacfwd(lambda d: (d["a"] * d["b"], d["b"]))({"a": s, "b": s * 2.0})


# ----------------------------------------------------------------------- 3 scan's unroll=True


@workload(V5, views=(staged,))
def scan_unroll_true(M, x):
    return M.lax.scan(lambda c, a: (c + a, c * a), 0.0, x, unroll=True)


@workload(V5, views=(staged,))
def fori_unroll_true(M, x):
    return M.lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x, unroll=True)


# ------------------------------------------------------------ 4 the infinity norm's initial=0


@workload(V5, views=(staged, saved, grad_values))
def norm_inf(M, x):
    return M.jnp.linalg.norm(x, ord=np.inf)


@workload(A34, views=(staged, saved, grad_values))
def matrix_norms(M, a):
    n = M.jnp.linalg
    return n.norm(a, ord=1) + n.norm(a, ord=-1) + n.norm(a, ord=np.inf) \
        + n.norm(a, ord=-np.inf, axis=(1, 0), keepdims=True).sum()


@workload(V5, views=(staged, grad_values))
def vector_norms(M, x):
    n = M.jnp.linalg
    return n.norm(x, ord=0) + n.norm(x, ord=3) + n.norm(x, ord=0.5) + n.norm(x, ord=-np.inf)


# ----------------------------------------------------- 6 a weakly typed index (a fori counter)


@workload(V5, views=(staged, jvp_program))
def at_set_fori_counter(M, x):
    return M.lax.fori_loop(0, 3, lambda i, c: c.at[i].set(c[i + 1] * 2.0), x)


# ------------------------------------------------------------------ 7 clip's keyword bounds


@workload(V5, views=(staged,))
def clip_method_under_jit(M, x):
    return M.jit(lambda v: v.clip(-0.5, 0.5) + v.clip(max=0.2))(x)


# ----------------------------------------------------------- 8 values are JAX's Arrays


@workload(V5, views=(output_types,))
def jit_literal_outputs(M, x):
    return M.jit(lambda v: (2.0, v, 3, True, np.float32(1.5), np.ones(2, np.float32)))(x)


@workload(V5, views=(output_types,))
def cond_and_switch_literal_branches(M, x):
    return (M.lax.cond(True, lambda v: 1.0, lambda v: v.sum(), x),
            M.lax.cond(False, lambda v: (v, 1), lambda v: (v * 2.0, 2), x),
            M.lax.switch(1, [lambda v: 1.0, lambda v: 2.0], x),
            M.jit(lambda v: M.lax.cond(v[0] > 0, lambda u: 1.0, lambda u: u.sum(), v))(x))


@workload(V5, views=(output_types,))
def values_run_now(M, x):
    return (M.lax.scan(lambda c, a: (c, a), 0.0, np.asarray(x))[1],
            M.jnp.ravel(np.asarray(x)), M.jnp.squeeze(np.asarray(x)),
            M.jnp.floor(np.arange(3)), M.lax.convert_element_type(np.float32(2.0), np.float32),
            M.lax.stop_gradient(1.0), M.jnp.sum(x) * 0.0)


@workload(V5, views=(output_types,))
def values_of_weak_scalars_and_numpy(M, x):
    # JAX's shortcuts (no-op transpose, reshape, cast) are for its arrays: a NumPy value is
    # bound, run now, and comes back an array; a weak scalar's comparisons stay weak.
    return (M.jnp.transpose(np.float32(2.0)), M.jnp.reshape(np.asarray(x), (5, 1)),
            M.jnp.isfinite(2.0), M.jnp.logical_not(2.0), M.jnp.round(2.5, 1),
            M.jvp(lambda v: 2.0, (x,), (x,))[1], M.linearize(lambda v: (v, 2.0), x)[1](x))


@workload(A23, views=(staged,))
def numpy_constants_are_bound(M, a):
    c = np.ones((2, 3), np.float32)
    return a + M.lax.transpose(c, (0, 1)) + M.lax.reshape(c, (2, 3)) + M.lax.squeeze(c, ())


# ---------------------------------------------- 9 integer remainder by an array: eq, then ones


@workload(I5, J5, views=(staged,))
def int_remainder_by_array(M, a, b):
    return M.jnp.remainder(a, b), a % b, M.jnp.floor_divide(a, b)


# ---------------------------------------- 10 has_aux keeps the outer transformations' tangents


def _inner_grad_with_aux(M, x):
    def inner(y):
        z = M.jnp.sin(y) * x
        return M.jnp.sum(z), {"z": z * 2.0, "s": M.jnp.sum(z)}
    g, aux = M.grad(inner, has_aux=True)(x)
    return M.jnp.sum(aux["z"]) + aux["s"] + M.jnp.sum(g)


@workload(V5, views=(grad_values, jvp_program))
def grad_through_has_aux(M, x):
    return _inner_grad_with_aux(M, x)


@workload(V5, views=(grad_values,))
def grad_through_vjp_has_aux(M, x):
    y, f_vjp, aux = M.vjp(lambda v: (M.jnp.sin(v) * x, M.jnp.cos(v) * x), x, has_aux=True)
    return M.jnp.sum(f_vjp(y)[0] * aux)


@workload(V5, views=(grad_values,))
def grad_of_value_and_grad_aux(M, x):
    (v, aux), g = M.value_and_grad(lambda y: (M.jnp.sum(y * y), y * x), has_aux=True)(x)
    return v + M.jnp.sum(aux) + M.jnp.sum(g * x)


# ------------------------------------------- 11 zero tangents a JVP rule makes are residuals


@workload(V5, views=(saved,))
def saved_scatter_zero_operand(M, x):
    return M.jnp.sum(M.jnp.sin(M.jnp.zeros(5).at[1].set(x[0])))


@workload(V5, views=(saved,))
def saved_scatter_add_zero_updates(M, x):
    return M.jnp.sum(M.jnp.sin(x.at[np.array([0, 2])].add(1.0)))


@workload(V5, views=(saved,))
def saved_scatter_min_and_slice_set(M, x):
    y = M.jnp.ones(5).at[np.array([0, 1])].min(x[:2]) + M.jnp.zeros(5).at[1:3].set(x[:2])
    return M.jnp.sum(M.jnp.sin(y))


@workload(V5, views=(saved,))
def saved_dynamic_update_slice_zeros(M, x):
    a = M.lax.dynamic_update_slice(M.jnp.zeros(5), x[:2], (1,))
    b = M.lax.dynamic_update_slice(x, M.jnp.ones(2), (1,))
    return M.jnp.sum(M.jnp.sin(a + b))


@workload(V5, views=(saved,))
def saved_concatenate_stack_zeros(M, x):
    c = M.jnp.concatenate([x, M.jnp.ones(2)])
    s = M.jnp.stack([x, M.jnp.ones(5)])
    return M.jnp.sum(M.jnp.sin(c)) + M.jnp.sum(M.jnp.sin(s))


@workload(V5, views=(saved,))
def saved_fori_carried_zero(M, x):
    # a scan's carried zero tangent JAX makes on the tangent side: not a residual
    return M.lax.fori_loop(0, 3, lambda i, c: M.jnp.sin(c) * x, M.jnp.zeros(5)).sum()


# ---------------------------------- 12 and 13: zeros a linearized primitive makes, saved
# JAX 0.10.2 always linearizes directly (its jax_use_direct_linearize flag is defined but read
# nowhere), and a primitive linearized from its JVP rule makes that rule's zero tangents on
# the primal side, so saved_residuals lists them: select_n's zero for jnp.where's nan case
# inside jnp.var (jnp.std), a literal branch's zero tangent in cond. Linearizing as JVP +
# partial evaluation, the engine's design, inlines those zeros as literals, exactly as JAX's
# own partial_eval_jaxpr_nounits does with JAX's JVP program: the grad record and the
# backward pass agree with JAX; only saved_residuals differs (README, Differences from JAX).
DIRECT_LINEARIZE = {"saved_std", "saved_var", "saved_cond_literal_branch",
                    "saved_switch_literal_branch"}


@workload(V5, views=(saved, grad_record, backward))
def saved_std(M, x):
    return M.jnp.std(x)


@workload(V5, views=(saved, grad_record, backward))
def saved_var(M, x):
    return M.jnp.var(x)


@workload(V5, views=(saved, grad_record, backward))
def saved_cond_literal_branch(M, x):
    return M.lax.cond(x[0] > 0, lambda v: M.jnp.sum(v) * 2.0, lambda v: 1.0, x)


@workload(V5, views=(saved, grad_record, backward))
def saved_switch_literal_branch(M, x):
    return M.jnp.sin(M.lax.switch(1, [lambda v: M.jnp.sum(v * v), lambda v: 1.0], x))


# --------------------------------------------------------------------------- the tests


CASES = [(name, view.__name__) for name, (_, _, views) in sorted(WORKLOADS.items())
         for view in views]


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name,view", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_matches_jax(name, view, impl, request):
    if impl == "engine" and view == "saved" and name in DIRECT_LINEARIZE:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="direct linearize saves the zero tangent a linearized "
                                "primitive's JVP rule makes; JVP + partial eval inlines it"))
    fn, args, views = WORKLOADS[name]
    view_fn = next(v for v in views if v.__name__ == view)
    got, want = compare(view_fn, impl, fn, args)
    assert got == want
