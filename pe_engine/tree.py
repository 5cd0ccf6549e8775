"""`jax.tree`: the tree_util functions under their short names, as JAX 0.10.2 exports them."""
from __future__ import annotations

from . import missing as _missing
from . import tree_util as _tu

all = _tu.tree_all  # noqa: A001 - JAX's name
broadcast = _tu.tree_broadcast
flatten = _tu.tree_flatten
flatten_with_path = _tu.tree_flatten_with_path
leaves = _tu.tree_leaves
leaves_with_path = _tu.tree_leaves_with_path
map = _tu.tree_map  # noqa: A001 - JAX's name
map_with_path = _tu.tree_map_with_path
reduce = _tu.tree_reduce
reduce_associative = _tu.tree_reduce_associative
structure = _tu.tree_structure
transpose = _tu.tree_transpose
unflatten = _tu.tree_unflatten

__all__ = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
           "map", "map_with_path", "reduce", "reduce_associative", "structure", "transpose",
           "unflatten"]

# A name JAX has and the engine lacks fails in one line ("jax.tree.foo is not in this engine").
__getattr__ = _missing.module_getattr("jax.tree")
