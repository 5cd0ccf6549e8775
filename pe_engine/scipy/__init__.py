"""`jax.scipy`: only its `special` module."""
from __future__ import annotations

from .. import missing as _missing
from . import special

__all__ = ["special"]

__getattr__ = _missing.module_getattr("jax.scipy")
