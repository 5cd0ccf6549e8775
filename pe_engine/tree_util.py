"""Pytrees of tuples, lists, dicts and None, flattened in JAX's order (dict keys sorted)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from . import missing as _missing

__all__ = ["tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]



class PyTreeDef(NamedTuple):
    kind: str  # "leaf", "none", "tuple", "list", "dict"
    meta: Any  # dict keys for "dict"
    children: tuple

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __repr__(self) -> str:
        return f"PyTreeDef({_describe(self)})"


def _describe(t: PyTreeDef) -> str:
    if t.kind == "leaf":
        return "*"
    if t.kind == "none":
        return "None"
    inner = [_describe(c) for c in t.children]
    if t.kind == "tuple":
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
    if t.kind == "list":
        return "[" + ", ".join(inner) + "]"
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(t.meta, inner)) + "}"


LEAF = PyTreeDef("leaf", None, ())


# The recursions below are module functions, not closures that call themselves: such a
# closure is a reference cycle, and its cycle would hold every leaf (a whole trace's tracers)
# until the cyclic collector ran.


def tree_flatten(tree: Any) -> tuple[list[Any], PyTreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves)


def _flatten(x: Any, leaves: list[Any]) -> PyTreeDef:
    if x is None:
        return PyTreeDef("none", None, ())
    t = type(x)
    if t is tuple or (isinstance(x, tuple) and not hasattr(x, "_fields")):
        return PyTreeDef("tuple", None, tuple([_flatten(c, leaves) for c in x]))
    if t is list:
        return PyTreeDef("list", None, tuple([_flatten(c, leaves) for c in x]))
    if t is dict:
        keys = tuple(sorted(x))
        return PyTreeDef("dict", keys, tuple([_flatten(x[k], leaves) for k in keys]))
    leaves.append(x)
    return LEAF


def tree_unflatten(treedef: PyTreeDef, leaves: Any) -> Any:
    it = iter(leaves)
    out = _unflatten(treedef, it)
    assert next(it, None) is None, "too many leaves for the tree"
    return out


def _unflatten(t: PyTreeDef, it: Any) -> Any:
    if t.kind == "leaf":
        return next(it)
    if t.kind == "none":
        return None
    kids = [_unflatten(c, it) for c in t.children]
    if t.kind == "tuple":
        return tuple(kids)
    if t.kind == "list":
        return kids
    return dict(zip(t.meta, kids))


def tree_leaves(tree: Any) -> list[Any]:
    return tree_flatten(tree)[0]


def tree_structure(tree: Any) -> PyTreeDef:
    return tree_flatten(tree)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any) -> Any:
    leaves, treedef = tree_flatten(tree)
    others = [tree_flatten(r)[0] for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others, strict=True)])

# A name JAX has and the engine lacks fails in one line ("jnp.fft is not in this engine").
__getattr__ = _missing.module_getattr("jax.tree_util")
