"""The user-facing entry points: `make_jaxpr` and `jit`."""
from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from . import core
from .caches import memo_table
from .core import ClosedJaxpr, Jaxpr, Tracer, as_array, bind, config, get_aval
from .keys import static_arg_key, value_or_identity
from .pjit import jit_p
from .pytree import tree_flatten, tree_map, tree_unflatten
from .staging import DynamicJaxprTrace, TraceDebug, inline_jaxpr_into_trace, trace_to_jaxpr_dynamic


def _static_split(args: tuple, static_argnums: Sequence[int]) -> tuple[list[int], list[Any]]:
    # Static positions past the arguments given (defaults, keywords) are not static here.
    static = {i % len(args) for i in static_argnums if -len(args) <= i < len(args)}
    dyn = [i for i in range(len(args)) if i not in static]
    return dyn, [args[i] for i in dyn]


def _flat_fun(fun: Callable, args: tuple, dyn_idx: list[int], in_tree: Any,
              out_tree_box: list) -> Callable[..., list]:
    def flat(*flat_args: Any) -> list:
        dyn_args = tree_unflatten(in_tree, flat_args)
        full = list(args)
        for i, a in zip(dyn_idx, dyn_args):
            full[i] = a
        out = fun(*full)
        leaves, tree = tree_flatten(out)
        out_tree_box.append(tree)
        return leaves
    return flat


def trace_to_jaxpr(fun: Callable, args: tuple, static_argnums: Sequence[int] = (),
                   held: Sequence[bool] | None = None, decisions: list | None = None,
                   traced_for: str = "jit") -> tuple[ClosedJaxpr, Any]:
    """Stage `fun` at `args`: (closed jaxpr, output tree). With `held` (per argument), those
    arguments are known, values held, as JAX's partial evaluator holds known inputs:
    Python control flow on them works, and is logged in `decisions`."""
    dyn_idx, dyn_args = _static_split(args, static_argnums)
    flat_args, in_tree = tree_flatten(tuple(dyn_args))
    box: list = []
    held_flat = None
    if held is not None:
        held_flat = [x if h else None
                     for a, h in zip(dyn_args, (held[i] for i in dyn_idx))
                     for x in tree_flatten(a)[0]]
    debug = None if held is not None else TraceDebug(
        lambda: (func_src_info(fun), arg_names(fun, args, static_argnums)), traced_for)
    closed = trace_to_jaxpr_dynamic(_flat_fun(fun, args, dyn_idx, in_tree, box),
                                    [get_aval(a) for a in flat_args], debug=debug,
                                    held=held_flat, decisions=decisions)
    return closed, box[0]


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (),
               return_shape: bool = False) -> Callable[..., Any]:
    """Stage `fun` under DynamicJaxprTrace and return its closed jaxpr, as JAX does."""
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make(*args: Any) -> Any:
        closed, out_tree = trace_to_jaxpr(fun, args, static_argnums)
        if return_shape:
            return closed, tree_unflatten(out_tree, closed.out_avals)
        return closed
    return make


def func_src_info(fun: Callable) -> str:
    """`f at file.py:12`, as JAX names a traced function in its errors."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    try:
        return f"{fun.__name__} at {fun.__code__.co_filename}:{fun.__code__.co_firstlineno}"
    except AttributeError:
        return getattr(fun, "__name__", "<unknown>")


def arg_names(fun: Callable, args: tuple, static_argnums: Sequence[int] = ()) -> list[str]:
    """One name per flattened argument leaf: `x`, `params['w']`, `xs[0]`, as JAX names them."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    star = next((k for k, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), len(params))
    var = params[star].name if star < len(params) else "args"
    # Static positions past the arguments given (defaults, keywords) are not static here.
    static = {i % len(args) for i in static_argnums if -len(args) <= i < len(args)}
    names: list[str] = []
    for i, a in enumerate(args):
        if i in static:
            continue
        # Arguments caught by `*args` are named args[j], as JAX names them.
        base = params[i].name if i < star else f"{var}[{i - star}]"
        names.extend(base + p for p in _leaf_paths(a))
    return names


def _leaf_paths(tree: Any) -> list[str]:
    if isinstance(tree, (tuple, list)):
        return [f"[{i}]" + p for i, c in enumerate(tree) for p in _leaf_paths(c)]
    if isinstance(tree, dict):
        return [f"[{k!r}]" + p for k in sorted(tree) for p in _leaf_paths(tree[k])]
    return [] if tree is None else [""]


