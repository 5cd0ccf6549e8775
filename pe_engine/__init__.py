"""pe_engine: a small JAX, in pure Python and numpy, built around partial evaluation.

The package stands in for `jax`: `pe_engine.numpy` is `jax.numpy`, `pe_engine.lax`
is `jax.lax`, and the entry points below carry JAX's names.
"""
# numpy installs the array operators; ad_rules, control_flow and jit_rules fill rule tables.
from . import ad_checkpoint, ad_rules, control_flow, jit_rules, lax, nn, numpy, tree_util  # noqa: F401
from .ad import grad, jvp, linearize, value_and_grad, vjp
from .ad_checkpoint import checkpoint, checkpoint_policies, remat
from .api import jit, make_jaxpr
from .core import Array, ClosedJaxpr, Jaxpr, ShapedArray, config, ensure_compile_time_eval
from .lax import device_put

__all__ = ["ad_checkpoint", "checkpoint", "checkpoint_policies", "grad", "jvp", "linearize",
           "remat", "value_and_grad", "vjp",
           "Array", "ClosedJaxpr", "Jaxpr", "ShapedArray", "config", "ensure_compile_time_eval",
           "device_put", "jit", "lax", "make_jaxpr", "nn", "numpy", "tree_util"]
__version__ = "0.1.0"
