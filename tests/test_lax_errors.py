"""lax's shape and dtype errors: TypeErrors worded as JAX words them, eager and staged."""
from __future__ import annotations

import numpy as np
import pytest

import pe_engine
from pe_engine import lax

f32 = np.ones
i32 = lambda shape: np.ones(shape, np.int32)  # noqa: E731

CASES = [
    (lambda: lax.add(f32(3), f32(4)),
     "add got incompatible shapes for broadcasting: (3,), (4,)."),
    (lambda: lax.mul(f32((2, 3)), f32((3, 2))),
     "mul got incompatible shapes for broadcasting: (2, 3), (3, 2)."),
    (lambda: lax.add(f32((2, 3)), f32(3)),
     "add: arrays must have the same number of dimensions, got {1, 2}"),
    (lambda: lax.add(f32(3), i32(3)),
     "lax.add requires arguments to have the same dtypes, got float32, int32. (Tip: jnp.add "
     "is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.add(f32(3), 1),
     "lax.add requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.gt(f32(3), i32(3)),
     "lax.gt requires arguments to have the same dtypes, got float32, int32."),
    (lambda: lax.add(np.ones(3, bool), np.ones(3, bool)),
     "add does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
     "subtypes of integer, floating, complexfloating."),
    (lambda: lax.sin(i32(3)),
     "sin does not accept dtype int32. Accepted dtypes are subtypes of floating, "
     "complexfloating."),
    (lambda: lax.neg(np.ones(3, bool)),
     "neg does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
     "complexfloating."),
    (lambda: lax.pow(f32(3), np.ones(3, np.float16)),
     "the first argument to pow must have an inexact dtype"),
    (lambda: lax.integer_pow(i32(3), -1),
     "Integers cannot be raised to negative powers, got integer_pow(int32[3], -1)"),
    (lambda: lax.select_n(np.ones(3, bool), f32(3), f32(2)),
     "select cases must have the same shapes, got [(3,), (2,)]."),
    (lambda: lax.select_n(np.ones(3, bool), f32(3), i32(3)),
     "lax.select requires arguments to have the same dtypes, got float32, int32. (Tip: "
     "jnp.where is a similar function that does automatic type promotion on inputs)."),
    (lambda: lax.select_n(np.ones(2, bool), f32(3), f32(3)),
     "select `which` must be scalar or have the same shape as cases, got `which` shape (2,) "
     "but case shape (3,)."),
    (lambda: lax.select_n(f32(3), f32(3), f32(3)),
     "select `which` must be boolean or integer type, got float32."),
    (lambda: lax.dot_general(f32((2, 3)), f32((4, 5)), (([1], [0]), ([], []))),
     "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,)."),
    (lambda: lax.transpose(f32((2, 3)), (0, 0)),
     "transpose permutation isn't a permutation of operand dimensions, got permutation "
     "(0, 0) for operand shape (2, 3)."),
    (lambda: lax.broadcast_in_dim(f32(3), (2, 4), (1,)),
     "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
     "corresponding dimensions in the target broadcast shape; got operand of shape (3,), "
     "target broadcast shape (2, 4), broadcast_dimensions (1,) "),
    (lambda: lax.concatenate([f32(3), f32((1, 3))], 0),
     "Cannot concatenate arrays with different numbers of dimensions: got (3,), (1, 3)."),
]


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize("fn, message", CASES)
def test_type_errors_are_worded_as_jax(fn, message, staged):
    run = pe_engine.make_jaxpr(fn) if staged else fn
    with pytest.raises(TypeError) as info:
        run()
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("fn, message", [
    (lambda: lax.reduce_max(f32(3), (1,)),
     "reduction axes (1,) contains out-of-bounds indices for float32[3]."),
    (lambda: lax.squeeze(f32((2, 3)), (0,)),
     "cannot select an axis to squeeze out which has size not equal to one, got "
     "shape=(2, 3) and dimensions=(0,)"),
    (lambda: pe_engine.numpy.stack([f32(3), f32(2)]),
     "All input arrays must have the same shape. Got (3,), (2,)."),
])
def test_value_errors_are_worded_as_jax(fn, message):
    with pytest.raises(ValueError) as info:
        fn()
    assert str(info.value) == message


def test_rank0_and_size1_operands_broadcast_in_lax():
    out = lax.add(f32((2, 3)), f32((1, 3)))
    assert out.shape == (2, 3)
    out = lax.add(f32(3), np.float32(1.0))
    assert out.shape == (3,)
    assert str(pe_engine.make_jaxpr(lax.sub)(f32((2, 1)), f32((1, 3)))) == (
        "{ lambda ; a:f32[2,1] b:f32[1,3]. let c:f32[2,3] = sub a b in (c,) }")


def test_messages_match_jax_when_it_is_installed():
    jax = pytest.importorskip("jax")
    for fn, _ in CASES:
        with pytest.raises(TypeError) as ours:
            fn()
        with pytest.raises(TypeError) as theirs:  # the same lambda body, run against jax.lax
            eval(fn.__code__, {**fn.__globals__, "lax": jax.lax})
        assert str(theirs.value).split("\n")[0] == str(ours.value)
