"""`lax.scan` as a primitive, with its JVP, partial-evaluation and transpose rules.

The scan equation's operands are `[*consts, *init_carry, *xs]`; its outputs
`[*final_carry, *stacked_ys]`. Under partial evaluation a scan is a unit that
itself splits: the body is split once per iteration of JAX's fixpoint on the
carries (an unknown carry output makes that carry's input unknown on the next
round), then a known scan runs now and an unknown scan is staged. Residuals the
body makes each iteration are stacked as extra ys of the known scan.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import lax
from .ad import (
    UndefinedPrimal,
    Zero,
    add_tangents,
    backward_pass,
    instantiate_zeros,
    is_undefined_primal,
    jvp_jaxpr,
    primitive_jvps,
    primitive_transposes,
    zeros_like_aval,
)
from .api import closure_convert
from .core import (
    Array,
    ClosedJaxpr,
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    bind,
    eval_jaxpr,
    get_aval,
    impl_rules,
    merge_lists,
    partition_list,
    split_list,
    to_numpy,
)
from .jit_rules import split_residuals_forwarded
from .partial_eval import (
    JaxprTrace,
    JaxprTracer,
    PartialVal,
    new_eqn_recipe,
    partial_eval_jaxpr_nounits,
    partial_eval_rules,
)
from .staging import trace_to_jaxpr_dynamic
from .tree_util import tree_flatten, tree_unflatten
from .typecheck import JaxprTypeError, check_call_operands, typecheck_rules

scan_p = Primitive("scan", multiple_results=True)


def _stacked(aval: ShapedArray, length: int) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def _unstacked(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _scan_abstract(*avals: ShapedArray, jaxpr: ClosedJaxpr, length: int, num_consts: int,
                   num_carry: int, **_: Any) -> list[ShapedArray]:
    carry, ys = split_list(jaxpr.out_avals, [num_carry])
    return [*carry, *(_stacked(a, length) for a in ys)]


def _scan_impl(*args: Any, jaxpr: ClosedJaxpr, length: int, num_consts: int, num_carry: int,
               reverse: bool, unroll: int) -> list[Any]:
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    xs = [to_numpy(x) for x in xs]
    ys_per_step: list[list[Any]] = [[] for _ in range(length)]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry, *(x[i] for x in xs))
        carry, ys_per_step[i] = split_list(out, [num_carry])
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [Array(np.stack([to_numpy(step[j]) for step in ys_per_step]) if length else
                np.zeros((0, *a.shape), a.dtype), a.weak_type) for j, a in enumerate(y_avals)]
    return [*carry, *ys]


def _scan_typecheck(in_avals: list[ShapedArray], *, jaxpr: ClosedJaxpr, length: int,
                    num_consts: int, num_carry: int, **_: Any) -> list[ShapedArray]:
    consts, carry, xs = split_list(in_avals, [num_consts, num_carry])
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


impl_rules[scan_p] = _scan_impl
abstract_eval_rules[scan_p] = _scan_abstract
typecheck_rules[scan_p] = _scan_typecheck


def _bind_scan(closed: ClosedJaxpr, consts: list, carry: list, xs: list, **params: Any) -> list:
    """Bind scan_p, hoisting the body's own constants into leading scan consts."""
    closed, hoisted = closure_convert(closed)
    return bind(scan_p, *hoisted, *consts, *carry, *xs, jaxpr=closed,
                num_consts=len(hoisted) + len(consts), num_carry=len(carry), **params)


