"""checkpoint as a predicate: partial_eval_jaxpr_custom, policies, saved residuals."""
import numpy as np

import pe_engine as pe
import pe_engine.numpy as jnp
from pe_engine import ad_checkpoint as adc
from pe_engine.partial_eval import partial_eval_jaxpr_custom


def _sincos(x):
    return jnp.cos(jnp.sin(x))


def test_partial_eval_jaxpr_custom_recompute_vs_save():
    j = pe.make_jaxpr(lambda x, t: _sincos(x) * t)(1.0, 2.0).jaxpr
    k, s, out_uk, out_inst, num_res = partial_eval_jaxpr_custom(
        j, [False, True], [False, True], False, True, adc.nothing_saveable)
    # Nothing saveable: the known input is the only residual; sin/cos are recomputed.
    assert out_uk == [True] and num_res == 1
    assert [e.primitive.name for e in s.eqns] == ["sin", "cos", "mul"]
    k, s, out_uk, out_inst, num_res = partial_eval_jaxpr_custom(
        j, [False, True], [False, True], False, True, adc.everything_saveable)
    assert num_res == 1 and [e.primitive.name for e in s.eqns] == ["mul"]
    assert [e.primitive.name for e in k.eqns] == ["sin", "cos"]


def test_checkpoint_prints_as_remat2():
    text = str(pe.make_jaxpr(pe.checkpoint(_sincos))(1.0))
    assert "remat2[" in text and "policy=None" in text and "prevent_cse=True" in text


def test_policies_change_residual_bytes():
    w = np.ones((8, 8), np.float32)

    def f(w, x):
        h = jnp.sin(pe.lax.dot_general(w, x, (([1], [0]), ([], []))))
        return pe.lax.reduce_sum(jnp.sin(adc.checkpoint_name(h, "h")), (0,))

    x = np.ones(8, np.float32)
    none = adc.saved_residual_bytes(pe.checkpoint(f), w, x)
    dots = adc.saved_residual_bytes(pe.checkpoint(f, policy=adc.dots_saveable), w, x)
    named = adc.saved_residual_bytes(
        pe.checkpoint(f, policy=adc.save_only_these_names("h")), w, x)
    plain = adc.saved_residual_bytes(f, w, x)
    assert none < dots <= plain and none < named
    assert pe.remat is pe.checkpoint


def test_print_saved_residuals_format(capsys):
    def g(W1, x):
        return pe.lax.reduce_sum(jnp.sin(pe.lax.dot_general(W1, x, (([1], [0]), ([], [])))),
                                 (0,))
    adc.print_saved_residuals(g, np.ones((5, 4), np.float32), np.ones(4, np.float32))
    lines = capsys.readouterr().out.splitlines()
    assert "f32[5,4] from the argument W1" in lines
    assert any(line.startswith("f32[5] output of cos from ") and line.endswith("(g)")
               for line in lines)


def test_grad_checkpoint_values():
    for policy in (None, adc.everything_saveable, adc.dots_saveable):
        g = pe.grad(pe.checkpoint(_sincos, policy=policy))(0.4)
        assert np.allclose(float(g), -np.sin(np.sin(0.4)) * np.cos(0.4), atol=1e-6)
