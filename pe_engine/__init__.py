"""pe_engine: a small JAX, in pure Python and numpy, built around partial evaluation.

The package stands in for `jax`: `pe_engine.numpy` is `jax.numpy`, `pe_engine.lax`
is `jax.lax`, and the entry points below carry JAX's names.
"""
from . import lax, numpy, tree_util  # noqa: F401  (numpy installs the array operators)
from . import ad_checkpoint, ad_rules, control_flow, jit_rules  # noqa: F401  (rule tables)
from .ad import grad, jvp, linearize, value_and_grad, vjp
from .ad_checkpoint import checkpoint, checkpoint_policies, remat
from .api import jit, make_jaxpr
from .core import Array, ClosedJaxpr, Jaxpr, ShapedArray, config, ensure_compile_time_eval

__all__ = ["ad_checkpoint", "checkpoint", "checkpoint_policies", "grad", "jvp", "linearize",
           "remat", "value_and_grad", "vjp",
           "Array", "ClosedJaxpr", "Jaxpr", "ShapedArray", "config", "ensure_compile_time_eval",
           "jit", "lax", "make_jaxpr", "numpy", "tree_util"]
__version__ = "0.1.0"
