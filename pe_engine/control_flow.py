"""`lax.scan` as a primitive, with its JVP, partial-evaluation and transpose rules.

The scan equation's operands are `[*consts, *init_carry, *xs]`; its outputs
`[*final_carry, *stacked_ys]`. Under partial evaluation a scan is a unit that
itself splits: the body is split once per iteration of JAX's fixpoint on the
carries (an unknown carry output makes that carry's input unknown on the next
round), then a known scan runs now and an unknown scan is staged. Residuals the
body makes each iteration are stacked as extra ys of the known scan, except those
that depend on known consts alone: JAX hoists those out of the loop
(`_scan_known_hoisting`), computing them once.
"""
from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import ad, batching, core
from . import lax_base as lax
from . import partial_eval as pe
from .api import closure_convert
from .dtypes import weak_result_type
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic
from .typecheck import JaxprTypeError, check_call_operands, typecheck_rules

scan_p = core.Primitive("scan", multiple_results=True)


def _stacked(aval: core.ShapedArray, length: int) -> core.ShapedArray:
    return core.ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def _unstacked(aval: core.ShapedArray) -> core.ShapedArray:
    return core.ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _scan_abstract(*avals: core.ShapedArray, jaxpr: core.ClosedJaxpr, length: int, num_consts: int,
                   num_carry: int, **_: Any) -> list[core.ShapedArray]:
    carry, ys = core.split_list(jaxpr.out_avals, [num_carry])
    return [*carry, *(_stacked(a, length) for a in ys)]


def _scan_impl(*args: Any, jaxpr: core.ClosedJaxpr, length: int, num_consts: int, num_carry: int,
               reverse: bool, unroll: int) -> list[Any]:
    consts, carry, xs = core.split_list(args, [num_consts, num_carry])
    # A slice keeps the weak type of what it is sliced from.
    xs = [(core.to_numpy(x), core.get_aval(x).weak_type) for x in xs]
    ys_per_step: list[list[Any]] = [[] for _ in range(length)]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry,
                              *(core.Array(x[i], weak) for x, weak in xs))
        carry, ys_per_step[i] = core.split_list(out, [num_carry])
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [core.Array(np.stack([core.to_numpy(step[j]) for step in ys_per_step]) if length else
                     np.zeros((0, *a.shape), a.dtype), a.weak_type) for j, a in enumerate(y_avals)]
    return [*carry, *ys]


def _scan_typecheck(in_avals: list[core.ShapedArray], *, jaxpr: core.ClosedJaxpr, length: int,
                    num_consts: int, num_carry: int, **_: Any) -> list[core.ShapedArray]:
    consts, carry, xs = core.split_list(in_avals, [num_consts, num_carry])
    if any(not x.shape or x.shape[0] != length for x in xs):
        raise JaxprTypeError(f"scan of length {length} over "
                             f"{', '.join(x.str_short(True) for x in xs)}")
    check_call_operands(jaxpr.jaxpr, [*consts, *carry, *map(_unstacked, xs)], "scan body")
    carry_out = jaxpr.out_avals[:num_carry]
    if [a.strip_weak_type() for a in carry_out] != [a.strip_weak_type() for a in carry]:
        raise JaxprTypeError("scan body carry output "
                             f"{', '.join(a.str_short(True) for a in carry_out)} does not match "
                             f"its carry input {', '.join(a.str_short(True) for a in carry)}")
    return _scan_abstract(jaxpr=jaxpr, length=length, num_consts=num_consts,
                          num_carry=num_carry)


core.impl_rules[scan_p] = _scan_impl
core.abstract_eval_rules[scan_p] = _scan_abstract
typecheck_rules[scan_p] = _scan_typecheck


def _bind_scan(closed: core.ClosedJaxpr, consts: list, carry: list, xs: list,
               **params: Any) -> list:
    """Bind scan_p, hoisting the body's own constants into leading scan consts."""
    closed, hoisted = closure_convert(closed)
    return core.bind(scan_p, *hoisted, *consts, *carry, *xs, jaxpr=closed,
                     num_consts=len(hoisted) + len(consts), num_carry=len(carry), **params)


