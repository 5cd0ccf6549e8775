"""Issue 11's control flow and vmap (with jacfwd, jacrev, hessian) against real JAX 0.10.2.

Control flow workloads: make_jaxpr text, the split under every mask, the JVP program and
its grad-mode split, values and (where JAX has them) gradients. vmap workloads: the
batched program's text and values, over in_axes/out_axes choices, nesting, and every
kind of primitive the engine has. Jacobians: values against JAX's.
"""
from __future__ import annotations

import numpy as np
import pytest
from breadth_harness import PAIRS, close, jvp_program, masks, split_text

jax = pytest.importorskip("jax")

rng = np.random.default_rng(7)
V = rng.standard_normal(3).astype(np.float32)
M2 = rng.standard_normal((2, 3)).astype(np.float32)
M3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
S = np.float32(0.7)

# name -> (f(M, *args), args, reverse-differentiable)
CF = {
    "cond": (lambda M, p, x, y: M.lax.cond(p > 0, lambda x, y: M.jnp.sin(x) * y,
                                           lambda x, y: M.jnp.cos(x) + y, x, y),
             (S, V, V), True),
    "cond_bool_pred": (lambda M, x: M.lax.cond(M.jnp.sum(x) > 0, M.jnp.sin, M.jnp.exp, x),
                       (V,), True),
    "cond_residual_mismatch": (lambda M, p, x: M.lax.cond(
        p > 0, lambda v: M.jnp.sin(v) * M.jnp.cos(v), lambda v: v * 3.0, x), (S, V), True),
    "cond_closure": (lambda M, x, y: M.lax.cond(True, lambda v: v * y, lambda v: v, x),
                     (V, V), True),
    "cond_pytree": (lambda M, p, x: M.lax.cond(p < 0, lambda t: (t[0] * 2.0, t[1]),
                                               lambda t: (t[1], t[0]), (x, M.jnp.sin(x))),
                    (S, V), True),
    "switch": (lambda M, i, x: M.lax.switch(i, [M.jnp.sin, M.jnp.cos, lambda v: v * v], x),
               (np.int32(2), V), True),
    "while_loop": (lambda M, x: M.lax.while_loop(lambda c: c[0] < 5,
                                                 lambda c: (c[0] + 1, c[1] * 1.5), (0, x)),
                   (V,), False),
    "while_closure": (lambda M, w, x: M.lax.while_loop(lambda c: M.jnp.sum(c) < 50.0,
                                                       lambda c: c * w + 1.0, x),
                      (np.float32(1.5), np.abs(V)), False),
    "fori_static": (lambda M, x: M.lax.fori_loop(0, 4, lambda i, c: c * 0.5 + i, x), (V,), True),
    "fori_dynamic": (lambda M, n, x: M.lax.fori_loop(0, n, lambda i, c: M.jnp.sin(c), x),
                     (np.int32(3), V), False),
    "map": (lambda M, xs: M.lax.map(lambda r: M.jnp.sum(r * r), xs), (M2,), True),
    "stop_gradient": (lambda M, x: x * M.lax.stop_gradient(M.jnp.exp(x)), (V,), True),
}

def _run(M, f):
    return lambda *a: f(M, *a)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", sorted(CF))
def test_control_flow_text_and_values(name, ours, theirs):
    f, args, _ = CF[name]
    assert str(ours.make_jaxpr(_run(ours, f))(*args)) == \
        str(theirs.make_jaxpr(_run(theirs, f))(*args))
    close(_run(ours, f)(*args), _run(theirs, f)(*args))


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", sorted(CF))
def test_control_flow_split(name, ours, theirs):
    f, args, _ = CF[name]
    jo, jt = ours.make_jaxpr(_run(ours, f))(*args), theirs.make_jaxpr(_run(theirs, f))(*args)
    for mask in masks(len(args), limit=8):
        assert split_text(ours, jo, mask) == split_text(theirs, jt, mask), mask


