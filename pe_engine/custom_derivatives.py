"""`jax.custom_jvp`: a function with a hand-written JVP, staged as `custom_jvp_call`.

The function is traced once into `call_jaxpr`; the JVP rule stays a Python callable
(JAX's `jvp_jaxpr_fun`), run only when the call is differentiated. Evaluation and
partial evaluation look through the call (JAX inlines it under partial evaluation:
only linear programs are built from it, and those no longer need the rule).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from . import batching, pretty
from .ad import Zero, add_tangents, instantiate_zeros, primitive_jvps
from .api import closure_convert
from .core import (
    ClosedJaxpr,
    Primitive,
    abstract_eval_rules,
    bind,
    eval_jaxpr,
    get_aval,
    impl_rules,
)
from .partial_eval import JaxprTrace, partial_eval_rules
from .pytree import tree_flatten, tree_map, tree_unflatten
from .staging import trace_to_jaxpr_dynamic

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)


class NamedRule:
    """A custom rule as a param of its equation: the rule on flat values, and the names the
    equation prints (the rule's `name`, and `primal_name`, the custom function's, printed as
    `name=`). custom_jvp's `jvp_jaxpr_fun` and custom_vjp's `fwd` and `bwd`."""

    __slots__ = ("fun", "name", "primal_name")

    def __init__(self, fun: Callable[..., Any], name: str, primal_name: str):
        self.fun = fun
        self.name = name
        self.primal_name = primal_name

    def __repr__(self) -> str:
        return self.name


def call_jaxpr_impl(*args: Any, call_jaxpr: ClosedJaxpr, **_: Any) -> list:
    """A custom call run now: its primal program (custom_jvp_call's and custom_vjp_call's)."""
    return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)


def call_jaxpr_abstract(*avals: Any, call_jaxpr: ClosedJaxpr, **_: Any) -> list:
    return list(call_jaxpr.out_avals)


impl_rules[custom_jvp_call_p] = call_jaxpr_impl
abstract_eval_rules[custom_jvp_call_p] = call_jaxpr_abstract


def _partial_eval(trace: JaxprTrace, tracers: list, params: dict) -> list:
    # All inputs known: the call itself runs (or is staged) below this trace, rule and all.
    if all(t.is_known() for t in tracers):
        outs = bind(custom_jvp_call_p, *[t.pval.get_known() for t in tracers], **params)
        return [trace.new_const(o) for o in outs]
    # Otherwise only a linear function is being built from it, which needs no JVP rule:
    # the call is looked through, as JAX does.
    cj = params["call_jaxpr"]
    return [trace.full_raise(o) for o in eval_jaxpr(cj.jaxpr, cj.consts, *tracers)]


partial_eval_rules[custom_jvp_call_p] = _partial_eval


def _jvp(primals: list, tangents: list, *, call_jaxpr: ClosedJaxpr, jvp_jaxpr_fun: NamedRule,
         num_consts: int, symbolic_zeros: bool) -> tuple[list, list]:
    # Without symbolic zeros the rule sees every tangent as an array, as in JAX.
    args = primals[num_consts:]
    tans = [instantiate_zeros(t) for t in tangents[num_consts:]]
    outs = jvp_jaxpr_fun.fun(*args, *tans)
    n = len(outs) // 2
    return outs[:n], outs[n:]


primitive_jvps[custom_jvp_call_p] = _jvp


def _batch(size: int, vals: list, dims: list, *, call_jaxpr: ClosedJaxpr,
           jvp_jaxpr_fun: NamedRule, num_consts: int, symbolic_zeros: bool
           ) -> tuple[list, list]:
    fun = functools.partial(call_jaxpr_impl, call_jaxpr=call_jaxpr)
    out_dims: list = []

    def batched_fun(*xs: Any) -> list:
        outs, ds = batching.vmap_flat(fun, size, xs, dims)
        out_dims[:] = ds
        return outs

    avals = [get_aval(v) for v in vals]
    batched = trace_to_jaxpr_dynamic(batched_fun, avals)
    arg_dims = dims[num_consts:]

    def batched_rule(*pt: Any) -> list:
        outs, ds = batching.vmap_flat(jvp_jaxpr_fun.fun, size, pt, [*arg_dims, *arg_dims])
        want = [*out_dims, *out_dims]
        return [batching.matchaxis(size, d, w, o) for o, d, w in zip(outs, ds, want)]

    batched, consts = closure_convert(batched)
    rule = NamedRule(batched_rule, jvp_jaxpr_fun.name, jvp_jaxpr_fun.primal_name)
    outs = bind(custom_jvp_call_p, *consts, *vals, call_jaxpr=batched, jvp_jaxpr_fun=rule,
                num_consts=len(consts) + num_consts, symbolic_zeros=symbolic_zeros)
    return outs, list(out_dims)


batching.primitive_batchers[custom_jvp_call_p] = _batch


def _pp(eqn: Any, ctx: pretty.PpContext) -> Any:
    params = dict(eqn.params)
    if not params["num_consts"]:
        params.pop("num_consts")
    rule = params.pop("jvp_jaxpr_fun")
    params["jvp"] = rule.name
    names = sorted(params)
    params["name"] = rule.primal_name
    return pretty.pp_eqn_default(eqn.replace(params=params), ctx, order=["name", *names])


pretty.pp_eqn_rules[custom_jvp_call_p] = _pp


def split_static(fun: Callable, nondiff_argnums: tuple[int, ...], args: tuple,
                 kwargs: dict[str, Any]) -> tuple[tuple, dict[int, Any], list]:
    """A custom_jvp/custom_vjp call's positional arguments (keywords bound to their places, as
    JAX binds them), those `nondiff_argnums` holds static by position, and the others."""
    if kwargs:
        args = inspect.signature(fun).bind(*args, **kwargs).args
    static = {i: args[i] for i in nondiff_argnums}
    return args, static, [a for i, a in enumerate(args) if i not in static]


class custom_jvp:  # noqa: N801 - JAX's name
    """`jax.custom_jvp`: decorate a function, then give its JVP with `defjvp` or `defjvps`."""

    def __init__(self, fun: Callable, nondiff_argnums: tuple[int, ...] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals: tuple, tangents: tuple) -> tuple[Any, Any]:
            primal_out = self(*primals)
            outs = [rule(t, primal_out, *primals) for t, rule in zip(tangents, jvps) if rule]
            if not outs:
                return primal_out, tree_map(lambda p: Zero(get_aval(p)), primal_out)
            total = outs[0]
            for o in outs[1:]:
                total = tree_map(add_tangents, total, o)
            return primal_out, total

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = getattr(self.fun, "__name__", "fun")
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args, static, dyn = split_static(self.fun, self.nondiff_argnums, args, kwargs)
        flat, in_tree = tree_flatten(tuple(dyn))
        out_tree: list = []

        def full(dyn_args: tuple) -> list:
            it = iter(dyn_args)
            return [static[i] if i in static else next(it) for i in range(len(args))]

        def flat_fun(*leaves: Any) -> list:
            out = self.fun(*full(tree_unflatten(in_tree, leaves)))
            out_flat, tree = tree_flatten(out)
            out_tree[:] = [tree]
            return out_flat

        jvp = self.jvp

        def flat_jvp(*pt: Any) -> list:
            n = len(pt) // 2
            primals = tree_unflatten(in_tree, pt[:n])
            tangents = tree_unflatten(in_tree, pt[n:])
            statics = [static[i] for i in sorted(static)]
            p_out, t_out = jvp(*statics, primals, tangents)
            t_flat = [instantiate_zeros(t) if type(t) is Zero else t
                      for t in tree_flatten(t_out)[0]]
            return [*tree_flatten(p_out)[0], *t_flat]

        # Each call is traced afresh, as JAX's custom_jvp does (two calls print two
        # call_jaxprs, while a jit inside them is traced once and shared).
        closed, consts = closure_convert(
            trace_to_jaxpr_dynamic(flat_fun, [get_aval(x) for x in flat]))
        outs = bind(custom_jvp_call_p, *consts, *flat, call_jaxpr=closed,
                    jvp_jaxpr_fun=NamedRule(flat_jvp, jvp.__name__, name),
                    num_consts=len(consts), symbolic_zeros=self.symbolic_zeros)
        return tree_unflatten(out_tree[0], outs)

