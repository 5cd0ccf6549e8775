"""The transformation rules of `lax_base.py`'s primitives: JVP, transpose and batching.

They are the second half of those primitives' definitions, kept in a module of their own
for size only: each is written with lax_base's public functions (sin's JVP calls cos and
mul, broadcast_in_dim's transpose calls reduce_sum), as JAX writes it (same primitives, same
operand order), so the staged programs print the way JAX's do. `pad` is defined here, with
all its rules, because slice's transpose is a pad and pad's is a slice.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import batching
from . import lax_base as lax
from .ad import (
    Zero,
    add_tangents,
    defjvp,
    defjvp_zero,
    deflinear,
    instantiate_zeros,
    is_undefined_primal,
    primitive_jvps,
    primitive_transposes,
)
from .core import (
    Array,
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    bind,
    get_aval,
    impl_rules,
    to_numpy,
)
from .dtypes import weak_result_type

# --------------------------------------------------------------------------- helpers


def _one(x: Any) -> Any:
    return lax.full_like(x, 1, shape=())


def _zero(x: Any) -> Any:
    return lax.full_like(x, 0, shape=())


def _ones(x: Any) -> Any:
    return lax.full_like(x, 1)


def _zeros(x: Any) -> Any:
    return lax.full_like(x, 0)


def _twos(x: Any) -> Any:
    return lax.full_like(x, 2)


def _select(pred: Any, on_true: Any, on_false: Any) -> Any:
    return lax.select_n(pred, on_false, on_true)


def _unbroadcast(aval: ShapedArray, ct: Any) -> Any:
    """Sum a cotangent back down to an operand that was broadcast (rank-0 or size-1 dims)."""
    shape = get_aval(ct).shape
    if shape == aval.shape:
        return ct
    if not aval.shape:
        return lax.reduce_sum(ct, range(len(shape)))
    dims = [i for i, (a, b) in enumerate(zip(shape, aval.shape)) if a != b]
    return lax.reshape(lax.reduce_sum(ct, dims) if dims else ct, aval.shape)


def _maybe_broadcast(shape: tuple[int, ...], x: Any) -> Any:
    """A tangent of a broadcasting sum, brought to the output's shape as JAX brings it."""
    x_shape = get_aval(x).shape
    if x_shape == shape:
        return x
    if not x_shape:
        return lax.broadcast_in_dim(x, shape, ())
    dims = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
    return lax.broadcast_in_dim(lax.reshape(x, [x_shape[i] for i in dims]), shape, dims)


# --------------------------------------------------------------------------- elementwise


defjvp(lax.sin_p, lambda g, ans, x, accuracy=None: lax.mul(g, lax.cos(x, accuracy)))
defjvp(lax.cos_p, lambda g, ans, x, accuracy=None: lax.neg(lax.mul(g, lax.sin(x, accuracy))))
defjvp(lax.tan_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.add(lax._const(x, 1), lax.square(ans))))
defjvp(lax.exp_p, lambda g, ans, x, accuracy=None: lax.mul(g, ans))
defjvp(lax.log_p, lambda g, ans, x, accuracy=None: lax.div(g, x))
defjvp(lax.tanh_p, lambda g, ans, x, accuracy=None:
       lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(_one(x), ans)))
defjvp(lax.logistic_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.mul(ans, lax.sub(_one(ans), ans))))
defjvp(lax.sqrt_p, lambda g, ans, x, accuracy=None: lax.mul(g, lax.div(lax._const(x, 0.5), ans)))
defjvp(lax.abs_p, lambda g, ans, x: _select(lax.ge(x, _zero(x)), g, lax.neg(g)))
defjvp(lax.square_p, lambda g, ans, x: lax.mul(g, lax.mul(lax._const(x, 2), x)))
defjvp_zero(lax.sign_p)
for _cmp in (lax.gt_p, lax.lt_p, lax.ge_p, lax.le_p, lax.eq_p, lax.ne_p):
    defjvp_zero(_cmp)