def closure_convert(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Hoist the constants of a jit's jaxpr into leading arguments of the call."""
    if not closed.consts:
        return closed, []
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns), []), closed.consts


# fun -> {(static argnums, input types, ...): (closed jaxpr, consts, out tree)}, looked up
# at each call (never held by a wrapper), so that emptying the table forgets every trace
_jit_traces: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, Any]] = memo_table(
    "api._jit_traces", weakref.WeakKeyDictionary())
# id(fun) -> (fun, its traces), for a callable that cannot be weakly referenced
_strong_traces: dict[int, tuple[Callable, dict]] = memo_table("api._strong_traces", {})


def jit(fun: Callable | None = None, static_argnums: int | Sequence[int] | None = None, *,
        static_argnames: str | Sequence[str] | None = None, inline: bool = False,
        **_options: Any) -> Any:
    """Stage `fun` into a jaxpr and call it through the `jit` primitive.

    Traces are cached per function and input types (and static values), as JAX caches
    them, so calling the same function under jit twice binds the same jaxpr object (JAX
    then prints it once). With `inline=True` the function is traced into its caller, as
    JAX inlines such a jit. Called without `fun`, it is a decorator factory. Sharding and
    donation options are accepted and have no effect on one CPU.
    """
    if fun is None:
        return lambda f: jit(f, static_argnums, static_argnames=static_argnames,
                             inline=inline, **_options)
    nums, names = _static_args(fun, static_argnums, static_argnames)
    if inline:
        return _inline_jit(fun, nums, names)
    name = getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        dyn_idx, flat_args, in_tree, static = _dynamic_leaves(args, kwargs, nums, names)
        avals = tuple(get_aval(a) for a in flat_args)
        key = (nums, avals, in_tree, tuple(map(static_arg_key, static[0])),
               tuple((k, static_arg_key(v)) for k, v in static[1]),
               config.values["eager_constant_folding"])
        cache = _trace_cache(fun)
        hit = cache.get(key)
        if hit is None:
            box: list = []
            flat = _traceable(fun, args, kwargs, dyn_idx, in_tree, box)
            debug = TraceDebug(lambda: (func_src_info(fun), arg_names(fun, args, nums)), "jit")
            closed = trace_to_jaxpr_dynamic(flat, avals, debug=debug)
            # Constants stay inside the jaxpr, unless one is a tracer of an enclosing trace:
            # then, as in JAX, all become leading arguments, and the trace is not reused.
            if any(isinstance(c, Tracer) for c in closed.consts):
                closed, consts = closure_convert(closed)
                hit = (closed, consts, box[0])
            else:
                hit = cache[key] = (closed, [], box[0])
        closed, consts, out_tree = hit
        outs = bind(jit_p, *consts, *flat_args, jaxpr=closed, name=name)
        return tree_unflatten(out_tree, outs)
    return call


def _trace_cache(fun: Callable) -> dict:
    try:
        return _jit_traces.setdefault(fun, {})
    except TypeError:  # a callable that cannot be weakly referenced: held, keyed by its id
        return _strong_traces.setdefault(id(fun), (fun, {}))[1]


def _dynamic_leaves(args: tuple, kwargs: dict, nums: tuple[int, ...], names: tuple[str, ...]
                    ) -> tuple[list[int], list[Any], Any, tuple]:
    """A call's dynamic arguments as leaves, with what it takes to rebuild the call: the
    positions of the dynamic arguments, the leaves' tree and the static values."""
    dyn_idx, dyn_args = _static_split(args, nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in names}
    flat_args, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
    static = (tuple(args[i] for i in range(len(args)) if i not in dyn_idx),
              tuple(sorted((k, v) for k, v in kwargs.items() if k in names)))
    return dyn_idx, flat_args, in_tree, static


def _traceable(fun: Callable, args: tuple, kwargs: dict, dyn_idx: list[int], in_tree: Any,
               out_tree_box: list) -> Callable[..., list]:
    """`fun` at this call's static arguments, as a function of the dynamic leaves."""
    def flat(*leaves: Any) -> list:
        dyn, kw = tree_unflatten(in_tree, leaves)
        full = list(args)
        for i, a in zip(dyn_idx, dyn):
            full[i] = a
        out_leaves, tree = tree_flatten(fun(*full, **{**kwargs, **kw}))
        out_tree_box.append(tree)
        return out_leaves
    return flat


