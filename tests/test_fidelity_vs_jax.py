"""Text for text against JAX 0.10.2: the transformed programs a reader sees in grad, checkpoint,
scan and jit, and the values (with weak types) the API returns.

Workloads are written once against `M` (tests/differential.py) as a user would write them.
Each runs under every view listed with it, once against the engine and once against JAX
itself (the harness's self-check).
"""
from __future__ import annotations

import numpy as np
import pytest
from differential import (
    aux_values,
    backward,
    compare,
    folded,
    grad_program,
    grad_record,
    grad_values,
    jvp_program,
    saved,
    split,
    staged,
)

rng = np.random.default_rng(7)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos32(*shape):
    return (np.abs(rng.standard_normal(shape)) + 0.5).astype(np.float32)


V3, V4, U3 = f32(3), f32(4), pos32(3)
M34, M43, M23 = f32(3, 4) * 0.5, f32(4, 3) * 0.5, f32(2, 3)
XS4 = f32(4)
XS43 = f32(4, 3)
C2 = np.array([1.5, -0.5], np.float32)
BIAS3 = np.array([0.1, 0.2, 0.3], np.float32)

WORKLOADS: dict[str, tuple] = {}
AUTODIFF = (jvp_program, grad_record, backward, grad_program, grad_values)
# make_jaxpr(grad(f)) differs by design where JAX 0.10.2's direct linearize and the engine's
# JVP + partial evaluation part ways (README, "Differences from JAX"): the order of a scan's
# residuals, a jit's closed-over constant as a residual, the zeros jnp.where's JVP builds,
# a jit's outputs the gradient does not use.
# The grad record (forward, linear and backward programs) is the same in both.
CLASSIC = (jvp_program, grad_record, backward, grad_values)


def workload(*args, views=AUTODIFF):
    def register(fn):
        WORKLOADS[fn.__name__] = (fn, args, views)
        return fn
    return register


# --------------------------------------------------------------------------- 1 JVP rules


@workload(M34, V4)
def tanh_layer(M, w, x):
    return M.jnp.sum(M.jnp.tanh(w @ x))


@workload(V3)
def sigmoid_loss(M, z):
    p = M.nn.sigmoid(z)
    return -M.jnp.sum(M.jnp.log(p))


@workload(V3, V3)
def squared_error(M, pred, y):
    return M.jnp.mean((pred - y) ** 2)


@workload(U3)
def root_mean(M, x):
    return M.jnp.sum(M.jnp.sqrt(x)) + M.jnp.sum(x ** 3)


@workload(V3)
def tangent_wave(M, x):
    return M.jnp.sum(M.jnp.tan(x * 0.5))


@workload(M34)
def row_max(M, a):
    return M.jnp.sum(M.jnp.max(a, axis=1))


@workload(M34)
def col_max_keepdims(M, a):
    return M.jnp.sum(a - M.jnp.max(a, axis=0, keepdims=True))


@workload(V4, views=CLASSIC)
def relu_where(M, x):
    return M.jnp.sum(M.jnp.where(x > 0, x, 0.01 * x))


@workload(V3, V3, views=CLASSIC)
def where_two_branches(M, x, y):
    return M.jnp.sum(M.jnp.where(x > y, M.jnp.sin(x), y * y))


@workload(V4)
def abs_and_clip(M, x):
    return M.jnp.sum(M.jnp.abs(x) + M.jnp.maximum(x, 0.0) - M.jnp.minimum(x, 1.0))


@workload(U3, U3)
def power_rule(M, x, y):
    return M.jnp.sum(x ** y + x ** 2.0)


@workload(V3)
def softplus(M, x):
    return M.jnp.sum(M.jnp.log(1.0 + M.jnp.exp(x)))


@workload(M34, V4, BIAS3)
def mlp_mean(M, w, x, b):
    h = M.jnp.tanh(w @ x + b)
    return M.jnp.mean(h ** 2)


@workload(1.3)
def scalar_chain(M, x):
    return M.jnp.sin(x) * M.jnp.cos(x) / (1.0 + x * x)


# --------------------------------------------------------------------------- 4 jit


@workload(C2, views=(staged, split, *CLASSIC))
def jit_closes_over_constant(M, x):
    @M.jit
    def scale(a):
        return M.jnp.sin(a) * C2
    return M.jnp.sum(scale(x))


