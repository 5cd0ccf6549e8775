"""`jit` as a primitive: a call whose parameter is the staged jaxpr of the function, with
its rules (impl, abstract eval, typecheck, printing, JVP, partial evaluation, transpose; its
batching rule is in batching_calls.py, which batches through api.py, a module above this one).

A nested jit is a unit that itself splits: its partial-evaluation rule splits the
inner program with `partial_eval_jaxpr_nounits_fwd`, runs a known jit now and stages
an unknown jit that reads the residuals. As in JAX's `_pjit_partial_eval`, the rule
runs even when every input is known (the known jit is then the re-traced program,
less the outputs that merely forward an input), and the residuals go LAST among the
unknown equation's inputs, although the unknown jaxpr produced by the splitter takes
them first (jax-facts §7). The inner programs keep their constants, and each
transformation of a jaxpr is cached, so a jit called twice stays one shared program.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from . import ad, core, pretty
from . import partial_eval as pe
from .typecheck import check_call_operands, typecheck_rules

jit_p = core.Primitive("jit", multiple_results=True)


def _jit_impl(*args: Any, jaxpr: Any, name: str) -> list[Any]:
    # A jit run now returns arrays, even for an input passed through or a literal.
    outs = core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
    return [core.as_array(x, a) for x, a in zip(outs, jaxpr.out_avals)]


def _jit_abstract(*avals: Any, jaxpr: Any, name: str) -> list[Any]:
    return list(jaxpr.out_avals)


def _jit_typecheck(in_avals: list[core.ShapedArray], *, jaxpr: Any, name: str
                   ) -> list[core.ShapedArray]:
    check_call_operands(jaxpr.jaxpr, in_avals, f"jit {name}")
    return list(jaxpr.out_avals)


core.impl_rules[jit_p] = _jit_impl
core.abstract_eval_rules[jit_p] = _jit_abstract
typecheck_rules[jit_p] = _jit_typecheck


def _jit_pp(eqn: Any, ctx: pretty.PpContext) -> Any:
    # The inner binders reuse the outer names, and name= comes first, as JAX prints it.
    inner = eqn.params["jaxpr"].jaxpr
    if inner not in ctx.shared:
        ctx.suggest_same(inner.invars, eqn.invars)
        ctx.suggest_same(inner.outvars, eqn.outvars)
    return pretty.pp_eqn_default(eqn, ctx, order=["name", *sorted(set(eqn.params) - {"name"})])


pretty.pp_eqn_rules[jit_p] = _jit_pp


def _jit_jvp(primals: list, tangents: list, *, jaxpr: core.ClosedJaxpr, name: str
             ) -> tuple[list, list]:
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_closed, out_nz = ad.jvp_jaxpr(jaxpr, nonzeros, False)
    outs = core.bind(jit_p, *primals, *(t for t in tangents if type(t) is not ad.Zero),
                     jaxpr=jvp_closed, name=name)
    p_out, t_nz = core.split_list(outs, [len(jaxpr.out_avals)])
    t_out = core.merge_lists(
        out_nz, [ad.Zero(a) for a, nz in zip(jaxpr.out_avals, out_nz) if not nz], t_nz)
    return p_out, t_out


class JitSplit(NamedTuple):
    """A jit's inner program split as its rule stages it. `known` is the known jit's
    program: the known inputs, then the known outputs that are not just a known input and
    the computed residuals that are not already one of those. `unknown` is the unknown
    jit's: the unknown inputs, then the residuals, last."""
    known: core.ClosedJaxpr
    unknown: core.ClosedJaxpr
    out_unknowns: list[bool]
    in_fwd: list[int | None]  # per known output, then computed residual: the known input it is
    out_fwd: list[int | None]  # per known output, then computed residual: the output it is
    in_fwd_res: list[int | None]  # per residual: its index in [*consts, *known inputs]
    res_atoms: list[Any]  # per residual: the atom of `known` holding it (None: a constant)


