"""JVP and transpose rules for the lax primitives (entries in `ad`'s tables).

Each rule is written as JAX writes it (same primitives, same operand order), so
the staged linear programs print the way JAX's do. `pad` is defined here because
it is only needed as the transpose of `slice`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import lax
from .ad import (
    Zero,
    add_tangents,
    instantiate_zeros,
    is_undefined_primal,
    primitive_jvps,
    primitive_transposes,
    zeros_like_aval,
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

# --------------------------------------------------------------------------- helpers


def _full_like(x: Any, c: float) -> Any:
    """A constant of x's shape and dtype: a 0-d literal, or a broadcast of one."""
    aval = get_aval(x)
    val = np.array(c, aval.dtype)
    return val if not aval.shape else lax.broadcast_in_dim(val, aval.shape, ())


def _select(pred: Any, on_true: Any, on_false: Any) -> Any:
    return lax.select_n(pred, on_false, on_true)


def _unbroadcast(aval: ShapedArray, ct: Any) -> Any:
    """Sum a cotangent back down to an operand that was broadcast (rank-0 or size-1 dims)."""
    shape = get_aval(ct).shape
    if shape == aval.shape:
        return ct
    lead = len(shape) - len(aval.shape)
    dims = [i for i, d in enumerate(shape)
            if i < lead or (aval.shape[i - lead] == 1 and d != 1)]
    summed = lax.reduce_sum(ct, dims)
    return summed if get_aval(summed).shape == aval.shape else lax.reshape(summed, aval.shape)


def defjvp(prim: Primitive, *jvp_fns: Callable[..., Any] | None) -> None:
    """One tangent contribution per input, `fn(g, ans, *primals, **params)`, summed."""
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        out: Any = Zero(get_aval(ans).to_tangent_aval())
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                out = add_tangents(out, fn(t, ans, *primals, **params))
        return ans, out
    primitive_jvps[prim] = rule


def defjvp_zero(prim: Primitive) -> None:
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        ans = bind(prim, *primals, **params)
        return ans, Zero(get_aval(ans).to_tangent_aval())
    primitive_jvps[prim] = rule


def deflinear(prim: Primitive, transpose: Callable[..., list[Any]]) -> None:
    """A primitive linear in its (single) operand: its JVP applies it to the tangent."""
    def rule(primals: list, tangents: list, **params: Any) -> tuple[Any, Any]:
        return bind(prim, *primals, **params), bind(prim, *tangents, **params)
    primitive_jvps[prim] = rule
    primitive_transposes[prim] = transpose


# --------------------------------------------------------------------------- elementwise


defjvp(lax.sin_p, lambda g, ans, x, accuracy=None: lax.mul(g, lax.cos(x, accuracy)))
defjvp(lax.cos_p, lambda g, ans, x, accuracy=None: lax.neg(lax.mul(g, lax.sin(x, accuracy))))
defjvp(lax.tan_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.add(_full_like(x, 1), lax.mul(ans, ans))))
defjvp(lax.exp_p, lambda g, ans, x, accuracy=None: lax.mul(g, ans))
defjvp(lax.log_p, lambda g, ans, x, accuracy=None: lax.div(g, x))
defjvp(lax.tanh_p, lambda g, ans, x, accuracy=None:
       lax.mul(lax.add(g, lax.mul(g, ans)), lax.sub(_full_like(x, 1), ans)))
defjvp(lax.logistic_p, lambda g, ans, x, accuracy=None:
       lax.mul(g, lax.mul(ans, lax.sub(_full_like(ans, 1), ans))))
defjvp(lax.sqrt_p, lambda g, ans, x, accuracy=None: lax.mul(g, lax.div(_full_like(x, 0.5), ans)))
defjvp(lax.abs_p, lambda g, ans, x: _select(lax.ge(x, _full_like(x, 0)), g, lax.neg(g)))
defjvp_zero(lax.sign_p)
for _cmp in (lax.gt_p, lax.lt_p, lax.ge_p, lax.le_p, lax.eq_p, lax.ne_p):
    defjvp_zero(_cmp)

defjvp(lax.mul_p, lambda g, ans, x, y: lax.mul(g, y), lambda g, ans, x, y: lax.mul(x, g))
defjvp(lax.div_p, lambda g, ans, x, y: lax.div(g, y),
       lambda g, ans, x, y: lax.mul(lax.mul(lax.neg(g), x), lax.integer_pow(y, -2)))


def _replace_zero(x: Any) -> Any:
    return _select(lax.eq(x, _full_like(x, 0)), _full_like(x, 1), x)


defjvp(lax.pow_p,
       lambda g, ans, x, y: lax.mul(g, lax.mul(y, lax.pow(x, lax.sub(y, _full_like(y, 1))))),
       lambda g, ans, x, y: lax.mul(g, lax.mul(lax.log(_replace_zero(x)), ans)))


