"""Differential tests: the engine's partial evaluator against real JAX's, every mask.

For each function and each known/unknown mask, both jaxprs print the same text,
and out_unknowns and the residual avals are equal.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import pe_engine
import pe_engine.numpy as pjnp
from pe_engine.partial_eval import partial_eval_jaxpr_nounits

jax = pytest.importorskip("jax")
jnp = jax.numpy
jpe = pytest.importorskip("jax._src.interpreters.partial_eval")

C3 = np.arange(3, dtype=np.float32)


def seed_example(np_, x, y):
    return np_.sin(x) * y


def docstring_example(np_, a, b):
    return np_.cos(a), -np_.sin(a) * b


def known_input_residual(np_, a, b):
    return np_.sin(a) * b, a * b


def chain(np_, x, y):
    for _ in range(6):
        x = np_.tanh(x) * y + 1.0
    return x


def long_chain(np_, x):
    for _ in range(30):
        x = np_.sin(x)
    return x


def diamond(np_, x, y, z):
    a = np_.exp(x)
    b = a * y
    c = a + z
    return b * c, a


def reuse_residual(np_, x, y):
    s = np_.sin(x)
    return s * y + s * y * y


def literal_ops(np_, x, y):
    return (x * 2.0 + 3.0) * y - np_.sin(1.0)


def mlp(np_, W1, b1, W2, x):
    h = np_.tanh(x @ W1 + b1)
    return (h @ W2).sum()


def reductions(np_, x, y):
    return np_.sum(x * y, axis=0), np_.max(x), np_.mean(y)


def shapes(np_, x, y):
    z = x.T.reshape(6)[None, :] * y
    return np_.squeeze(z, 0), np_.expand_dims(x, 0)


def compare_select(np_, x, y):
    return np_.where(x > y, x, y) * 2.0


def int_pow(np_, x, y):
    return x ** 2 + y ** 3, x ** 2.5


def closed_over_const(np_, x, y):
    return (x + C3) * y + C3


def unused_unknown(np_, x, y):
    _ = np_.cos(y)
    return np_.sin(x)


def only_known_out(np_, x, y):
    return np_.sin(x), np_.cos(x) * 3.0


def passthrough(np_, x, y):
    return y, x, x * y


def broadcast_mix(np_, x, y):
    return x + y, np_.broadcast_to(y, (2, 3)) * x


def minmax(np_, x, y):
    return np_.maximum(x, 0.0) * np_.minimum(y, 1.0), np_.abs(x - y), np_.sign(y)


def logs(np_, x, y):
    return np_.log(np_.exp(x) + 1.0) * np_.sqrt(y * y + 1.0), np_.tan(x) / y


def matmul_chain(np_, A, B, v):
    return A @ (B @ v), (A @ B).T


def einsum_pair(np_, A, B):
    return np_.einsum("ij,jk->ik", A, B) * 2.0


def dot_vec(np_, u, v):
    return np_.dot(u, v) * u


def nested_jit(np_, x, y):
    inner = (jax if np_ is jnp else pe_engine).jit(lambda a, b: np_.sin(a) * b)
    return inner(x, y) + x


def int_inputs(np_, i, x):
    return i * 2 + 1, x * i


f32 = np.float32
CASES = [
    (seed_example, (2.0, 3.0)),
    (docstring_example, (1.0, 2.0)),
    (known_input_residual, (1.0, 2.0)),
    (chain, (0.5, 1.5)),
    (long_chain, (0.3,)),
    (diamond, (0.1, 0.2, 0.3)),
    (reuse_residual, (0.7, 0.2)),
    (literal_ops, (f32(1.0), f32(2.0))),
    (mlp, (np.ones((4, 3), f32), np.ones(3, f32), np.ones((3, 2), f32), np.ones((5, 4), f32))),
    (reductions, (np.ones((3, 4), f32), np.ones((3, 4), f32))),
    (shapes, (np.ones((2, 3), f32), np.ones((1, 6), f32))),
    (compare_select, (np.ones(3, f32), np.zeros(3, f32))),
    (int_pow, (np.ones(3, f32), np.ones(3, f32))),
    (closed_over_const, (np.ones(3, f32), np.ones(3, f32))),
    (unused_unknown, (1.0, 2.0)),
    (only_known_out, (1.0, 2.0)),
    (passthrough, (1.0, 2.0)),
    (broadcast_mix, (np.ones((2, 3), f32), np.ones(3, f32))),
    (minmax, (np.ones(4, f32), np.ones(4, f32))),
    (logs, (np.ones(2, f32), np.ones(2, f32))),
    (matmul_chain, (np.ones((2, 3), f32), np.ones((3, 3), f32), np.ones(3, f32))),
    (einsum_pair, (np.ones((2, 3), f32), np.ones((3, 4), f32))),
    (dot_vec, (np.ones(3, f32), np.ones(3, f32))),
    (nested_jit, (1.0, 2.0)),
    (int_inputs, (np.int32(3), f32(2.0))),
]


def _split_both(fun, args, mask, instantiate):
    ours = pe_engine.make_jaxpr(functools.partial(fun, pjnp))(*args)
    theirs = jax.make_jaxpr(functools.partial(fun, jnp))(*args)
    assert str(ours) == str(theirs)
    a = partial_eval_jaxpr_nounits(ours, list(mask), instantiate)
    b = jpe.partial_eval_jaxpr_nounits(theirs, list(mask), instantiate)
    return a, b


@pytest.mark.parametrize("fun,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_every_mask_matches_jax(fun, args):
    for mask in itertools.product([False, True], repeat=len(args)):
        (k1, u1, ou1, r1), (k2, u2, ou2, r2) = _split_both(fun, args, mask, False)
        where = f"{fun.__name__} mask={mask}"
        assert str(k1) == str(k2), where
        assert str(u1) == str(u2), where
        assert list(ou1) == list(ou2), where
        assert [repr(a) for a in r1] == [repr(a) for a in r2], where


@pytest.mark.parametrize("fun,args", CASES[:8], ids=[c[0].__name__ for c in CASES[:8]])
def test_instantiate_matches_jax(fun, args):
    mask = [False] + [True] * (len(args) - 1)
    (k1, u1, ou1, r1), (k2, u2, ou2, r2) = _split_both(fun, args, mask, True)
    assert (str(k1), str(u1), list(ou1)) == (str(k2), str(u2), list(ou2))
    assert [repr(a) for a in r1] == [repr(a) for a in r2]
