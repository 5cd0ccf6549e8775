"""`lax.cond` and `lax.switch`: the `cond` primitive and its rules.

The equation's operands are `[index, *operands]` and its `branches` param holds one
closed jaxpr per branch, all of one type. Partial evaluation follows JAX's
`_cond_partial_eval`: with the index unknown the whole cond is staged; with it known
every branch is split with the same unknown inputs, their residuals are merged by
type across branches (a branch fills the slots it does not use with `empty2`), a known
cond runs the known halves now and an unknown cond, reading the index and the
residuals, is staged.
"""
from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import ad, batching, core, elementwise
from . import lax_base as lax
from . import partial_eval as pe
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

cond_p = core.Primitive("cond", multiple_results=True)


def _cond_abstract(index: core.ShapedArray, *avals: core.ShapedArray, branches: tuple) -> list:
    return list(branches[0].out_avals)


def _cond_impl(index: Any, *args: Any, branches: tuple) -> list:
    i = int(np.clip(int(np.asarray(index)), 0, len(branches) - 1))
    # A cond run now returns arrays, even for a literal branch output, as JAX's does.
    outs = core.eval_jaxpr(branches[i].jaxpr, branches[i].consts, *args)
    return [core.as_array(x, a) for x, a in zip(outs, _cond_abstract(index, branches=branches))]


core.impl_rules[cond_p] = _cond_impl
core.abstract_eval_rules[cond_p] = _cond_abstract


# --------------------------------------------------------------------------- empty2


class MemorySpace(enum.Enum):
    Device = 0

    def __str__(self) -> str:
        return f"MemorySpace.{self.name}"


empty2_p = core.Primitive("empty2")
core.impl_rules[empty2_p] = lambda *, dtype, memory_space: core.Array(np.zeros((), dtype))
core.abstract_eval_rules[empty2_p] = lambda *, dtype, memory_space: core.ShapedArray((), dtype)


def empty_like_aval(aval: core.ShapedArray) -> Any:
    """A placeholder of `aval` whose value does not matter (JAX's empty_like_aval)."""
    out = core.bind(empty2_p, dtype=aval.dtype, memory_space=MemorySpace.Device)
    return lax.broadcast_in_dim(out, aval.shape, ()) if aval.shape else out


# --------------------------------------------------------------------------- the API


def _trace_branches(funs: Sequence[Callable], operands: tuple
                    ) -> tuple[list[core.ClosedJaxpr], list[Any], Any, list[Any]]:
    """Trace each branch; give every branch the union of all branches' closed-over
    constants as leading inputs (deduplicated by identity, as JAX merges them)."""
    flat, in_tree = tree_flatten(operands)
    avals = [core.get_aval(x) for x in flat]
    out_trees, closed = [], []
    for fun in funs:
        box: list = []

        def flat_fun(*xs: Any, fun: Callable = fun, box: list = box) -> list:
            out = fun(*tree_unflatten(in_tree, xs))
            leaves, tree = tree_flatten(out)
            box.append(tree)
            return leaves

        closed.append(trace_to_jaxpr_dynamic(flat_fun, avals))
        out_trees.append(box[0])
    consts: list[Any] = []
    seen: dict[int, int] = {}
    for c in closed:
        for v in c.consts:
            if id(v) not in seen:
                seen[id(v)] = len(consts)
                consts.append(v)
    branches = []
    for c in closed:
        own = {seen[id(v)]: var for var, v in zip(c.jaxpr.constvars, c.consts)}
        const_vars = [own.get(k, core.Var(core.get_aval(v))) for k, v in enumerate(consts)]
        branches.append(core.ClosedJaxpr(core.Jaxpr([], [*const_vars, *c.jaxpr.invars],
                                                    c.jaxpr.outvars, c.jaxpr.eqns), []))
    return branches, consts, out_trees, flat


def _check_outputs(api: str, names: tuple[str, str], trees: list, branches: list) -> None:
    for tree, b in zip(trees[1:], branches[1:]):
        if tree != trees[0]:
            raise TypeError(f"{api} {names[0]} and {names[1]} output must have same type "
                            f"structure, got {trees[0]} and {tree}.")
        for a0, a in zip(branches[0].out_avals, b.out_avals):
            if (a0.shape, a0.dtype) != (a.shape, a.dtype):
                raise TypeError(f"{api} {names[0]} and {names[1]} output must have identical "
                                f"types, got {a0.str_short()} and {a.str_short()}.")


def _forwarded(jaxpr: core.Jaxpr) -> list[int | None]:
    """For each output, the input it merely passes through (or None)."""
    return [jaxpr.invars.index(v) if isinstance(v, core.Var) and v in jaxpr.invars else None
            for v in jaxpr.outvars]


