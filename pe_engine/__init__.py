"""pe_engine: a small JAX, in pure Python and numpy, built around partial evaluation.

The package stands in for `jax`: `pe_engine.numpy` is `jax.numpy`, `pe_engine.lax`
is `jax.lax`, and the entry points below carry JAX's names.
"""
# The facades load the modules that define primitives, and so fill the rule tables (the call
# primitives' batching rules are in batching_calls); numpy's installs the array operators.
from . import (  # noqa: F401
    ad_checkpoint,
    batching_calls,  # noqa: F401  (fills the batching table for jit and remat2)
    control_flow,
    lax,
    nn,
    numpy,
    scipy,
    tree,
    tree_util,
)
from . import missing as _missing
from .ad import grad, jvp, linearize, value_and_grad, vjp
from .ad_checkpoint import checkpoint, checkpoint_policies, remat
from .api import jit, make_jaxpr
from .batching import vmap
from .core import (  # noqa: F401 (ClosedJaxpr, Jaxpr, ShapedArray: for tools and tests)
    Array,
    ClosedJaxpr,
    Jaxpr,
    ShapedArray,
    config,
    ensure_compile_time_eval,
)
from .custom_derivatives import custom_jvp
from .custom_vjp import custom_vjp
from .eval_shape import ShapeDtypeStruct, eval_shape
from .jacobians import hessian, jacfwd, jacobian, jacrev
from .lax_base import device_put

# What `import jax` gives user code in the page (the sandbox's facade lists exactly these).
__all__ = ["Array", "ad_checkpoint", "checkpoint", "checkpoint_policies", "config", "custom_jvp",
           "custom_vjp", "device_put", "ensure_compile_time_eval", "eval_shape", "grad", "hessian",
           "jacfwd", "jacobian", "jacrev", "jit", "ShapeDtypeStruct",
           "jvp", "lax", "linearize", "make_jaxpr", "nn", "numpy", "remat", "scipy", "tree",
           "tree_util", "value_and_grad", "vjp", "vmap"]
__version__ = "0.1.0"

# A name JAX has and the engine lacks fails in one line ("jnp.fft is not in this engine").
__getattr__ = _missing.module_getattr("jax")