def _float_args(args):
    return [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", sorted(CF))
def test_control_flow_jvp_and_grad_mode(name, ours, theirs):
    f, args, _ = CF[name]
    fl = _float_args(args)
    if len(fl) != len(args):  # integer inputs have float0 tangents in JAX: close over them
        all_args = args

        def fix(M):
            def g(*xs):
                full = list(all_args)
                for i, x in zip(fl, xs):
                    full[i] = x
                return f(M, *full)
            return g
        fo, ft, args = fix(ours), fix(theirs), [args[i] for i in fl]
    else:
        fo, ft = _run(ours, f), _run(theirs, f)
    po, pt = jvp_program(ours, fo, args), jvp_program(theirs, ft, args)
    if not any(np.asarray(o).dtype.kind in "iu" for o in
               jax.tree_util.tree_leaves(ft(*args))):  # JAX gives int outputs float0 tangents
        assert str(po) == str(pt)
        n = len(args)
        assert split_text(ours, po, [False] * n + [True] * n) == \
            split_text(theirs, pt, [False] * n + [True] * n)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", sorted(n for n, (_, _, rev) in CF.items() if rev))
def test_control_flow_gradients(name, ours, theirs):
    f, args, _ = CF[name]
    nums = tuple(_float_args(args))

    def summed(M):
        return lambda *a: sum(M.jnp.sum(o) for o in jax.tree_util.tree_leaves(f(M, *a)))

    close(ours.grad(summed(ours), argnums=nums)(*args),
          theirs.grad(summed(theirs), argnums=nums)(*args), tol=1e-4)


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_reverse_mode_through_while_raises_jaxs_error(ours, theirs):
    """A while loop (or a fori_loop whose bounds are traced, here by jit) has no transpose."""
    def loss(M):
        def g(x, n):
            y = M.lax.fori_loop(0, n, lambda i, c: M.jnp.sin(c), x)
            return M.lax.while_loop(lambda c: M.jnp.sum(c) < 10.0, lambda c: c * 2.0, y).sum()
        return g

    messages = []
    for M in (ours, theirs):
        with pytest.raises(ValueError) as e:
            M.jit(M.grad(loss(M)))(np.abs(V) + 0.1, 3)
        messages.append(str(e.value).split("\n")[0])
    assert messages[0] == messages[1]


# --------------------------------------------------------------------------- vmap

# name -> (f(M, *args), args, in_axes, out_axes)
VM = {
    "elementwise": (lambda M, x, y: M.jnp.sin(x) * y + 1.0, (M2, M2), 0, 0),
    "unbatched_arg": (lambda M, x, y: x * y, (M2, V), (0, None), 0),
    "in_axes_1": (lambda M, x: M.jnp.max(x, axis=0), (M2,), 1, 0),
    "out_axes_1": (lambda M, x: M.jnp.outer(x, x), (M2,), 0, 1),
    "reductions": (lambda M, x: (M.jnp.sum(x ** 2), M.jnp.argmax(x), M.jnp.prod(x)), (M2,), 0,
                   0),
    "matvec": (lambda M, x, w: x @ w, (M2, B), (0, None), 0),
    "batched_weights": (lambda M, x, w: x @ w, (V, np.stack([B, B])), (None, 0), 0),
    "dot_both": (lambda M, x, y: M.jnp.dot(x, y), (M2, M2), 0, 0),
    "shapes": (lambda M, x: x.reshape(3, 1).T[0, ::-1], (M2,), 0, 0),
    "indexing": (lambda M, x: x[1:] + x[0] + x[np.array([2, 0])], (M2,), 0, 0),
    "dynamic_slices": (lambda M, x, i: M.lax.dynamic_update_slice(
        x, M.lax.dynamic_slice(x, (i,), (2,)) * 2.0, (i,)), (M2, np.array([1, 0], np.int32)), 0, 0),
    "dynamic_slices_unbatched_index": (lambda M, x, i: M.lax.dynamic_update_slice(
        x, M.lax.dynamic_slice(x, (i,), (2,)) * 2.0, (i,)), (M2, np.int32(1)), (0, None), 0),
    "traced_index": (lambda M, x, i: x[i], (M2, np.array([0, 2], np.int32)), 0, 0),
    "at_updates": (lambda M, x: x.at[1].add(5.0).at[0].set(2.0), (M2,), 0, 0),
    "where_jit": (lambda M, x: M.jnp.where(x > 0, x, -x) + M.jnp.cumsum(x), (M2,), 0, 0),
    "concat_stack": (lambda M, x: M.jnp.stack([M.jnp.concatenate([x, x]), M.jnp.tile(x, 2)]),
                     (M2,), 0, 0),
    "nn": (lambda M, x, w: M.nn.softmax(M.nn.relu(x @ w)) + M.nn.softplus(x @ w), (M2, B),
           (0, None), 0),
    "nested": (lambda M, x: M.vmap(lambda r: r * M.jnp.sum(r))(x), (M3,), 0, 0),
    "cond": (lambda M, x: M.lax.cond(True, M.jnp.sin, M.jnp.cos, x), (M2,), 0, 0),
    "cond_batched_pred": (lambda M, x: M.lax.cond(M.jnp.sum(x) > 0, M.jnp.sin, M.jnp.cos, x),
                          (M2,), 0, 0),
    "scan": (lambda M, x: M.lax.scan(lambda c, v: (c + v, c * v), 0.0, x), (M2,), 0, 0),
    "fori": (lambda M, x: M.lax.fori_loop(0, 3, lambda i, c: c * 0.5 + i, x), (M2,), 0, 0),
    "while": (lambda M, x: M.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0),
                                            (0, x)), (M2,), 0, 0),
    "custom_jvp_grad": (lambda M, x: M.grad(lambda y: M.jnp.sum(M.nn.relu(y)))(x), (M2,), 0, 0),
    "jit_inside": (lambda M, x: M.jit(lambda v: M.jnp.sin(v) * 2.0)(x), (M2,), 0, 0),
}


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("name", sorted(VM))
def test_vmap_text_and_values(name, ours, theirs):
    f, args, in_axes, out_axes = VM[name]

    def batched(M):
        return M.vmap(lambda *a: f(M, *a), in_axes=in_axes, out_axes=out_axes)

    assert str(ours.make_jaxpr(batched(ours))(*args)) == \
        str(theirs.make_jaxpr(batched(theirs))(*args))
    close(batched(ours)(*args), batched(theirs)(*args))


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_vmap_inside_grad(ours, theirs):
    def loss(M):
        return lambda w, xs: M.jnp.mean(M.vmap(lambda x: M.jnp.tanh(M.jnp.dot(w, x)))(xs) ** 2)
    close(ours.grad(loss(ours))(V, M2), theirs.grad(loss(theirs))(V, M2))


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("which", ["jacfwd", "jacrev", "hessian"])
def test_jacobians(which, ours, theirs):
    def f(M):
        return lambda x, y: M.jnp.sin(x) * M.jnp.sum(y ** 2) + M.jnp.tanh(x[::-1])

    for argnums in (0, (0, 1)):
        close(getattr(ours, which)(f(ours), argnums=argnums)(V, V),
              getattr(theirs, which)(f(theirs), argnums=argnums)(V, V), tol=1e-4)


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_jacobian_of_pytree_output(ours, theirs):
    def f(M):
        return lambda x: {"a": M.jnp.sin(x), "b": (M.jnp.sum(x), x * 2.0)}

    close(ours.jacrev(f(ours))(V), theirs.jacrev(f(theirs))(V))
    close(ours.jacfwd(f(ours))(V), theirs.jacfwd(f(theirs))(V))


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_vmap_axis_errors_like_jax(ours, theirs):
    for bad in [((0, 0), (M2, np.ones((3, 2), np.float32))), (0, (np.float32(1.0),))]:
        in_axes, args = bad
        with pytest.raises(ValueError):
            ours.vmap(lambda *a: a[0], in_axes=in_axes)(*args)
        with pytest.raises(ValueError):
            theirs.vmap(lambda *a: a[0], in_axes=in_axes)(*args)