def _bind_pruned(index: Any, branches: list[core.ClosedJaxpr], consts: list, flat: list) -> list:
    """Outputs every branch passes straight through from the same input are not outputs
    of the cond: they are that input (JAX prunes them before binding)."""
    fwds = [_forwarded(b.jaxpr) for b in branches]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    branches = [core.ClosedJaxpr(b.jaxpr.replace(outvars=[v for v, k in zip(b.jaxpr.outvars, keep)
                                                    if k]), b.consts) for b in branches]
    outs = iter(core.bind(cond_p, index, *consts, *flat, branches=tuple(branches)))
    inputs = [*consts, *flat]
    return [next(outs) if f is None else _asarray(inputs[f]) for f in in_fwd]


def _asarray(x: Any) -> Any:
    # jnp imports lax, which imports this module: jnp is complete only when called.
    from .numpy import asarray
    return asarray(x)


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any,
         operand: Any = None) -> Any:
    """`lax.cond`: `true_fun(*operands)` if `pred` else `false_fun(*operands)`, as one
    `cond` equation holding both branches."""
    if operand is not None:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can "
                            "be passed")
        operands = (operand,)
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    if pred is None:
        raise TypeError("cond predicate is None")
    aval = core.get_aval(pred)
    if aval.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if aval.dtype.kind != "b":
        if aval.dtype.kind not in "iuf":
            raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype}.")
        pred = pred != 0
    branches, consts, trees, flat = _trace_branches([true_fun, false_fun], operands)
    _check_outputs("cond", ("true_fun", "false_fun"), trees, branches)
    index = lax.convert_element_type(pred, np.int32)
    outs = _bind_pruned(index, [branches[1], branches[0]], consts, flat)
    return tree_unflatten(trees[0], outs)


