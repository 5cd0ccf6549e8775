"""`lax.while_loop`, `lax.fori_loop` and `lax.map`.

`while` is a primitive (operands `[*cond_consts, *body_consts, *init]`) with JVP,
partial-evaluation and batching rules written as JAX's; it has no transpose, so
reverse mode raises JAX's error. `fori_loop` with static bounds is a `scan` over a
counter, as JAX builds it (so it differentiates in reverse mode); with traced
bounds it is a `while`. `lax.map` is a scan with no carry.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import ad, batching, core
from . import lax_base as lax
from . import partial_eval as pe
from .api import closure_convert
from .control_flow import scan
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

while_p = core.Primitive("while", multiple_results=True)


def _while_abstract(*avals: core.ShapedArray, cond_jaxpr: core.ClosedJaxpr,
                    body_jaxpr: core.ClosedJaxpr, cond_nconsts: int, body_nconsts: int
                    ) -> list[core.ShapedArray]:
    return list(body_jaxpr.out_avals)


def _while_impl(*args: Any, cond_jaxpr: core.ClosedJaxpr, body_jaxpr: core.ClosedJaxpr,
                cond_nconsts: int, body_nconsts: int) -> list:
    cconsts, bconsts, carry = core.split_list(args, [cond_nconsts, body_nconsts])
    while True:
        pred = core.to_numpy(
            core.eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *cconsts, *carry)[0])
        if not pred.any():
            return carry
        new = core.eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *bconsts, *carry)
        if pred.ndim:  # a batched predicate (vmap): finished elements keep their carry
            new = [np.where(pred.reshape(pred.shape + (1,) * (core.to_numpy(n).ndim - 1)),
                            core.to_numpy(n), core.to_numpy(c)) for n, c in zip(new, carry)]
        carry = new


core.impl_rules[while_p] = _while_impl
core.abstract_eval_rules[while_p] = _while_abstract


# --------------------------------------------------------------------------- while_loop


def _trace(fun: Callable, tree: Any, avals: list[core.ShapedArray]) -> tuple[core.ClosedJaxpr, Any]:
    box: list = []

    def flat(*xs: Any) -> list:
        out = fun(tree_unflatten(tree, xs))
        leaves, out_tree = tree_flatten(out)
        box.append(out_tree)
        return leaves

    return trace_to_jaxpr_dynamic(flat, avals), box


def _promote_weak(x: Any, in_aval: core.ShapedArray, out_aval: core.ShapedArray
                  ) -> tuple[Any, bool]:
    """A weakly typed initial carry takes the type the body gives it (JAX retraces)."""
    if in_aval.weak_type and (in_aval.shape, in_aval.dtype, in_aval.weak_type) != \
            (out_aval.shape, out_aval.dtype, out_aval.weak_type):
        # A weak value defers to the other's dtype unless it is of a higher kind.
        kinds = "buifc"
        wider = kinds.index(out_aval.dtype.kind) >= kinds.index(in_aval.dtype.kind)
        return lax.convert_element_type(x, out_aval.dtype if wider else in_aval.dtype), True
    return x, False


def _check_carry(what: str, tree: Any, out_tree: Any, in_avals: list, out_avals: list) -> None:
    if out_tree != tree:
        raise TypeError(f"{what} function carry input and carry output must have the same "
                        f"pytree structure, but they differ: the input carry is {tree} and "
                        f"the output carry is {out_tree}.")
    for i, (a, b) in enumerate(zip(in_avals, out_avals)):
        if (a.shape, a.dtype) != (b.shape, b.dtype):
            raise TypeError(f"{what} function carry input and carry output must have equal "
                            f"types, but they differ: the input carry component {i} has type "
                            f"{a.str_short()} but the corresponding output carry component "
                            f"has type {b.str_short()}.")


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any) -> Any:
    """`lax.while_loop`: apply `body_fun` while `cond_fun` holds, as one `while` equation."""
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    flat, tree = tree_flatten(init_val)

    def make(flat: list) -> tuple[core.ClosedJaxpr, core.ClosedJaxpr, list]:
        avals = [core.get_aval(x) for x in flat]
        cj, cbox = _trace(cond_fun, tree, avals)
        if cbox[0].kind != "leaf" or len(cj.out_avals) != 1:
            raise TypeError(f"cond_fun must return a boolean scalar, but got pytree "
                            f"{cbox[0]}.")
        pa = cj.out_avals[0]
        if (pa.shape, pa.dtype) != ((), np.dtype(bool)):
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                            f"[{pa!r}].")
        bj, bbox = _trace(body_fun, tree, avals)
        _check_carry("while_loop body", tree, bbox[0], avals, bj.out_avals)
        return cj, bj, avals

    cj, bj, avals = make(flat)
    promoted = [_promote_weak(x, a, b) for x, a, b in zip(flat, avals, bj.out_avals)]
    if any(changed for _, changed in promoted):
        flat = [x for x, _ in promoted]
        cj, bj, avals = make(flat)
    cj, cconsts = closure_convert(cj)
    bj, bconsts = closure_convert(bj)
    # Carries the cond never reads and the body passes through unchanged become body
    # constants, as JAX moves them.
    bjx = bj.jaxpr
    nb = len(bconsts)
    carry_nofwd = [not (isinstance(v, core.Var) and v in bjx.invars
                        and bjx.invars.index(v) == nb + i)
                   for i, v in enumerate(bjx.outvars)]
    cj_dce, keep = pe.dce_jaxpr(cj.jaxpr, [True], [True] * len(cconsts) + carry_nofwd)
    move = [not k for k in keep[len(cconsts):]]
    init = list(flat)
    if any(move):
        cj = core.ClosedJaxpr(cj_dce, [])
        kept_out = [v for v, m in zip(bjx.outvars, move) if not m]
        bc_vars, carry_vars = core.split_list(bjx.invars, [nb])
        moved_vars, kept_vars = [v for v, m in zip(carry_vars, move) if m], \
            [v for v, m in zip(carry_vars, move) if not m]
        bj = core.ClosedJaxpr(bjx.replace(invars=[*moved_vars, *bc_vars, *kept_vars],
                                          outvars=kept_out), [])
        moved_init, init = [x for x, m in zip(init, move) if m], \
            [x for x, m in zip(init, move) if not m]
        bconsts = [*moved_init, *bconsts]
    outs = core.bind(while_p, *cconsts, *bconsts, *init, cond_nconsts=len(cconsts),
                     cond_jaxpr=cj, body_nconsts=len(bconsts), body_jaxpr=bj)
    if any(move):
        outs = core.merge_lists(move, outs, moved_init)
    return tree_unflatten(tree, outs)


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *,
              unroll: Any = None) -> Any:
    """`lax.fori_loop`: a scan over `i` when the bounds are known now, else a while."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lo_aval, hi_aval = core.get_aval(lower), core.get_aval(upper)
    if lo_aval.dtype != hi_aval.dtype:
        if lo_aval.weak_type and not hi_aval.weak_type:
            lower = lax.convert_element_type(lower, hi_aval.dtype)
        elif hi_aval.weak_type and not lo_aval.weak_type:
            upper = lax.convert_element_type(upper, lo_aval.dtype)
        else:
            raise TypeError(f"lower and upper arguments to fori_loop must have equal types, "
                            f"got {lo_aval.dtype.name} and {hi_aval.dtype.name}")
    if not isinstance(lower, core.Tracer) and not isinstance(upper, core.Tracer):
        lo, hi = int(lower), int(upper)

        def scanned(carry: tuple, _: Any) -> tuple:
            i, x = carry
            return (i + 1, body_fun(i, x)), None

        (_, result), _ = scan(scanned, (lo, init_val), None, length=max(hi - lo, 0),
                              unroll=False if unroll is None else unroll)
        return result
    if unroll not in (None, False, 1):
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")

    def body(carry: tuple) -> tuple:
        i, hi, x = carry
        return lax.add(i, lax._const(i, 1)), hi, body_fun(i, x)

    _, _, result = while_loop(lambda c: lax.lt(c[0], c[1]), body, (lower, upper, init_val))
    return result


