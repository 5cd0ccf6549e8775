"""The user-facing entry points: `make_jaxpr` and `jit`."""
from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from .core import ClosedJaxpr, Jaxpr, Tracer, bind, config, get_aval
from .pjit import jit_p
from .staging import trace_to_jaxpr_dynamic
from .tree_util import tree_flatten, tree_unflatten


def _static_split(args: tuple, static_argnums: Sequence[int]) -> tuple[list[int], list[Any]]:
    static = {i % len(args) if args else i for i in static_argnums}
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


def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (),
               return_shape: bool = False) -> Callable[..., Any]:
    """Stage `fun` under DynamicJaxprTrace and return its closed jaxpr, as JAX does."""
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make(*args: Any) -> Any:
        dyn_idx, dyn_args = _static_split(args, static_argnums)
        flat_args, in_tree = tree_flatten(tuple(dyn_args))
        box: list = []
        closed = trace_to_jaxpr_dynamic(_flat_fun(fun, args, dyn_idx, in_tree, box),
                                        [get_aval(a) for a in flat_args])
        if return_shape:
            return closed, tree_unflatten(box[0], closed.out_avals)
        return closed
    return make


def closure_convert(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Hoist the constants of a jit's jaxpr into leading arguments of the call."""
    if not closed.consts:
        return closed, []
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns), []), closed.consts


# fun -> {(static argnums, input types, ...): (closed jaxpr, consts, out tree)}
_jit_traces: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def jit(fun: Callable, static_argnums: int | Sequence[int] = ()) -> Callable[..., Any]:
    """Stage `fun` into a jaxpr and call it through the `jit` primitive.

    Traces are cached per function and input types, as JAX caches them, so calling the
    same function under jit twice binds the same jaxpr object (JAX then prints it once).
    """
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    name = getattr(fun, "__name__", "fun")
    try:
        cache = _jit_traces.setdefault(fun, {})
    except TypeError:  # a callable that cannot be weakly referenced: this wrapper's own cache
        cache = {}

    @functools.wraps(fun)
    def call(*args: Any) -> Any:
        dyn_idx, dyn_args = _static_split(args, static_argnums)
        flat_args, in_tree = tree_flatten(tuple(dyn_args))
        avals = tuple(get_aval(a) for a in flat_args)
        static = tuple(args[i] for i in range(len(args)) if i not in dyn_idx)
        key = (static_argnums, avals, in_tree, _hashable(static),
               config.values["eager_constant_folding"])
        hit = cache.get(key)
        if hit is None:
            box: list = []
            closed = trace_to_jaxpr_dynamic(_flat_fun(fun, args, dyn_idx, in_tree, box), avals)
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


def _hashable(x: Any) -> Any:
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)