defjvp(lax.mul_p, lambda g, ans, x, y: lax.mul(g, y), lambda g, ans, x, y: lax.mul(x, g))
defjvp(lax.div_p, lambda g, ans, x, y: lax.div(g, y),
       lambda g, ans, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))


def _replace_zero(x: Any) -> Any:
    return _select(lax.eq(x, lax._const(x, 0)), _ones(x), x)


def _pow_jvp_lhs(g: Any, ans: Any, x: Any, y: Any) -> Any:
    y_dtype = get_aval(y).dtype
    dtype, _ = weak_result_type(x, y)
    dtype = np.dtype("int32") if dtype.kind == "b" else dtype
    x, y = lax.convert_element_type(x, dtype), lax.convert_element_type(y, dtype)
    if y_dtype.kind in "iu":
        x_shape, y_shape = get_aval(x).shape, get_aval(y).shape
        if x_shape != y_shape:
            shape = tuple(np.broadcast_shapes(x_shape, y_shape))
            x, y = _maybe_broadcast(shape, x), _maybe_broadcast(shape, y)
        jac = _select(lax.eq(y, lax._const(y, 0)), _zeros(y),
                      lax.mul(_replace_zero(y), lax.pow(x, lax.sub(y, _ones(y)))))
    else:
        jac = lax.mul(y, lax.pow(x, lax.sub(y, _ones(y))))
    return lax.mul(g, jac)


def _pow_jvp_rhs(g: Any, ans: Any, x: Any, y: Any) -> Any:
    return lax.convert_element_type(lax.mul(g, lax.mul(lax.log(_replace_zero(x)), ans)),
                                    get_aval(y).dtype)


