"""The IR, the printer and DynamicJaxprTrace: what the seed says about them holds."""
from __future__ import annotations

import gc
import re

import numpy as np
import pytest

import pe_engine
import pe_engine.numpy as jnp
from pe_engine import lax_base
from pe_engine.core import DropVar, Literal, ShapedArray, Var, config, ensure_compile_time_eval
from pe_engine.pretty import encode_name
from pe_engine.staging import (
    DynamicJaxprTrace,
    JaxprStackFrame,
    const_fold_rules,
    trace_to_jaxpr_dynamic,
)

F32 = ShapedArray((), np.float32)


def test_var_is_only_an_aval():
    v = Var(F32)
    assert Var.__slots__ == ("aval",)
    assert re.fullmatch(r"Var\(id=\d+\):float32\[\]", repr(v))
    assert repr(DropVar(F32)) == "_"
    assert repr(Literal(2.0, F32)) == "Literal(2.0)"


def test_names_are_base26_without_aa():
    assert [encode_name(i) for i in (0, 25, 26, 27, 51, 52, 675, 676)] == [
        "a", "z", "ba", "bb", "bz", "ca", "zz", "baa"]


def test_printed_names_come_from_the_printer_not_the_vars():
    closed = pe_engine.make_jaxpr(lambda x: jnp.sin(jnp.sin(x)))(1.0)
    assert str(closed) == "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = sin b in (c,) }"
    eqn = closed.jaxpr.eqns[1]
    assert eqn.primitive.name == "sin" and eqn.invars[0] is closed.jaxpr.eqns[0].outvars[0]
    assert (closed.jaxpr.constvars, closed.consts) == ([], [])
    assert closed.jaxpr.invars[0].aval.weak_type  # a Python float argument is weakly typed


def test_empty_body_and_literal_output():
    closed = pe_engine.make_jaxpr(lambda x: (x, 1.0))(np.float32(2.0))
    assert str(closed) == "{ lambda ; a:f32[]. let  in (a, 1.0:f32[]) }"


def test_closed_over_arrays_are_constvars_deduplicated_by_identity():
    c = np.arange(3, dtype=np.float32)
    d = np.arange(3, dtype=np.float32)
    closed = pe_engine.make_jaxpr(lambda x: x * c + c + d)(np.ones(3, np.float32))
    assert str(closed).startswith("{ lambda a:f32[3] b:f32[3]; c:f32[3]. let")
    assert closed.consts[0] is c and closed.consts[1] is d


def test_scalars_and_0d_arrays_are_literals():
    zero_d = np.array(3.0, np.float32)
    closed = pe_engine.make_jaxpr(lambda x: x * zero_d + np.float32(1.5) + 2)(np.float32(1.0))
    assert closed.jaxpr.constvars == []
    assert "mul a 3.0:f32[]" in str(closed) and "1.5:f32[]" in str(closed)


def test_sin_of_a_literal_stays_an_equation_inside_jit():
    closed = pe_engine.make_jaxpr(lambda x: x + jnp.sin(1.0))(1.0)
    assert str(closed) == ("{ lambda ; a:f32[]. let b:f32[] = sin 1.0:f32[]; "
                           "c:f32[] = add a b in (c,) }")


def test_const_fold_rules_hold_exactly_jaxs_three_registrations():
    assert sorted(p.name for p in const_fold_rules) == ["convert_element_type", "device_put",
                                                        "stage"]


def test_convert_element_type_of_a_constant_folds_into_a_literal():
    def f(x):
        return x + lax_base.convert_element_type_p.bind(
            2, new_dtype=np.dtype("float32"), weak_type=False, sharding=None)
    assert str(pe_engine.make_jaxpr(f)(np.float32(1.0))) == (
        "{ lambda ; a:f32[]. let b:f32[] = add a 2.0:f32[] in (b,) }")


def test_convert_element_type_without_its_rule_is_staged(monkeypatch):
    monkeypatch.delitem(const_fold_rules, lax_base.convert_element_type_p)

    def f(x):
        return x + lax_base.convert_element_type_p.bind(
            2, new_dtype=np.dtype("float32"), weak_type=False, sharding=None)
    assert "convert_element_type[new_dtype=float32 weak_type=False] 2:i32[]" in str(
        pe_engine.make_jaxpr(f)(np.float32(1.0)))


def test_stage_lifts_without_an_equation_and_folds_constants():
    stage = lax_base.stage
    closed = pe_engine.make_jaxpr(lambda x: stage(2.0) * stage(x))(np.float32(1.0))
    assert str(closed) == "{ lambda ; a:f32[]. let b:f32[] = mul 2.0:f32[] a in (b,) }"


def test_device_put_folds_numpy_constants_only():
    closed = pe_engine.make_jaxpr(
        lambda x: pe_engine.device_put(np.float32(3.0)) + x)(np.float32(1.0))
    assert str(closed) == "{ lambda ; a:f32[]. let b:f32[] = add 3.0:f32[] a in (b,) }"
    closed = pe_engine.make_jaxpr(lambda x: pe_engine.device_put(3.0) + x)(np.float32(1.0))
    assert "device_put[" in str(closed)


