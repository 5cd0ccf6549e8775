"""`jax.eval_shape`: the shapes and dtypes a function returns, found by tracing it."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .core import ShapedArray, get_aval
from .pytree import tree_flatten, tree_unflatten
from .staging import trace_to_jaxpr_dynamic


class ShapeDtypeStruct:
    """`jax.ShapeDtypeStruct`: an array's shape and dtype, no values."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Any, dtype: Any, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = weak_type

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) \
            == (other.shape, other.dtype, other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """Traced on the arguments' types alone (a ShapeDtypeStruct is one), so no array of a
    ShapeDtypeStruct's size is ever made."""
    flat, in_tree = tree_flatten(args)
    avals = [ShapedArray(a.shape, a.dtype, a.weak_type) if isinstance(a, ShapeDtypeStruct)
             else get_aval(a) for a in flat]
    out_tree: list = []

    def flat_fun(*leaves: Any) -> list:
        out, tree = tree_flatten(fun(*tree_unflatten(in_tree, leaves), **kwargs))
        out_tree[:] = [tree]
        return out

    jaxpr = trace_to_jaxpr_dynamic(flat_fun, avals)
    return tree_unflatten(out_tree[0], [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type)
                                        for a in jaxpr.out_avals])