def map(f: Callable, xs: Any, *, batch_size: int | None = None) -> Any:  # noqa: A001
    """`lax.map`: `f` over the leading axis of xs, as a scan with no carry."""
    if batch_size is not None:
        raise NotImplementedError("lax.map(batch_size=...) is not supported by this engine")
    _, ys = scan(lambda _, x: ((), f(x)), (), xs)
    return ys


# --------------------------------------------------------------------------- JVP


def _while_jvp(primals: list, tangents: list, *, cond_nconsts: int, cond_jaxpr: core.ClosedJaxpr,
               body_nconsts: int, body_jaxpr: core.ClosedJaxpr) -> tuple[list, list]:
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    cconst_nz, bconst_nz, init_nz = core.split_list(nonzeros, [cond_nconsts, body_nconsts])
    carry_nz = init_nz
    for _ in range(1 + len(carry_nz)):
        body_jvp, nz_out = ad.jvp_jaxpr(body_jaxpr, bconst_nz + carry_nz, carry_nz)
        if nz_out == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, nz_out)]
    nonzeros = cconst_nz + bconst_nz + carry_nz
    tangents = [ad.instantiate_tangent_side_zeros(t) if nz else t
                for t, nz in zip(tangents, nonzeros)]
    cconst, bconst, init = core.split_list(primals, [cond_nconsts, body_nconsts])
    _, bconst_dot, init_dot = core.split_list(tangents, [cond_nconsts, body_nconsts])
    bconst_dot = [t for t in bconst_dot if type(t) is not ad.Zero]
    init_dot = [t for t in init_dot if type(t) is not ad.Zero]
    num_carry = len(init)
    # jvp_jaxpr orders (primals, tangents); while wants consts, then carries.
    j = body_jvp.jaxpr
    p_in, t_in = core.split_list(j.invars, [body_nconsts + num_carry])
    pc, pcarry = core.split_list(p_in, [body_nconsts])
    tc, tcarry = core.split_list(t_in, [len(bconst_dot)])
    body = core.ClosedJaxpr(j.replace(invars=[*pc, *tc, *pcarry, *tcarry]), body_jvp.consts)
    cond_aug = core.ClosedJaxpr(cond_jaxpr.jaxpr.replace(
        invars=[*cond_jaxpr.jaxpr.invars, *(core.Var(core.get_aval(x)) for x in init_dot)]),
        cond_jaxpr.consts)
    out = core.bind(while_p, *cconst, *bconst, *bconst_dot, *init, *init_dot,
                    cond_nconsts=cond_nconsts, cond_jaxpr=cond_aug,
                    body_nconsts=len(bconst) + len(bconst_dot), body_jaxpr=body)
    carry, carry_dot = core.split_list(out, [num_carry])
    it = iter(carry_dot)
    return carry, [next(it) if nz else ad.Zero(core.get_aval(p)) for p, nz in zip(carry, nz_out)]