def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple[Any, Any]:
    """`lax.scan`: loop `f(carry, x) -> (carry, y)` over the leading axis of xs."""
    xs_flat, xs_tree = tree_flatten(xs)
    n = _scan_length(xs_flat, length)
    unroll = _unroll_param(unroll, n)
    init_flat, init_tree = tree_flatten(init)
    out_tree: list = []

    def body(*args: Any) -> list:
        carry, x = core.split_list(args, [len(init_flat)])
        new_carry, y = f(tree_unflatten(init_tree, carry), tree_unflatten(xs_tree, x))
        c_flat, c_tree = tree_flatten(new_carry)
        if c_tree != init_tree:
            raise TypeError(
                "scan body function carry input and carry output must have the same pytree "
                f"structure, but they differ:\n\nthe input tree structure is:\n{init_tree}\nthe "
                f"output tree structure is:\n{c_tree}\n\nRevise the function so that the carry "
                "output has the same pytree structure as the carry input.")
        y_flat, y_tree = tree_flatten(y)
        out_tree[:] = [y_tree]
        return [*c_flat, *y_flat]

    x_avals = [_unstacked(core.get_aval(x)) for x in xs_flat]
    closed = trace_to_jaxpr_dynamic(body, [*map(core.get_aval, init_flat), *x_avals])
    # A weakly typed init whose carry comes out of another dtype is cast to it, and the
    # body traced again (JAX's two passes).
    promoted = [lax.convert_element_type(c, weak_result_type(c, np.zeros(out.shape, out.dtype))[0])
                if core.get_aval(c).weak_type and not _typematch(core.get_aval(c), out) else c
                for c, out in zip(init_flat, closed.out_avals)]
    if any(p is not c for p, c in zip(promoted, init_flat)):
        init_flat = promoted
        closed = trace_to_jaxpr_dynamic(body, [*map(core.get_aval, init_flat), *x_avals])
    _check_carry_type(f, [core.get_aval(c) for c in init_flat], closed.out_avals[:len(init_flat)])
    closed, consts = closure_convert(closed)
    num_carry, num_ys = len(init_flat), len(closed.out_avals) - len(init_flat)
    # A carry the body passes through unchanged is read-only: it becomes a const.
    carry_fwd, ext_fwd = core.split_list(pe.jaxpr_forwarding(closed.jaxpr), [num_carry])
    to_const = [f == len(consts) + i for i, f in enumerate(carry_fwd)]
    if any(to_const):
        closed = pe.prune_closed_jaxpr_outputs(closed, [not m for m in to_const] + [True] * num_ys)
        closed = pe.move_binders_to_front(closed, [False] * len(consts) + to_const
                                          + [False] * len(xs_flat))
        init_flat, new_consts = core.partition_list(to_const, init_flat)
        consts, num_carry = [*new_consts, *consts], num_carry - len(new_consts)
    else:
        new_consts = []
    # A ys output that is just an xs input is not copied by the loop: it is that input.
    ys_from_xs = [f - len(consts) - num_carry if f is not None and
                  f >= len(consts) + num_carry else None for f in ext_fwd]
    closed = pe.prune_closed_jaxpr_outputs(closed, [True] * num_carry
                                           + [f is None for f in ys_from_xs])
    outs = core.bind(scan_p, *consts, *init_flat, *xs_flat, jaxpr=closed, length=n, reverse=reverse,
                     unroll=unroll, num_consts=len(consts), num_carry=num_carry)
    carry, ys = core.split_list(outs, [num_carry])
    # A NumPy xs comes back an array, as JAX puts it on the device.
    ys = core.subs_list(ys_from_xs, [core.as_array(x) if isinstance(x, np.ndarray) else x
                                     for x in xs_flat], ys)
    if new_consts:
        carry = core.merge_lists(to_const, carry, new_consts)
    return tree_unflatten(init_tree, carry), tree_unflatten(out_tree[0], ys)


def _unroll_param(unroll: int | bool, length: int) -> int:
    """JAX's scan param is a count: True unrolls the whole loop (its length), False none."""
    if isinstance(unroll, (bool, np.bool_)):
        return max(length, 1) if unroll else 1
    unroll = operator.index(unroll)
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll


