"""`lax.conv_general_dilated`, the primitive jnp.convolve and jnp.correlate bind: its
impl (numpy windows), shape rule, bilinear JVP and the two transposes, written as JAX
0.10.2 writes them. Feature and batch groups other than 1 are not supported.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from . import batching, structural
from . import lax_base as lax
from .ad import defjvp, is_undefined_primal, primitive_transposes
from .core import ShapedArray, bind, get_aval
from .lax_base import _check_same_dtypes, _def


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial axes sit in lhs, rhs and the output."""

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


def _dilate_dim(d: int, dilation: int) -> int:
    return 0 if d == 0 else 1 + dilation * (d - 1)


def _out_spatial(lhs: Sequence[int], rhs: Sequence[int], strides: Sequence[int],
                 padding: Sequence[tuple[int, int]], lhs_dilation: Sequence[int],
                 rhs_dilation: Sequence[int]) -> tuple[int, ...]:
    out = []
    for n, k, s, (lo, hi), ld, rd in zip(lhs, rhs, strides, padding, lhs_dilation, rhs_dilation):
        padded = _dilate_dim(n, ld) + lo + hi
        if padded < 0:
            raise ValueError(f"Negative padding is larger than the size of the corresponding "
                             f"dimension: got padding={tuple(padding)}")
        window = _dilate_dim(k, rd)
        out.append(0 if padded < window else (padded - window) // s + 1)
    return tuple(out)


def _conv_abstract(lhs: ShapedArray, rhs: ShapedArray, *, window_strides: tuple,
                   padding: tuple, lhs_dilation: tuple, rhs_dilation: tuple,
                   dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                   batch_group_count: int, preferred_element_type: Any = None,
                   **_: Any) -> ShapedArray:
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    if feature_group_count != 1 or batch_group_count != 1:
        raise NotImplementedError("conv_general_dilated with feature or batch groups")
    _check_same_dtypes("conv_general_dilated", (lhs, rhs))
    lspec, rspec, ospec = dimension_numbers
    ls, rs = [lhs.shape[i] for i in lspec], [rhs.shape[i] for i in rspec]
    if ls[1] != rs[1]:
        raise ValueError(f"conv_general_dilated lhs feature dimension size ({ls[1]}) must "
                         f"equal the rhs input feature dimension size ({rs[1]}).")
    std = (ls[0], rs[0]) + _out_spatial(ls[2:], rs[2:], window_strides, padding, lhs_dilation,
                                        rhs_dilation)
    shape = tuple(std[i] for i in np.argsort(ospec))
    return ShapedArray(shape, preferred_element_type or lhs.dtype,
                       lhs.weak_type and rhs.weak_type)


def _dilate(x: np.ndarray, dilation: Sequence[int]) -> np.ndarray:
    if all(d == 1 for d in dilation):
        return x
    shape = x.shape[:2] + tuple(_dilate_dim(n, d) for n, d in zip(x.shape[2:], dilation))
    out = np.zeros(shape, x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in dilation)] = x
    return out


def _pad(x: np.ndarray, padding: Sequence[tuple[int, int]]) -> np.ndarray:
    """Zero padding; a negative amount crops."""
    x = np.pad(x, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])
    crop = tuple(slice(-min(lo, 0), x.shape[2 + i] + min(hi, 0))
                 for i, (lo, hi) in enumerate(padding))
    return x[(slice(None), slice(None)) + crop]


def _conv_impl(lhs: np.ndarray, rhs: np.ndarray, *, window_strides: tuple, padding: tuple,
               lhs_dilation: tuple, rhs_dilation: tuple,
               dimension_numbers: ConvDimensionNumbers, **_: Any) -> np.ndarray:
    lspec, rspec, ospec = dimension_numbers
    x = _pad(_dilate(np.transpose(lhs, lspec), lhs_dilation), padding)  # (N, C, *spatial)
    w = _dilate(np.transpose(rhs, rspec), rhs_dilation)  # (O, C, *window)
    nsp = x.ndim - 2
    spatial = tuple(range(2, 2 + nsp))
    if any(x.shape[a] < w.shape[a] for a in spatial):
        empty = (x.shape[0], w.shape[0]) + (0,) * nsp
        return np.transpose(np.zeros(empty, x.dtype), np.argsort(ospec))
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=spatial)
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, s)
                                                         for s in window_strides)]
    out = np.tensordot(windows, w, axes=([1, *range(2 + nsp, 2 + 2 * nsp)], [1, *spatial]))
    return np.transpose(np.moveaxis(out, -1, 1), np.argsort(ospec))


