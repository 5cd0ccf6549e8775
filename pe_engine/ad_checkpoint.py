"""`jax.checkpoint` (alias `remat`): rematerialisation as a predicate handed to the splitter.

`checkpoint(f, policy=...)` stages f into a `remat2` equation. When the equation is
partially evaluated (under `grad`), its rule calls `partial_eval_jaxpr_custom` with
the policy: for each known equation the policy decides whether its output may be
saved as a residual, or the equation is recomputed in the backward program. The
default policy, `nothing_saveable`, saves nothing but the inputs.

Also here: `checkpoint_name` (the `name` primitive the name-based policies key
on), `checkpoint_policies`, and `saved_residuals` / `print_saved_residuals`.
"""
from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from . import ad, core
from . import lax_base as lax
from . import partial_eval as pe
from .api import arg_names
from .caches import memo_table
from .keys import check_hash_nesting, value_or_identity
from .pjit import jit_p
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic
from .typecheck import check_call_operands, typecheck_rules

# --------------------------------------------------------------------------- policies

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "print_saved_residuals",
           "remat", "saved_residuals"]



def everything_saveable(*_: Any, **__: Any) -> bool:
    return True


def nothing_saveable(*_: Any, **__: Any) -> bool:
    return False


@dataclass(frozen=True)
class DotsSaveable:
    """Save the outputs of matrix products (optionally only those without batch dims)."""

    only_if_no_batch_dims: bool

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        if prim is not lax.dot_general_p:
            return False
        (_, _), (lhs_batch, _) = params["dimension_numbers"]
        return not (self.only_if_no_batch_dims and lhs_batch)


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only values named (with `checkpoint_name`) by one of these names."""

    saveable_names: frozenset[str]

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, and not those with these names."""

    names: frozenset[str]

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names: str) -> SaveOnlyTheseNames:
    return SaveOnlyTheseNames(frozenset(map(check_hash_nesting, names)))


def save_any_names_but_these(*names: str) -> SaveAnyNamesButThese:
    return SaveAnyNamesButThese(frozenset(map(check_hash_nesting, names)))


def save_from_both_policies(policy_1: Callable[..., bool], policy_2: Callable[..., bool]
                            ) -> Callable[..., bool]:
    def policy(prim: core.Primitive, *args: Any, **params: Any) -> bool:
        return bool(policy_1(prim, *args, **params)) or bool(policy_2(prim, *args, **params))
    return policy


checkpoint_policies = SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_from_both_policies=save_from_both_policies)


def save_anything_except_these_names(*names_not_to_save: str) -> Callable[..., bool]:
    """As JAX 0.10.2 defines it: every value may be saved, whatever the names (its source
    notes the names are not consulted)."""
    return lambda *_, **__: True


def _offload_policy(name: str) -> Callable[..., Any]:
    def make(*_: Any, **__: Any) -> Callable[..., bool]:
        raise NotImplementedError(
            f"checkpoint_policies.{name} offloads residuals to another memory space "
            "(host memory); this engine models one memory space, so it has no offloading")
    make.__name__ = name
    return make


checkpoint_policies.save_anything_except_these_names = save_anything_except_these_names
checkpoint_policies.offload_dot_with_no_batch_dims = _offload_policy(
    "offload_dot_with_no_batch_dims")
checkpoint_policies.save_and_offload_only_these_names = _offload_policy(
    "save_and_offload_only_these_names")


# --------------------------------------------------------------------------- checkpoint_name

name_p = core.Primitive("name")
core.impl_rules[name_p] = lambda x, *, name: x
core.abstract_eval_rules[name_p] = lambda x, *, name: x
# The primal is named, not the tangent: a policy decides about primal values only.
ad.primitive_jvps[name_p] = lambda primals, tangents, *, name: (
    core.bind(name_p, *primals, name=name), tangents[0])


def checkpoint_name(x: Any, name: str) -> Any:
    """Tag a value so that name-based policies can decide whether to save it."""
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [core.bind(name_p, leaf, name=name) for leaf in leaves])


# --------------------------------------------------------------------------- the primitive

# JAX's remat primitive is called 'remat2' (its older version was 'remat').
remat_p = core.Primitive("remat2", multiple_results=True)
core.impl_rules[remat_p] = lambda *args, jaxpr, **_: core.eval_jaxpr(jaxpr, [], *args)
core.abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **_: list(jaxpr.out_avals)


def _remat_typecheck(in_avals: list[core.ShapedArray], *, jaxpr: core.Jaxpr, **_: Any
                     ) -> list[core.ShapedArray]:
    check_call_operands(jaxpr, in_avals, "remat2")
    return list(jaxpr.out_avals)


typecheck_rules[remat_p] = _remat_typecheck