ad.primitive_jvps[while_p] = _while_jvp


# --------------------------------------------------------------------------- partial eval


def _while_partial_eval(trace: pe.JaxprTrace, tracers: list, params: dict) -> list:
    cond_nconsts, body_nconsts = params["cond_nconsts"], params["body_nconsts"]
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    unknowns = [not t.is_known() for t in tracers]
    cc_uk, bc_uk, carry_uk = core.split_list(unknowns, [cond_nconsts, body_nconsts])
    obs = trace.state.observer
    for round_ in range(1 + len(carry_uk)):
        body_known, _, carry_out_uk, _ = pe.partial_eval_jaxpr_nounits(
            body_jaxpr, bc_uk + carry_uk, carry_uk)
        obs.fixpoint_round(while_p, params, round_, bc_uk + carry_uk, carry_out_uk)
        if carry_out_uk == carry_uk:
            break
        carry_uk = [a or b for a, b in zip(carry_uk, carry_out_uk)]
    cond_known, _, cond_uk, _ = pe.partial_eval_jaxpr_nounits(cond_jaxpr, cc_uk + carry_uk, False)
    if cond_uk[0] or not any(unknowns) or all(unknowns):
        if not any(unknowns):
            outs = core.bind(while_p, *[t.pval.get_known() for t in tracers], **params)
            return [trace.new_const(o) for o in outs]
        return trace.default_process_primitive(while_p, tracers, params)
    # The known carries are computed by a while of their own, run now; the whole loop
    # is also staged, since the unknown carries need every iteration.
    in_consts = [t.pval.get_known() for uk, t in zip(cc_uk + bc_uk + carry_uk, tracers)
                 if not uk]
    num_known = carry_uk.count(False)
    bk = body_known.jaxpr
    body_known = core.ClosedJaxpr(bk.replace(outvars=bk.outvars[:num_known]), body_known.consts)
    out_known = core.bind(while_p, *in_consts, cond_nconsts=cc_uk.count(False),
                          cond_jaxpr=cond_known, body_nconsts=bc_uk.count(False),
                          body_jaxpr=body_known)
    staged = trace.default_process_primitive(while_p, tracers, params)
    unknown_outs = [t for t, uk in zip(staged, carry_uk) if uk]
    return core.merge_lists(carry_uk, [trace.new_const(o) for o in out_known], unknown_outs)


