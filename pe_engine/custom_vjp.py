"""`jax.custom_vjp`: a function with a hand-written VJP, staged as `custom_vjp_call`.

As in JAX 0.10.2: the function is traced into `call_jaxpr`; its JVP runs the user's `fwd` in
the caller's trace (so fwd's operations, its own call of the function included, print
inline) and stands for the tangents with one `custom_lin` of the residuals and the nonzero
input tangents, which transposes by calling `bwd`. A `custom_lin` cannot be evaluated:
forward-mode differentiation of a custom_vjp function is an error, in JAX and here.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import pretty, typecheck
from .ad import Zero, instantiate_zeros, primitive_jvps, primitive_transposes, zeros_like_aval
from .api import closure_convert
from .core import (
    ClosedJaxpr,
    Jaxpr,
    Primitive,
    abstract_eval_rules,
    bind,
    get_aval,
    impl_rules,
)
from .custom_derivatives import NamedRule, call_jaxpr_abstract, call_jaxpr_impl, split_static
from .partial_eval import JaxprTrace, partial_eval_rules
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
custom_lin_p = Primitive("custom_lin", multiple_results=True)


impl_rules[custom_vjp_call_p] = call_jaxpr_impl
abstract_eval_rules[custom_vjp_call_p] = call_jaxpr_abstract

_EMPTY = ClosedJaxpr(Jaxpr([], [], [], []), [])


def _partial_eval(trace: JaxprTrace, tracers: list, params: dict) -> list:
    if all(t.is_known() for t in tracers):
        return trace.default_process_primitive(custom_vjp_call_p, tracers, params)
    # JAX's JaxprTrace binds the call in the known program with no inputs, no outputs and an
    # empty call_jaxpr (the call it traced with every input unknown), then stages it whole.
    bind(custom_vjp_call_p, **{**params, "call_jaxpr": _EMPTY, "num_consts": 0})
    staged_in, outs = trace.stage_application(custom_vjp_call_p, tracers, params)
    trace.state.observer.staged(custom_vjp_call_p, params, tracers, staged_in, outs[0].recipe)
    return outs


partial_eval_rules[custom_vjp_call_p] = _partial_eval


def _jvp(primals: list, tangents: list, *, call_jaxpr: ClosedJaxpr, fwd: NamedRule, bwd: NamedRule,
         num_consts: int, symbolic_zeros: bool) -> tuple[list, list]:
    primals, tangents = primals[num_consts:], tangents[num_consts:]
    res, primals_out = fwd.fun(*primals)
    in_zeros = [type(t) is Zero for t in tangents]
    tangents_out = bind(custom_lin_p, *res, *[t for t in tangents if type(t) is not Zero],
                        num_res=len(res), bwd=bwd, symbolic_zeros=symbolic_zeros,
                        out_avals=tuple(get_aval(p).to_tangent_aval() for p in primals_out),
                        in_zeros=in_zeros)
    return primals_out, tangents_out


primitive_jvps[custom_vjp_call_p] = _jvp


def _lin_impl(*args: Any, **params: Any) -> Any:
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _lin_transpose(cts: list, *invals: Any, num_res: int, bwd: NamedRule, out_avals: tuple,
                   symbolic_zeros: bool, in_zeros: list) -> list:
    cts_in = bwd.fun(*invals[:num_res], *map(instantiate_zeros, cts))
    return [None] * num_res + [ct for ct, z in zip(cts_in, in_zeros) if not z]


impl_rules[custom_lin_p] = _lin_impl
abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)
primitive_transposes[custom_lin_p] = _lin_transpose
typecheck.not_evaluable.add(custom_lin_p)


def _pp_call(eqn: Any, ctx: pretty.PpContext) -> Any:
    params = dict(eqn.params)
    if not params["num_consts"]:
        params.pop("num_consts")
    names = sorted(params)
    params["name"] = params["fwd"].primal_name
    return pretty.pp_eqn_default(eqn.replace(params=params), ctx, order=["name", *names])


pretty.pp_eqn_rules[custom_vjp_call_p] = _pp_call
pretty.pp_param_rules[custom_lin_p] = lambda params: {k: v for k, v in params.items()
                                                      if k != "out_avals"}


class custom_vjp:  # noqa: N801 - JAX's name
    """`jax.custom_vjp`: decorate a function, then give its VJP with `defvjp(fwd, bwd)`;
    `fwd(*args)` returns (output, residuals), `bwd(*nondiff_args, residuals, g)` one
    cotangent per differentiable argument (None for a zero one)."""

    def __init__(self, fun: Callable, nondiff_argnums: tuple[int, ...] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self.fun, "__name__", "fun")
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args, static, dyn = split_static(self.fun, self.nondiff_argnums, args, kwargs)
        flat, in_tree = tree_flatten(tuple(dyn))
        out_tree: list = []

        def full(leaves: Any) -> list:
            it = iter(tree_unflatten(in_tree, leaves))
            return [static[i] if i in static else next(it) for i in range(len(args))]

        def flat_fun(*leaves: Any) -> list:
            out_flat, tree = tree_flatten(self.fun(*full(leaves)))
            out_tree[:] = [tree]
            return out_flat

        res_tree: list = []
        fwd, bwd = self.fwd, self.bwd

        def flat_fwd(*leaves: Any) -> tuple[list, list]:
            out, res = fwd(*full(leaves))
            res_flat, tree = tree_flatten(res)
            res_tree[:] = [tree]
            return res_flat, tree_flatten(out)[0]

        def flat_bwd(*res_and_cts: Any) -> list:
            n = res_tree[0].num_leaves
            res = tree_unflatten(res_tree[0], res_and_cts[:n])
            ct = tree_unflatten(out_tree[0], res_and_cts[n:])
            cts_in = bwd(*[static[i] for i in sorted(static)], res, ct)
            # a None cotangent is a zero of its input's type, as in JAX
            nodes = in_tree.flatten_up_to(tuple(cts_in))
            avals = [get_aval(x) for x in flat]
            return [zeros_like_aval(a) if c is None else c for c, a in zip(nodes, avals)]

        closed, consts = closure_convert(
            trace_to_jaxpr_dynamic(flat_fun, [get_aval(x) for x in flat]))
        outs = bind(custom_vjp_call_p, *consts, *flat, call_jaxpr=closed,
                    fwd=NamedRule(flat_fwd, getattr(fwd, "__name__", "fwd"), name),
                    bwd=NamedRule(flat_bwd, getattr(bwd, "__name__", "bwd"), name),
                    num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(out_tree[0], outs)