defjvp(lax.pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _integer_pow_jvp(g: Any, ans: Any, x: Any, *, y: int) -> Any:
    if y == 0:
        return _zeros(g)
    if y == 1:
        return g
    if y == 2:
        return lax.mul(g, lax.mul(lax._const(x, y), x))
    return lax.mul(g, lax.mul(lax._const(x, y), lax.integer_pow(x, y - 1)))


defjvp(lax.integer_pow_p, _integer_pow_jvp)


def _eq_meet(a: Any, b: Any) -> Any:
    a_dtype, b_dtype = get_aval(a).dtype, get_aval(b).dtype
    if a_dtype != b_dtype:
        if weak_result_type(np.zeros((), a_dtype), np.zeros((), b_dtype))[0] == a_dtype:
            a = lax.convert_element_type(a, b_dtype)
        else:
            b = lax.convert_element_type(b, a_dtype)
    return lax.eq(a, b)


def _balanced_eq(x: Any, z: Any, y: Any) -> Any:
    # Where both operands equal the max (min), each gets half of the tangent.
    return lax.div(_select(_eq_meet(x, z), _ones(z), _zeros(z)),
                   _select(_eq_meet(y, z), _twos(z), _ones(z)))


defjvp(lax.max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(lax.min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))


# --------------------------------------------------------------------------- linear binary


def _linear_binary_jvp(op: Any, y_sign: Any) -> Any:
    """add's JVP (`y_sign` the identity) or sub's (`lax.neg`): a zero tangent is left out
    rather than added, broadcast to the output's shape when the other operand was smaller."""
    def jvp(primals: list, tangents: list) -> tuple[Any, Any]:
        ans = op(*primals)
        xdot, ydot = tangents
        if type(xdot) is Zero and type(ydot) is Zero:
            return ans, Zero(get_aval(ans))
        if type(xdot) is Zero:
            return ans, _maybe_broadcast(get_aval(ans).shape, y_sign(ydot))
        if type(ydot) is Zero:
            return ans, _maybe_broadcast(get_aval(ans).shape, xdot)
        return ans, op(xdot, ydot)
    return jvp


def _aval_of(x: Any) -> ShapedArray:
    return x.aval if is_undefined_primal(x) else get_aval(x)


def _add_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [_unbroadcast(_aval_of(x), ct), _unbroadcast(_aval_of(y), ct)]


def _sub_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    return [_unbroadcast(_aval_of(x), ct), _unbroadcast(_aval_of(y), lax.neg(ct))]


def _mul_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if is_undefined_primal(x):
        return [_unbroadcast(x.aval, lax.mul(ct, y)), None]
    return [None, _unbroadcast(y.aval, lax.mul(x, ct))]


def _div_transpose(ct: Any, x: Any, y: Any) -> list[Any]:
    if is_undefined_primal(y):
        raise RuntimeError("nonlinear div can't be transposed")
    return [_unbroadcast(x.aval, lax.div(ct, y)), None]


primitive_jvps[lax.add_p] = _linear_binary_jvp(lax.add, lambda t: t)
primitive_jvps[lax.sub_p] = _linear_binary_jvp(lax.sub, lax.neg)
primitive_transposes[lax.add_p] = _add_transpose
primitive_transposes[lax.sub_p] = _sub_transpose
primitive_transposes[lax.mul_p] = _mul_transpose
primitive_transposes[lax.div_p] = _div_transpose
primitive_jvps[lax.add_any_p] = lambda primals, tangents: (
    bind(lax.add_any_p, *primals), add_tangents(*tangents))
primitive_transposes[lax.add_any_p] = _add_transpose


def _select_n_jvp(primals: list, tangents: list) -> tuple[Any, Any]:
    which, *cases = primals
    ans = lax.select_n(which, *cases)
    case_tangents = tangents[1:]
    if all(type(t) is Zero for t in case_tangents):
        return ans, Zero(get_aval(ans))
    # JAX builds the zeros before it knows whether a case needs them.
    zeros = _zeros(next(t for t in case_tangents if type(t) is not Zero))
    return ans, lax.select_n(which, *[zeros if type(t) is Zero else t for t in case_tangents])


def _select_n_transpose(ct: Any, which: Any, *cases: Any) -> list[Any]:
    zeros = _zeros(ct)
    if get_aval(which).dtype.kind == "b":
        return [None, _select(which, zeros, ct) if is_undefined_primal(cases[0]) else None,
                _select(which, ct, zeros) if is_undefined_primal(cases[1]) else None]
    return [None] + [_select(lax.eq(which, lax._const(which, i)), ct, zeros)
                     if is_undefined_primal(c) else None for i, c in enumerate(cases)]


primitive_jvps[lax.select_n_p] = _select_n_jvp
primitive_transposes[lax.select_n_p] = _select_n_transpose


# --------------------------------------------------------------------------- linear unary

deflinear(lax.neg_p, lambda ct, x: [lax.neg(ct)])
deflinear(lax.reduce_precision_p, lambda ct, x, **params: [
    bind(lax.reduce_precision_p, ct, **params)])
deflinear(lax.stage_p, lambda ct, x: [ct])
deflinear(lax.device_put_p, lambda ct, x, **params: [bind(lax.device_put_p, ct, **params)])
# JAX computes the kept dims with np.delete, so they print as np.int64(...) when any remain
# (int64 by name: a 32-bit host, like Pyodide's, would otherwise print np.int32).
deflinear(lax.reduce_sum_p, lambda ct, x, *, axes, out_sharding=None: [
    lax.broadcast_in_dim(ct, x.aval.shape,
                         tuple(np.delete(np.arange(len(x.aval.shape), dtype=np.int64), axes)))])


def _argsort(axes: Sequence[int]) -> list[int]:
    """np.argsort of a few distinct axes (so any sort gives the same order), in Python: a
    transpose rule's numpy call on a short list cost more than its sort, most under Pyodide."""
    return sorted(range(len(axes)), key=axes.__getitem__)


def _reshape_transpose(ct: Any, x: Any, *, dimensions: Any = None, **params: Any) -> list[Any]:
    if dimensions is None:
        return [lax.reshape(ct, x.aval.shape)]
    permuted = lax.reshape(ct, tuple(np.take(x.aval.shape, dimensions)))
    return [lax.transpose(permuted, _argsort(dimensions))]


deflinear(lax.reshape_p, _reshape_transpose)
deflinear(lax.squeeze_p, lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)])
deflinear(lax.transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, _argsort(permutation))])


