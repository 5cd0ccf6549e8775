"""`jit` as a primitive: a call whose parameter is the staged jaxpr of the function."""
from __future__ import annotations

from typing import Any

from . import pretty
from .core import Primitive, abstract_eval_rules, eval_jaxpr, impl_rules

jit_p = Primitive("jit", multiple_results=True)


def _jit_impl(*args: Any, jaxpr: Any, name: str) -> list[Any]:
    return eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)


def _jit_abstract(*avals: Any, jaxpr: Any, name: str) -> list[Any]:
    return list(jaxpr.out_avals)


impl_rules[jit_p] = _jit_impl
abstract_eval_rules[jit_p] = _jit_abstract


def _jit_pp(eqn: Any, ctx: pretty.PpContext) -> Any:
    # JAX prints name before jaxpr, and the inner binders reuse the outer names.
    closed = eqn.params["jaxpr"]
    ctx.suggest_same(closed.jaxpr.invars, eqn.invars)
    lhs = pretty.pp_vars(eqn.outvars, ctx, shapes=True)
    ctx.suggest_same(closed.jaxpr.outvars, eqn.outvars)
    params = pretty.pp_kv_pairs([("name", eqn.params["name"]), ("jaxpr", closed)], ctx)
    return pretty.concat(lhs, pretty.Text(" = "), pretty.Text("jit"), params,
                         pretty.concat(pretty.Text(" "), pretty.pp_vars(eqn.invars, ctx)))


pretty.pp_eqn_rules[jit_p] = _jit_pp