def scan(f: Callable, init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int = 1) -> tuple[Any, Any]:
    """`lax.scan`: loop `f(carry, x) -> (carry, y)` over the leading axis of xs."""
    xs_flat, xs_tree = tree_flatten(xs)
    lengths = {get_aval(x).shape[0] for x in xs_flat}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(f"scan got inconsistent or missing lengths: {sorted(lengths)}")
    n = lengths.pop()
    init_flat, init_tree = tree_flatten(init)
    out_tree: list = []

    def body(*args: Any) -> list:
        carry, x = split_list(args, [len(init_flat)])
        new_carry, y = f(tree_unflatten(init_tree, carry), tree_unflatten(xs_tree, x))
        c_flat, c_tree = tree_flatten(new_carry)
        y_flat, y_tree = tree_flatten(y)
        if c_tree != init_tree:
            raise TypeError(f"scan body carry output {c_tree} must match the input {init_tree}")
        out_tree[:] = [y_tree]
        return [*c_flat, *y_flat]

    in_avals = [get_aval(c) for c in init_flat] + [_unstacked(get_aval(x)) for x in xs_flat]
    closed = trace_to_jaxpr_dynamic(body, in_avals)
    for a, b in zip(closed.out_avals, in_avals):
        if (a.shape, a.dtype) != (b.shape, b.dtype):
            raise TypeError(f"scan carry output {a.str_short()} must match input {b.str_short()}")
    outs = _bind_scan(closed, [], init_flat, xs_flat, length=n, reverse=reverse, unroll=unroll)
    carry, ys = split_list(outs, [len(init_flat)])
    return tree_unflatten(init_tree, carry), tree_unflatten(out_tree[0], ys)


lax.scan = scan  # offered as pe_engine.lax.scan, as jax.lax.scan


# --------------------------------------------------------------------------- JVP


def _scan_jvp(primals: list, tangents: list, *, jaxpr: ClosedJaxpr, length: int,
              num_consts: int, num_carry: int, **params: Any) -> tuple[list, list]:
    nz = [type(t) is not Zero for t in tangents]
    const_nz, init_nz, xs_nz = split_list(nz, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    # Fixpoint: a carry whose tangent comes out nonzero must go in nonzero.
    carry_nz = init_nz
    for _ in range(1 + num_carry):
        jvp_closed, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz,
                                       carry_nz + [False] * num_ys)
        carry_nz_out = out_nz[:num_carry]
        if carry_nz_out == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, carry_nz_out)]
    # jvp_jaxpr orders (primals, tangents); scan wants them per group.
    j = jvp_closed.jaxpr
    n_in = len(jaxpr.in_avals)
    p_in, t_in = split_list(j.invars, [n_in])
    pc, pi, px = split_list(p_in, [num_consts, num_carry])
    tc, ti, tx = split_list(t_in, [sum(const_nz), sum(carry_nz)])
    p_out, t_out = split_list(j.outvars, [len(jaxpr.out_avals)])
    pco, pyo = split_list(p_out, [num_carry])
    tco, tyo = split_list(t_out, [sum(carry_nz)])
    body = ClosedJaxpr(j.replace(invars=[*pc, *tc, *pi, *ti, *px, *tx],
                                 outvars=[*pco, *tco, *pyo, *tyo]), jvp_closed.consts)
    consts, init, xs = split_list(primals, [num_consts, num_carry])
    c_dot, i_dot, x_dot = split_list(tangents, [num_consts, num_carry])
    i_dot = [instantiate_zeros(t) for t, n in zip(i_dot, carry_nz) if n]
    outs = _bind_scan(body, [*consts, *(t for t in c_dot if type(t) is not Zero)],
                      [*init, *i_dot], [*xs, *(t for t in x_dot if type(t) is not Zero)],
                      length=length, **params)
    carry, carry_dot, ys, ys_dot = split_list(outs, [num_carry, sum(carry_nz), num_ys])
    ys_nz = out_nz[num_carry:]
    carry_t = merge_lists(carry_nz, [Zero(jaxpr.out_avals[i]) for i, n in enumerate(carry_nz)
                                     if not n], carry_dot)
    ys_t = merge_lists(ys_nz, [Zero(_stacked(a, length)) for a, n in
                               zip(jaxpr.out_avals[num_carry:], ys_nz) if not n], ys_dot)
    return [*carry, *ys], [*carry_t, *ys_t]


primitive_jvps[scan_p] = _scan_jvp


# --------------------------------------------------------------------------- partial evaluation


