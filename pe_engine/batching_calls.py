"""Batching rules for the call-like primitives, `jit` and `remat2`: the inner program
is batched with the inputs' batch axes as they come (JAX's batch_jaxpr2), and the
call is bound again on it; an inline jit's batched program is inlined into the staging
trace instead. (A module of its own: batching.py sits below them.)"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from . import api
from .ad_checkpoint import name_p, remat_p
from .api import closure_convert
from .batching import (
    BatchTrace,
    BatchTracer,
    batch_jaxpr_keep_dims,
    defvectorized,
    primitive_batchers,
)
from .core import ClosedJaxpr, Tracer, bind, get_aval
from .pjit import jit_p
from .pytree import tree_unflatten
from .staging import DynamicJaxprTrace, inline_jaxpr_into_trace


def _jit_batcher(size: int, vals: list, dims: list, *, jaxpr: Any, name: str
                 ) -> tuple[list, list]:
    batched, out_dims = batch_jaxpr_keep_dims(jaxpr, size, dims)
    return bind(jit_p, *vals, jaxpr=batched, name=name), out_dims


def _remat_batcher(size: int, vals: list, dims: list, *, jaxpr: Any, **params: Any
                   ) -> tuple[list, list]:
    batched, out_dims = batch_jaxpr_keep_dims(ClosedJaxpr(jaxpr, []), size, dims)
    batched, consts = closure_convert(batched)
    return bind(remat_p, *consts, *vals, jaxpr=batched.jaxpr, **params), out_dims


def _inline_batched(main: Any, leaves: Sequence[Any], traced: Callable[[tuple], Any]) -> Any:
    """An inline jit under a vmap straight over a staging trace with eager constant folding:
    as JAX's jit batching rule, the function's jaxpr (every argument an input) is batched,
    then inlined into the staging trace, folding as it goes. A Python scalar argument thus
    enters as a literal and its casts fold to literals, where running the function on the
    batch tracers would cast it now, into an array that prints as a constvar."""
    # the rule of BatchTrace (inline_rules below): the call's innermost trace is a vmap's
    batch = cast(BatchTrace, next(x._trace for x in leaves if isinstance(x, Tracer)))
    for x in leaves:
        if not isinstance(x, Tracer):
            continue
        v = x.val if isinstance(x, BatchTracer) and x._trace.main is batch.main else None
        if v is None or isinstance(v, Tracer) and v._trace.main is not main:
            return None  # another trace between: run the function on the tracers
    hit = traced(tuple(get_aval(x) for x in leaves))
    if hit is None:
        return None
    closed, out_tree = hit
    batched = [isinstance(x, BatchTracer) for x in leaves]
    dims = [x.batch_dim if b else None for x, b in zip(leaves, batched)]
    vals = [x.val if b else x for x, b in zip(leaves, batched)]
    program, out_dims = batch_jaxpr_keep_dims(closed, batch.axis_size, dims)
    staging = DynamicJaxprTrace(main)
    outs = inline_jaxpr_into_trace(staging, program, [staging.full_raise(v) for v in vals])
    return tree_unflatten(out_tree, [BatchTracer(batch, o, d) for o, d in zip(outs, out_dims)])


primitive_batchers[jit_p] = _jit_batcher
api.inline_rules[BatchTrace] = _inline_batched
primitive_batchers[remat_p] = _remat_batcher
defvectorized(name_p)  # checkpoint_name