# --------------------------------------------------------------------------- jit and checkpoint


def _mlp(M, w, x, n):
    h = x
    for _ in range(n):
        h = M.jnp.tanh(h @ w)
    return M.jnp.sum(h)


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_jit_static_argnums_and_argnames(ours, theirs):
    def run(M):
        by_num = M.jit(lambda w, x, n: _mlp(M, w, x, n), static_argnums=2)
        by_name = M.jit(lambda w, x, n=1: _mlp(M, w, x, n), static_argnames="n")
        return (str(M.make_jaxpr(lambda w, x: by_num(w, x, 2))(B[:, :3], V)),
                str(M.make_jaxpr(lambda w, x: by_name(w, x, n=3))(B[:, :3], V)),
                by_num(B[:, :3], V, 2), by_name(B[:, :3], V, n=3),
                M.grad(by_name)(B[:, :3], V, n=2))
    o, t = run(ours), run(theirs)
    assert o[:2] == t[:2]
    close(o[2:], t[2:], tol=1e-4)


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_checkpoint_static_argnums(ours, theirs):
    def run(M):
        f = M.checkpoint(lambda w, x, n: _mlp(M, w, x, n), static_argnums=(2,))
        return (str(M.make_jaxpr(lambda w, x: f(w, x, 2))(B[:, :3], V)),
                M.grad(f, argnums=(0, 1))(B[:, :3], V, 2))
    o, t = run(ours), run(theirs)
    assert o[0] == t[0]
    close(o[1], t[1], tol=1e-4)


