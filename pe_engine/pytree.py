"""Pytrees of tuples, lists, dicts and None, flattened in JAX's order (dict keys sorted)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

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

    def unflatten(self, leaves: Any) -> Any:
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of `tree` at this structure's leaves (the structure is its prefix)."""
        out: list[Any] = []
        _flatten_up_to(self, tree, out)
        return out


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


def tree_flatten(tree: Any, is_leaf: IsLeaf = None) -> tuple[list[Any], PyTreeDef]:
    leaves: list[Any] = []
    return leaves, _flatten(tree, leaves, is_leaf)


IsLeaf = Callable[[Any], bool] | None


def _flatten(x: Any, leaves: list[Any], is_leaf: IsLeaf = None) -> PyTreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return LEAF
    if x is None:
        return PyTreeDef("none", None, ())
    t = type(x)
    if t is tuple or (isinstance(x, tuple) and not hasattr(x, "_fields")):
        return PyTreeDef("tuple", None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
    if t is list:
        return PyTreeDef("list", None, tuple([_flatten(c, leaves, is_leaf) for c in x]))
    if t is dict:
        keys = tuple(sorted(x))
        return PyTreeDef("dict", keys, tuple([_flatten(x[k], leaves, is_leaf) for k in keys]))
    leaves.append(x)
    return LEAF


def _children(t: PyTreeDef, x: Any) -> list[Any]:
    """x's children, as the node `t` has them; x must be a node of t's kind."""
    kinds: dict[str, type[Any]] = {"tuple": tuple, "list": list, "dict": dict, "none": type(None)}
    if not isinstance(x, kinds[t.kind]) or (t.kind == "tuple" and hasattr(x, "_fields")):
        raise ValueError(f"Expected {t.kind}, got {x!r}.")
    if t.kind == "dict":
        if tuple(sorted(x)) != t.meta:
            raise ValueError(f"Dict key mismatch; expected keys: {list(t.meta)}; "
                             f"dict: {x!r}.")
        return [x[k] for k in t.meta]
    if t.kind != "none" and len(x) != len(t.children):
        raise ValueError(f"{t.kind.capitalize()} arity mismatch: {len(x)} != "
                         f"{len(t.children)}; {t.kind}: {x!r}.")
    return [] if t.kind == "none" else list(x)


def _flatten_up_to(t: PyTreeDef, x: Any, out: list[Any]) -> None:
    if t.kind == "leaf":
        out.append(x)
        return
    for c, sub in zip(t.children, _children(t, x)):
        _flatten_up_to(c, sub, out)


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


def tree_leaves(tree: Any, is_leaf: IsLeaf = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: IsLeaf = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: IsLeaf = None) -> Any:
    """f over the leaves of `tree` and the matching subtrees of `rest` (each has `tree`'s
    structure as a prefix, as in JAX)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])
