"""`lax`: the primitives, each defined by entries in the rule tables.

A primitive is a name plus: an impl rule (numpy, run now), an abstract-eval rule
(shapes and dtypes only), and optionally a printing rule and a constant-folding
rule. Transformation rules (JVP, transpose, partial evaluation) live in their own
modules' tables, keyed by the same Primitive objects.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import pretty
from .core import (
    Array,
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    bind,
    canonicalize_dtype,
    get_aval,
    impl_rules,
    is_literalable,
    to_numpy,
)
from .staging import const_fold_rules

# ----------------------------------------------------------------------------- definitions


def _def(name: str, abstract: Callable[..., ShapedArray], np_impl: Callable[..., Any]
         ) -> Primitive:
    """A primitive whose impl is numpy, cast to the aval the abstract rule gives."""
    prim = Primitive(name)
    abstract_eval_rules[prim] = abstract

    def impl(*args: Any, **params: Any) -> Array:
        avals = [get_aval(a) for a in args]
        out_aval = abstract(*avals, **params)
        val = np_impl(*[to_numpy(a) for a in args], **params)
        return Array(np.asarray(val, dtype=out_aval.dtype), out_aval.weak_type)

    impl_rules[prim] = impl
    return prim


def _hide_none(*names: str) -> Callable[[dict], dict]:
    """A printing rule that leaves out params JAX does not show while they are None."""
    def rule(params: dict) -> dict:
        return {k: v for k, v in params.items() if not (k in names and v is None)}
    return rule


def _unop_abstract(x: ShapedArray, **_: Any) -> ShapedArray:
    return x


def _unop(name: str, np_fn: Callable[..., Any], accuracy: bool = False) -> Primitive:
    prim = _def(name, _unop_abstract, lambda x, **_: np_fn(x))
    if accuracy:
        pretty.pp_param_rules[prim] = _hide_none("accuracy")
    return prim


def _binop_abstract(name: str, bool_out: bool = False) -> Callable[..., ShapedArray]:
    def abstract(x: ShapedArray, y: ShapedArray, **_: Any) -> ShapedArray:
        if x.shape != y.shape:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{x.shape}, {y.shape}.")
        if x.dtype != y.dtype:
            raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                            f"{x.dtype.name}, {y.dtype.name}.")
        weak = x.weak_type and y.weak_type
        return ShapedArray(x.shape, np.bool_ if bool_out else x.dtype, False if bool_out else weak)
    return abstract


def _binop(name: str, np_fn: Callable[..., Any], bool_out: bool = False) -> Primitive:
    return _def(name, _binop_abstract(name, bool_out), lambda x, y, **_: np_fn(x, y))


def _int_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if np.issubdtype(x.dtype, np.integer):
        return np.trunc(np.true_divide(x, y)).astype(x.dtype)  # lax.div rounds to zero
    return np.true_divide(x, y)


sin_p = _unop("sin", np.sin, accuracy=True)
cos_p = _unop("cos", np.cos, accuracy=True)
tan_p = _unop("tan", np.tan, accuracy=True)
exp_p = _unop("exp", np.exp, accuracy=True)
log_p = _unop("log", np.log, accuracy=True)
tanh_p = _unop("tanh", np.tanh, accuracy=True)
logistic_p = _unop("logistic", lambda x: 1 / (1 + np.exp(-x)), accuracy=True)
sqrt_p = _unop("sqrt", np.sqrt, accuracy=True)
abs_p = _unop("abs", np.abs)
sign_p = _unop("sign", np.sign)
neg_p = _unop("neg", np.negative)

add_p = _binop("add", np.add)
sub_p = _binop("sub", np.subtract)
mul_p = _binop("mul", np.multiply)
div_p = _binop("div", _int_div)
pow_p = _binop("pow", np.power)
max_p = _binop("max", np.maximum)
min_p = _binop("min", np.minimum)
gt_p = _binop("gt", np.greater, bool_out=True)
lt_p = _binop("lt", np.less, bool_out=True)
ge_p = _binop("ge", np.greater_equal, bool_out=True)
le_p = _binop("le", np.less_equal, bool_out=True)
eq_p = _binop("eq", np.equal, bool_out=True)
ne_p = _binop("ne", np.not_equal, bool_out=True)
# add_any is the sum autodiff uses for cotangents and tangents; it prints as JAX's.
add_any_p = _binop("add_any", np.add)


def _integer_pow_impl(x: np.ndarray, *, y: int) -> np.ndarray:
    return np.power(x, y) if y >= 0 else np.reciprocal(np.power(x, -y))


integer_pow_p = _def("integer_pow", lambda x, *, y: x, _integer_pow_impl)


def _select_n_abstract(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise TypeError("select_n must have at least one case")
    if any(c.shape != cases[0].shape or c.dtype != cases[0].dtype for c in cases):
        raise TypeError("select_n cases must have the same shapes and dtypes, got "
                        + ", ".join(c.str_short() for c in cases))
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select_n which must be scalar or have the same shape as cases, "
                        f"got which shape {which.shape} but case shape {cases[0].shape}.")
    return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


select_n_p = _def("select_n", _select_n_abstract,
                  lambda which, *cases: np.choose(which.astype(np.int32), cases))


# ------------------------------------------------------------------------- dtype and identity


def _convert_abstract(x: ShapedArray, *, new_dtype: np.dtype, weak_type: bool,
                      sharding: Any = None) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = _def(
    "convert_element_type", _convert_abstract,
    lambda x, *, new_dtype, weak_type, sharding=None: x.astype(new_dtype))
pretty.pp_param_rules[convert_element_type_p] = _hide_none("sharding")


def _convert_fold(consts: list, params: dict, out_avals: list) -> list | None:
    # JAX folds only scalar constants of plain numeric types into a literal.
    c, = consts
    if c is not None and is_literalable(c) and np.shape(c) == ():
        aval, = out_avals
        return [np.asarray(c, dtype=aval.dtype)]
    return None


const_fold_rules[convert_element_type_p] = _convert_fold

device_put_p = _def("device_put", lambda x, **_: x, lambda x, **_: x)
const_fold_rules[device_put_p] = lambda consts, params, out_avals: (
    consts if all(c is not None for c in consts) else None)

# lax.stage: logically the identity, lifting a value into the active trace.
stage_p = _def("stage", lambda x: x, lambda x: x)
const_fold_rules[stage_p] = lambda consts, params, out_avals: consts


# ----------------------------------------------------------------------------- structural


def _reduce_abstract(x: ShapedArray, *, axes: tuple, out_sharding: Any = None) -> ShapedArray:
    if any(a < 0 or a >= x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} out of range for an array of rank {x.ndim}")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ShapedArray(shape, x.dtype, x.weak_type)


reduce_sum_p = _def("reduce_sum", _reduce_abstract,
                    lambda x, *, axes, out_sharding=None: np.sum(x, axis=axes))
reduce_max_p = _def("reduce_max", _reduce_abstract,
                    lambda x, *, axes, out_sharding=None: np.max(x, axis=axes))
pretty.pp_param_rules[reduce_max_p] = _hide_none("out_sharding")


def _dot_general_abstract(x: ShapedArray, y: ShapedArray, *, dimension_numbers: tuple,
                          precision: Any = None, preferred_element_type: Any = None,
                          out_sharding: Any = None) -> ShapedArray:
    (xc, yc), (xb, yb) = dimension_numbers
    for a, b in zip(xc, yc):
        if x.shape[a] != y.shape[b]:
            raise TypeError(
                "dot_general requires contracting dimensions to have the same shape, "
                f"got {tuple(x.shape[i] for i in xc)} and {tuple(y.shape[i] for i in yc)}.")
    if x.dtype != y.dtype and preferred_element_type is None:
        raise TypeError(f"dot_general requires operands of the same dtype, got "
                        f"{x.dtype.name} and {y.dtype.name}")
    batch = tuple(x.shape[i] for i in xb)
    x_free = tuple(d for i, d in enumerate(x.shape) if i not in xc and i not in xb)
    y_free = tuple(d for i, d in enumerate(y.shape) if i not in yc and i not in yb)
    dtype = preferred_element_type or x.dtype
    return ShapedArray(batch + x_free + y_free, dtype, x.weak_type and y.weak_type)


def _dot_general_impl(x: np.ndarray, y: np.ndarray, *, dimension_numbers: tuple,
                      **_: Any) -> np.ndarray:
    (xc, yc), (xb, yb) = dimension_numbers
    x_free = [i for i in range(x.ndim) if i not in xc and i not in xb]
    y_free = [i for i in range(y.ndim) if i not in yc and i not in yb]
    xt = np.transpose(x, [*xb, *x_free, *xc])
    yt = np.transpose(y, [*yb, *yc, *y_free])
    nb, nc = len(xb), len(xc)
    bshape = xt.shape[:nb]
    xm = xt.reshape(bshape + (int(np.prod(xt.shape[nb:nb + len(x_free)], dtype=int)),
                              int(np.prod(xt.shape[nb + len(x_free):], dtype=int))))
    ym = yt.reshape(bshape + (int(np.prod(yt.shape[nb:nb + nc], dtype=int)),
                              int(np.prod(yt.shape[nb + nc:], dtype=int))))
    out = np.matmul(xm, ym)
    return out.reshape(bshape + tuple(x.shape[i] for i in x_free)
                       + tuple(y.shape[i] for i in y_free))


dot_general_p = _def("dot_general", _dot_general_abstract, _dot_general_impl)
pretty.pp_param_rules[dot_general_p] = _hide_none("precision", "out_sharding")


def _broadcast_in_dim_abstract(x: ShapedArray, *, shape: tuple, broadcast_dimensions: tuple,
                               sharding: Any = None) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim or any(
            x.shape[i] not in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)):
        raise TypeError(f"broadcast_in_dim operand shape {x.shape} is not compatible with "
                        f"target shape {shape} and broadcast_dimensions {broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_impl(x: np.ndarray, *, shape: tuple, broadcast_dimensions: tuple,
                           sharding: Any = None) -> np.ndarray:
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = _def("broadcast_in_dim", _broadcast_in_dim_abstract, _broadcast_in_dim_impl)


def _broadcast_in_dim_pp(params: dict) -> dict:
    # The shape and sharding are implied by the binder's type; trivial dims are hidden.
    out = {k: v for k, v in params.items() if k not in ("shape", "sharding")}
    if not out.get("broadcast_dimensions"):
        out.pop("broadcast_dimensions", None)
    return out


pretty.pp_param_rules[broadcast_in_dim_p] = _broadcast_in_dim_pp


def _reshape_abstract(x: ShapedArray, *, new_sizes: tuple, dimensions: Any = None,
                      sharding: Any = None) -> ShapedArray:
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"for shape {x.shape}.")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


reshape_p = _def("reshape", _reshape_abstract,
                 lambda x, *, new_sizes, dimensions=None, sharding=None: x.reshape(new_sizes))


def _transpose_abstract(x: ShapedArray, *, permutation: tuple) -> ShapedArray:
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {permutation} for operand shape {x.shape}.")
    return ShapedArray(tuple(x.shape[i] for i in permutation), x.dtype, x.weak_type)


transpose_p = _def("transpose", _transpose_abstract,
                   lambda x, *, permutation: np.transpose(x, permutation))


def _squeeze_abstract(x: ShapedArray, *, dimensions: tuple) -> ShapedArray:
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                         f"one, got shape={x.shape} and dimensions={dimensions}")
    return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in dimensions),
                       x.dtype, x.weak_type)


squeeze_p = _def("squeeze", _squeeze_abstract,
                 lambda x, *, dimensions: np.squeeze(x, axis=dimensions))


def _slice_abstract(x: ShapedArray, *, start_indices: tuple, limit_indices: tuple,
                    strides: Any = None) -> ShapedArray:
    st = strides or (1,) * x.ndim
    shape = tuple(max(0, -(-(hi - lo) // s)) for lo, hi, s in zip(start_indices, limit_indices, st))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_impl(x: np.ndarray, *, start_indices: tuple, limit_indices: tuple,
                strides: Any = None) -> np.ndarray:
    st = strides or (1,) * x.ndim
    return x[tuple(slice(lo, hi, s) for lo, hi, s in zip(start_indices, limit_indices, st))]


slice_p = _def("slice", _slice_abstract, _slice_impl)


# ----------------------------------------------------------------------------- public wrappers


def _unary(prim: Primitive, accuracy: bool = False) -> Callable[[Any], Any]:
    if accuracy:
        def f(x: Any, accuracy: Any = None) -> Any:
            return bind(prim, x, accuracy=accuracy)
    else:
        def f(x: Any) -> Any:
            return bind(prim, x)
    f.__name__ = prim.name
    return f


sin = _unary(sin_p, True)
cos = _unary(cos_p, True)
tan = _unary(tan_p, True)
exp = _unary(exp_p, True)
log = _unary(log_p, True)
tanh = _unary(tanh_p, True)
logistic = _unary(logistic_p, True)
sqrt = _unary(sqrt_p, True)
abs = _unary(abs_p)  # noqa: A001 - JAX's name
sign = _unary(sign_p)
neg = _unary(neg_p)


def _binary(prim: Primitive) -> Callable[[Any, Any], Any]:
    def f(x: Any, y: Any) -> Any:
        return bind(prim, x, y)
    f.__name__ = prim.name
    return f


add, sub, mul, div, pow = map(_binary, (add_p, sub_p, mul_p, div_p, pow_p))  # noqa: A001
max, min = _binary(max_p), _binary(min_p)  # noqa: A001
gt, lt, ge, le, eq, ne = map(_binary, (gt_p, lt_p, ge_p, le_p, eq_p, ne_p))


def integer_pow(x: Any, y: int) -> Any:
    return bind(integer_pow_p, x, y=int(y))


def select_n(which: Any, *cases: Any) -> Any:
    return bind(select_n_p, which, *cases)


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    return bind(convert_element_type_p, x, new_dtype=canonicalize_dtype(new_dtype),
                weak_type=weak_type, sharding=None)


def device_put(x: Any) -> Any:
    return bind(device_put_p, x, devices=(None,), srcs=(None,), copy_semantics=("REUSE_INPUT",))


def stage(x: Any) -> Any:
    return bind(stage_p, x)


def reduce_sum(x: Any, axes: Sequence[int]) -> Any:
    return bind(reduce_sum_p, x, axes=tuple(axes), out_sharding=None)


def reduce_max(x: Any, axes: Sequence[int]) -> Any:
    return bind(reduce_max_p, x, axes=tuple(axes), out_sharding=None)


def dot_general(x: Any, y: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Any:
    (xc, yc), (xb, yb) = dimension_numbers
    dn = ((list(xc), list(yc)), (list(xb), list(yb)))
    return bind(dot_general_p, x, y, dimension_numbers=_DimNums(dn), precision=precision,
                preferred_element_type=(None if preferred_element_type is None
                                        else canonicalize_dtype(preferred_element_type)),
                out_sharding=None)


class _DimNums(tuple):
    """Dimension numbers as JAX prints them: lists inside tuples, hashable for params."""

    def __hash__(self) -> int:
        return hash(str(self))


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    return bind(broadcast_in_dim_p, x, shape=tuple(shape),
                broadcast_dimensions=tuple(broadcast_dimensions), sharding=None)


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Any = None) -> Any:
    return bind(reshape_p, x, new_sizes=tuple(new_sizes), dimensions=dimensions, sharding=None)


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    return bind(transpose_p, x, permutation=tuple(permutation))


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    return bind(squeeze_p, x, dimensions=tuple(dimensions))


def slice(x: Any, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Any = None) -> Any:
    return bind(slice_p, x, start_indices=tuple(start_indices),
                limit_indices=tuple(limit_indices),
                strides=None if strides is None else tuple(strides))