@workload(V3, V3, views=(staged, split, *AUTODIFF))
def jit_called_twice(M, x, y):
    f = M.jit(lambda a, b: M.jnp.tanh(a) * b)
    return M.jnp.sum(f(x, y) + f(y, x))


@workload(V3, views=(staged, split, *CLASSIC))
def jit_const_and_twice(M, x):
    g = M.jit(lambda a: a * BIAS3 + 1.0)
    return M.jnp.sum(g(g(x)))


@workload(V3, V3, views=(staged, split, *AUTODIFF))
def jit_passes_input_through(M, x, y):
    f = M.jit(lambda a, b: (a, M.jnp.sin(a) * b))
    u, v = f(x, y)
    return M.jnp.sum(u * v)


# --------------------------------------------------------------------------- 2 scan


@workload(0.7, XS4, views=(staged, split, *CLASSIC, saved))
def scan_closes_over_sin(M, w, xs):
    def step(c, x):
        return c * M.jnp.sin(w) + x, c
    c, ys = M.lax.scan(step, 0.0, xs)
    return c + M.jnp.sum(ys)


@workload(M34[:, :3], XS43, views=(staged, split, *CLASSIC, saved))
def rnn(M, w, xs):
    def cell(h, x):
        h = M.jnp.tanh(w @ h + x)
        return h, h
    h, hs = M.lax.scan(cell, M.jnp.zeros(3), xs)
    return M.jnp.sum(hs) + M.jnp.sum(h)


@workload(1.0, XS4, views=(staged, split))
def scan_flags_negatives(M, c, xs):
    def step(total, x):
        return total + x, x < 0
    return M.lax.scan(step, c, xs)


@workload(1.0, XS4, views=(staged, split, *AUTODIFF))
def scan_ys_copy_xs(M, c, xs):
    def step(carry, x):
        return carry * x, x
    carry, ys = M.lax.scan(step, c, xs)
    return carry + M.jnp.sum(ys)


@workload(2.0, XS4, views=(staged, split, *AUTODIFF, saved))
def scan_known_counter(M, a, xs):
    def step(carry, x):
        n, acc = carry
        return (n + 1.0, acc + a * x * n), None
    (n, acc), _ = M.lax.scan(step, (0.0, 0.0), xs)
    return acc / n


@workload(XS4, views=(staged, split))
def scan_without_outputs_used(M, xs):
    total, _ = M.lax.scan(lambda c, x: (c + x, None), 0.0, xs)
    return xs * 2.0


# --------------------------------------------------------------------------- 3 checkpoint


def _mlp2(M, w, x):
    h = M.checkpoint_name(M.jnp.tanh(w @ x), "h")
    return M.jnp.sum(M.jnp.sin(h) * h)


def _policy(M, name):
    p = M.policies
    return {"none": None, "everything": p.everything_saveable, "dots": p.dots_saveable,
            "names": p.save_only_these_names("h"), "not_h": p.save_any_names_but_these("h"),
            "both": p.save_from_both_policies(p.dots_saveable, p.save_only_these_names("h"))
            }[name]


CKPT_VIEWS = (staged, split, *AUTODIFF, saved)


def _remat_workload(policy):
    def remat(M, w, x):
        return M.checkpoint(lambda w, x: _mlp2(M, w, x), policy=_policy(M, policy))(w, x)
    remat.__name__ = f"remat_{policy}"
    return workload(M43, V3, views=CKPT_VIEWS)(remat)


for _policy_name in ("none", "everything", "dots", "names", "not_h", "both"):
    _remat_workload(_policy_name)


@workload(V3, views=(staged, *AUTODIFF))
def named_tangent(M, x):
    return M.jnp.sum(M.checkpoint_name(M.jnp.sin(x), "s") * x)


# --------------------------------------------------------------------------- 5 weak types


@workload(2.0, views=(staged, *AUTODIFF))
def square_of_python_float(M, a):
    return a ** 2


@workload(2.0, 3.0, views=(staged, *AUTODIFF))
def weak_product(M, a, b):
    return a * b + 1.0


@workload(2.5, views=(staged, *AUTODIFF))
def sum_of_weak(M, a):
    return M.jnp.sum(a * 2.0) + M.jnp.max(a) + M.jnp.mean(a)


@workload(V3, views=(staged, folded))
def plus_sin_one(M, x):
    return x + M.jnp.sin(1.0)


@workload(V3, views=(staged, folded))
def mean_divisor(M, x):
    return M.jnp.mean(x) + M.jnp.mean(x * x, axis=0)


