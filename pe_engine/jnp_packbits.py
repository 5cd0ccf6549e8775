"""`jax.numpy.packbits` and `unpackbits`, jitted and lowered as JAX 0.10.2 lowers them: bits
as uint8 shifted by their place (or masked by it) along the packed axis, moved last.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import lax_base as lax
from . import lax_base_rules
from .api import jit
from .jnp_arrays import arange, ravel
from .jnp_base import asarray, expand_dims
from .jnp_shape import swapaxes

_ORDERS = ("little", "big")


def _bit_places(bitorder: str, bits: Any) -> Any:
    if bitorder not in _ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    return bits[::-1] if bitorder == "big" else bits


@jit(static_argnames=("axis", "bitorder"))
def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    arr = asarray(a)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.bool_)):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in _ORDERS:
        raise ValueError("'order' must be either 'little' or 'big'")
    arr = lax.ne(arr, lax._const(arr, 0)).astype("uint8")
    bits = _bit_places(bitorder, arange(8, dtype="uint8"))
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    if rest := arr.shape[-1] % 8:  # a last byte short of 8 bits is padded with zeros
        arr = lax_base_rules.pad(arr, np.uint8(0),
                                 [(0, 0, 0)] * (arr.ndim - 1) + [(0, 8 - rest, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(range(arr.ndim - 1)))
    # JAX's sum of a narrow unsigned int accumulates in uint32
    return swapaxes((arr << bits).astype("uint32").sum(-1).astype("uint8"), axis, -1)


@jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:
    arr = asarray(a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    bits = _bit_places(bitorder, asarray(1) << arange(8, dtype="uint8"))
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    out = ((arr[..., None] & expand_dims(bits, tuple(range(arr.ndim)))) > 0).astype("uint8")
    out = out.reshape(out.shape[:-2] + (-1,))
    if count is not None:
        if count > out.shape[-1]:
            raise NotImplementedError("unpackbits with count beyond the unpacked bits (JAX "
                                      "pads with jnp.pad, not in this engine)")
        out = out[..., :count]
    return swapaxes(out, axis, -1)


__all__ = ["packbits", "unpackbits"]