@pytest.mark.parametrize("ours,theirs", PAIRS)
def test_every_policy_name_exists_and_save_anything_except_these_names(ours, theirs):
    assert sorted(vars(ours.policies)) == sorted(n for n in vars(theirs.policies)
                                                 if not n.startswith("_"))

    def run(M):
        pol = M.policies.save_anything_except_these_names("h")
        f = M.checkpoint(lambda w, x: _mlp(M, w, x, 2), policy=pol)
        return M.grad(f, argnums=(0, 1))(B[:, :3], V)
    close(run(ours), run(theirs), tol=1e-4)


@pytest.mark.parametrize("ours,theirs", PAIRS)
@pytest.mark.parametrize("policy", ["nothing_saveable", "everything_saveable", "dots_saveable",
                                    "save_anything_except_these_names"])
def test_cond_and_nn_inside_checkpoint_save_what_jax_saves(policy, ours, theirs):
    from jax._src import ad_checkpoint as jax_adc

    import pe_engine as pe

    def f(M):
        def g(x, w):
            h = M.jnp.sin(x * w)
            y = M.lax.cond(M.jnp.sum(h) > 0, lambda a: M.jnp.tanh(a) * w, M.jnp.cos, h)
            return M.jnp.sum(M.nn.relu(y) ** 2)
        return g

    def run(M, saved):
        pol = getattr(M.policies, policy)
        pol = pol("h") if policy == "save_anything_except_these_names" else pol
        g = M.checkpoint(f(M), policy=pol)
        res = sorted(a.str_short(short_dtypes=True) for a, src in saved(g, V, S)
                     if src != "from a literal")
        return res, M.grad(g, argnums=(0, 1))(V, S)

    saved = {"engine": pe.ad_checkpoint.saved_residuals, "jax": jax_adc.saved_residuals}
    (ro, go), (rt, gt) = run(ours, saved[ours.name]), run(theirs, saved[theirs.name])
    assert ro == rt
    close(go, gt, tol=1e-4)