def _scan_length(xs_flat: list, length: int | None) -> int:
    lengths = [core.get_aval(x).shape[0] for x in xs_flat]
    if length is not None:
        if any(int(length) != n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return int(length)
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(map(str, lengths))}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _typematch(a: core.ShapedArray, b: core.ShapedArray) -> bool:
    return (a.shape, a.dtype) == (b.shape, b.dtype)


def _check_carry_type(f: Callable, ins: list[core.ShapedArray],
                      outs: list[core.ShapedArray]) -> None:
    try:
        carry_name = next(iter(inspect.signature(f).parameters))
    except (TypeError, ValueError, StopIteration):
        carry_name = None
    what = f"the input carry {carry_name}" if carry_name else "the input carry"
    diffs = []
    for a, b in zip(ins, outs):
        if not _typematch(a, b):
            why = [w for w, bad in (("the dtypes do not match", a.dtype != b.dtype),
                                    ("the shapes do not match", a.shape != b.shape)) if bad]
            diffs.append(f"{what} has type {a.str_short()} but the corresponding output carry "
                         f"component has type {b.str_short()}, so {' and '.join(why)}")
    if diffs:
        listed = (diffs[0][0].upper() + diffs[0][1:] + ".\n" if len(diffs) == 1 else
                  "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n")
        raise TypeError("scan body function carry input and carry output must have equal "
                        f"types, but they differ:\n\n{listed}\nRevise the function so that "
                        "all output types match the corresponding input types.")


scan = scan  # offered as pe_engine.lax.scan, as jax.lax.scan


# --------------------------------------------------------------------------- JVP


def _scan_jvp(primals: list, tangents: list, *, jaxpr: core.ClosedJaxpr, length: int,
              num_consts: int, num_carry: int, **params: Any) -> tuple[list, list]:
    nz = [type(t) is not ad.Zero for t in tangents]
    const_nz, init_nz, xs_nz = core.split_list(nz, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    # Fixpoint: a carry whose tangent comes out nonzero must go in nonzero.
    carry_nz = init_nz
    for _ in range(1 + num_carry):
        jvp_closed, out_nz = ad.jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                          carry_nz + [False] * num_ys)
        carry_nz_out = out_nz[:num_carry]
        if carry_nz_out == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, carry_nz_out)]
    # jvp_jaxpr orders (primals, tangents); scan wants them per group.
    j = jvp_closed.jaxpr
    n_in = len(jaxpr.in_avals)
    p_in, t_in = core.split_list(j.invars, [n_in])
    pc, pi, px = core.split_list(p_in, [num_consts, num_carry])
    tc, ti, tx = core.split_list(t_in, [sum(const_nz), sum(carry_nz)])
    p_out, t_out = core.split_list(j.outvars, [len(jaxpr.out_avals)])
    pco, pyo = core.split_list(p_out, [num_carry])
    tco, tyo = core.split_list(t_out, [sum(carry_nz)])
    body = core.ClosedJaxpr(j.replace(invars=[*pc, *tc, *pi, *ti, *px, *tx],
                                      outvars=[*pco, *tco, *pyo, *tyo]), jvp_closed.consts)
    consts, init, xs = core.split_list(primals, [num_consts, num_carry])
    c_dot, i_dot, x_dot = core.split_list(tangents, [num_consts, num_carry])
    i_dot = [ad.instantiate_tangent_side_zeros(t) for t, n in zip(i_dot, carry_nz) if n]
    outs = _bind_scan(body, [*consts, *(t for t in c_dot if type(t) is not ad.Zero)],
                      [*init, *i_dot], [*xs, *(t for t in x_dot if type(t) is not ad.Zero)],
                      length=length, **params)
    carry, carry_dot, ys, ys_dot = core.split_list(outs, [num_carry, sum(carry_nz), num_ys])
    ys_nz = out_nz[num_carry:]
    carry_t = core.merge_lists(carry_nz, [ad.Zero(jaxpr.out_avals[i])
                                          for i, n in enumerate(carry_nz) if not n], carry_dot)
    ys_t = core.merge_lists(ys_nz, [ad.Zero(_stacked(a, length)) for a, n in
                                    zip(jaxpr.out_avals[num_carry:], ys_nz) if not n], ys_dot)
    return [*carry, *ys], [*carry_t, *ys_t]