def jit_split(jaxpr: core.ClosedJaxpr, unknowns: list[bool]) -> JitSplit:
    """Split with `partial_eval_jaxpr_nounits_fwd`, then leave out of the known jit the
    outputs that merely forward a known input and the residuals that are also a known
    output (returned once), and move the residual binders of the unknown jit last."""
    known, unknown, out_uk, res_avals, in_fwd_res = pe.partial_eval_jaxpr_nounits_fwd(
        jaxpr, unknowns, False)
    num_res = len(res_avals)
    computed = iter(known.jaxpr.outvars[len(known.jaxpr.outvars) - num_res:])
    num_consts = len(jaxpr.consts)
    res_atoms = [next(computed) if f is None else
                 known.jaxpr.invars[f - num_consts] if f >= num_consts else None
                 for f in in_fwd_res]
    in_fwd = pe.jaxpr_forwarding(known.jaxpr)
    in_fwd = [*in_fwd[:len(in_fwd) - num_res], *[None] * num_res]
    known = pe.prune_closed_jaxpr_outputs(known, [f is None for f in in_fwd])
    n_out = len(known.out_avals) - num_res
    out_vars, res_vars = core.split_list(known.jaxpr.outvars, [n_out])
    out_fwd = [None] * n_out + [next((i for i, v in enumerate(out_vars) if v is r), None)
                                for r in res_vars]
    known = pe.prune_closed_jaxpr_outputs(known, [f is None for f in out_fwd])
    unknown = pe.move_binders_to_back(unknown, [True] * len(in_fwd_res) + [False] * sum(unknowns))
    return JitSplit(known, unknown, out_uk, in_fwd, out_fwd, in_fwd_res, res_atoms)


def _jit_partial_eval(trace: pe.JaxprTrace, tracers: list, params: dict) -> list:
    jaxpr, name = params["jaxpr"], params["name"]
    unknowns = [not t.is_known() for t in tracers]
    known_vals = [t.pval.get_known() for t in tracers if t.is_known()]
    known, unknown, out_uk, in_fwd, out_fwd, in_fwd_res, _ = jit_split(jaxpr, unknowns)
    num_res = in_fwd_res.count(None)
    outs = core.bind(jit_p, *known_vals, jaxpr=known, name=name)
    outs = core.subs_list(in_fwd, known_vals, core.subs_list(out_fwd, outs, outs))
    known_outs, computed_res = core.split_list(outs, [len(outs) - num_res])
    it = iter(computed_res)
    residuals = [next(it) if f is None else [*jaxpr.consts, *known_vals][f] for f in in_fwd_res]
    res_tracers = [trace.new_instantiated_const(r) for r in residuals]
    out_tracers = [pe.JaxprTracer(trace, pe.PartialVal.unknown(a), None) for a in unknown.out_avals]
    eqn = pe.new_eqn_recipe(trace, [*(t for t, uk in zip(tracers, unknowns) if uk), *res_tracers],
                            out_tracers, jit_p, {"jaxpr": unknown, "name": name})
    for t in out_tracers:
        t.recipe = eqn
    obs = trace.state.observer
    staged = eqn if out_tracers else None
    obs.split(jit_p, params, tracers, known_outs, staged,
              inner={"known": known, **({"unknown": unknown} if staged else {})})
    return core.merge_lists(out_uk, [trace.new_const(o) for o in known_outs], out_tracers)


