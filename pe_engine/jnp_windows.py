"""`jax.numpy`'s window functions (blackman, bartlett, hamming, hanning, kaiser), built
as JAX 0.10.2 builds them: jnp arithmetic on a float iota of the window's length.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import lax_base as lax
from .jnp_base import abs, cos, sqrt
from .jnp_float import i0
from .structural import iota


def _window(name: str, shape: Callable[..., Any]) -> Callable[..., Any]:
    def window(M: int, *args: Any) -> Any:  # noqa: N803 - NumPy's name
        M = operator.index(M)  # noqa: N806
        if M <= 1:
            return lax.full((M,), 1, np.float32)
        return shape(iota(np.float32, M), M, *args)
    window.__name__ = window.__qualname__ = name
    return window


blackman = _window("blackman", lambda n, M: 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
                   + 0.08 * cos(4 * np.pi * n / (M - 1)))
bartlett = _window("bartlett", lambda n, M: 1 - abs(2 * n + 1 - M) / (M - 1))
hamming = _window("hamming", lambda n, M: 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1)))
hanning = _window("hanning", lambda n, M: 0.5 * (1 - cos(2 * np.pi * n / (M - 1))))


def _kaiser(n: Any, M: int, beta: Any) -> Any:  # noqa: N803
    alpha = 0.5 * (M - 1)
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)


kaiser = _window("kaiser", _kaiser)

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