def switch(index: Any, branches: Sequence[Callable], *operands: Any,
           operand: Any = None) -> Any:
    """`lax.switch`: `branches[clamp(0, index, n - 1)](*operands)`."""
    if operand is not None:
        operands = (operand,)
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    aval = core.get_aval(index)
    if aval.shape:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {aval.shape}.")
    if aval.dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {aval.dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax.convert_element_type(index, np.int32)
    index = elementwise.clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    jaxprs, consts, trees, flat = _trace_branches(branches, operands)
    _check_outputs("switch", ("branch 0", "branch 1"), trees, jaxprs)
    return tree_unflatten(trees[0], _bind_pruned(index, jaxprs, consts, flat))


# --------------------------------------------------------------------------- JVP


def _cond_jvp(primals: list, tangents: list, *, branches: tuple) -> tuple[list, list]:
    index, *ops = primals
    ops_nz = [type(t) is not ad.Zero for t in tangents[1:]]
    out_nz = [any(nz) for nz in zip(*(ad.jvp_jaxpr(b, ops_nz, False)[1] for b in branches))]
    branches_jvp = tuple(ad.jvp_jaxpr(b, ops_nz, out_nz)[0] for b in branches)
    ops_dot = [t for t in tangents[1:] if type(t) is not ad.Zero]
    outs = core.bind(cond_p, index, *ops, *ops_dot, branches=branches_jvp)
    p_out, t_nz = core.split_list(outs, [len(out_nz)])
    zeros = [ad.Zero(core.get_aval(p)) for p, nz in zip(p_out, out_nz) if not nz]
    return p_out, core.merge_lists(out_nz, zeros, t_nz)


ad.primitive_jvps[cond_p] = _cond_jvp


# --------------------------------------------------------------------------- partial eval


def _merge_branch_residuals(branch_res_avals: list[list[core.ShapedArray]]
                            ) -> tuple[list[core.ShapedArray], list[list[int]]]:
    """One list of residual slots for all branches: slots are shared by type, so a
    residual type used k times in one branch needs only k slots overall."""
    def tagged(avals: list[core.ShapedArray]) -> list[tuple[core.ShapedArray, int]]:
        counts: dict[core.ShapedArray, itertools.count] = {}
        return [(a, next(counts.setdefault(a, itertools.count()))) for a in avals]

    branch_tags = [tagged(avals) for avals in branch_res_avals]
    slots = list(dict.fromkeys(t for tags in branch_tags for t in tags))
    index = {t: i for i, t in enumerate(slots)}
    return [a for a, _ in slots], [[index[t] for t in tags] for tags in branch_tags]


def _join_outputs(jaxprs: list[core.ClosedJaxpr], all_res: list[core.ShapedArray],
                  per_branch: list[list[int]], num_outs: int) -> tuple[core.ClosedJaxpr, ...]:
    def augment(closed: core.ClosedJaxpr, slots: list[int]) -> core.ClosedJaxpr:
        def f(*args: Any) -> list:
            outs, res = core.split_list(core.jaxpr_as_fun(closed)(*args), [num_outs])
            aug = [empty_like_aval(a) for a in all_res]
            for k, r in zip(slots, res):
                aug[k] = r
            return [*outs, *aug]
        return trace_to_jaxpr_dynamic(f, closed.in_avals)
    return tuple(augment(j, s) for j, s in zip(jaxprs, per_branch))


def _join_inputs(jaxprs: list[core.ClosedJaxpr], all_res: list[core.ShapedArray],
                 per_branch: list[list[int]]) -> tuple[core.ClosedJaxpr, ...]:
    # One binder per slot, shared by the branches that leave it unread (so it prints
    # with one name across branches, as in JAX).
    shared = [core.Var(a) for a in all_res]

    def augment(closed: core.ClosedJaxpr, slots: list[int]) -> core.ClosedJaxpr:
        res_vars, rest = core.split_list(closed.jaxpr.invars, [len(slots)])
        aug = list(shared)
        for k, v in zip(slots, res_vars):
            aug[k] = v
        return core.ClosedJaxpr(closed.jaxpr.replace(invars=[*aug, *rest]), closed.consts)
    return tuple(augment(j, s) for j, s in zip(jaxprs, per_branch))


def _cond_partial_eval(trace: pe.JaxprTrace, tracers: list, params: dict) -> list:
    branches = params["branches"]
    index_uk, *ops_uk = [not t.is_known() for t in tracers]
    obs = trace.state.observer
    if not any([index_uk, *ops_uk]):
        outs = core.bind(cond_p, *[t.pval.get_known() for t in tracers], **params)
        obs.split(cond_p, params, tracers, outs, None, inner={"known": branches[0]})
        return [trace.new_const(o) for o in outs]
    if index_uk:
        return trace.default_process_primitive(cond_p, tracers, params)
    out_uks = [any(uks) for uks in zip(*(pe.partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                         for b in branches))]
    known, unknown, res_avals = [], [], []
    for b in branches:
        k, u, _, r = pe.partial_eval_jaxpr_nounits(b, ops_uk, out_uks)
        known.append(k)
        unknown.append(u)
        res_avals.append(r)
    all_res, per_branch = _merge_branch_residuals(res_avals)
    num_known_outs = out_uks.count(False)
    branches_known = _join_outputs(known, all_res, per_branch, num_known_outs)
    branches_unknown = _join_inputs(unknown, all_res, per_branch)
    in_consts = [t.pval.get_known() for t in tracers if t.is_known()]
    outs = core.bind(cond_p, *in_consts, branches=branches_known)
    known_outs, res = core.split_list(outs, [num_known_outs])
    index_tracer = trace.instantiate_const(tracers[0])
    ops_tracers = [trace.instantiate_const(t) for uk, t in zip(ops_uk, tracers[1:]) if uk]
    res_tracers = [trace.instantiate_const(trace.new_const(r)) for r in res]
    out_tracers = [pe.JaxprTracer(trace, pe.PartialVal.unknown(a), None)
                   for a in branches_unknown[0].out_avals]
    eqn = pe.new_eqn_recipe(trace, [index_tracer, *res_tracers, *ops_tracers], out_tracers,
                            cond_p, {"branches": branches_unknown})
    for t in out_tracers:
        t.recipe = eqn
    obs.split(cond_p, params, tracers, known_outs, eqn,
              inner={"known": branches_known[0], "unknown": branches_unknown[0]})
    return core.merge_lists(out_uks, [trace.new_const(o) for o in known_outs], out_tracers)


pe.partial_eval_rules[cond_p] = _cond_partial_eval


# --------------------------------------------------------------------------- transpose


def _cond_transpose(cts: list, index: Any, *ops: Any, branches: tuple) -> list:
    # Each branch is transposed on its own; all take (defined operands, cotangents)
    # and return the cotangents of the linear operands, so they stay one type.
    undefined = [ad.is_undefined_primal(x) for x in ops]
    cts = [ad.instantiate_zeros(c) for c in cts]
    trans = tuple(ad.transpose_jaxpr(b, undefined, [True] * len(cts))[0] for b in branches)
    defined = [x for x in ops if not ad.is_undefined_primal(x)]
    outs = core.bind(cond_p, index, *defined, *cts, branches=trans)
    return [None, *core.merge_lists(undefined, [None] * len(defined), outs)]


ad.primitive_transposes[cond_p] = _cond_transpose


# --------------------------------------------------------------------------- batching


def _bcast_select_n(pred: Any, *cases: Any) -> Any:
    if core.get_aval(pred).ndim != core.get_aval(cases[0]).ndim:
        pred = lax.broadcast_in_dim(pred, core.get_aval(cases[0]).shape,
                                    list(range(core.get_aval(pred).ndim)))
    return lax.select_n(pred, *cases)


def _cond_batcher(size: int, vals: list, dims: list, *, branches: tuple) -> tuple[list, list]:
    index, *ops = vals
    index_dim, *op_dims = dims
    if index_dim is not None:
        # A batched index runs every branch and selects, as JAX does under vmap.
        index = batching.bdim_at_front(index, index_dim, size)
        ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
        batched = [batching.batch_jaxpr(b, size, [0] * len(ops), 0) for b in branches]
        branch_outs = []
        for i, b in enumerate(batched):
            predicate = lax.eq(index, np.array(i, core.get_aval(index).dtype))
            ops_ = [_bcast_select_n(predicate, elementwise.stop_gradient(x), x) for x in ops]
            branch_outs.append(core.jaxpr_as_fun(b)(*ops_))
        outs = [_bcast_select_n(index, *o) for o in zip(*branch_outs)]
        return outs, [0] * len(outs)
    ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
    in_dims = [None if d is None else 0 for d in op_dims]
    out_bat = [any(bs) for bs in zip(*(batching.batched_out_dims(b, size, in_dims)
                                       for b in branches))]
    want = [0 if b else None for b in out_bat]
    batched_branches = tuple(batching.batch_jaxpr(b, size, in_dims, want) for b in branches)
    return core.bind(cond_p, index, *ops, branches=batched_branches), want


batching.primitive_batchers[cond_p] = _cond_batcher


# --------------------------------------------------------------------------- checkpoint


def _cond_partial_eval_custom(saveable: Callable, unks_in: Sequence[bool],
                              inst_in: Sequence[bool], eqn: Any) -> tuple:
    """The policy-driven split (checkpoint): each branch split alike, residuals merged."""
    index_uk, *ops_uk = unks_in
    branches = eqn.params["branches"]
    new_inst = [x for x, inst in zip(eqn.invars, inst_in) if type(x) is core.Var and not inst]
    if index_uk:
        all_true = [True] * len(branches[0].out_avals)
        return None, eqn, all_true, all_true, new_inst
    unks_out = [False] * len(eqn.outvars)
    for b in branches:
        uks = pe.partial_eval_jaxpr_custom(b.jaxpr, ops_uk, True, False, True, saveable)[2]
        unks_out = [a or c for a, c in zip(unks_out, uks)]
    known, staged, res_avals = [], [], []
    for b in branches:
        jk, js, _, inst_out, num_res = pe.partial_eval_jaxpr_custom(
            b.jaxpr, ops_uk, True, unks_out, True, saveable)
        known.append(core.ClosedJaxpr(jk, b.consts))
        staged.append(core.ClosedJaxpr(js, b.consts))
        res_avals.append([v.aval for v in js.invars[:num_res]])
    all_res, per_branch = _merge_branch_residuals(res_avals)
    branches_known = _join_outputs(known, all_res, per_branch, unks_out.count(False))
    branches_staged = _join_inputs(staged, all_res, per_branch)
    res_binders = [core.Var(a) for a in all_res]
    ins_known, _ = core.partition_list(unks_in, eqn.invars)
    outs_known, _ = core.partition_list(unks_out, eqn.outvars)
    eqn_known = eqn.replace(invars=ins_known, outvars=[*outs_known, *res_binders],
                            params={**eqn.params, "branches": branches_known})
    _, outs_staged = core.partition_list(inst_out, eqn.outvars)
    eqn_staged = eqn.replace(invars=[eqn.invars[0], *res_binders, *eqn.invars[1:]],
                             outvars=outs_staged,
                             params={**eqn.params, "branches": branches_staged})
    return eqn_known, eqn_staged, unks_out, inst_out, [*new_inst, *res_binders]


def _cond_dce(used_outputs: list[bool], eqn: Any) -> tuple[list[bool], Any]:
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    branches = eqn.params["branches"]
    used_inputs = [False] * (len(eqn.invars) - 1)
    for b in branches:
        used = pe.dce_jaxpr(b.jaxpr, used_outputs)[1]
        used_inputs = [a or c for a, c in zip(used_inputs, used)]
    new = tuple(core.ClosedJaxpr(pe.dce_jaxpr(b.jaxpr, used_outputs, used_inputs)[0], b.consts)
                for b in branches)
    eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, [True, *used_inputs]) if u],
                      outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                      params={**eqn.params, "branches": new})
    return [True, *used_inputs], eqn


pe.partial_eval_jaxpr_custom_rules[cond_p] = _cond_partial_eval_custom
pe.dce_rules[cond_p] = _cond_dce
