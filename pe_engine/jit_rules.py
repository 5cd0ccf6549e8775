"""Transformation rules for `jit_p`: JVP, partial evaluation and transpose.

A nested jit is a unit that itself splits: its partial-evaluation rule splits the
inner program with `partial_eval_jaxpr_nounits`, runs a known jit now and stages
an unknown jit that reads the residuals. As in JAX's `_pjit_partial_eval`, the
residuals go LAST among the unknown equation's inputs, although the unknown
jaxpr produced by the splitter takes them first (jax-facts §7).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ad import (
    Zero,
    is_undefined_primal,
    jvp_jaxpr,
    primitive_jvps,
    primitive_transposes,
    transpose_jaxpr,
)
from .api import closure_convert
from .core import ClosedJaxpr, bind, merge_lists, split_list
from .partial_eval import (
    JaxprTrace,
    JaxprTracer,
    PartialVal,
    new_eqn_recipe,
    partial_eval_jaxpr_nounits,
    partial_eval_rules,
)
from .pjit import jit_p


def call_closed(prim: Any, closed: ClosedJaxpr, args: list, **params: Any) -> list:
    """Bind a call-like primitive on a jaxpr, hoisting its constants into leading args."""
    closed, consts = closure_convert(closed)
    return bind(prim, *consts, *args, jaxpr=closed, **params)


def _jit_jvp(primals: list, tangents: list, *, jaxpr: ClosedJaxpr, name: str
             ) -> tuple[list, list]:
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp_closed, out_nz = jvp_jaxpr(jaxpr, nonzeros, instantiate=False)
    outs = call_closed(jit_p, jvp_closed, [*primals, *(t for t in tangents if type(t) is not Zero)],
                       name=name)
    p_out, t_nz = split_list(outs, [len(jaxpr.out_avals)])
    t_out = merge_lists(out_nz, [Zero(a) for a, nz in zip(jaxpr.out_avals, out_nz) if not nz],
                        t_nz)
    return p_out, t_out


def split_residuals_forwarded(known: ClosedJaxpr, num_res: int,
                              forwardable: Callable[[int], bool] = lambda i: True
                              ) -> tuple[ClosedJaxpr, list[int | None]]:
    """Drop residual outputs that are just known inputs (JAX forwards those instead).

    Returns the pruned known jaxpr and, per residual, the index of the known input
    it forwards (None when the known jaxpr computes it). Only inputs whose index
    passes `forwardable` are forwarded.
    """
    j = known.jaxpr
    outs, res = split_list(j.outvars, [len(j.outvars) - num_res])
    fwd = [j.invars.index(v) if v in j.invars and forwardable(j.invars.index(v)) else None
           for v in res]
    kept = [v for v, f in zip(res, fwd) if f is None]
    return ClosedJaxpr(j.replace(outvars=[*outs, *kept]), known.consts), fwd


def _jit_partial_eval(trace: JaxprTrace, tracers: list, params: dict) -> list:
    jaxpr, name = params["jaxpr"], params["name"]
    unknowns = [not t.is_known() for t in tracers]
    known_vals = [t.pval.get_known() for t in tracers if t.is_known()]
    obs = trace.state.observer
    if not any(unknowns):
        outs = bind(jit_p, *known_vals, **params)
        if getattr(obs, "split", None):
            obs.split(jit_p, params, tracers, outs, None, inner={"known": jaxpr})
        return [trace.new_const(o) for o in outs]
    known_cj, unknown_cj, out_uk, res_avals = partial_eval_jaxpr_nounits(jaxpr, unknowns, False)
    known_cj, fwd = split_residuals_forwarded(known_cj, len(res_avals))
    outs = call_closed(jit_p, known_cj, known_vals, name=name)
    known_outs, computed_res = split_list(outs, [out_uk.count(False)])
    it = iter(computed_res)
    residuals = [next(it) if f is None else known_vals[f] for f in fwd]
    res_tracers = [trace.instantiate_const(trace.new_const(r)) for r in residuals]
    unknown_in = [t for t, uk in zip(tracers, unknowns) if uk]
    # The splitter puts residual binders first; the jit equation takes them last.
    uj = unknown_cj.jaxpr
    res_vars, in_vars = split_list(uj.invars, [len(res_avals)])
    unknown_closed = ClosedJaxpr(uj.replace(invars=[*in_vars, *res_vars]), unknown_cj.consts)
    out_tracers = [JaxprTracer(trace, PartialVal.unknown(a), None)
                   for a, uk in zip(jaxpr.out_avals, out_uk) if uk]
    eqn = new_eqn_recipe(trace, [*unknown_in, *res_tracers], out_tracers, jit_p,
                         {"jaxpr": unknown_closed, "name": name})
    for t in out_tracers:
        t.recipe = eqn
    if getattr(obs, "split", None):
        obs.split(jit_p, params, tracers, known_outs, eqn,
                  inner={"known": known_cj, "unknown": unknown_closed})
    return merge_lists(out_uk, [trace.new_const(o) for o in known_outs], out_tracers)


def _jit_transpose(cts: list, *args: Any, jaxpr: ClosedJaxpr, name: str) -> list:
    # The transposed call takes the residuals first, then the nonzero cotangents.
    undef = [is_undefined_primal(a) for a in args]
    ct_nz = [type(c) is not Zero for c in cts]
    t_closed = transpose_jaxpr(jaxpr, undef, ct_nz)
    res = [a for a, u in zip(args, undef) if not u]
    outs = call_closed(jit_p, t_closed, [*res, *(c for c in cts if type(c) is not Zero)],
                       name=name)
    return merge_lists(undef, [None] * len(res), outs)


primitive_jvps[jit_p] = _jit_jvp
partial_eval_rules[jit_p] = _jit_partial_eval
primitive_transposes[jit_p] = _jit_transpose
