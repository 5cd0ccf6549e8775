"""`jit` as a primitive: a call whose parameter is the staged jaxpr of the function."""
from __future__ import annotations

from typing import Any

from . import pretty
from .core import (
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    as_array,
    eval_jaxpr,
    impl_rules,
)
from .typecheck import check_call_operands, typecheck_rules

jit_p = Primitive("jit", multiple_results=True)


def _jit_impl(*args: Any, jaxpr: Any, name: str) -> list[Any]:
    # A jit run now returns arrays, even for an input passed through or a literal.
    outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
    return [as_array(x, a) for x, a in zip(outs, jaxpr.out_avals)]


def _jit_abstract(*avals: Any, jaxpr: Any, name: str) -> list[Any]:
    return list(jaxpr.out_avals)


def _jit_typecheck(in_avals: list[ShapedArray], *, jaxpr: Any, name: str) -> list[ShapedArray]:
    check_call_operands(jaxpr.jaxpr, in_avals, f"jit {name}")
    return list(jaxpr.out_avals)


impl_rules[jit_p] = _jit_impl
abstract_eval_rules[jit_p] = _jit_abstract
typecheck_rules[jit_p] = _jit_typecheck


def _jit_pp(eqn: Any, ctx: pretty.PpContext) -> Any:
    # The inner binders reuse the outer names, and name= comes first, as JAX prints it.
    inner = eqn.params["jaxpr"].jaxpr
    if inner not in ctx.shared:
        ctx.suggest_same(inner.invars, eqn.invars)
        ctx.suggest_same(inner.outvars, eqn.outvars)
    return pretty.pp_eqn_default(eqn, ctx, order=["name", *sorted(set(eqn.params) - {"name"})])


pretty.pp_eqn_rules[jit_p] = _jit_pp
