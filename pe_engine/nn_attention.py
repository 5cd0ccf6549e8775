"""`jax.nn.dot_product_attention`, the XLA path of JAX 0.10.2.

JAX groups the query heads by key head (GQA: N query heads over K key heads, G = N // K),
then `vmap`s its per-group core over the group axis: the program it prints is the batched
one, with the group axis moved by the batching rules (hence its `np.int64` params and
transposes). The engine does the same through its own `vmap`, so the same text prints.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import lax
from . import numpy as jnp
from .batching import vmap
from .core import get_aval
from .jnp_creation import tril
from .jnp_dtypes import promote_types
from .jnp_ufuncs import logical_and
from .nn import logsumexp, softmax

__all__ = ["dot_product_attention"]


def _large_negative(dtype: np.dtype) -> Any:
    # Softmax runs in float32, so the fill stays within float32's range whatever the dtype.
    most = min(float(np.finfo(dtype).max), float(np.finfo(np.float32).max))
    return jnp.asarray(-0.7 * most, dtype=dtype)


def _padding_mask(T: int, S: int, q_seqlen: Any, kv_seqlen: Any) -> Any:
    q_mask: Any = True
    kv_mask: Any = True
    if q_seqlen is not None:
        q_mask = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return logical_and(q_mask, kv_mask)[:, None, :, :]


def _window_mask(T: int, S: int, window: tuple[int, int]) -> Any:
    query_pos, key_pos = jnp.array(range(T)), jnp.array(range(S))
    left, right = window
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right
    return logical_and(right_mask, left_mask)[None, None, :, :]


def _apply_masks(logits: Any, mask: Any, is_causal: bool, q_seqlen: Any, kv_seqlen: Any,
                 window: tuple[int, int] | None) -> Any:
    padded = q_seqlen is not None or kv_seqlen is not None
    if mask is None and not is_causal and not padded and window is None:
        return logits
    combined = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = logical_and(combined, mask)
    T, S = get_aval(logits).shape[2:4]
    if is_causal:
        combined = logical_and(combined, tril(jnp.ones((T, S), dtype=bool))[None, None, :, :])
    if window is not None:
        combined = logical_and(combined, _window_mask(T, S, window))
    if padded:
        combined = logical_and(combined, _padding_mask(T, S, q_seqlen, kv_seqlen))
    return jnp.where(combined, logits, _large_negative(get_aval(logits).dtype))


def _core(query: Any, key: Any, value: Any, bias: Any, mask: Any, is_causal: bool,
          scale: float, q_seqlen: Any, kv_seqlen: Any, window: tuple[int, int] | None,
          return_residual: bool) -> Any:
    """One group's attention, with shapes (B,T,N,H), (B,S,N,H): JAX's order of operations."""
    logits_dtype = promote_types(get_aval(query).dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key)
    if get_aval(logits).dtype != logits_dtype:
        logits = logits.astype(logits_dtype)
    logits = logits * jnp.array(scale, dtype=get_aval(logits).dtype)
    if bias is not None:
        logits = (logits + bias).astype(get_aval(logits).dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(get_aval(key).dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        T = get_aval(encoded).shape[1]
        rows = (jnp.arange(0, T)[None, :] < q_seqlen[:, None])[:, :, None, None]
        encoded = encoded * rows.astype(get_aval(encoded).dtype)
    if not return_residual:
        return encoded
    lse = logsumexp(padded, axis=-1).astype(get_aval(key).dtype)
    return encoded, lax.stop_gradient(jnp.transpose(lse, (0, 2, 1)))  # B N T -> B T N


def _grouped(t: Any, N: int, K: int, G: int) -> Any:
    """A (B, N or 1, T, S) bias or mask, its head axis split as the query's is."""
    if t is None:
        return None
    tB, tN, tT, tS = get_aval(t).shape
    if tN == 1:
        return jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
    if tN != N:
        raise ValueError(f"bias and mask must have 1 or {N} heads, got {tN}")
    return jnp.reshape(t, (tB, K, G, tT, tS))


def _ensure_4d(t: Any) -> Any:
    t = jnp.asarray(t)
    missing = 4 - get_aval(t).ndim
    return jnp.expand_dims(t, tuple(range(missing))) if missing > 0 else t


def _check(t: Any, shape: Sequence[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    aval = get_aval(t)
    if aval.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {aval.ndim}")
    if dtype is not None and aval.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {aval.dtype}")
    if any(want not in (-1, got) for want, got in zip(shape, aval.shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {aval.shape}")


def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None, mask: Any = None,
                          *, scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: Any = None, key_value_seq_lengths: Any = None,
                          local_window_size: Any = None, implementation: str | None = None,
                          return_residual: bool = False) -> Any:
    """softmax(Q K^T * scale + bias, masked) V per head, for (B,T,N,H) or (T,N,H) inputs
    (JAX's default implementation, XLA's: 'cudnn' needs a GPU)."""
    if implementation not in (None, "xla"):
        raise NotImplementedError(f"dot_product_attention implementation={implementation!r} "
                                  "is not in this engine (only 'xla', JAX's default)")
    out_shape = get_aval(jnp.asarray(query)).shape
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    window = ((local_window_size, local_window_size) if isinstance(local_window_size, int)
              else local_window_size)
    B, S, K, H = get_aval(k).shape
    _check(v, (B, S, K, H), get_aval(k).dtype, "value")
    _check(q, (B, -1, -1, H), get_aval(k).dtype, "query")
    _check(mask, (-1,) * 4, np.dtype(bool), "mask")
    _check(bias, (-1,) * 4, None, "bias")
    _check(q_len, (B,), np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, (B,), np.dtype("int32"), "key_value_seq_lengths")
    _, T, N, _ = get_aval(q).shape
    if N % K:
        raise ValueError("The number of query heads must be a multiple of key/value heads, "
                         f"but got {N} vs {K}")
    scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
    G = N // K
    grouped = vmap(_core, in_axes=(3, None, None, 2, 2, None, None, None, None, None, None),
                   out_axes=3)
    out = grouped(jnp.reshape(q, (B, T, K, G, H)), k, v, _grouped(bias, N, K, G),
                  _grouped(mask, N, K, G), is_causal, scale_val, q_len, kv_len, window,
                  return_residual)
    if not return_residual:
        return jnp.reshape(jnp.reshape(out, (B, T, N, H)), out_shape)
    encoded, lse = out
    return (jnp.reshape(jnp.reshape(encoded, (B, T, N, H)), out_shape),
            jnp.reshape(jnp.reshape(lse, (B, T, N)), out_shape[:-1]))
