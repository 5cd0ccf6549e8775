"""`jax.tree`: the tree_util functions under their short names, as JAX 0.10.2 exports them
(each `jax.tree.<name>` is `jax.tree_util.tree_<name>`)."""
from __future__ import annotations

from . import missing as _missing
from . import tree_util as _tu

_SHORT_NAMES = ("all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
                "map", "map_with_path", "reduce", "reduce_associative", "structure", "transpose",
                "unflatten")

# Bound from the one list of names (a name is added there only).
__all__ = list(_SHORT_NAMES)
globals().update({name: getattr(_tu, "tree_" + name) for name in _SHORT_NAMES})

# A name JAX has and the engine lacks fails in one line ("jax.tree.foo is not in this engine").
__getattr__ = _missing.module_getattr("jax.tree")