ad.primitive_jvps[scan_p] = _scan_jvp


# --------------------------------------------------------------------------- partial evaluation


def _scan_partial_eval(trace: pe.JaxprTrace, tracers: list, params: dict) -> list:
    jaxpr, length = params["jaxpr"], params["length"]
    num_consts, num_carry = params["num_consts"], params["num_carry"]
    rest = {"length": length, "reverse": params["reverse"], "unroll": params["unroll"]}
    num_ys = len(jaxpr.out_avals) - num_carry
    unknowns = [not t.is_known() for t in tracers]
    const_uk, init_uk, xs_uk = core.split_list(unknowns, [num_consts, num_carry])
    # JAX's fixpoint: each round promotes at least one carry to unknown, so at most
    # num_carry rounds decide it, plus one to produce the final split. Residuals that
    # are known consts or xs (not carries, which change each step, nor NumPy arrays)
    # are forwarded rather than returned by the known scan.
    fwd = [(i < num_consts or i >= num_consts + num_carry)
           and not isinstance(t.pval.get_known(), np.ndarray) for i, t in enumerate(tracers)]
    carry_uk = init_uk
    obs = trace.state.observer
    for round_ in range(1 + num_carry):
        unknowns = const_uk + carry_uk + xs_uk
        jaxpr_known, jaxpr_unknown, out_uk, res_avals, in_fwd_res = \
            pe.partial_eval_jaxpr_nounits_fwd(jaxpr, unknowns, carry_uk + [False] * num_ys, fwd)
        obs.fixpoint_round(scan_p, params, round_, unknowns, out_uk[:num_carry])
        if out_uk[:num_carry] == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:num_carry])]
    num_res_out = len(res_avals)
    num_knowns_out = len(jaxpr_known.out_avals) - num_res_out
    num_consts_known = num_consts - sum(const_uk)
    num_carry_known = num_carry - sum(carry_uk)
    # Known carries promoted to unknown go to the unknown scan, instantiated.
    given = tracers  # as they came in: the observer hears the fixpoint's rounds apart
    tracers = [trace.instantiate_const(t) if uk else t for t, uk in zip(tracers, unknowns)]
    known_consts, known_ins = core.split_list([t.pval.get_known() for t in tracers if t.is_known()],
                                              [num_consts_known])
    jaxpr_known, known_consts_, which_hoisted, hoisted_res = _scan_known_hoisting(
        jaxpr_known, known_consts, num_res_out)
    # The unknown scan takes [intensive residuals, unknown inputs, extensive residuals]:
    # a residual hoisted out of the loop or forwarded from a const is intensive.
    hoisted_it = iter(which_hoisted)
    res_to_move = [not next(hoisted_it) if f is None else
                   f >= len(jaxpr.consts) + num_consts_known + num_carry_known
                   for f in in_fwd_res]
    num_unknown_in = len(jaxpr_unknown.in_avals) - len(in_fwd_res)
    jaxpr_unknown = pe.move_binders_to_back(jaxpr_unknown, res_to_move + [False] * num_unknown_in)
    # The known scan runs only if it computes something.
    known_outs_ext_res = core.bind(scan_p, *known_consts_, *known_ins, jaxpr=jaxpr_known,
                                   num_consts=len(known_consts_), num_carry=num_carry_known,
                                   **rest) if jaxpr_known.out_avals else []
    known_outs, ext_res = core.split_list(known_outs_ext_res, [num_knowns_out])
    non_fwd_res = iter(core.merge_lists(which_hoisted, ext_res, hoisted_res))
    res = [next(non_fwd_res) if f is None else [*jaxpr.consts, *known_consts, *known_ins][f]
           for f in in_fwd_res]
    int_res, ext_res = core.partition_list(res_to_move, res)
    carry_avals, y_avals = core.split_list(jaxpr_unknown.out_avals, [sum(carry_uk)])
    out_tracers = [pe.JaxprTracer(trace, pe.PartialVal.unknown(a), None)
                   for a in [*carry_avals, *(_stacked(y, length) for y in y_avals)]]
    in_tracers = [*map(trace.new_instantiated_const, int_res),
                  *(t for t in tracers if not t.is_known()),
                  *map(trace.new_instantiated_const, ext_res)]
    eqn = pe.new_eqn_recipe(trace, in_tracers, out_tracers, scan_p,
                            {"jaxpr": jaxpr_unknown, "length": length,
                             "num_consts": len(int_res) + sum(const_uk), "num_carry": sum(carry_uk),
                             "reverse": params["reverse"], "unroll": params["unroll"]})
    for t in out_tracers:
        t.recipe = eqn
    staged = eqn if out_tracers else None
    obs.split(scan_p, params, given, known_outs, staged,
              inner={"known": jaxpr_known, **({"unknown": jaxpr_unknown} if staged else {})})
    return core.merge_lists(out_uk, [trace.new_const(o) for o in known_outs], out_tracers)


