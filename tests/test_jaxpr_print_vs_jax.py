"""Differential test: pe_engine prints the same jaxpr text as JAX and computes the same values.

Each function is written once against a namespace `m` (m.jnp, m.lax, m.jit, m.nn) and
run with JAX's modules and with pe_engine's.
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jjnp  # noqa: E402

import pe_engine  # noqa: E402
import pe_engine.nn  # noqa: E402
import pe_engine.numpy as pjnp  # noqa: E402

JAX = SimpleNamespace(jnp=jjnp, lax=jax.lax, jit=jax.jit, nn=jax.nn)
PE = SimpleNamespace(jnp=pjnp, lax=pe_engine.lax, jit=pe_engine.jit, nn=pe_engine.nn)

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i32(*shape: int) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(np.int32)


# Closed-over NumPy constants: each becomes one constvar, deduplicated by identity.
W1 = f32(3, 4)
B1 = f32(4)
W64 = rng.standard_normal((3,))  # float64: canonicalised to float32

CASES: dict[str, tuple] = {}


def case(*args: np.ndarray):
    def register(fn):
        CASES[fn.__name__] = (fn, args)
        return fn
    return register


@case(f32(2, 3), f32(3))
def sin_times_y(m, x, y):
    return m.jnp.sin(x) * y


@case(f32(2, 3))
def plus_sin_const(m, x):
    return x + m.jnp.sin(1.0)


@case(f32(5, 3), f32(3, 4), f32(4), f32(4, 2))
def mlp(m, x, w1, b1, w2):
    h = m.jnp.tanh(x @ w1 + b1)
    return h @ w2


@case(f32(2, 3))
def mlp_closed_over(m, x):
    h = m.jnp.tanh(x @ W1 + B1)
    return h @ W1.T + W1.sum()


@case(f32(2, 3, 4))
def reductions_axis(m, x):
    return (m.jnp.sum(x, axis=1), m.jnp.max(x, axis=-1), m.jnp.min(x, axis=(0, 2)),
            x.sum(), x.max(0, keepdims=True))


@case(f32(2, 3, 4))
def means(m, x):
    return m.jnp.mean(x), m.jnp.mean(x, axis=0), x.mean(axis=(0, 2), keepdims=True)


@case(i32(3, 2))
def mean_of_ints(m, i):
    return m.jnp.mean(i, axis=1)


@case(f32(2, 3))
def where_literal(m, x):
    return m.jnp.where(x > 0, x, 0.0)


@case(f32(2, 3), f32(3))
def where_broadcast(m, x, y):
    return m.jnp.where(y > 0.5, x, y), m.jnp.where(True, x, 1)


@case(f32(3), i32(3))
def where_promotes(m, x, i):
    return m.jnp.where(i > 1, i, x), m.jnp.where(i, x, 2.0)


@case(f32(2, 3, 4))
def basic_indexing(m, x):
    return x[1], x[0, 1], x[:, None], x[None, 1, :, ::2], x[..., -1], x[0][1:3], x[:]


@case(f32(2, 3))
def reshape_transpose(m, x):
    return x.reshape(3, 2), m.jnp.reshape(x, (-1,)), x.T, m.jnp.transpose(x), x.reshape(2, 3)


@case(f32(2, 3, 4))
def transposes(m, x):
    return m.jnp.transpose(x, (1, 0, 2)), x.transpose(2, 0, 1), x.transpose((0, 2, 1))


@case(f32(3), f32(1, 3, 1))
def broadcast_expand_squeeze(m, y, w):
    return (m.jnp.broadcast_to(y, (2, 3)), m.jnp.broadcast_to(w, (2, 3, 5)),
            m.jnp.expand_dims(y, (0, -1)), m.jnp.squeeze(w), m.jnp.squeeze(w, axis=-1),
            w.squeeze(0), m.jnp.broadcast_to(1.0, (2,)))


@case(f32(2, 3))
def integer_pow(m, x):
    return x ** 2, x ** -1, m.jnp.power(x, 3), x ** np.int32(2), 2.0 ** x


@case(f32(2, 3), f32(3))
def float_pow(m, x, y):
    return m.jnp.abs(x) ** 0.5, m.jnp.power(m.jnp.abs(x), y), m.jnp.power(x, 2.0)


@case(f32(3), i32(3))
def pow_int_exponent_array(m, x, i):
    return x ** i


@case(i32(3), f32(3))
def int_promotion(m, i, x):
    return i + x, i * 2.5, i / 2, i + 1, m.jnp.sin(i), i > 1.5, -i


@case(f32(2, 3), f32(3))
def comparisons(m, x, y):
    return x > y, x < 0, x >= 1.0, x <= y, x == y, x != 2


@case(f32(2, 3), f32(3, 4), f32(2, 3))
def einsums(m, x, w, z):
    return (m.jnp.einsum("ij,jk->ik", x, w), m.jnp.einsum("ij,jk->ki", x, w),
            m.jnp.einsum("ij,ij->i", x, z), m.jnp.einsum("ij,ij->", x, z),
            m.jnp.einsum("i,j->ij", x[0], w[0]), m.jnp.einsum("ij,jk", x, w),
            m.jnp.einsum("ij,k->i", x, w[0]))


@case(f32(2, 3, 4), f32(2, 4, 5))
def batched_einsum_matmul(m, a, b):
    return m.jnp.einsum("bij,bjk->bik", a, b), a @ b, a @ b[0], a[0, 0] @ b


@case(f32(1, 3, 4), f32(2, 4, 5))
def matmul_size1_batch(m, a, b):
    return m.jnp.matmul(a, b)


@case(f32(2, 3), f32(3))
def dots(m, x, y):
    return m.jnp.dot(x, y), m.jnp.dot(y, y), x.dot(y), m.jnp.dot(x, 2.0), y @ x.T


@case(f32(3))
def closed_over_constvars(m, x):
    col = W1[:, 0]
    a = m.jnp.asarray(col)
    return x * col + x * col + a + m.jnp.asarray([1.0, 2.0, 3.0]) + W64


@case(f32(3))
def nested_jit(m, x):
    @m.jit
    def inner(y):
        return m.jnp.sin(y) * 2.0

    return inner(x) + inner(x + 1.0)


@case(f32(3))
def unused_values(m, x):
    m.jnp.sin(x)
    y = m.jnp.cos(x)
    m.jnp.exp(y)
    return y


@case(f32(3))
def long_chain(m, x):
    for _ in range(30):
        x = m.jnp.sin(x) + 1.0
    return x


@case(*[f32(2) for _ in range(12)])
def many_inputs(m, *xs):
    return m.jnp.sum(m.jnp.ones(2) * functools.reduce(lambda a, b: a * b, xs))


@case(f32(2, 3))
def creation(m, x):
    return (m.jnp.zeros(3), m.jnp.ones((2, 2), m.jnp.int32), m.jnp.zeros_like(x),
            m.jnp.ones_like(x, dtype=m.jnp.int32), m.jnp.array(2.0) * x, m.jnp.float32(3) * x,
            m.jnp.array(x), m.jnp.asarray(x), m.jnp.zeros(()))


@case(f32(2, 3), i32(3))
def astypes(m, x, i):
    return (x.astype(m.jnp.int32), x.astype(bool), x.astype(float), i.astype(m.jnp.float32),
            m.jnp.astype(x, "int32"), m.jnp.int32(x), m.jnp.float32(x))


@case(f32(2, 3))
def unary_zoo(m, x):
    a = m.jnp.abs(x) + 1.0
    return (m.jnp.tan(x), m.jnp.exp(x), m.jnp.log(a), m.jnp.sqrt(a), m.jnp.sign(x),
            m.jnp.negative(x), m.jnp.maximum(x, 0.0), m.jnp.minimum(x, a), abs(x), -x,
            m.jnp.exp(2))


@case(f32(2, 3))
def numpy_scalars(m, x):
    return x * np.float32(0.1) + x * 0.1 + x * np.int32(2) + x * np.float64(2.0) + (x + True)


@case(np.array([True, False, True]), f32(3))
def bools(m, b, x):
    return b + b, b * b, b + 1, b * x, m.jnp.sum(b), m.jnp.sqrt(b)


@case(f32(2, 3), f32(2, 3))
def lax_direct(m, x, y):
    lax = m.lax
    return (lax.add(x, y[:1]), lax.mul(y[0], 2.0), lax.select_n(x > y, x, y),
            lax.dot_general(x, y, (([1], [1]), ([], []))), lax.integer_pow(x, 3),
            lax.reduce_max(x, (0,)), lax.reduce_sum(x, (1,)), lax.logistic(x),
            lax.convert_element_type(x, np.int32), lax.pow(x, 2), lax.sub(x, 1.0),
            lax.div(x, y), lax.max(x, y), lax.min(x, 0.0), lax.ge(x, y),
            lax.squeeze(x[None], (0,)), lax.transpose(x, (1, 0)), lax.neg(x))


@case(f32(2, 3))
def lax_structural(m, x):
    lax = m.lax
    return (lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), lax.reshape(x, (3, 2)),
            lax.slice(x, (0, 1), (2, 3)), lax.slice(x, (0, 0), (2, 3), (1, 2)),
            lax.reshape(x, (3, 2), (1, 0)), lax.eq(x, x), lax.ne(x, 0.0), lax.lt(x, x),
            lax.le(x, x), lax.gt(x, x), lax.sign(x), lax.abs(x), lax.sqrt(lax.abs(x)))


@case(f32(2, 3))
def device_put_and_sigmoid(m, x):
    put = jax.device_put if m is JAX else pe_engine.lax.device_put
    return put(x) + put(1.0), m.nn.sigmoid(x), m.nn.tanh(x)


def _bind(ns: SimpleNamespace, fn):
    return functools.partial(fn, ns)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jaxpr_text_matches_jax(name: str) -> None:
    fn, args = CASES[name]
    expected = str(jax.make_jaxpr(_bind(JAX, fn))(*args))
    got = str(pe_engine.make_jaxpr(_bind(PE, fn))(*args))
    assert got == expected


def _leaves(out) -> list:
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_values_match_jax(name: str) -> None:
    fn, args = CASES[name]
    expected = _leaves(_bind(JAX, fn)(*map(jjnp.asarray, args)))
    got = _leaves(_bind(PE, fn)(*map(pjnp.asarray, args)))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert isinstance(g, pe_engine.Array)
        assert g.dtype == e.dtype
        assert g.weak_type == e.weak_type
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)