def test_eager_constant_folding_flag_turns_sin_into_a_constvar():
    assert config.eager_constant_folding is False
    config.update("eager_constant_folding", True)
    try:
        closed = pe_engine.make_jaxpr(lambda x: x + jnp.sin(2.0))(1.0)
    finally:
        config.update("eager_constant_folding", False)
    assert str(closed) == "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"
    assert np.isclose(float(closed.consts[0]), np.sin(2.0))


def test_ensure_compile_time_eval_sets_the_flag_only_inside():
    with ensure_compile_time_eval():
        closed = pe_engine.make_jaxpr(lambda x: x + jnp.sin(2.0))(1.0)
    assert "sin" not in str(closed)
    assert "sin" in str(pe_engine.make_jaxpr(lambda x: x + jnp.sin(2.0))(1.0))


def test_unused_equation_prints_dropvar_under_make_jaxpr():
    closed = pe_engine.make_jaxpr(lambda x: (jnp.sin(x), x)[1])(1.0)
    assert str(closed) == "{ lambda ; a:f32[]. let _:f32[] = sin a in (a,) }"


def test_auto_dce_frame_collects_unused_effect_free_equations():
    def f(x):
        jnp.sin(x)  # unused: held only weakly by an auto-DCE frame
        return [jnp.cos(x)]
    gc.collect()
    kept = trace_to_jaxpr_dynamic(f, [F32], auto_dce=False)
    dced = trace_to_jaxpr_dynamic(f, [F32], auto_dce=True)
    assert [e.primitive.name for e in kept.jaxpr.eqns] == ["sin", "cos"]
    assert [e.primitive.name for e in dced.jaxpr.eqns] == ["cos"]


def test_frame_holds_weak_refs_only_with_auto_dce():
    assert JaxprStackFrame(auto_dce=True).auto_dce and not JaxprStackFrame().auto_dce
    assert DynamicJaxprTrace.__name__ == "DynamicJaxprTrace"


def test_jit_stages_a_call_with_the_inner_program():
    closed = pe_engine.make_jaxpr(lambda x: pe_engine.jit(lambda y: jnp.sin(y) * 2.0)(x))(1.0)
    assert str(closed).splitlines()[1:4] == [
        "    b:f32[] = jit[", "      name=<lambda>", "      jaxpr={ lambda ; a:f32[]. let"]


def test_jit_runs_eagerly_outside_a_trace():
    out = pe_engine.jit(lambda y: jnp.sin(y) * 2.0)(1.0)
    assert np.isclose(float(out), 2 * np.sin(1.0))


def _branchy(x, y):
    return x if y > 0 else -x


def _int_of(x, y):
    return x * int(y)


def _from_constants(x):
    return x if jnp.sin(1.0) > 0 else -x


@pytest.mark.parametrize("fun,args", [(_branchy, (1.0, 2.0)), (_int_of, (1.0, 2.0)),
                                      (_from_constants, (1.0,))])
def test_control_flow_on_a_tracer_raises_jaxs_error(fun, args):
    # The same function traced by both: same error type, same words (JAX's file and line
    # for the function, the argument the value depends on, or the lines that made it).
    jax = pytest.importorskip("jax")
    import jax.numpy as jjnp
    with pytest.raises(TypeError) as ours:
        pe_engine.make_jaxpr(fun)(*args)
    with pytest.raises(TypeError) as theirs:
        jax.make_jaxpr(fun)(*args) if fun is not _from_constants else jax.make_jaxpr(
            lambda x: x if jjnp.sin(1.0) > 0 else -x)(*args)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    if fun is not _from_constants:
        assert str(ours.value) == str(theirs.value)
    else:  # a different function object, so only the frame line differs
        assert str(ours.value).split("operation", 1)[1].split("from line")[0] == \
            str(theirs.value).split("operation", 1)[1].split("from line")[0]


def test_config_rejects_unknown_options():
    with pytest.raises(ValueError):
        config.update("jax_no_such_flag", True)


def test_a_held_value_is_worked_out_when_python_reads_it():
    """A holding frame runs an equation only when Python reads a value it leads to (then
    each equation it reads once, however deep the chain), and a value computed from an input
    not held is none: control flow on it is the abstract tracer's error."""
    def f(x, y):
        for _ in range(3000):  # deeper than the interpreter's recursion limit
            x = x * 1.0 + 1.0
        if x > 3000.0:  # read: the whole chain runs now, once
            x = x * 2.0
        return [x + y]
    decisions: list = []
    closed = trace_to_jaxpr_dynamic(f, [F32, F32], held=[np.float32(0.5), None],
                                    decisions=decisions)
    assert [(d["kind"], d["value"]) for d in decisions] == [("bool", True)]
    assert len(closed.jaxpr.eqns) == 2 * 3000 + 3  # and gt, mul, add
    with pytest.raises(pe_engine.errors.TracerBoolConversionError):
        trace_to_jaxpr_dynamic(lambda x, y: [x + 1.0 if x + y > 0 else x], [F32, F32],
                               held=[np.float32(0.5), None])
