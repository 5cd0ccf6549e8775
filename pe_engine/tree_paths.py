"""jax.tree_util's key paths and reductions, over tree_util's flatten and unflatten.

A leaf's path is the tuple of keys from the root: `DictKey` for a dict entry, `SequenceKey`
for a tuple's or list's item, printed as JAX prints them (`['w'][0]`).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from .pytree import IsLeaf, PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_structure

__all__ = ["DictKey", "SequenceKey", "keystr", "tree_all", "tree_broadcast",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path",
           "tree_reduce", "tree_reduce_associative", "tree_transpose"]


class DictKey(NamedTuple):
    key: Any

    def __str__(self) -> str:
        return f"[{self.key!r}]"


class SequenceKey(NamedTuple):
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx}]"


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
    if simple:
        return separator.join(str(k[0]) for k in keys)
    return separator.join(str(k) for k in keys)


def tree_flatten_with_path(tree: Any, is_leaf: IsLeaf = None
                           ) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    leaves, treedef = tree_flatten(tree, is_leaf)
    return list(zip(_paths(treedef, ()), leaves)), treedef


def _paths(t: PyTreeDef, prefix: tuple) -> list[tuple]:
    if t.kind == "leaf":
        return [prefix]
    keys = ([DictKey(k) for k in t.meta] if t.kind == "dict"
            else [SequenceKey(i) for i in range(len(t.children))])
    return [p for k, c in zip(keys, t.children) for p in _paths(c, (*prefix, k))]


def tree_leaves_with_path(tree: Any, is_leaf: IsLeaf = None) -> list[tuple[tuple, Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: IsLeaf = None) -> Any:
    with_path, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return treedef.unflatten([f(p, x, *xs) for (p, x), *xs in zip(with_path, *others)])


def tree_all(tree: Any, *, is_leaf: IsLeaf = None) -> bool:
    return all(tree_leaves(tree, is_leaf))


_NO_INIT = object()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INIT,
                is_leaf: IsLeaf = None) -> Any:
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *,
                            identity: Any = _NO_INIT, is_leaf: IsLeaf = None) -> Any:
    """The leaves combined pairwise, halves first, as JAX orders the operations."""
    return _halves(tree_leaves(tree, is_leaf), operation, identity)


def _halves(xs: list[Any], op: Callable[[Any, Any], Any], identity: Any) -> Any:
    if not xs:
        if identity is _NO_INIT:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(xs) == 1:
        return xs[0]
    half = len(xs) // 2
    return op(_halves(xs[:half], op, identity), _halves(xs[half:], op, identity))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """An outer structure of inner structures turned into an inner of outers."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    inner, outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner * outer:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef} of {inner_treedef}")
    rows = [flat[i * inner:(i + 1) * inner] for i in range(outer)]
    return inner_treedef.unflatten([outer_treedef.unflatten(col) for col in zip(*rows)])


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf: IsLeaf = None) -> Any:
    """Each leaf of `prefix_tree` repeated over the subtree of `full_tree` it stands for."""
    leaves: list[Any] = []
    tree_map(lambda x, sub: leaves.extend([x] * tree_structure(sub).num_leaves),
             prefix_tree, full_tree, is_leaf=is_leaf)
    return tree_structure(full_tree).unflatten(leaves)
