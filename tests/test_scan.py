"""lax.scan: values, printing, the unknown-carry fixpoint, grad through scan."""
import numpy as np
import pytest

import pe_engine as pe
import pe_engine.numpy as jnp
from pe_engine.core import ShapedArray
from pe_engine.partial_eval import (
    PartialEvalObserver,
    PartialVal,
    partial_eval_jaxpr_nounits,
    trace_to_jaxpr_nounits,
)

XS = np.arange(1, 4, dtype=np.float32)


def _body(carry, xy):
    a, b, c = carry
    x, y = xy
    return (b, y + a, c + 1.0), x


def _abc(a, b, c, xs, ys):
    return pe.lax.scan(_body, (a, b, c), (xs, ys))


def test_scan_values_and_reverse():
    (c, ys) = pe.lax.scan(lambda c, x: (c + x, c * x), 0.0, XS)
    assert float(c) == 6.0 and np.allclose(np.asarray(ys), [0.0, 2.0, 9.0])
    (c, ys) = pe.lax.scan(lambda c, x: (c + x, c), 0.0, XS, reverse=True)
    assert np.allclose(np.asarray(ys), [5.0, 3.0, 0.0])


def test_unknown_carry_fixpoint():
    # (a, b, c) <- (b, y + a, c + 1) with y unknown: b is unknown after one pass,
    # a after the next; c stays known (jax-facts §7).
    cj = pe.make_jaxpr(_abc)(1.0, 1.0, 1.0, XS, XS)
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(
        cj, [False, False, False, False, True], False)
    assert out_uk == [True, True, False, False]
    assert len(res) == 2
    # The unknown program is exactly JAX's.
    assert str(unknown) == (
        "{ lambda ; a:f32[] b:f32[] c:f32[3]. let\n"
        "    d:f32[] e:f32[] = scan[\n"
        "      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let\n"
        "          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f\n"
        "          j:f32[] = add h i\n"
        "        in (g, j) }\n"
        "      length=3\n"
        "      num_carry=2\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] a b c\n"
        "  in (d, e) }")
    # The ys output `x` is a copy of xs: scan forwards it instead of stacking it, so the
    # known scan carries only c (tests/test_fidelity_vs_jax.py compares it with JAX's).
    assert "num_carry=1" in str(known) and str(known).endswith("in (e, d, a, b) }")


def test_scan_split_is_observable():
    calls = []

    class Obs(PartialEvalObserver):
        def split(self, prim, params, tracers, known_outs, eqn, inner):
            calls.append((prim.name, eqn is not None, sorted(inner)))

    trace_to_jaxpr_nounits(
        lambda c, xs: [pe.lax.scan(lambda c, x: (c * x, c), c, xs)[0]],
        [PartialVal.unknown(ShapedArray((), np.float32)), PartialVal.known(XS)],
        observer=Obs())
    assert calls == [("scan", True, ["known", "unknown"])]


def test_grad_through_scan_with_consts():
    w = np.float32(0.5)

    def f(w, c):
        return pe.lax.scan(lambda c, x: (jnp.sin(c * w + x), c), c, XS)[0]

    g = pe.grad(f, argnums=(0, 1))(w, 0.3)
    eps = 1e-3
    fd = (float(f(w + eps, 0.3)) - float(f(w - eps, 0.3))) / (2 * eps)
    assert np.allclose(float(g[0]), fd, atol=1e-3)


def test_scan_length_errors():
    with pytest.raises(ValueError):
        pe.lax.scan(lambda c, x: (c, x), 0.0, (XS, np.ones(2, np.float32)))