def _scan_known_hoisting(jaxpr_known: core.ClosedJaxpr, known_consts: list, num_res: int
                         ) -> tuple[core.ClosedJaxpr, list, list[bool], list]:
    """Trace the known body again with its consts known: what depends on consts alone runs
    once, outside the loop, and a residual it computes is one value, not a stack of them.

    Returns the new known body (its leading inputs: the consts it still reads), those
    consts, which residuals were hoisted, and the hoisted residuals."""
    pvals = ([pe.PartialVal.known(c) for c in known_consts]
             + [pe.PartialVal.unknown(a) for a in jaxpr_known.in_avals[len(known_consts):]])
    num_known_outs = len(jaxpr_known.out_avals) - num_res
    body, out_pvals, new_consts = pe.trace_to_jaxpr_nounits(
        core.jaxpr_as_fun(jaxpr_known), pvals, [True] * num_known_outs + [False] * num_res)
    res_pvals = out_pvals[num_known_outs:]
    return (core.ClosedJaxpr(pe.convert_constvars_jaxpr(body), []), new_consts,
            [pv.is_known() for pv in res_pvals], [pv.get_known() for pv in res_pvals
                                                  if pv.is_known()])


pe.partial_eval_rules[scan_p] = _scan_partial_eval


# --------------------------------------------------------------------------- transpose