def checkpoint(fun: Callable, *, prevent_cse: bool = True,
               policy: Callable[..., bool] | None = None,
               static_argnums: int | tuple[int, ...] = ()) -> Callable[..., Any]:
    """Stage `fun` into a `remat2` equation whose backward pass recomputes what `policy`
    does not save."""
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def wrapped(*args: Any) -> Any:
        dyn = [i for i in range(len(args)) if i not in static]
        flat, in_tree = tree_flatten(tuple(args[i] for i in dyn))
        statics = tuple((i, args[i]) for i in range(len(args)) if i in static)
        jaxpr, consts, out_tree = _trace_to_jaxpr(fun, statics, in_tree,
                                                  tuple(core.get_aval(x) for x in flat))
        outs = core.bind(remat_p, *consts, *flat, jaxpr=jaxpr, prevent_cse=prevent_cse,
                         differentiated=False, policy=policy)
        return tree_unflatten(out_tree, outs)
    return wrapped


remat = checkpoint

# fun -> {(static args, in_tree, in avals, folding): (jaxpr, consts, out_tree)}: as JAX
# caches the trace, a function checkpointed twice binds one jaxpr (printed once).
_traces: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, Any]] = memo_table(
    "ad_checkpoint._traces", weakref.WeakKeyDictionary())


def _trace_to_jaxpr(fun: Callable, statics: tuple, in_tree: Any, in_avals: tuple
                    ) -> tuple[core.Jaxpr, list, Any]:
    key = (tuple((i, value_or_identity(a)) for i, a in statics), in_tree, in_avals,
           core.config.values["eager_constant_folding"])
    try:
        per_fun = _traces.setdefault(fun, {})
    except TypeError:  # a callable that cannot be weakly referenced: not cached
        per_fun = {}
    hit = per_fun.get(key)
    if hit is not None:
        return hit
    out_tree: list = []

    def flat_fun(*leaves: Any) -> list:
        full = list(tree_unflatten(in_tree, leaves))
        for i, a in statics:
            full.insert(i, a)
        out_leaves, tree = tree_flatten(fun(*full))
        out_tree[:] = [tree]
        return out_leaves

    closed = trace_to_jaxpr_dynamic(flat_fun, list(in_avals))
    hit = (pe.convert_constvars_jaxpr(closed.jaxpr), closed.consts, out_tree[0])
    # Constants that are tracers belong to the trace of this call only.
    if not any(isinstance(c, core.Tracer) for c in closed.consts):
        per_fun[key] = hit
    return hit


def _remat_jvp(primals: list, tangents: list, *, jaxpr: core.Jaxpr, **params: Any
               ) -> tuple[list, list]:
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_closed, out_nz = ad.jvp_jaxpr(pe.close_jaxpr(jaxpr), nonzeros, False)
    outs = core.bind(remat_p, *jvp_closed.consts, *primals,
                     *(t for t in tangents if type(t) is not ad.Zero),
                     jaxpr=pe.convert_constvars_jaxpr(jvp_closed.jaxpr), **params)
    p_out, t_nz = core.split_list(outs, [len(jaxpr.outvars)])
    zeros = [ad.Zero(v.aval) for v, nz in zip(jaxpr.outvars, out_nz) if not nz]
    return p_out, core.merge_lists(out_nz, zeros, t_nz)


class RematSplit(NamedTuple):
    """A remat2's inner program split under its policy: `known` returns the known outputs
    then `num_res` residuals; `unknown` reads the residuals, then the inputs `used_ins`
    marks (among the call's inputs); `used_known_in` marks the known inputs `known` reads."""
    known: core.Jaxpr
    unknown: core.Jaxpr
    out_unknowns: list[bool]
    num_res: int
    used_known_in: list[bool]
    used_ins: list[bool]


def remat_split(jaxpr: core.Jaxpr, in_unknowns: Sequence[bool], policy: Callable[..., bool] | None
                ) -> RematSplit:
    """JAX's remat partial eval: the policy decides which known values are saved as
    residuals; a known equation whose outputs are not saved is copied into the unknown
    program (recomputed there), and both halves keep only what they use."""
    jaxpr_known, jaxpr_staged, out_unknowns, out_inst, num_res = pe.partial_eval_jaxpr_custom(
        jaxpr, in_unknowns, True, False, False, policy or nothing_saveable)
    # Keep only the staged outputs that are unknown, then only the residuals used.
    _, staged_out_unknown = core.partition_list(out_inst, out_unknowns)
    jaxpr_unknown, used_staged_in = pe.dce_jaxpr(jaxpr_staged, staged_out_unknown)
    used_res, used_ins = core.split_list(used_staged_in, [num_res])
    n_known_out = out_unknowns.count(False)
    jaxpr_known, used_known_in = pe.dce_jaxpr(jaxpr_known, [True] * n_known_out + used_res)
    num_res = sum(used_res)
    return RematSplit(_insert_reduce_precision(jaxpr_known, num_res), jaxpr_unknown,
                      out_unknowns, num_res, used_known_in, used_ins)


