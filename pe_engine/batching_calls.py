"""Batching rules for the call-like primitives, `jit` and `remat2`: the inner program
is batched with the inputs' batch axes as they come (JAX's batch_jaxpr2), and the
call is bound again on it. (A module of its own: batching.py sits below them.)"""
from __future__ import annotations

from typing import Any

from .ad_checkpoint import name_p, remat_p
from .api import closure_convert
from .batching import batch_jaxpr_keep_dims, defvectorized, primitive_batchers
from .core import ClosedJaxpr, bind
from .pjit import jit_p


def _jit_batcher(size: int, vals: list, dims: list, *, jaxpr: Any, name: str
                 ) -> tuple[list, list]:
    batched, out_dims = batch_jaxpr_keep_dims(jaxpr, size, dims)
    return bind(jit_p, *vals, jaxpr=batched, name=name), out_dims


def _remat_batcher(size: int, vals: list, dims: list, *, jaxpr: Any, **params: Any
                   ) -> tuple[list, list]:
    batched, out_dims = batch_jaxpr_keep_dims(ClosedJaxpr(jaxpr, []), size, dims)
    batched, consts = closure_convert(batched)
    return bind(remat_p, *consts, *vals, jaxpr=batched.jaxpr, **params), out_dims


primitive_batchers[jit_p] = _jit_batcher
primitive_batchers[remat_p] = _remat_batcher
defvectorized(name_p)  # checkpoint_name