def _integer_pow_jvp(g: Any, ans: Any, x: Any, *, y: int) -> Any:
    if y == 0:
        return zeros_like_aval(get_aval(g))
    if y == 1:
        return g
    if y == 2:
        return lax.mul(g, lax.mul(_full_like(x, 2), x))
    return lax.mul(g, lax.mul(_full_like(x, y), lax.integer_pow(x, y - 1)))


defjvp(lax.integer_pow_p, _integer_pow_jvp)


def _balanced_eq(x: Any, z: Any, y: Any) -> Any:
    # Where both operands equal the max (min), each gets half of the tangent.
    return lax.div(_select(lax.eq(x, z), _full_like(z, 1), _full_like(z, 0)),
                   _select(lax.eq(y, z), _full_like(z, 2), _full_like(z, 1)))


defjvp(lax.max_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))
defjvp(lax.min_p, lambda g, ans, x, y: lax.mul(g, _balanced_eq(x, ans, y)),
       lambda g, ans, x, y: lax.mul(g, _balanced_eq(y, ans, x)))


# --------------------------------------------------------------------------- linear binary


def _add_jvp(primals: list, tangents: list) -> tuple[Any, Any]:
    ans = lax.add(*primals)
    xdot, ydot = tangents
    if type(xdot) is Zero and type(ydot) is Zero:
        return ans, Zero(get_aval(ans))
    if type(xdot) is Zero or type(ydot) is Zero:
        return ans, ydot if type(xdot) is Zero else xdot
    return ans, lax.add(xdot, ydot)


def _sub_jvp(primals: list, tangents: list) -> tuple[Any, Any]:
    ans = lax.sub(*primals)
    xdot, ydot = tangents
    if type(xdot) is Zero and type(ydot) is Zero:
        return ans, Zero(get_aval(ans))
    if type(xdot) is Zero:
        return ans, lax.neg(ydot)
    if type(ydot) is Zero:
        return ans, xdot
    return ans, lax.sub(xdot, ydot)


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


primitive_jvps[lax.add_p] = _add_jvp
primitive_jvps[lax.sub_p] = _sub_jvp
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
    return ans, lax.select_n(which, *map(instantiate_zeros, case_tangents))


def _select_n_transpose(ct: Any, which: Any, *cases: Any) -> list[Any]:
    zeros = zeros_like_aval(get_aval(ct))
    return [None] + [lax.select_n(which, *[ct if j == i else zeros for j in range(len(cases))])
                     if is_undefined_primal(c) else None for i, c in enumerate(cases)]


primitive_jvps[lax.select_n_p] = _select_n_jvp
primitive_transposes[lax.select_n_p] = _select_n_transpose


# --------------------------------------------------------------------------- linear unary

deflinear(lax.neg_p, lambda ct, x: [lax.neg(ct)])
deflinear(lax.stage_p, lambda ct, x: [ct])
deflinear(lax.device_put_p, lambda ct, x, **params: [bind(lax.device_put_p, ct, **params)])
deflinear(lax.reduce_sum_p, lambda ct, x, *, axes, out_sharding=None: [
    lax.broadcast_in_dim(ct, x.aval.shape,
                         [i for i in range(len(x.aval.shape)) if i not in axes])])
deflinear(lax.reshape_p, lambda ct, x, **params: [lax.reshape(ct, x.aval.shape)])
deflinear(lax.squeeze_p, lambda ct, x, **params: [lax.reshape(ct, x.aval.shape)])
deflinear(lax.transpose_p, lambda ct, x, *, permutation: [
    lax.transpose(ct, np.argsort(permutation).tolist())])


def _broadcast_in_dim_transpose(ct: Any, x: Any, *, shape: tuple, broadcast_dimensions: tuple,
                                sharding: Any = None) -> list[Any]:
    # Sum over the new dimensions and over the size-1 dimensions that were stretched.
    in_shape = x.aval.shape
    stretched = [d for i, d in enumerate(broadcast_dimensions) if in_shape[i] != shape[d]]
    new = [d for d in range(len(shape)) if d not in broadcast_dimensions]
    summed = lax.reduce_sum(ct, sorted(new + stretched))
    return [lax.reshape(summed, in_shape) if stretched else summed]


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
    # A weak-type-only conversion needs no transpose: weak typing only steers
    # promotion while tracing, and cotangents are not promoted.
    if get_aval(ct).dtype == x.aval.dtype:
        return [ct]
    return [lax.convert_element_type(ct, x.aval.dtype, x.aval.weak_type)]


primitive_jvps[lax.convert_element_type_p] = _convert_jvp
primitive_transposes[lax.convert_element_type_p] = _convert_transpose


# --------------------------------------------------------------------------- slice and pad