def _remat_partial_eval(trace: pe.JaxprTrace, tracers: list, params: dict) -> list:
    """Split with the policy; run the known part now (inlined into the program being
    traced); stage the rest as a new remat2 that reads the residuals first."""
    in_unknowns = [not t.is_known() for t in tracers]
    jaxpr_known, jaxpr_unknown, out_unknowns, num_res, used_known_in, used_ins = remat_split(
        params["jaxpr"], in_unknowns, params["policy"])
    n_known_out = out_unknowns.count(False)
    known_vals = [t.pval.get_known() for t in tracers if t.is_known()]
    outs = core.eval_jaxpr(jaxpr_known, [], *[v for v, u in zip(known_vals, used_known_in) if u])
    known_outs, residuals = core.split_list(outs, [n_known_out])
    res_tracers = [trace.new_instantiated_const(r) for r in residuals]
    in_tracers = [trace.instantiate_const(t) for t, u in zip(tracers, used_ins) if u]
    out_tracers = [pe.JaxprTracer(trace, pe.PartialVal.unknown(v.aval), None)
                   for v in jaxpr_unknown.outvars]
    staged_params = {**params, "jaxpr": jaxpr_unknown, "differentiated": True}
    eqn = pe.new_eqn_recipe(trace, [*res_tracers, *in_tracers], out_tracers, remat_p,
                            staged_params)
    for t in out_tracers:
        t.recipe = eqn
    obs = trace.state.observer
    staged = eqn if out_tracers else None
    obs.split(remat_p, params, tracers, known_outs, staged,
              inner={"known": core.ClosedJaxpr(jaxpr_known, []),
                     **({"unknown": core.ClosedJaxpr(jaxpr_unknown, [])} if staged else {})})
    return core.merge_lists(out_unknowns, [trace.new_const(o) for o in known_outs], out_tracers)


@core.weakref_lru_cache
def _insert_reduce_precision(jaxpr: core.Jaxpr, num_res: int) -> core.Jaxpr:
    """Round each saved floating residual to its own precision where it is made (a no-op
    that keeps the compiler from saving a more precise value than the backward pass
    recomputes, JAX's jax#22244): only for residuals the known program also reads."""
    res_vars = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    used = {a for e in jaxpr.eqns for a in e.invars if isinstance(a, core.Var)}
    invars, eqns = list(jaxpr.invars), list(jaxpr.eqns)
    for v in res_vars:
        if type(v) is core.Literal or v.aval.dtype.kind != "f" or v not in used:
            continue
        rounded = core.Var(v.aval)
        info = np.finfo(v.aval.dtype)
        params = {"exponent_bits": int(info.nexp), "mantissa_bits": int(info.nmant)}
        if v in invars:
            invars[invars.index(v)] = rounded
            eqns.insert(0, core.JaxprEqn([rounded], [v], lax.reduce_precision_p, params))
            continue
        i = next(i for i, e in enumerate(eqns) if v in e.outvars)
        eqn = eqns[i]
        if eqn.primitive is lax.reduce_precision_p and eqn.params == params:
            continue
        eqns[i] = eqn.replace(outvars=[rounded if o is v else o for o in eqn.outvars])
        eqns.insert(i + 1, core.JaxprEqn([rounded], [v], lax.reduce_precision_p, params,
                                         frozenset(), eqn.source_info))
    return jaxpr.replace(invars=invars, eqns=eqns)


@core.weakref_lru_cache
def _recompute_then_linear(closed: core.ClosedJaxpr, undef: tuple[bool, ...]) -> core.ClosedJaxpr:
    """The same function, its recomputation first and its linear work after, as JAX's
    remat transpose separates them by partial evaluation: one equation (a cond, a scan)
    may yield both a recomputed value and a tangent, which no transpose rule takes apart."""
    known, lin, out_uk, res_avals = pe.partial_eval_jaxpr_nounits(closed, list(undef), False)

    def separated(*args: Any) -> list:
        defined = [a for a, u in zip(args, undef) if not u]
        linear = [a for a, u in zip(args, undef) if u]
        outs = core.eval_jaxpr(known.jaxpr, known.consts, *defined)
        known_outs, res = core.split_list(outs, [len(outs) - len(res_avals)])
        return core.merge_lists(out_uk, known_outs,
                                core.eval_jaxpr(lin.jaxpr, lin.consts, *res, *linear))

    return trace_to_jaxpr_dynamic(separated, closed.in_avals)


