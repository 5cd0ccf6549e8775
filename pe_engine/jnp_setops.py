"""`jax.numpy.isin`, lowered as JAX 0.10.2 lowers its default method ('auto' is
'compare_all'): every element against every test element, one broadcast comparison reduced
over the test axis, inside JAX's jitted `_in1d`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .api import jit
from .jnp_base import _check_arraylike, _promote_dtypes, asarray, ones, zeros

# JAX's other methods sort (binary_search, sort) or build unique's sized outputs.
_COMPARE_ALL = ("auto", "compare_all")


@jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1: Any, ar2: Any, invert: bool, method: str = "auto",
          assume_unique: bool = False) -> Any:
    a, b = (x.ravel() for x in _promote_dtypes(ar1, ar2))
    if a.size == 0 or b.size == 0:
        return (ones if invert else zeros)(a.shape, dtype=bool)
    if invert:
        return (a[:, None] != b[None, :]).all(-1)
    return (a[:, None] == b[None, :]).any(-1)


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False,
         *, method: str = "auto") -> Any:
    _check_arraylike(element, test_elements)
    if method not in _COMPARE_ALL:
        raise NotImplementedError(f"jnp.isin(method={method!r}): this engine has only the "
                                  "'compare_all' method (JAX's default, 'auto')")
    element, test_elements = asarray(element), asarray(test_elements)
    out = _in1d(element, test_elements, invert=invert, method=method,
                assume_unique=assume_unique)
    return out.reshape(np.shape(element))


__all__ = ["isin"]