@workload(V3, views=(staged, folded))
def folded_constants(M, x):
    scale = M.jnp.exp(0.5) * 2.0
    return M.jnp.sum(x) / 3.0 + scale * M.jnp.cos(M.jnp.array([1.0, 2.0, 3.0])) @ x


@workload(V3, views=(staged, folded, *AUTODIFF))
def float64_scalars(M, x):
    return x * np.float64(2.1) + np.float64(0.1)


# --------------------------------------------------------------------------- 7 aux, zero tangents


@workload(M34, V4, views=(aux_values,))
def loss_with_stats(M, w, x):
    h = M.jnp.tanh(w @ x)
    return M.jnp.sum(h ** 2), {"h": h, "peak": M.jnp.max(h)}


@workload(V3, views=(aux_values,))
def aux_is_a_tuple(M, x):
    y = M.jnp.sin(x)
    return M.jnp.mean(y), (y * 2.0, M.jnp.cos(x))


@workload(2.0, views=(aux_values,))
def aux_from_a_python_float(M, a):
    return a * a, a + 1.0


@workload(M34[:, :3], XS43, views=(grad_record, backward, grad_values, saved))
def scan_from_zeros_like(M, w, xs):
    def step(h, x):
        return M.jnp.sin(h * x) + w @ h, None
    h, _ = M.lax.scan(step, M.jnp.zeros_like(xs[0]), xs)
    return M.jnp.sum(h)


# --------------------------------------------------------------------------- more, per category


@workload(V4)
def logsumexp(M, x):
    m = M.jnp.max(x)
    return m + M.jnp.log(M.jnp.sum(M.jnp.exp(x - m)))


@workload(M34)
def softmax_cross_entropy(M, logits):
    z = logits - M.jnp.max(logits, axis=-1, keepdims=True)
    logp = z - M.jnp.log(M.jnp.sum(M.jnp.exp(z), axis=-1, keepdims=True))
    return -M.jnp.mean(logp[:, 0])


@workload(V4, V4, views=CLASSIC)
def huber(M, pred, y):
    r = pred - y
    return M.jnp.sum(M.jnp.where(M.jnp.abs(r) < 1.0, 0.5 * r ** 2, M.jnp.abs(r) - 0.5))


@workload(V3, U3)
def cosine_similarity(M, a, b):
    return M.jnp.dot(a, b) / (M.jnp.sqrt(M.jnp.sum(a * a)) * M.jnp.sqrt(M.jnp.sum(b * b)))


@workload(1.5)
def polynomial(M, x):
    return x ** 4 - 3 * x ** 2 + x


@workload(V4)
def clip_and_scale(M, x):
    return M.jnp.sum(M.jnp.minimum(M.jnp.maximum(x, -1.0), 1.0) * 3.0)


@workload(U3)
def normalise(M, x):
    p = x / M.jnp.sum(x)
    return M.jnp.sum(p * M.jnp.log(p))


@workload(M34, M34)
def reshape_and_transpose(M, a, b):
    return M.jnp.sum((a.T @ b).reshape(-1) ** 2)


@workload(V4)
def neighbours(M, x):
    return M.jnp.sum(x[1:] * x[:-1]) + M.jnp.sum(x[::2])


@workload(XS4, views=(staged, split, *AUTODIFF, saved))
def cumulative_sum(M, xs):
    total, sums = M.lax.scan(lambda c, x: (c + x, c + x), 0.0, xs)
    return total + M.jnp.sum(sums * sums)


@workload(0.9, XS4, views=(staged, split, *AUTODIFF, saved))
def moving_average(M, alpha, xs):
    def step(avg, x):
        avg = alpha * avg + (1.0 - alpha) * x
        return avg, avg
    _, avgs = M.lax.scan(step, xs[0], xs)
    return M.jnp.sum(avgs)


@workload(M34[:, :3], XS43, views=(staged, split, *CLASSIC, saved))
def two_carries(M, w, xs):
    def step(hc, x):
        h, c = hc
        c = c * 0.5 + M.jnp.tanh(w @ h + x)
        h = M.jnp.sin(c)
        return (h, c), None
    (h, c), _ = M.lax.scan(step, (M.jnp.ones(3), M.jnp.zeros(3)), xs)
    return M.jnp.sum(h * c)


