"""`jax.numpy.frombuffer` and `fromstring`: NumPy parses, and the result is made an array
(a constant of a traced program), as JAX 0.10.2 does."""
from __future__ import annotations

from typing import Any

import numpy as np

from .jnp_base import asarray


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


__all__ = ["frombuffer", "fromstring"]