def _jit_transpose(cts: list, *args: Any, jaxpr: core.ClosedJaxpr, name: str) -> list:
    # The transposed call takes the residuals, then the nonzero cotangents, and returns
    # only the input cotangents that are not symbolically zero.
    undef = [ad.is_undefined_primal(a) for a in args]
    ct_nz = [type(c) is not ad.Zero for c in cts]
    t_closed, ct_out_nz = ad.transpose_jaxpr(
        jaxpr, undef, ct_nz, False,
        [a.aval if u else core.get_aval(a) for a, u in zip(args, undef)],
        [core.get_aval(c) if nz else c.aval for c, nz in zip(cts, ct_nz)])
    res = [a for a, u in zip(args, undef) if not u]
    outs = iter(core.bind(jit_p, *res, *(c for c in cts if type(c) is not ad.Zero), jaxpr=t_closed,
                          name=name))
    cts_in = [next(outs) if nz else None for nz in ct_out_nz]
    return core.merge_lists(undef, [None] * len(res), cts_in)


def _jit_partial_eval_custom(saveable: Callable[..., bool], unks_in: Sequence[bool],
                             inst_in: Sequence[bool], eqn: core.JaxprEqn) -> tuple:
    """A jit inside a program the policy splits (a checkpoint's): split its inner program
    under the same policy into a known jit and a staged jit, as JAX's closed-call rule
    does. A residual that is a known input or a known output of the call is passed as that
    variable, not returned a second time."""
    jaxpr = eqn.params["jaxpr"]
    known_, staged_, unks_out, inst_out, num_res = pe.partial_eval_jaxpr_custom(
        jaxpr.jaxpr, unks_in, inst_in, False, False, saveable)
    out_vars, res_vars = core.split_list(known_.outvars, [len(known_.outvars) - num_res])
    in_fwd = [next((i for i, v in enumerate(known_.invars) if v is r), None) for r in res_vars]
    out_fwd = [next((i for i, v in enumerate(out_vars) if v is r), None) for r in res_vars]
    keep = [fi is None and fo is None for fi, fo in zip(in_fwd, out_fwd)]
    known = pe.prune_closed_jaxpr_outputs(core.ClosedJaxpr(known_, jaxpr.consts),
                                          [True] * len(out_vars) + keep)
    ins_known, _ = core.partition_list(unks_in, eqn.invars)
    outs_known, _ = core.partition_list(unks_out, eqn.outvars)
    _, ins_staged = core.partition_list(inst_in, eqn.invars)
    _, outs_staged = core.partition_list(inst_out, eqn.outvars)
    res_binders = [core.Var(r.aval) for r, k in zip(res_vars, keep) if k]
    new_res = iter(res_binders)
    res_args = [outs_known[fo] if fo is not None else ins_known[fi] if fi is not None
                else next(new_res) for fi, fo in zip(in_fwd, out_fwd)]
    eqn_known = eqn.replace(invars=ins_known, outvars=[*outs_known, *res_binders],
                            params={**eqn.params, "jaxpr": known})
    eqn_staged = eqn.replace(invars=[*res_args, *ins_staged], outvars=outs_staged,
                             params={**eqn.params,
                                     "jaxpr": core.ClosedJaxpr(staged_, jaxpr.consts)})
    new_inst = [x for x, inst in zip(eqn.invars, inst_in) if type(x) is core.Var and not inst]
    return eqn_known, eqn_staged, unks_out, inst_out, [*new_inst, *res_args]


def _jit_dce(used_outputs: list[bool], eqn: core.JaxprEqn
             ) -> tuple[list[bool], core.JaxprEqn | None]:
    """Keep the outputs used and, inside, what computes them; drop the inputs then unused."""
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    jaxpr = eqn.params["jaxpr"]
    dced, used_inputs = pe.dce_jaxpr(jaxpr.jaxpr, used_outputs)
    return used_inputs, eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params={**eqn.params, "jaxpr": core.ClosedJaxpr(dced, jaxpr.consts)})


ad.primitive_jvps[jit_p] = _jit_jvp
pe.partial_eval_rules[jit_p] = _jit_partial_eval
ad.primitive_transposes[jit_p] = _jit_transpose
pe.partial_eval_jaxpr_custom_rules[jit_p] = _jit_partial_eval_custom
pe.dce_rules[jit_p] = _jit_dce