@workload(XS4, views=(staged, split, *AUTODIFF))
def reversed_scan(M, xs):
    def step(c, x):
        return c * x + 1.0, c
    c, ys = M.lax.scan(step, 1.0, xs, reverse=True)
    return c + M.jnp.sum(ys)


# JAX's scan transpose cannot turn this linear program around: its scan emits the carry as
# ys, which the linear scan keeps as an unused output ("Expected cotangent type float32[]
# but got float32[3]"), so there is no backward program of JAX's to compare with.
@workload(1.2, views=(staged, split, jvp_program, grad_record, grad_program, grad_values))
def scan_without_xs(M, x):
    def step(c, _):
        return M.jnp.sin(c) * x, c
    c, _ = M.lax.scan(step, x, None, length=3)
    return c


@workload(M43, V3, views=CKPT_VIEWS)
def remat_then_more(M, w, x):
    def layer(w, x):
        return M.jnp.tanh(w @ x)
    h = M.checkpoint(layer)(w, x)
    return M.jnp.sum(M.jnp.exp(h) * h)


@workload(M43, V3, views=CKPT_VIEWS)
def remat_twice(M, w, x):
    layer = M.checkpoint(lambda v: M.jnp.sin(v) * 2.0)
    return M.jnp.sum(layer(w @ x) + layer(w @ x * 3.0))


@workload(M43, V3, views=(staged, split, *CLASSIC, saved))
def remat_inside_jit(M, w, x):
    @M.jit
    def step(w, x):
        return M.checkpoint(lambda a, b: M.jnp.sum(M.jnp.tanh(a @ b)),
                            policy=M.policies.dots_with_no_batch_dims_saveable)(w, x)
    return step(w, x) * 2.0


@workload(V3, views=(staged, split, *CLASSIC))
def jit_in_jit_with_constant(M, x):
    @M.jit
    def outer(a):
        inner = M.jit(lambda b: b * BIAS3)
        return inner(a) + inner(a * 2.0)
    return M.jnp.sum(outer(x))


@workload(V3, V3, views=(staged, split, *CLASSIC))
def jit_unused_output(M, x, y):
    f = M.jit(lambda a, b: (M.jnp.sin(a) * b, M.jnp.cos(a)))
    u, _ = f(x, y)
    return M.jnp.sum(u)


@workload(V3, views=(staged, split, *AUTODIFF))
def jit_in_a_loop(M, x):
    step = M.jit(lambda a: M.jnp.tanh(a) + 0.5)
    for _ in range(3):
        x = step(x)
    return M.jnp.sum(x)


@workload(V3, V3, views=(staged, split, *AUTODIFF))
def jit_with_static_scale(M, x, y):
    f = M.jit(lambda a, b, k: M.jnp.sin(a * k) * b, static_argnums=(2,))
    return M.jnp.sum(f(x, y, 2.0) + f(y, x, 2.0))


@workload(M34, V4, views=(staged, split, *AUTODIFF))
def jit_of_a_dict(M, w, x):
    @M.jit
    def layer(params, v):
        return M.jnp.tanh(params["w"] @ v + params["b"])
    return M.jnp.sum(layer({"w": w, "b": BIAS3}, x))


@workload(V3, views=(staged, folded, *AUTODIFF))
def int_literals(M, x):
    return M.jnp.sum(x * 3 + 1) + M.jnp.sum(M.jnp.ones(3) * 2)


@workload(V3, views=(staged, folded, *AUTODIFF))
def numpy_scalar_and_mask(M, x):
    mask = (x > 0).astype(M.jnp.float32)
    return M.jnp.sum(M.jnp.float32(2.5) * x * mask)


@workload(V3, views=(staged, folded))
def folded_roundtrip(M, x):
    return x * M.jnp.exp(M.jnp.log(2.0)) + M.jnp.array(3.0) * 2 + M.jnp.mean(x, axis=0)


@workload(2.0, views=(staged, *AUTODIFF))
def weak_integer_power(M, x):
    return x ** 3 * 2 + M.jnp.sqrt(x) / 2


# --------------------------------------------------------------------------- the tests


CASES = [(name, view.__name__) for name, (_, _, views) in sorted(WORKLOADS.items())
         for view in views]


@pytest.mark.parametrize("impl", ["engine", "jax"])
@pytest.mark.parametrize("name,view", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_matches_jax(name, view, impl):
    fn, args, views = WORKLOADS[name]
    view_fn = next(v for v in views if v.__name__ == view)
    got, want = compare(view_fn, impl, fn, args)
    assert got == want
