"""The jaxpr type checker: it accepts what the engine builds and rejects broken programs."""
import numpy as np
import pytest

import pe_engine as pe
import pe_engine.numpy as jnp
from pe_engine.core import ClosedJaxpr, Literal, ShapedArray, Var
from pe_engine.partial_eval import partial_eval_jaxpr_nounits
from pe_engine.typecheck import JaxprTypeError, check_jaxpr, check_split_composes

X3 = np.arange(3, dtype=np.float32)


def _program():
    return pe.make_jaxpr(lambda x, y: jnp.sin(x) * y + 1.0)(X3, X3)


def test_the_suite_runs_with_checks_on():
    assert pe.config.jax_enable_checks is True


def test_accepts_the_engines_programs():
    check_jaxpr(_program())
    check_jaxpr(pe.make_jaxpr(pe.grad(lambda x: jnp.sum(pe.jit(jnp.tanh)(x) ** 2)))(X3))
    check_jaxpr(pe.make_jaxpr(lambda c, xs: pe.lax.scan(lambda c, x: (c * x, c), c, xs))(
        1.0, X3))


def test_rejects_a_variable_read_before_it_is_bound():
    j = _program().jaxpr
    with pytest.raises(JaxprTypeError, match="before it is bound"):
        check_jaxpr(j.replace(eqns=j.eqns[::-1]))


def test_rejects_a_variable_bound_twice():
    j = _program().jaxpr
    first = j.eqns[0]
    twice = first.replace(outvars=[j.invars[0]])
    with pytest.raises(JaxprTypeError, match="bound twice"):
        check_jaxpr(j.replace(eqns=[twice, *j.eqns[1:]]))


def test_rejects_an_output_type_its_primitive_does_not_give():
    j = _program().jaxpr
    wrong = j.eqns[0].replace(outvars=[Var(ShapedArray((2,), np.float32))])
    with pytest.raises(JaxprTypeError, match="where its rule gives f32\\[3\\]"):
        check_jaxpr(j.replace(eqns=[wrong, *j.eqns[1:]]))


def test_rejects_operands_the_primitive_rejects():
    j = _program().jaxpr
    eqn = j.eqns[1]
    bad = eqn.replace(invars=[eqn.invars[0], Literal(np.ones(2, np.float32),
                                                     ShapedArray((2,), np.float32))])
    with pytest.raises(JaxprTypeError, match="rejects its operands"):
        check_jaxpr(j.replace(eqns=[j.eqns[0], bad, *j.eqns[2:]]))


def test_checks_inner_jaxprs_against_the_call():
    j = pe.make_jaxpr(lambda x: pe.jit(jnp.sin)(x))(X3).jaxpr
    call = j.eqns[0]
    inner = call.params["jaxpr"]
    short = ClosedJaxpr(inner.jaxpr.replace(invars=[Var(ShapedArray((2,), np.float32))]), [])
    with pytest.raises(JaxprTypeError):
        check_jaxpr(j.replace(eqns=[call.replace(params={**call.params, "jaxpr": short})]))


def test_a_split_that_does_not_compose_is_caught():
    closed = _program()
    known, unknown, out_uk, res = partial_eval_jaxpr_nounits(closed, [False, True], False)
    check_split_composes(closed, known, unknown, [False, True], out_uk, len(res))
    # Swap the residual for the known input: well typed, but it computes something else.
    kj = known.jaxpr
    wrong = ClosedJaxpr(kj.replace(outvars=[kj.invars[0]]), known.consts)
    with pytest.raises(JaxprTypeError, match="the split's output 0"):
        check_split_composes(closed, wrong, unknown, [False, True], out_uk, len(res))