def _scan_transpose(cts: list, *args: Any, jaxpr: core.ClosedJaxpr, length: int, num_consts: int,
                    num_carry: int, reverse: bool, unroll: int) -> list:
    """A reverse scan: carries the cotangents of the carry and of the linear consts."""
    consts, init, xs = core.split_list(args, [num_consts, num_carry])
    const_lin = [ad.is_undefined_primal(c) for c in consts]
    xs_lin = [ad.is_undefined_primal(x) for x in xs]
    # A defined carry init is an instantiated zero tangent: the body is still linear
    # in the carry, so it is transposed like the others and its cotangent dropped.
    init_defined = [not ad.is_undefined_primal(c) for c in init]
    init = [ad.UndefinedPrimal(core.get_aval(c)) if d else c for c, d in zip(init, init_defined)]
    ct_carry, ct_ys = core.split_list(cts, [num_carry])
    ct_carry = [ad.instantiate_zeros(c) for c in ct_carry]
    ys_nz = [type(c) is not ad.Zero for c in ct_ys]
    res_consts, lin_consts = core.partition_list(const_lin, consts)
    res_xs, _ = core.partition_list(xs_lin, xs)
    lin_const_avals = [c.aval for c in lin_consts]
    y_avals = jaxpr.out_avals[num_carry:]
    # The carried cotangents have the types of the values passed in, as in JAX.
    carry_avals = [core.get_aval(c) for c in ct_carry]

    def body_t(*a: Any) -> list:
        rc, acc, ctc, cty, rx = core.split_list(
            a, [len(res_consts), len(lin_consts), num_carry, sum(ys_nz)])
        cty_full = core.merge_lists(ys_nz, [ad.Zero(av) for av, n in zip(y_avals, ys_nz) if not n],
                                    cty)
        # A linear const's cotangent accumulates into the carried sum as it is found.
        consts_full = core.merge_lists(const_lin, rc, [ad.UndefinedPrimal(av, s)
                                                       for av, s in zip(lin_const_avals, acc)])
        x_avals = [_unstacked(x.aval) for x in xs if ad.is_undefined_primal(x)]
        xs_full = core.merge_lists(xs_lin, rx, [ad.UndefinedPrimal(av) for av in x_avals])
        carry_full = [ad.UndefinedPrimal(av) for av in carry_avals]
        ct_in = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, [*consts_full, *carry_full, *xs_full],
                                 [*ctc, *cty_full])
        ct_c, ct_init, ct_x = core.split_list(ct_in, [num_consts, num_carry])
        _, ct_c_lin = core.partition_list(const_lin, ct_c)
        _, ct_x_lin = core.partition_list(xs_lin, ct_x)
        return [*map(ad.instantiate_zeros, ct_c_lin), *map(ad.instantiate_zeros, ct_init),
                *map(ad.instantiate_zeros, ct_x_lin)]

    in_avals = ([core.get_aval(r) for r in res_consts] + lin_const_avals + carry_avals
                + [a for a, n in zip(y_avals, ys_nz) if n]
                + [_unstacked(core.get_aval(r)) for r in res_xs])
    t_closed = trace_to_jaxpr_dynamic(body_t, in_avals)
    acc0 = [ad.zeros_like_aval(a) for a in lin_const_avals]
    outs = _bind_scan(t_closed, res_consts, [*acc0, *ct_carry],
                      [*(c for c in ct_ys if type(c) is not ad.Zero), *res_xs],
                      length=length, reverse=not reverse, unroll=unroll)
    ct_consts, ct_init, ct_xs = core.split_list(outs, [len(lin_consts), num_carry])
    ct_init = [None if d else c for c, d in zip(ct_init, init_defined)]
    return [*core.merge_lists(const_lin, [None] * len(res_consts), ct_consts), *ct_init,
            *core.merge_lists(xs_lin, [None] * len(res_xs), ct_xs)]


ad.primitive_transposes[scan_p] = _scan_transpose


# --------------------------------------------------------------------------- batching


def _scan_batcher(size: int, vals: list, dims: list, *, jaxpr: core.ClosedJaxpr, length: int,
                  num_consts: int, num_carry: int, reverse: bool, unroll: int
                  ) -> tuple[list, list]:
    const_dims, init_dims, xs_dims = core.split_list(dims, [num_consts, num_carry])
    const_in = [None if d is None else 0 for d in const_dims]
    xs_in = [None if d is None else 0 for d in xs_dims]  # per-step slices batch at 0
    carry_bat = [d is not None for d in init_dims]
    for _ in range(1 + num_carry):
        out_bat = batching.batched_out_dims(
            jaxpr, size, [*const_in, *(0 if b else None for b in carry_bat), *xs_in])
        carry_out, ys_bat = core.split_list(out_bat, [num_carry])
        if [a or b for a, b in zip(carry_bat, carry_out)] == carry_bat:
            break
        carry_bat = [a or b for a, b in zip(carry_bat, carry_out)]
    carry_dims = [0 if b else None for b in carry_bat]
    body = batching.batch_jaxpr(jaxpr, size, [*const_in, *carry_dims, *xs_in],
                                [*carry_dims, *(0 if b else None for b in ys_bat)])
    consts, init, xs = core.split_list(vals, [num_consts, num_carry])
    new_consts = [batching.moveaxis(x, d, 0) if d not in (None, 0) else x
                  for x, d in zip(consts, const_dims)]
    new_init = [batching.broadcast(x, size, 0) if b and d is None
                else batching.moveaxis(x, d, 0) if b else x
                for x, d, b in zip(init, init_dims, carry_bat)]
    new_xs = [batching.moveaxis(x, d, 1) if d not in (None, 1) else x
              for x, d in zip(xs, xs_dims)]
    outs = core.bind(scan_p, *new_consts, *new_init, *new_xs, reverse=reverse, length=length,
                     jaxpr=body, num_consts=num_consts, num_carry=num_carry, unroll=unroll)
    return outs, [*carry_dims, *(1 if b else None for b in ys_bat)]


batching.primitive_batchers[scan_p] = _scan_batcher