def _broadcast_in_dim_transpose(ct: Any, x: Any, *, shape: tuple, broadcast_dimensions: tuple,
                                sharding: Any = None) -> list[Any]:
    # Sum over every axis the operand did not supply, then restore its size-1 axes.
    unit_dims = [i for i, d in enumerate(x.aval.shape) if d == 1]
    bdims = [d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims]
    axes = [d for d in range(len(shape)) if d not in bdims]
    return [lax.expand_dims(lax.reduce_sum(ct, axes), unit_dims)]


deflinear(lax.broadcast_in_dim_p, _broadcast_in_dim_transpose)


def _convert_jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
    ans = bind(lax.convert_element_type_p, *primals, **params)
    t, = tangents
    # Only float-to-float conversions carry a tangent (JAX's float0 elsewhere).
    if "fc".find(np.dtype(params["new_dtype"]).kind) < 0 or \
            "fc".find(get_aval(primals[0]).dtype.kind) < 0:
        return ans, Zero(get_aval(ans))
    return ans, bind(lax.convert_element_type_p, t, **params)


def _convert_transpose(ct: Any, x: Any, **params: Any) -> list[Any]:
    # Bound even when it changes nothing: staging forwards such a conversion away.
    return [bind(lax.convert_element_type_p, ct, new_dtype=x.aval.dtype,
                 weak_type=x.aval.weak_type, sharding=None)]


primitive_jvps[lax.convert_element_type_p] = _convert_jvp
primitive_transposes[lax.convert_element_type_p] = _convert_transpose


# --------------------------------------------------------------------------- slice and pad


def _pad_abstract(x: ShapedArray, pad_value: ShapedArray, *, padding_config: tuple
                  ) -> ShapedArray:
    shape = tuple(lo + hi + d + max(d - 1, 0) * inner
                  for d, (lo, hi, inner) in zip(x.shape, padding_config))
    if any(d < 0 for d in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{shape}, for padding_config {padding_config} and operand shape "
                         f"{x.shape}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_impl(x: Any, pad_value: Any, *, padding_config: tuple) -> Any:
    # Interior padding spreads the operand out; negative edge padding then crops it.
    xv = to_numpy(x)
    spread = tuple(d + max(d - 1, 0) * inner for d, (_, _, inner) in zip(xv.shape,
                                                                         padding_config))
    big = tuple(max(lo, 0) + d + max(hi, 0) for d, (lo, hi, _) in zip(spread, padding_config))
    out = np.full(big, to_numpy(pad_value), xv.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + d, inner + 1)
              for d, (lo, _, inner) in zip(spread, padding_config))] = xv
    out = out[tuple(slice(max(-lo, 0), n - max(-hi, 0))
                    for n, (lo, hi, _) in zip(big, padding_config))]
    return Array(out, get_aval(x).weak_type)


# `lax.pad`: the transpose of `slice`, and `slice` (of a `pad` with negated edges) is its
# transpose.
pad_p = Primitive("pad")
impl_rules[pad_p] = _pad_impl
abstract_eval_rules[pad_p] = _pad_abstract


def _slice_transpose(ct: Any, x: Any, *, start_indices: tuple, limit_indices: tuple,
                     strides: Any = None) -> list[Any]:
    # Pad the cotangent back into the operand's shape, with zeros between strided rows.
    # JAX computes the padding with NumPy, so it prints np.int64(...) (named at 64 bits,
    # as on a workstation, also on a 32-bit host such as Pyodide's).
    shape = np.array(x.aval.shape, np.int64)
    if strides is None or all(s == 1 for s in strides):
        cfg = tuple(zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape)))
    else:
        n = np.array(get_aval(ct).shape, np.int64)
        ends = np.add(start_indices, np.where(n == 0, 0, 1 + (n - 1) * np.array(strides)))
        cfg = tuple(zip(start_indices, np.subtract(shape, ends),
                        np.subtract(np.array(strides, np.int64), 1)))
    return [bind(pad_p, ct, lax._const(ct, 0), padding_config=cfg)]