conv_general_dilated_p = _def("conv_general_dilated", _conv_abstract, _conv_impl)


def _padtype_to_pads(in_shape: Sequence[int], window: Sequence[int], strides: Sequence[int],
                     padding: str) -> list[tuple[int, int]]:
    if padding.upper() == "VALID":
        return [(0, 0)] * len(in_shape)
    if padding.upper() not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"Unknown padding type: {padding}.")
    out = [-(-n // s) for n, s in zip(in_shape, strides)]
    pads = [max((o - 1) * s + k - n, 0) for o, s, k, n in zip(out, strides, window, in_shape)]
    if padding.upper() == "SAME":
        return [(p // 2, p - p // 2) for p in pads]
    return [(p - p // 2, p // 2) for p in pads]


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Any,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: ConvDimensionNumbers | None = None,
                         feature_group_count: int = 1, batch_group_count: int = 1,
                         precision: Any = None, preferred_element_type: Any = None) -> Any:
    ndim = get_aval(lhs).ndim
    if dimension_numbers is None:
        dimension_numbers = ConvDimensionNumbers(*(tuple(range(ndim)),) * 3)
    elif not isinstance(dimension_numbers, ConvDimensionNumbers):
        raise NotImplementedError("conv_general_dilated's dimension_numbers as strings")
    lhs_dilation = (1,) * (ndim - 2) if lhs_dilation is None else tuple(lhs_dilation)
    rhs_dilation = (1,) * (ndim - 2) if rhs_dilation is None else tuple(rhs_dilation)
    if isinstance(padding, str):
        lspec, rspec, _ = dimension_numbers
        window = [_dilate_dim(get_aval(rhs).shape[i], d) for i, d in zip(rspec[2:], rhs_dilation)]
        padding = _padtype_to_pads([get_aval(lhs).shape[i] for i in lspec[2:]], window,
                                   window_strides, padding)
    return bind(conv_general_dilated_p, lhs, rhs, window_strides=tuple(window_strides),
                padding=tuple((int(lo), int(hi)) for lo, hi in padding),
                lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
                batch_group_count=batch_group_count, precision=precision,
                preferred_element_type=preferred_element_type, out_sharding=None)


# --------------------------------------------------------------------------- autodiff


defjvp(conv_general_dilated_p,
       lambda g, ans, lhs, rhs, **params: bind(conv_general_dilated_p, g, rhs, **params),
       lambda g, ans, lhs, rhs, **params: bind(conv_general_dilated_p, lhs, g, **params))


def _spec_transpose(spec: tuple) -> tuple:
    return (spec[1], spec[0]) + spec[2:]


def _dilated(shape: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    return np.array([_dilate_dim(d, r) for d, r in zip(shape, dilation)])


def _transpose_lhs(g: Any, lhs_aval: ShapedArray, rhs: Any, *, window_strides: tuple,
                   padding: tuple, lhs_dilation: tuple, rhs_dilation: tuple,
                   dimension_numbers: ConvDimensionNumbers, precision: Any,
                   preferred_element_type: Any, **_: Any) -> Any:
    """lhs's cotangent: g convolved with the reversed kernel, input and output features
    swapped, strides and lhs dilation exchanged."""
    lspec, rspec, ospec = dimension_numbers
    in_sp = [lhs_aval.shape[i] for i in lspec[2:]]
    k_sp = [get_aval(rhs).shape[i] for i in rspec[2:]]
    out_sp = [get_aval(g).shape[i] for i in ospec[2:]]
    rhs_d = _dilated(k_sp, rhs_dilation)
    before = rhs_d - np.array([lo for lo, _ in padding]) - 1
    after = _dilated(in_sp, lhs_dilation) + rhs_d - 1 - _dilated(out_sp, window_strides) - before
    revd = structural.rev(rhs, rspec[2:])
    if get_aval(g).dtype != get_aval(revd).dtype:
        revd = lax.convert_element_type(revd, get_aval(g).dtype)
    out = conv_general_dilated(
        g, revd, window_strides=lhs_dilation, padding=list(zip(before, after)),
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(ospec, _spec_transpose(rspec), lspec),
        precision=precision, preferred_element_type=preferred_element_type)
    return lax.convert_element_type(out, lhs_aval.dtype)


def _transpose_rhs(g: Any, lhs: Any, rhs_aval: ShapedArray, *, window_strides: tuple,
                   padding: tuple, lhs_dilation: tuple, rhs_dilation: tuple,
                   dimension_numbers: ConvDimensionNumbers, precision: Any,
                   preferred_element_type: Any, **_: Any) -> Any:
    """rhs's cotangent: lhs correlated with g, batch and feature axes exchanged."""
    lspec, rspec, ospec = dimension_numbers
    in_sp = [get_aval(lhs).shape[i] for i in lspec[2:]]
    k_sp = [rhs_aval.shape[i] for i in rspec[2:]]
    out_sp = [get_aval(g).shape[i] for i in ospec[2:]]
    lo = [p for p, _ in padding]
    from_lhs = _dilated(out_sp, window_strides) - _dilated(in_sp, lhs_dilation)
    from_rhs = _dilated(k_sp, rhs_dilation) - np.array(lo) - 1
    if get_aval(g).dtype != get_aval(lhs).dtype:
        lhs = lax.convert_element_type(lhs, get_aval(g).dtype)
    trans = ConvDimensionNumbers(*map(_spec_transpose, dimension_numbers))
    out = conv_general_dilated(
        lhs, g, window_strides=rhs_dilation, padding=list(zip(lo, from_lhs + from_rhs)),
        lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
        dimension_numbers=ConvDimensionNumbers(trans.lhs_spec, trans.out_spec, trans.rhs_spec),
        precision=precision, preferred_element_type=preferred_element_type)
    return lax.convert_element_type(out, rhs_aval.dtype)


def _conv_transpose(ct: Any, lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    if is_undefined_primal(lhs):
        return [_transpose_lhs(ct, lhs.aval, rhs, **params), None]
    return [None, _transpose_rhs(ct, lhs, rhs.aval, **params)]


primitive_transposes[conv_general_dilated_p] = _conv_transpose

# --------------------------------------------------------------------------- batching


def _reshape_axis_into(src: int, dst: int, x: Any) -> Any:
    """Merge axis `src` into axis `dst` (numbered with `src` removed), `src` outermost."""
    shape = get_aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return lax.reshape(x, new_shape, perm)


def _reshape_axis_out_of(src: int, size: int, x: Any) -> Any:
    shape = list(get_aval(x).shape)
    shape[src:src + 1] = [size, shape[src] // size]
    return lax.reshape(x, shape)


def _conv_batcher(size: int, vals: list, dims: list, **params: Any) -> tuple[Any, Any]:
    """JAX's rule: a batched lhs rides in the batch axis, a batched rhs in the output
    features (both batched needs feature groups, which the engine lacks)."""
    lhs, rhs = vals
    lhs_bdim, rhs_bdim = dims
    lspec, rspec, ospec = params["dimension_numbers"]
    if lhs_bdim is not None and rhs_bdim is not None:
        raise NotImplementedError("vmap of conv_general_dilated over both operands (JAX "
                                  "uses feature groups, which the engine lacks)")
    if lhs_bdim is not None:
        out = bind(conv_general_dilated_p, _reshape_axis_into(lhs_bdim, lspec[0], lhs), rhs,
                   **params)
        return _reshape_axis_out_of(ospec[0], get_aval(lhs).shape[lhs_bdim], out), ospec[0]
    out = bind(conv_general_dilated_p, lhs, _reshape_axis_into(rhs_bdim, rspec[0], rhs),
               **params)
    return _reshape_axis_out_of(ospec[1], get_aval(rhs).shape[rhs_bdim], out), ospec[1]


batching.primitive_batchers[conv_general_dilated_p] = _conv_batcher


__all__ = ["ConvDimensionNumbers", "conv_general_dilated"]