def _scan_partial_eval(trace: JaxprTrace, tracers: list, params: dict) -> list:
    jaxpr, length = params["jaxpr"], params["length"]
    num_consts, num_carry = params["num_consts"], params["num_carry"]
    rest = {"length": length, "reverse": params["reverse"], "unroll": params["unroll"]}
    unknowns = [not t.is_known() for t in tracers]
    obs = trace.state.observer
    if not any(unknowns):
        outs = bind(scan_p, *[t.pval.get_known() for t in tracers], **params)
        if getattr(obs, "split", None):
            obs.split(scan_p, params, tracers, outs, None, inner={"known": jaxpr})
        return [trace.new_const(o) for o in outs]
    const_uk, init_uk, xs_uk = split_list(unknowns, [num_consts, num_carry])
    num_ys = len(jaxpr.out_avals) - num_carry
    # JAX's fixpoint: each round promotes at least one carry to unknown, so at most
    # num_carry rounds decide it, plus one to produce the final split.
    carry_uk = init_uk
    for _ in range(1 + num_carry):
        jk, ju, out_uk, res_avals = partial_eval_jaxpr_nounits(
            jaxpr, const_uk + carry_uk + xs_uk, carry_uk + [False] * num_ys)
        carry_uk_out = out_uk[:num_carry]
        if carry_uk_out == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, carry_uk_out)]
    # Residuals that are known consts or xs are passed as they are, not stacked; one
    # that is a known carry changes every step, so the known scan stacks it.
    n_kc, n_kcarry = const_uk.count(False), carry_uk.count(False)
    jk, fwd = split_residuals_forwarded(jk, len(res_avals),
                                        lambda i: i < n_kc or i >= n_kc + n_kcarry)
    is_const_res = [f is not None and f < n_kc for f in fwd]
    # Known init values of carries promoted to unknown go to the unknown scan only.
    final_uk = const_uk + carry_uk + xs_uk
    known_vals = [t.pval.get_known() for t, uk in zip(tracers, final_uk) if not uk]
    kc, kcarry, kx = split_list(known_vals, [n_kc, n_kcarry])
    known_outs_and_res = _bind_scan(jk, kc, kcarry, kx, **rest)
    known_outs, stacked_res = split_list(known_outs_and_res, [out_uk.count(False)])
    it = iter(stacked_res)
    residuals = [known_vals[f] if f is not None else next(it) for f in fwd]
    # Unknown scan operands: [const residuals, unknown consts, unknown carries,
    # unknown xs, per-iteration residuals].
    uj = ju.jaxpr
    res_vars, uk_vars = split_list(uj.invars, [len(res_avals)])
    const_res_vars, xs_res_vars = partition_list(
        [not c for c in is_const_res], res_vars)
    uc_vars, ucarry_vars, ux_vars = split_list(uk_vars, [sum(const_uk), sum(carry_uk)])
    body_u = ClosedJaxpr(uj.replace(invars=[*const_res_vars, *uc_vars, *ucarry_vars, *ux_vars,
                                            *xs_res_vars]), ju.consts)
    const_res, xs_res = partition_list([not c for c in is_const_res], residuals)
    inst = trace.instantiate_const
    consts_t, init_t, xs_t = split_list(tracers, [num_consts, num_carry])
    in_tracers = [*(inst(trace.new_const(r)) for r in const_res),
                  *(t for t, u in zip(consts_t, const_uk) if u),
                  *(inst(t) for t, u in zip(init_t, carry_uk) if u),
                  *(t for t, u in zip(xs_t, xs_uk) if u),
                  *(inst(trace.new_const(r)) for r in xs_res)]
    body_u, hoisted = closure_convert(body_u)
    in_tracers = [*(inst(trace.new_const(h)) for h in hoisted), *in_tracers]
    out_avals = _scan_abstract(jaxpr=jaxpr, length=length, num_consts=num_consts,
                               num_carry=num_carry)
    out_tracers = [JaxprTracer(trace, PartialVal.unknown(a), None)
                   for a, uk in zip(out_avals, out_uk) if uk]
    u_params = {"jaxpr": body_u, "length": length,
                "num_consts": len(hoisted) + len(const_res) + sum(const_uk),
                "num_carry": sum(carry_uk), "reverse": params["reverse"],
                "unroll": params["unroll"]}
    eqn = new_eqn_recipe(trace, in_tracers, out_tracers, scan_p, u_params)
    for t in out_tracers:
        t.recipe = eqn
    if getattr(obs, "split", None):
        obs.split(scan_p, params, tracers, known_outs, eqn,
                  inner={"known": jk, "unknown": body_u})
    return merge_lists(out_uk, [trace.new_const(o) for o in known_outs], out_tracers)