pe.partial_eval_rules[while_p] = _while_partial_eval


def _while_transpose_error(*_: Any, **__: Any) -> list:
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


ad.primitive_transposes[while_p] = _while_transpose_error


# --------------------------------------------------------------------------- batching


def _while_batcher(size: int, vals: list, dims: list, *, cond_nconsts: int,
                   cond_jaxpr: core.ClosedJaxpr, body_nconsts: int, body_jaxpr: core.ClosedJaxpr
                   ) -> tuple[list, list]:
    cconsts, bconsts, init = core.split_list(vals, [cond_nconsts, body_nconsts])
    cc_dims, bc_dims, init_dims = core.split_list(dims, [cond_nconsts, body_nconsts])
    as_dims = lambda bs: [0 if b else None for b in bs]  # noqa: E731
    carry_bat = [d is not None for d in init_dims]
    for _ in range(1 + len(carry_bat)):
        out_bat = batching.batched_out_dims(body_jaxpr, size, [*bc_dims, *as_dims(carry_bat)])
        new = [a or b for a, b in zip(carry_bat, out_bat)]
        if new == carry_bat:
            break
        carry_bat = new
    pred_bat, = batching.batched_out_dims(cond_jaxpr, size, [*cc_dims, *as_dims(carry_bat)])
    if pred_bat:
        carry_dims: list = [0] * len(carry_bat)
        cond_b = batching.batch_jaxpr(cond_jaxpr, size, [*cc_dims, *carry_dims], 0)
    else:
        rank = len(cond_jaxpr.out_avals[0].shape)
        carry_dims = [rank if b else None for b in carry_bat]
        cond_b = batching.batch_jaxpr(cond_jaxpr, size, [*cc_dims, *carry_dims], None)
    body_b = batching.batch_jaxpr(body_jaxpr, size, [*bc_dims, *carry_dims], carry_dims)
    new_init = []
    for x, old, new in zip(init, init_dims, carry_dims):
        if old is None and new is not None:
            new_init.append(batching.broadcast(x, size, new))
        elif old is None:
            new_init.append(x)
        else:
            new_init.append(batching.moveaxis(x, old, new))
    outs = core.bind(while_p, *cconsts, *bconsts, *new_init, cond_nconsts=cond_nconsts,
                     cond_jaxpr=cond_b, body_nconsts=body_nconsts, body_jaxpr=body_b)
    return outs, carry_dims


batching.primitive_batchers[while_p] = _while_batcher