def _inline_jit(fun: Callable, nums: tuple[int, ...], names: tuple[str, ...]) -> Callable:
    """`jit(fun, inline=True)`, as JAX runs it (most jnp functions are such jits).

    Staged without eager constant folding, the call is `fun` traced into its caller: what
    JAX's inlining gives, at the cost of a call. Run now (no trace, or only constants under
    eager constant folding) it is a jit's dispatch: every output is an array. Under eager
    constant folding with a tracer among the arguments, `fun` is traced once per argument
    types into a jaxpr of its own, every argument an input (a Python scalar beside a tracer
    is not folded with constants), operations on constants alone run then (their arrays the
    jaxpr's constants), and the jaxpr is replayed into the caller's trace with constant
    folding: a constant it made is one object, hence one constvar, however often it is called.
    """
    @functools.wraps(fun)
    def call(*args: Any, **kwargs: Any) -> Any:
        main = core.dynamic_trace
        if main is None:
            if len(core.trace_stack) > 1:  # under jvp, vmap or a partial evaluator
                return fun(*args, **kwargs)
            return tree_map(as_array, fun(*args, **kwargs))
        if not config.values["eager_constant_folding"]:
            return fun(*args, **kwargs)
        dyn_idx, leaves, in_tree, static = _dynamic_leaves(args, kwargs, nums, names)
        tracers = [x for x in leaves if isinstance(x, Tracer)]
        if not tracers:
            return tree_map(as_array, fun(*args, **kwargs))

        def traced(avals: tuple) -> tuple | None:
            """fun's jaxpr at these argument types (cached), with its output tree."""
            key = ("inline", nums, avals, in_tree, static_key(static))
            cache = _trace_cache(fun)
            hit = cache.get(key)
            if hit is None:
                box: list = []
                closed = trace_to_jaxpr_dynamic(
                    _traceable(fun, args, kwargs, dyn_idx, in_tree, box), avals)
                if any(isinstance(c, Tracer) for c in closed.consts):
                    return None  # it reads an enclosing trace's value
                hit = cache[key] = (closed, box[0])
            return hit

        if any(t._trace.main is not main for t in tracers):
            rule = inline_rules.get(type(tracers[0]._trace))
            outs = None if rule is None else rule(main, leaves, traced)
            return fun(*args, **kwargs) if outs is None else outs
        hit = traced(tuple(get_aval(a) for a in leaves))
        if hit is None:
            return fun(*args, **kwargs)
        closed, out_tree = hit
        trace = DynamicJaxprTrace(main)
        outs = inline_jaxpr_into_trace(trace, closed, [trace.full_raise(x) for x in leaves])
        return tree_unflatten(out_tree, outs)
    return call


# Trace type -> how an inline jit runs under eager constant folding when a tracer of that
# trace is among its arguments: rule(staging main, argument leaves, traced) returns the
# outputs, or None to trace the function into its caller. `traced(avals)` is the function's
# jaxpr and output tree (or None). Registered by the trace's module (batching_calls).
inline_rules: dict[type, Callable[..., Any]] = {}


def _static_args(fun: Callable, nums: int | Sequence[int] | None,
                 names: str | Sequence[str] | None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """JAX's rule: static_argnums and static_argnames each imply the other through the
    signature, when only one of them is given."""
    nums_t = () if nums is None else (nums,) if isinstance(nums, int) else tuple(nums)
    names_t = () if names is None else (names,) if isinstance(names, str) else tuple(names)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return nums_t, names_t
    positional = [p.name for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if nums is None and names_t:
        nums_t = tuple(positional.index(n) for n in names_t if n in positional)
    elif names is None and nums_t:
        names_t = tuple(positional[i] for i in nums_t if -len(positional) <= i < len(positional)
                        and params[positional.index(positional[i])].kind
                        is not inspect.Parameter.POSITIONAL_ONLY)
    return nums_t, names_t


def static_key(static: tuple) -> tuple:
    """The static values of a call, (positional, (name, value) pairs), as part of a cache
    key: each by value when it hashes, else by identity (as JAX keys checkpoint's)."""
    args, kwargs = static
    return tuple(map(value_or_identity, args)), tuple((k, value_or_identity(v)) for k, v in kwargs)