def pad(x: Any, pad_value: Any, padding_config: Any) -> Any:
    return bind(pad_p, x, pad_value, padding_config=tuple(map(tuple, padding_config)))


def _pad_transpose(ct: Any, x: Any, pad_value: Any, *, padding_config: tuple) -> list[Any]:
    lo, hi, inner = (np.asarray(v, np.int64) for v in zip(*padding_config))
    unpadded = pad(ct, np.zeros((), get_aval(ct).dtype),
                   tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(inner))))
    t_x = lax.slice(unpadded, list(np.zeros_like(lo)), get_aval(unpadded).shape,
                    list(np.add(inner, 1)))
    if not is_undefined_primal(pad_value):
        return [t_x, None]
    total = lambda v: lax.reduce_sum(v, list(range(get_aval(v).ndim)))  # noqa: E731
    return [t_x, lax.sub(total(ct), total(t_x))]


deflinear(lax.slice_p, _slice_transpose)
primitive_jvps[pad_p] = lambda primals, tangents, **params: (
    bind(pad_p, *primals, **params),
    bind(pad_p, instantiate_zeros(tangents[0]), instantiate_zeros(tangents[1]), **params))
primitive_transposes[pad_p] = _pad_transpose


# --------------------------------------------------------------------------- reductions, dot


def _reduce_chooser_jvp(g: Any, ans: Any, x: Any, *, axes: tuple,
                        out_sharding: Any = None) -> Any:
    # The tangent is shared equally among the positions that attain the max (min),
    # found by comparing against the result with the reduced axes kept as size 1.
    kept = [1 if i in axes else d for i, d in enumerate(get_aval(x).shape)]
    where = lax.convert_element_type(_eq_meet(x, lax.reshape(ans, kept)), get_aval(g).dtype)
    counts = lax.reduce_sum(where, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, where), axes), counts)


defjvp(lax.reduce_max_p, _reduce_chooser_jvp)
defjvp(lax.reduce_min_p, _reduce_chooser_jvp)


def _dot_general_jvp(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
    x, y = primals
    xdot, ydot = tangents
    ans = bind(lax.dot_general_p, x, y, **params)
    out: Any = Zero(get_aval(ans))
    if type(xdot) is not Zero:
        out = add_tangents(out, bind(lax.dot_general_p, xdot, y, **params))
    if type(ydot) is not Zero:
        out = add_tangents(out, bind(lax.dot_general_p, x, ydot, **params))
    return ans, out


def _dot_transpose_lhs(g: Any, x_aval: ShapedArray, y: Any, *, dimension_numbers: Any,
                       precision: Any = None, preferred_element_type: Any = None,
                       swap_ans: bool = False, **_: Any) -> Any:
    """The cotangent of dot_general's left operand: g contracted with y over y's free
    dims, then transposed back into x's axis order (JAX's operand order and steps)."""
    (xc, yc), (xb, yb) = dimension_numbers
    x_kept = [i for i in range(x_aval.ndim) if i not in xc and i not in xb]
    y_kept = [i for i in range(_aval_of(y).ndim) if i not in yc and i not in yb]
    nb = len(xb)
    first_y = nb if swap_ans else nb + len(x_kept)
    dims = ((list(range(first_y, first_y + len(y_kept))), y_kept), (list(range(nb)), list(yb)))
    x_contract_by_y = [xc[i] for i in _argsort(yc)]
    out_axes = _argsort([*xb, *x_kept, *x_contract_by_y])
    x_bar = lax.transpose(lax.dot_general(g, y, dims, precision, preferred_element_type),
                          out_axes)
    if get_aval(x_bar).dtype != x_aval.dtype:
        x_bar = lax.convert_element_type(x_bar, x_aval.dtype, x_aval.weak_type)
    return x_bar


def _dot_transpose(ct: Any, x: Any, y: Any, *, dimension_numbers: Any, **params: Any
                   ) -> list[Any]:
    if is_undefined_primal(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers=dimension_numbers,
                                   **params), None]
    (xc, yc), (xb, yb) = dimension_numbers
    return [None, _dot_transpose_lhs(ct, y.aval, x, dimension_numbers=((yc, xc), (yb, xb)),
                                     swap_ans=True, **params)]