partial_eval_rules[scan_p] = _scan_partial_eval


# --------------------------------------------------------------------------- transpose


def _scan_transpose(cts: list, *args: Any, jaxpr: ClosedJaxpr, length: int, num_consts: int,
                    num_carry: int, reverse: bool, unroll: int) -> list:
    """A reverse scan: carries the cotangents of the carry and of the linear consts."""
    consts, init, xs = split_list(args, [num_consts, num_carry])
    const_lin = [is_undefined_primal(c) for c in consts]
    xs_lin = [is_undefined_primal(x) for x in xs]
    # A defined carry init is an instantiated zero tangent: the body is still linear
    # in the carry, so it is transposed like the others and its cotangent dropped.
    init_defined = [not is_undefined_primal(c) for c in init]
    init = [UndefinedPrimal(get_aval(c)) if d else c for c, d in zip(init, init_defined)]
    ct_carry, ct_ys = split_list(cts, [num_carry])
    ct_carry = [instantiate_zeros(c) for c in ct_carry]
    ys_nz = [type(c) is not Zero for c in ct_ys]
    res_consts, lin_consts = partition_list(const_lin, consts)
    res_xs, _ = partition_list(xs_lin, xs)
    lin_const_avals = [c.aval for c in lin_consts]
    y_avals = jaxpr.out_avals[num_carry:]
    # The carried cotangents have the types of the values passed in, as in JAX.
    carry_avals = [get_aval(c) for c in ct_carry]

    def body_t(*a: Any) -> list:
        rc, acc, ctc, cty, rx = split_list(
            a, [len(res_consts), len(lin_consts), num_carry, sum(ys_nz)])
        cty_full = merge_lists(ys_nz, [Zero(av) for av, n in zip(y_avals, ys_nz) if not n], cty)
        consts_full = merge_lists(const_lin, rc, [UndefinedPrimal(av) for av in lin_const_avals])
        x_avals = [_unstacked(x.aval) for x in xs if is_undefined_primal(x)]
        xs_full = merge_lists(xs_lin, rx, [UndefinedPrimal(av) for av in x_avals])
        carry_full = [UndefinedPrimal(av) for av in carry_avals]
        ct_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, [*consts_full, *carry_full, *xs_full],
                              [*ctc, *cty_full])
        ct_c, ct_init, ct_x = split_list(ct_in, [num_consts, num_carry])
        _, ct_c_lin = partition_list(const_lin, ct_c)
        _, ct_x_lin = partition_list(xs_lin, ct_x)
        new_acc = [instantiate_zeros(add_tangents(s, c)) for s, c in zip(acc, ct_c_lin)]
        return [*new_acc, *map(instantiate_zeros, ct_init), *map(instantiate_zeros, ct_x_lin)]

    in_avals = ([get_aval(r) for r in res_consts] + lin_const_avals + carry_avals
                + [a for a, n in zip(y_avals, ys_nz) if n]
                + [_unstacked(get_aval(r)) for r in res_xs])
    t_closed = trace_to_jaxpr_dynamic(body_t, in_avals)
    acc0 = [zeros_like_aval(a) for a in lin_const_avals]
    outs = _bind_scan(t_closed, res_consts, [*acc0, *ct_carry],
                      [*(c for c in ct_ys if type(c) is not Zero), *res_xs],
                      length=length, reverse=not reverse, unroll=unroll)
    ct_consts, ct_init, ct_xs = split_list(outs, [len(lin_consts), num_carry])
    ct_init = [None if d else c for c, d in zip(ct_init, init_defined)]
    return [*merge_lists(const_lin, [None] * len(res_consts), ct_consts), *ct_init,
            *merge_lists(xs_lin, [None] * len(res_xs), ct_xs)]


primitive_transposes[scan_p] = _scan_transpose