def _remat_transpose(cts: list, *args: Any, jaxpr: core.Jaxpr, **params: Any) -> list:
    # The backward program recomputes (the known part of the jaxpr runs inside it) and
    # is itself a remat2, so the recomputation stays a unit.
    undef = [ad.is_undefined_primal(a) for a in args]
    ct_nz = [type(c) is not ad.Zero for c in cts]
    t_closed, ct_out_nz = ad.transpose_jaxpr(
        _recompute_then_linear(pe.close_jaxpr(jaxpr), tuple(undef)), undef, ct_nz, False,
        [a.aval if u else core.get_aval(a) for a, u in zip(args, undef)],
        [core.get_aval(c) if nz else c.aval for c, nz in zip(cts, ct_nz)])
    res = [a for a, u in zip(args, undef) if not u]
    outs = iter(core.bind(remat_p, *t_closed.consts, *res,
                          *(c for c in cts if type(c) is not ad.Zero),
                          jaxpr=pe.convert_constvars_jaxpr(t_closed.jaxpr),
                          **{**params, "differentiated": True}))
    return core.merge_lists(undef, [None] * len(res), [next(outs) if nz else None
                                                       for nz in ct_out_nz])


def _remat_partial_eval_custom(saveable: Callable, unks_in: Sequence[bool],
                               inst_in: Sequence[bool], eqn: Any) -> tuple:
    # A remat nested in a jaxpr being split: all-or-nothing, recomputed when known
    # (its own policy governs the inside when it is later differentiated).
    if any(unks_in):
        res = [v for v, inst in zip(eqn.invars, inst_in)
               if not inst and type(v) is not core.Literal]
        return None, eqn, [True] * len(eqn.outvars), [True] * len(eqn.outvars), res
    res = [v for v, inst in zip(eqn.invars, inst_in) if not inst and type(v) is not core.Literal]
    return eqn, eqn, [False] * len(eqn.outvars), [True] * len(eqn.outvars), res


ad.primitive_jvps[remat_p] = _remat_jvp
pe.partial_eval_rules[remat_p] = _remat_partial_eval
ad.primitive_transposes[remat_p] = _remat_transpose
pe.partial_eval_jaxpr_custom_rules[remat_p] = _remat_partial_eval_custom


# --------------------------------------------------------------------------- saved residuals


def saved_residuals(f: Callable, *args: Any) -> list[tuple[core.ShapedArray, str]]:
    """What reverse-mode differentiation of `f` at `args` keeps: (aval, where from) pairs."""
    return saved_residuals_at(f, args, held=False)


def saved_residuals_at(f: Callable, args: tuple, held: bool) -> list[tuple[core.ShapedArray, str]]:
    """saved_residuals; with `held`, the trace holds the arguments' values, as reverse mode
    holds the primals, so Python control flow on them is decided (JAX's saved_residuals
    traces them abstractly)."""
    flat, in_tree = tree_flatten(args)

    def residuals_of(*leaves: Any) -> list:
        def flat_f(*xs: Any) -> list:
            return tree_flatten(f(*tree_unflatten(in_tree, xs)))[0]
        return [r for r in ad.linearize_flat(flat_f, leaves)[2] if not ad.is_tangent_side_zero(r)]

    closed = trace_to_jaxpr_dynamic(residuals_of, [core.get_aval(x) for x in flat],
                                    held=flat if held else None)
    jaxpr = closed.jaxpr
    producers = {v: e for e in jaxpr.eqns for v in e.outvars}
    # A residual checkpoint rounds with reduce_precision is described by what it rounds.
    rounded: dict[core.Atom, core.Atom] = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
                                           if e.primitive is lax.reduce_precision_p}
    names = arg_names(f, args)
    out = []
    for v in (rounded.get(v, v) for v in jaxpr.outvars):
        if type(v) is core.Literal:
            src = "from a literal"
        elif v in jaxpr.constvars:
            src = "from a constant"
        elif v in jaxpr.invars:
            src = f"from the argument {names[jaxpr.invars.index(v)]}"
        else:
            src = _describe_eqn(producers[v])
        out.append((v.aval, src))
    return out


def _describe_eqn(eqn: Any) -> str:
    where = eqn.source_info.summarize()
    if eqn.primitive is name_p:
        return f"named '{eqn.params['name']}' from {where}"
    if eqn.primitive is jit_p:
        return f"output of jitted function '{eqn.params['name']}' from {where}"
    return f"output of {eqn.primitive.name} from {where}"


def print_saved_residuals(f: Callable, *args: Any) -> None:
    for aval, src in saved_residuals(f, *args):
        print(f"{aval.str_short(short_dtypes=True)} {src}")


def saved_residual_bytes(f: Callable, *args: Any) -> int:
    """The memory the residuals of `f` at `args` hold between forward and backward pass."""
    return sum(aval.nbytes for aval, _ in saved_residuals(f, *args))
