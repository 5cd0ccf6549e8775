"""One short line for a public name the engine does not have: "jnp.fft is not in this engine".

The engine's public modules (jnp, lax, nn, ...) and the page's facades of them both answer a
missing name with it, naming the name the way users write it (jax.numpy as `jnp`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

# The names users import these modules as.
SHORT = {"jax.numpy": "jnp", "numpy": "np"}


def not_in_engine(public: str, name: str) -> str:
    return f"{SHORT.get(public, public)}.{name} is not in this engine"


def module_getattr(public: str) -> Callable[[str], NoReturn]:
    """A module-level `__getattr__` (PEP 562) for the engine module standing in for `public`:
    only names no attribute of the module answers come here."""
    def __getattr__(name: str) -> NoReturn:
        if name.startswith("_"):  # dunders and internals: Python's own words
            raise AttributeError(f"module '{public}' has no attribute '{name}'")
        raise AttributeError(not_in_engine(public, name))
    return __getattr__
