"""Autodiff: jvp, linearize (JVP + partial eval), vjp (transpose), grad; engine-only checks."""
import numpy as np
import pytest

import pe_engine as pe
import pe_engine.numpy as jnp
from pe_engine import ad, lax


def f_sin_mul(x):
    return jnp.sin(x) * x


def test_jvp_scalar():
    p, t = pe.jvp(f_sin_mul, (2.0,), (1.0,))
    assert np.allclose(float(p), np.sin(2.0) * 2.0)
    assert np.allclose(float(t), np.cos(2.0) * 2.0 + np.sin(2.0), atol=1e-6)


def test_linearize_prints_classic_linear_program():
    # Identical to what jax.linearize prints for this function (jax-facts §6).
    out, f_jvp = pe.linearize(f_sin_mul, 2.0)
    assert str(f_jvp.jaxpr) == (
        "{ lambda a:f32[] b:f32[]; c:f32[]. let\n"
        "    d:f32[] = mul c a\n"
        "    e:f32[] = mul d 2.0:f32[]\n"
        "    f:f32[] = mul b c\n"
        "    g:f32[] = add_any e f\n"
        "  in (g,) }")
    assert len(f_jvp.residuals) == 2
    assert np.allclose(float(f_jvp(1.0)), np.cos(2.0) * 2.0 + np.sin(2.0), atol=1e-6)


def test_vjp_and_grad_pytrees():
    def f(params, x):
        return jnp.sin(params["w"] * x) + params["b"][0] * params["b"][1]
    params = {"w": 2.0, "b": (3.0, 4.0)}
    g = pe.grad(f)(params, 1.5)
    assert set(g) == {"w", "b"} and isinstance(g["b"], tuple)
    assert np.allclose(float(g["w"]), np.cos(3.0) * 1.5, atol=1e-6)
    assert np.allclose(float(g["b"][0]), 4.0) and np.allclose(float(g["b"][1]), 3.0)
    v, gs = pe.value_and_grad(f, argnums=(0, 1))(params, 1.5)
    assert np.allclose(float(gs[1]), np.cos(3.0) * 2.0, atol=1e-6)
    out, f_vjp = pe.vjp(lambda x: [x * 2.0, x * x], 3.0)
    ct, = f_vjp([1.0, 1.0])
    assert np.allclose(float(ct), 2.0 + 6.0)


def test_grad_has_aux_and_errors():
    g, aux = pe.grad(lambda x: (x * x, "aux"), has_aux=True)(3.0)
    assert aux == "aux" and np.allclose(float(g), 6.0)
    with pytest.raises(TypeError, match="scalar-output"):
        pe.grad(lambda x: lax.broadcast_in_dim(x, (2,), ()))(1.0)


def test_symbolic_zero_cotangent_skips_equations():
    out, f_vjp = pe.vjp(lambda x, y: (jnp.sin(x), y * 2.0), 1.0, 2.0)
    cx, cy = f_vjp((1.0, ad.Zero(pe.ShapedArray((), np.float32))))
    assert np.allclose(float(cx), np.cos(1.0), atol=1e-6) and float(cy) == 0.0


def test_transpose_rules_cover_structural_primitives():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(x):
        y = lax.transpose(x, (1, 0))
        y = lax.reshape(y, (6,))
        y = lax.slice(y, (1,), (5,))
        y = lax.broadcast_in_dim(y, (2, 4), (1,))
        y = lax.squeeze(lax.reshape(y, (1, 8)), (0,))
        return lax.reduce_sum(y * y, (0,))

    g = pe.grad(f)(x)
    assert g.shape == (2, 3)
    flat = np.arange(6, dtype=np.float32).reshape(2, 3).T.reshape(6)
    expect = np.zeros(6, np.float32)
    expect[1:5] = 4 * flat[1:5]
    assert np.allclose(np.asarray(g), expect.reshape(3, 2).T)


def test_transpose_rules_sort_axes_as_numpy_does():
    """The transpose rules' _argsort of a few distinct axes is np.argsort's order."""
    import itertools

    from pe_engine.lax_base_rules import _argsort
    for n in range(5):
        for axes in itertools.permutations(range(n)):
            assert _argsort(axes) == np.argsort(axes).tolist()
    assert _argsort((2, 0)) == np.argsort((2, 0)).tolist()
