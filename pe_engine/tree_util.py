"""`jax.tree_util` as this engine offers it: flattening (`pytree.py`) and key paths and
reductions (`tree_paths.py`), re-exported for user code; engine modules import those two."""
from __future__ import annotations

from . import missing as _missing
from .pytree import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from .tree_paths import *  # noqa: F403 - the rest of tree_util
from .tree_paths import __all__ as _paths

__all__ = ["tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"] + _paths

# A name JAX has and the engine lacks fails in one line ("jnp.fft is not in this engine").
__getattr__ = _missing.module_getattr("jax.tree_util")
