"""`jax.nn`, the part whose lowering is a plain primitive.

`relu` is left out: JAX defines it with `custom_jvp`, which stages as a
`custom_jvp_call` equation this engine does not model.
"""
from __future__ import annotations

from typing import Any

from . import lax
from .numpy import tanh  # noqa: F401  (jax.nn.tanh is jnp.tanh)

__all__ = ["sigmoid", "tanh"]



def sigmoid(x: Any) -> Any:
    """jax.nn.sigmoid is lax.logistic, one primitive."""
    return lax.logistic(x)