primitive_jvps[lax.dot_general_p] = _dot_general_jvp
primitive_transposes[lax.dot_general_p] = _dot_transpose

for _p in (lax.and_p, lax.or_p):
    defjvp_zero(_p)

# lax.copy (what jnp.array of an array stages) is linear.
deflinear(lax.copy_p, lambda ct, x: [lax.array_copy(ct)])


# --------------------------------------------------------------------------- batching

for _p in (lax.sin_p, lax.cos_p, lax.tan_p, lax.exp_p, lax.log_p, lax.tanh_p, lax.logistic_p,
           lax.sqrt_p, lax.abs_p, lax.sign_p, lax.neg_p, lax.square_p, lax.integer_pow_p,
           lax.copy_p, lax.stage_p):
    batching.defvectorized(_p)
for _p in (lax.add_p, lax.sub_p, lax.mul_p, lax.div_p, lax.max_p, lax.min_p, lax.and_p,
           lax.or_p, lax.gt_p, lax.lt_p, lax.ge_p, lax.le_p, lax.eq_p, lax.ne_p, lax.add_any_p,
           lax.pow_p):
    batching.defbroadcasting(_p)
for _p in (lax.reduce_sum_p, lax.reduce_max_p, lax.reduce_min_p):
    batching.defreducer(_p)


def _device_put_batcher(size: int, vals: list, dims: list, **params: Any) -> tuple[Any, Any]:
    return bind(lax.device_put_p, *vals, **params), dims[0]


def _convert_batcher(size: int, vals: list, dims: list, **params: Any) -> tuple[Any, Any]:
    return bind(lax.convert_element_type_p, *vals, **params), dims[0]


def _broadcast_in_dim_batcher(size: int, vals: list, dims: list, *, shape: tuple,
                              broadcast_dimensions: tuple, sharding: Any = None
                              ) -> tuple[Any, Any]:
    x = batching.moveaxis(vals[0], dims[0], 0)
    return lax.broadcast_in_dim(x, (size, *shape),
                                (0, *np.add(1, batching.i64(broadcast_dimensions)))), 0


def _reshape_batcher(size: int, vals: list, dims: list, *, new_sizes: tuple,
                     dimensions: Any = None, sharding: Any = None) -> tuple[Any, Any]:
    x = batching.moveaxis(vals[0], dims[0], 0)
    if dimensions is not None:
        dimensions = (0, *np.add(1, batching.i64(dimensions)))
    return lax.reshape(x, (size, *new_sizes), dimensions), 0


def _squeeze_batcher(size: int, vals: list, dims: list, *, dimensions: tuple
                     ) -> tuple[Any, Any]:
    x = batching.moveaxis(vals[0], dims[0], 0)
    return lax.squeeze(x, [int(d) + 1 for d in dimensions]), 0


def _transpose_batcher(size: int, vals: list, dims: list, *, permutation: tuple
                       ) -> tuple[Any, Any]:
    bdim = dims[0]
    perm = (bdim, *(i if i < bdim else i + 1 for i in permutation))
    return lax.transpose(vals[0], perm), 0


def _slice_batcher(size: int, vals: list, dims: list, *, start_indices: tuple,
                   limit_indices: tuple, strides: Any = None) -> tuple[Any, Any]:
    bdim = dims[0]
    starts, limits = list(start_indices), list(limit_indices)
    starts.insert(bdim, 0)
    limits.insert(bdim, size)
    if strides is not None:
        strides = list(strides)
        strides.insert(bdim, 1)
    return lax.slice(vals[0], starts, limits, strides), bdim