def _pad_abstract(x: ShapedArray, pad_value: ShapedArray, *, padding_config: tuple
                  ) -> ShapedArray:
    shape = tuple(lo + d + hi for d, (lo, hi, _) in zip(x.shape, padding_config))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_impl(x: Any, pad_value: Any, *, padding_config: tuple) -> Any:
    xv = to_numpy(x)
    out = np.full(_pad_abstract(get_aval(x), get_aval(pad_value),
                                padding_config=padding_config).shape,
                  to_numpy(pad_value), xv.dtype)
    out[tuple(slice(lo, lo + d) for d, (lo, _, _) in zip(xv.shape, padding_config))] = xv
    return Array(out, get_aval(x).weak_type)


# `lax.pad` (edge padding only): the transpose of `slice`, and `slice` is its transpose.
pad_p = Primitive("pad")
impl_rules[pad_p] = _pad_impl
abstract_eval_rules[pad_p] = _pad_abstract


def _slice_transpose(ct: Any, x: Any, *, start_indices: tuple, limit_indices: tuple,
                     strides: Any = None) -> list[Any]:
    if strides is not None and any(s != 1 for s in strides):
        raise NotImplementedError("transpose of a strided slice")
    cfg = tuple((lo, d - hi, 0) for lo, hi, d in zip(start_indices, limit_indices, x.aval.shape))
    return [bind(pad_p, ct, np.zeros((), x.aval.dtype), padding_config=cfg)]


def _pad_transpose(ct: Any, x: Any, pad_value: Any, *, padding_config: tuple) -> list[Any]:
    shape = get_aval(ct).shape
    return [lax.slice(ct, [lo for lo, _, _ in padding_config],
                      [d - hi for d, (_, hi, _) in zip(shape, padding_config)]), None]


deflinear(lax.slice_p, _slice_transpose)
primitive_jvps[pad_p] = lambda primals, tangents, **params: (
    bind(pad_p, *primals, **params),
    bind(pad_p, instantiate_zeros(tangents[0]), instantiate_zeros(tangents[1]), **params))
primitive_transposes[pad_p] = _pad_transpose


# --------------------------------------------------------------------------- reductions, dot


def _reduce_max_jvp(g: Any, ans: Any, x: Any, *, axes: tuple, out_sharding: Any = None) -> Any:
    # The tangent is shared equally among the positions that attain the max.
    kept = [1 if i in axes else d for i, d in enumerate(get_aval(x).shape)]
    where = lax.convert_element_type(lax.eq(x, lax.broadcast_in_dim(
        lax.reshape(ans, kept), get_aval(x).shape, range(len(kept)))), get_aval(g).dtype)
    counts = lax.reduce_sum(where, axes)
    return lax.div(lax.reduce_sum(lax.mul(g, where), axes), counts)


defjvp(lax.reduce_max_p, _reduce_max_jvp)


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


def _free_dims(ndim: int, contract: Any, batch: Any) -> list[int]:
    return [i for i in range(ndim) if i not in contract and i not in batch]


def _dot_transpose(ct: Any, x: Any, y: Any, *, dimension_numbers: Any, **params: Any
                   ) -> list[Any]:
    """ct has dims (batch, x free, y free); contract it with the known operand."""
    (xc, yc), (xb, yb) = dimension_numbers
    x_nd, y_nd = len(_aval_of(x).shape), len(_aval_of(y).shape)
    x_free, y_free = _free_dims(x_nd, xc, xb), _free_dims(y_nd, yc, yb)
    nb = len(xb)
    ct_batch = list(range(nb))
    if is_undefined_primal(x):
        # ct . y over y's free dims gives (batch, x free, the y dims paired with xc).
        ct_y_free = list(range(nb + len(x_free), nb + len(x_free) + len(y_free)))
        dn = ((ct_y_free, y_free), (ct_batch, list(yb)))
        out = lax.dot_general(ct, y, dn, params.get("precision"),
                              params.get("preferred_element_type"))
        paired = [xc[list(yc).index(d)] for d in sorted(yc)]
        return [_to_order(out, [*xb, *x_free, *paired]), None]
    # x . ct over x's free dims gives (batch, the x dims paired with yc, y free).
    ct_x_free = list(range(nb, nb + len(x_free)))
    dn = ((x_free, ct_x_free), (list(xb), ct_batch))
    out = lax.dot_general(x, ct, dn, params.get("precision"),
                          params.get("preferred_element_type"))
    paired = [yc[list(xc).index(d)] for d in sorted(xc)]
    return [None, _to_order(out, [*yb, *paired, *y_free])]


def _to_order(out: Any, dims: list[int]) -> Any:
    """`out`'s axis i is operand axis dims[i]; transpose it into the operand's order."""
    perm = np.argsort(dims).tolist()
    return out if perm == list(range(len(dims))) else lax.transpose(out, perm)


primitive_jvps[lax.dot_general_p] = _dot_general_jvp
primitive_transposes[lax.dot_general_p] = _dot_transpose