def _select_n_batcher(size: int, vals: list, dims: list) -> tuple[Any, Any]:
    which, *cases = vals
    which_dim, *case_dims = dims
    shape = lambda x: get_aval(x).shape  # noqa: E731
    if all(which_dim == d for d in case_dims):
        if shape(which) != shape(cases[0]):
            which = lax.broadcast_in_dim(which, shape(cases[0]), [which_dim])
        return lax.select_n(which, *cases), which_dim
    if not shape(which) and all(d is not None for d in case_dims):
        if all(case_dims[0] == d for d in case_dims[1:]):
            return lax.select_n(which, *cases), case_dims[0]
        if all(shape(cases[0]) == shape(c) for c in cases):
            bdim = case_dims[0]
            others = [batching.moveaxis(c, d, bdim) for c, d in zip(cases[1:], case_dims[1:])]
            return lax.select_n(which, cases[0], *others), bdim
    if shape(which):
        which = batching.bdim_at_front(which, which_dim, size)
    if not all(shape(c) == () for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
    if 0 < len(shape(which)) < len(shape(cases[0])):
        which = lax.broadcast_in_dim(which, shape(cases[0]), [0])
    if len(shape(which)) > len(shape(cases[0])):
        cases = [lax.broadcast_in_dim(c, shape(which), ()) for c in cases]
    return lax.select_n(which, *cases), 0


def _dot_general_batcher(size: int, vals: list, dims: list, *, dimension_numbers: tuple,
                         **params: Any) -> tuple[Any, Any]:
    lhs, rhs = vals
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers

    def bump(ds: tuple, b: int) -> tuple:
        return tuple(d + (d >= b) for d in ds)

    if lbd is not None and rbd is not None:
        lb, rb = (lbd, *bump(lb, lbd)), (rbd, *bump(rb, rbd))
        lc, rc = bump(lc, lbd), bump(rc, rbd)
        out_dim = 0
    elif lbd is not None:
        lhs_free = [d for d in range(get_aval(lhs).ndim) if d not in lb and d not in lc]
        out_dim = len(lb) + sum(d < lbd for d in lhs_free)
        lb, lc = bump(lb, lbd), bump(lc, lbd)
    else:
        rhs_free = [d for d in range(get_aval(rhs).ndim) if d not in rb and d not in rc]
        out_dim = get_aval(lhs).ndim - len(lc) + sum(d < rbd for d in rhs_free)
        rb, rc = bump(rb, rbd), bump(rc, rbd)
    out = bind(lax.dot_general_p, lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), **params)
    return out, out_dim


batching.primitive_batchers.update({
    lax.device_put_p: _device_put_batcher,
    lax.convert_element_type_p: _convert_batcher,
    lax.broadcast_in_dim_p: _broadcast_in_dim_batcher,
    lax.reshape_p: _reshape_batcher,
    lax.squeeze_p: _squeeze_batcher,
    lax.transpose_p: _transpose_batcher,
    lax.slice_p: _slice_batcher,
    lax.select_n_p: _select_n_batcher,
    lax.dot_general_p: _dot_general_batcher,
})


def _pad_batcher(size: int, vals: list, dims: list, *, padding_config: tuple
                 ) -> tuple[Any, Any]:
    x, value = vals
    xd, vd = dims
    if xd is None:
        xd, x = 0, batching.broadcast(x, size, 0)
    cfg = list(padding_config)
    cfg.insert(xd, (0, 0, 0))
    if vd is None:
        return pad(x, value, cfg), xd
    zero = np.zeros((), get_aval(x).dtype)
    padded = pad(x, zero, cfg)
    mask = pad(lax.broadcast_in_dim(np.bool_(True), get_aval(x).shape, ()), False, cfg)
    return lax.select_n(mask, lax.broadcast_in_dim(value, get_aval(padded).shape, (xd,)),
                        padded), xd


batching.primitive_batchers[pad_p] = _pad_batcher
