"""The base `lax` primitives (arithmetic, comparisons, casts, reductions, dot_general and the
shape operations), the helpers other primitive modules define theirs with (`_def`, `_unop`,
`_binop`, the dtype checks), and the public functions that bind them.

A primitive is a name plus entries in rule tables keyed by it: here its impl (numpy, run now),
abstract eval (shapes and dtypes), printing and constant-folding rules; its JVP, transpose and
batching rules are in `lax_base_rules.py`, written with these public functions.
"""
from __future__ import annotations

import builtins
import enum
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, pretty
from .core import (
    Array,
    ArrayOps,
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    bind,
    canonicalize_dtype,
    get_aval,
    impl_rules,
    is_literalable,
    scalar_constant,
    to_numpy,
)
from .staging import const_fold_rules, custom_staging_rules, forwarding_rules

# ----------------------------------------------------------------------------- definitions

__all__ = ["abs", "add", "bitwise_and", "bitwise_or", "broadcast_in_dim", "convert_element_type",
           "cos", "div", "dot_general", "eq", "exp", "expand_dims", "ge", "gt", "integer_pow",
           "le", "log", "logistic", "lt", "max", "min", "mul", "ne", "neg", "pow", "reduce_max",
           "reduce_min", "reduce_sum", "reshape", "select_n", "sign", "sin", "slice",
           "sqrt", "squeeze", "sub", "tan", "tanh", "transpose"]
__all__ += ["full", "full_like", "reduce_precision", "square"]



def _def(name: str, abstract: Callable[..., ShapedArray], np_impl: Callable[..., Any]
         ) -> Primitive:
    """A primitive whose impl is numpy, cast to the aval the abstract rule gives."""
    prim = Primitive(name)
    abstract_eval_rules[prim] = abstract

    def impl(*args: Any, **params: Any) -> Array:
        avals = [get_aval(a) for a in args]
        out_aval = prim.out_avals(avals, params)[0]  # remembered: mostly traced already
        val = np_impl(*[to_numpy(a) for a in args], **params)
        return Array(np.asarray(val, dtype=out_aval.dtype), out_aval.weak_type)

    impl_rules[prim] = impl
    return prim


def _hide(*names: str, only_none: bool = True) -> Callable[[dict], dict]:
    """A printing rule leaving out params JAX does not show (by default, while None)."""
    def rule(params: dict) -> dict:
        return {k: v for k, v in params.items()
                if not (k in names and (v is None or not only_none))}
    return rule


# ----------------------------------------------------------------------------- dtype checks

# JAX's dtype categories, named as its error messages name them.
_KINDS = {"integer": "iu", "signedinteger": "i", "floating": "f", "complexfloating": "c",
          "bool": "b"}
_FLOAT = ("floating", "complexfloating")
_NUM = ("integer", "floating", "complexfloating")
_ORDERED = ("integer", "floating", "bool")
_ANY = ("integer", "floating", "complexfloating", "bool")
_BOOL_OR_INT = ("integer", "bool")
_SIGNED = ("floating", "complexfloating", "signedinteger")

# lax names whose jnp counterpart promotes; JAX's same-dtype error points to it.
_JNP_EQUIVALENT = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
                   "max": "maximum", "min": "minimum", "eq": "equal", "ne": "not_equal",
                   "pow": "float_power", "select": "where"}


def _accepts(dtype: np.dtype, accepted: Sequence[str]) -> bool:
    return dtype.kind in _accepted_kinds(tuple(accepted))


@functools.cache
def _accepted_kinds(accepted: tuple[str, ...]) -> str:
    return "".join(_KINDS[c] for c in accepted)


def _check_unop_dtype(name: str, x: ShapedArray, accepted: Sequence[str]) -> None:
    if not _accepts(x.dtype, accepted):
        raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        f"subtypes of {', '.join(accepted)}.")


def _check_naryop_dtypes(name: str, avals: Sequence[ShapedArray],
                         accepted: Sequence[Sequence[str]]) -> None:
    for i, (a, acc) in enumerate(zip(avals, accepted)):
        if not _accepts(a.dtype, acc):
            raise TypeError(f"{name} does not accept dtype {a.dtype.name} at position {i}. "
                            f"Accepted dtypes at position {i} are subtypes of {', '.join(acc)}.")


def _check_same_dtypes(name: str, avals: Sequence[ShapedArray]) -> None:
    if any(a.dtype != avals[0].dtype for a in avals[1:]):
        msg = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(a.dtype.name for a in avals)}.")
        if name in _JNP_EQUIVALENT:
            msg += (f" (Tip: jnp.{_JNP_EQUIVALENT[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
        raise TypeError(msg)


def _promote_kinds(*dtypes: np.dtype) -> np.dtype:
    """The wider of mixed operand dtypes (bool < int < float < complex), for dot_general."""
    order = "buifc"
    return builtins.max(dtypes, key=lambda d: (order.index(d.kind), d.itemsize))


# ----------------------------------------------------------------------------- elementwise


def _unop(name: str, np_fn: Callable[..., Any], accepted: Sequence[str],
          accuracy: bool = False) -> Primitive:
    def abstract(x: ShapedArray, **_: Any) -> ShapedArray:
        _check_unop_dtype(name, x, accepted)
        return x

    prim = _def(name, abstract, lambda x, **_: np_fn(x))
    if accuracy:
        pretty.pp_param_rules[prim] = _hide("accuracy")
    return prim


def broadcasting_shape(name: str, *avals: ShapedArray) -> tuple[int, ...]:
    """JAX's rule for n-ary ops: rank-0 operands mix with any rank; otherwise ranks
    must agree and, per dimension, sizes agree or are 1."""
    shapes = [a.shape for a in avals if a.shape]
    if not shapes:
        return ()
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for ds in zip(*shapes):
        sizes = {d for d in ds if d != 1}
        if len(sizes) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(s) for s in shapes)}.")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _binop(name: str, np_fn: Callable[..., Any], accepted: Sequence[str],
           bool_out: bool = False) -> Primitive:
    def abstract(x: ShapedArray, y: ShapedArray) -> ShapedArray:
        shape = broadcasting_shape(name, x, y)
        _check_naryop_dtypes(name, (x, y), (accepted, accepted))
        _check_same_dtypes(name, (x, y))
        # JAX's weak-type rule holds for comparisons too: bool, weak iff both inputs are.
        return ShapedArray(shape, np.bool_ if bool_out else x.dtype, x.weak_type and y.weak_type)

    return _def(name, abstract, np_fn)


def _int_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if np.issubdtype(x.dtype, np.integer):
        return np.trunc(np.true_divide(x, y)).astype(x.dtype)  # lax.div rounds to zero
    return np.true_divide(x, y)


sin_p = _unop("sin", np.sin, _FLOAT, accuracy=True)
cos_p = _unop("cos", np.cos, _FLOAT, accuracy=True)
tan_p = _unop("tan", np.tan, _FLOAT, accuracy=True)
exp_p = _unop("exp", np.exp, _FLOAT, accuracy=True)
log_p = _unop("log", np.log, _FLOAT, accuracy=True)
tanh_p = _unop("tanh", np.tanh, _FLOAT, accuracy=True)
logistic_p = _unop("logistic", lambda x: 1 / (1 + np.exp(-x)), _FLOAT, accuracy=True)
sqrt_p = _unop("sqrt", np.sqrt, _FLOAT, accuracy=True)
abs_p = _unop("abs", np.abs, _SIGNED)
sign_p = _unop("sign", np.sign, _NUM)
neg_p = _unop("neg", np.negative, _NUM)
square_p = _unop("square", np.square, _NUM)

add_p = _binop("add", np.add, _NUM)
sub_p = _binop("sub", np.subtract, _NUM)
mul_p = _binop("mul", np.multiply, _NUM)
div_p = _binop("div", _int_div, _NUM)
max_p = _binop("max", np.maximum, _ANY)
min_p = _binop("min", np.minimum, _ANY)
and_p = _binop("and", np.bitwise_and, _BOOL_OR_INT)
or_p = _binop("or", np.bitwise_or, _BOOL_OR_INT)
gt_p = _binop("gt", np.greater, _ORDERED, bool_out=True)
lt_p = _binop("lt", np.less, _ORDERED, bool_out=True)
ge_p = _binop("ge", np.greater_equal, _ORDERED, bool_out=True)
le_p = _binop("le", np.less_equal, _ORDERED, bool_out=True)
eq_p = _binop("eq", np.equal, _ANY, bool_out=True)
ne_p = _binop("ne", np.not_equal, _ANY, bool_out=True)
# add_any is the sum autodiff uses for cotangents and tangents; it prints as JAX's.
add_any_p = _binop("add_any", np.add, _NUM)


def _pow_abstract(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    shape = broadcasting_shape("pow", x, y)
    _check_naryop_dtypes("pow", (x, y), (_FLOAT, ("integer",) + _FLOAT))
    # An integer exponent may go with any inexact base; inexact dtypes must match.
    if x.dtype != y.dtype and y.dtype.kind not in "iu":
        raise TypeError(
            "the first argument to pow must have an inexact dtype (float or complex), and the "
            "second argument must have an inexact or integer dtype, and two inexact dtypes "
            f"must match, but got {x.dtype.name} and {y.dtype.name} respectively.")
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


pow_p = _def("pow", _pow_abstract, np.power)


def _integer_pow_abstract(x: ShapedArray, *, y: int) -> ShapedArray:
    _check_unop_dtype("integer_pow", x, _NUM)
    if y < 0 and x.dtype.kind in "iu":
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.str_short()}, {y})")
    return x


def _integer_pow_impl(x: np.ndarray, *, y: int) -> np.ndarray:
    return np.power(x, y) if y >= 0 else np.reciprocal(np.power(x, -y))


integer_pow_p = _def("integer_pow", _integer_pow_abstract, _integer_pow_impl)


def _select_n_abstract(which: ShapedArray, *cases: ShapedArray) -> ShapedArray:
    if not cases:
        raise TypeError("select must have at least one case")
    if any(c.shape != cases[0].shape for c in cases[1:]):
        raise TypeError(f"select cases must have the same shapes, got "
                        f"[{', '.join(str(c.shape) for c in cases)}].")
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, "
                        f"got `which` shape {which.shape} but case shape {cases[0].shape}.")
    _check_same_dtypes("select", cases)
    if which.dtype.kind not in "biu":
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{which.dtype.name}.")
    if which.dtype.kind == "b" and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
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
# The sharding is implied by the binder's type: JAX never prints it.
pretty.pp_param_rules[convert_element_type_p] = _hide("sharding", only_none=False)


def _convert_fold(consts: list, params: dict, out_avals: Sequence[Any]) -> list | None:
    # JAX folds only scalar constants of plain numeric types; a weakly typed result
    # stays a Python scalar, as JAX's does, so that it keeps its weak type.
    c, = consts
    if c is not None and is_literalable(c) and np.shape(c) == ():
        aval, = out_avals
        return [scalar_constant(c, aval.dtype, aval.weak_type)]
    return None


const_fold_rules[convert_element_type_p] = _convert_fold
# A conversion to the type the operand already has is its operand, unless it carries a
# sharding of its own (JAX compares it with the operand's; the engine's one device has none).
forwarding_rules[convert_element_type_p] = lambda avals, params: [
    0 if (avals[0].dtype, avals[0].weak_type) == (params["new_dtype"], params["weak_type"])
    and params.get("sharding") is None else None]


class ArrayCopySemantics(enum.Enum):
    """device_put's copy semantics, printed as JAX prints its (C++) enum."""

    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self) -> str:
        return f"ArrayCopySemantics.{self.name}"


device_put_p = _def("device_put", lambda x, **_: x, lambda x, **_: x)


def _device_put_fold(consts: list, params: dict, out_avals: Sequence[Any]) -> list | None:
    # JAX elides a device_put of NumPy values (what jnp.array builds), not of Python
    # scalars or of arrays already on a device.
    if all(isinstance(c, (np.ndarray, np.generic)) for c in consts):
        return consts
    return None


const_fold_rules[device_put_p] = _device_put_fold

# jnp.array of an array: a copy, which a jaxpr keeps as an equation.
copy_p = _def("copy", lambda x: x, np.copy)

def _reduce_precision_impl(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int
                           ) -> np.ndarray:
    # Round the significand to `mantissa_bits` bits, then keep the exponent in range.
    info = np.finfo(x.dtype)
    if (exponent_bits, mantissa_bits) >= (info.nexp, info.nmant):
        return x
    frac, exp = np.frexp(x)
    scale = float(2 ** (mantissa_bits + 1))
    out = np.ldexp(np.round(frac * scale) / scale, exp)
    top = 2 ** (exponent_bits - 1)
    return np.where(exp > top, np.copysign(np.inf, x),
                    np.where(exp < 2 - top, np.copysign(0.0, x), out)).astype(x.dtype)


def _reduce_precision_abstract(x: ShapedArray, *, exponent_bits: int, mantissa_bits: int
                               ) -> ShapedArray:
    _check_unop_dtype("reduce_precision", x, ("floating",))
    return x


# Rounds to a narrower float format; the identity at the operand's own precision, which is
# how checkpoint pins the residuals it saves.
reduce_precision_p = _def("reduce_precision", _reduce_precision_abstract, _reduce_precision_impl)


# lax.stage: logically the identity, lifting a value into the active trace. A staging
# trace lifts it without an equation (JAX's stage_value); the fold rule is JAX's too.
stage_p = _def("stage", lambda x: x, lambda x: x)
const_fold_rules[stage_p] = lambda consts, params, out_avals: consts
custom_staging_rules[stage_p] = lambda trace, tracers, params: tracers


# ----------------------------------------------------------------------------- structural


def _reduce_abstract(x: ShapedArray, *, axes: tuple, out_sharding: Any = None) -> ShapedArray:
    if any(a < 0 or a >= x.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                         f"{x.str_short()}.")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ShapedArray(shape, x.dtype, x.weak_type)


# reduce_sum carries an out_sharding param; reduce_max and reduce_min do not (as in JAX).
reduce_sum_p = _def("reduce_sum", _reduce_abstract,
                    lambda x, *, axes, out_sharding=None: np.sum(x, axis=axes))
reduce_max_p = _def("reduce_max", _reduce_abstract, lambda x, *, axes: np.max(x, axis=axes))
reduce_min_p = _def("reduce_min", _reduce_abstract, lambda x, *, axes: np.min(x, axis=axes))


def _dot_general_abstract(x: ShapedArray, y: ShapedArray, *, dimension_numbers: tuple,
                          precision: Any = None, preferred_element_type: Any = None,
                          out_sharding: Any = None) -> ShapedArray:
    (xc, yc), (xb, yb) = dimension_numbers
    for what, xs, ys in (("lhs batch dimensions and rhs batch dimensions", xb, yb),
                         ("contracting dimensions", xc, yc)):
        xd, yd = tuple(x.shape[i] for i in xs), tuple(y.shape[i] for i in ys)
        if xd != yd:
            raise TypeError(f"dot_general requires {what} to have the same shape, "
                            f"got {xd} and {yd}.")
    batch = tuple(x.shape[i] for i in xb)
    x_free = tuple(d for i, d in enumerate(x.shape) if i not in xc and i not in xb)
    y_free = tuple(d for i, d in enumerate(y.shape) if i not in yc and i not in yb)
    dtype = preferred_element_type or _promote_kinds(x.dtype, y.dtype)
    return ShapedArray(batch + x_free + y_free, dtype, x.weak_type and y.weak_type)


def _dot_general_impl(x: np.ndarray, y: np.ndarray, *, dimension_numbers: tuple,
                      **_: Any) -> np.ndarray:
    (xc, yc), (xb, yb) = dimension_numbers
    x_free = [i for i in range(x.ndim) if i not in xc and i not in xb]
    y_free = [i for i in range(y.ndim) if i not in yc and i not in yb]
    # Few numpy calls: each costs far more under Pyodide than the arithmetic on these small
    # arrays (an identity permutation is left out, and shape products are Python's).
    xt = _permuted(x, [*xb, *x_free, *xc])
    yt = _permuted(y, [*yb, *yc, *y_free])
    nb, nc = len(xb), len(xc)
    bshape = xt.shape[:nb]
    xm = xt.reshape(bshape + (math.prod(xt.shape[nb:nb + len(x_free)]),
                              math.prod(xt.shape[nb + len(x_free):])))
    ym = yt.reshape(bshape + (math.prod(yt.shape[nb:nb + nc]), math.prod(yt.shape[nb + nc:])))
    out = np.matmul(xm, ym)
    return out.reshape(bshape + tuple(x.shape[i] for i in x_free)
                       + tuple(y.shape[i] for i in y_free))


def _permuted(x: np.ndarray, perm: list[int]) -> np.ndarray:
    return x if perm == list(range(x.ndim)) else np.transpose(x, perm)


dot_general_p = _def("dot_general", _dot_general_abstract, _dot_general_impl)


def _dot_general_pp(params: dict) -> dict:
    # JAX shows the dimension numbers' index groups as lists and hides unset options.
    (xc, yc), (xb, yb) = params["dimension_numbers"]
    out = _hide("precision", "preferred_element_type", "out_sharding")(params)
    out["dimension_numbers"] = f"(({list(xc)}, {list(yc)}), ({list(xb)}, {list(yb)}))"
    return out


pretty.pp_param_rules[dot_general_p] = _dot_general_pp


def _broadcast_in_dim_abstract(x: ShapedArray, *, shape: tuple, broadcast_dimensions: tuple,
                               sharding: Any = None) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {broadcast_dimensions} for "
                        f"operand ndim {x.ndim}.")
    if any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)):
        raise TypeError(
            "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
            f"corresponding dimensions in the target broadcast shape; got operand of shape "
            f"{x.shape}, target broadcast shape {shape}, broadcast_dimensions "
            f"{broadcast_dimensions} ")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_impl(x: np.ndarray, *, shape: tuple, broadcast_dimensions: tuple,
                           sharding: Any = None) -> np.ndarray:
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = _def("broadcast_in_dim", _broadcast_in_dim_abstract, _broadcast_in_dim_impl)
forwarding_rules[broadcast_in_dim_p] = lambda avals, params: [
    0 if avals[0].shape == tuple(params["shape"]) else None]


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


def _reshape_impl(x: np.ndarray, *, new_sizes: tuple, dimensions: Any = None,
                  sharding: Any = None) -> np.ndarray:
    return (x if dimensions is None else np.transpose(x, dimensions)).reshape(new_sizes)


reshape_p = _def("reshape", _reshape_abstract, _reshape_impl)


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
    if not len(start_indices) == len(limit_indices) == len(st) == x.ndim:
        raise TypeError(f"slice start_indices, limit_indices and strides must have length "
                        f"equal to the operand's rank {x.ndim}, got {start_indices}, "
                        f"{limit_indices} and {strides}.")
    if any(not 0 <= lo <= hi <= d for lo, hi, d in zip(start_indices, limit_indices, x.shape)):
        raise TypeError(f"slice indices out of bounds: start_indices {start_indices}, "
                        f"limit_indices {limit_indices} for operand shape {x.shape}.")
    shape = tuple(-(-(hi - lo) // s) for lo, hi, s in zip(start_indices, limit_indices, st))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_impl(x: np.ndarray, *, start_indices: tuple, limit_indices: tuple,
                strides: Any = None) -> np.ndarray:
    st = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(lo, hi, s)
                   for lo, hi, s in zip(start_indices, limit_indices, st))]


slice_p = _def("slice", _slice_abstract, _slice_impl)


# ----------------------------------------------------------------------------- public wrappers


def _unary(prim: Primitive, accuracy: bool = False) -> Callable[..., Any]:
    def with_accuracy(x: Any, accuracy: Any = None) -> Any:
        return bind(prim, x, accuracy=accuracy)

    def plain(x: Any) -> Any:
        return bind(prim, x)

    f = with_accuracy if accuracy else plain
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
square = _unary(square_p)


def _binary(prim: Primitive, name: str) -> Callable[[Any, Any], Any]:
    def f(x: Any, y: Any) -> Any:
        return bind(prim, x, y)
    f.__name__ = name
    return f


add, sub, mul, div, pow = (_binary(p, p.name) for p in (add_p, sub_p, mul_p, div_p, pow_p))  # noqa: A001
max, min = _binary(max_p, "max"), _binary(min_p, "min")  # noqa: A001
gt, lt, ge, le, eq, ne = (_binary(p, p.name) for p in (gt_p, lt_p, ge_p, le_p, eq_p, ne_p))
bitwise_and, bitwise_or = _binary(and_p, "bitwise_and"), _binary(or_p, "bitwise_or")


def _is_array(x: Any) -> bool:
    """Arrays and tracers skip no-op reshapes and casts; JAX binds NumPy values and Python
    scalars all the same (run now, they come back arrays)."""
    return isinstance(x, ArrayOps)


def integer_pow(x: Any, y: int) -> Any:
    return bind(integer_pow_p, x, y=int(y))


def select_n(which: Any, *cases: Any) -> Any:
    return bind(select_n_p, which, *cases)


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool = False) -> Any:
    """Cast; like JAX, an array or tracer already of that type is returned as is (no
    equation). A NumPy value is bound, so that run now it comes back an array."""
    new_dtype = canonicalize_dtype(new_dtype)
    aval = get_aval(x)
    if aval.dtype == new_dtype and aval.weak_type == weak_type and isinstance(x, ArrayOps):
        return x
    return bind(convert_element_type_p, x, new_dtype=new_dtype, weak_type=weak_type,
                sharding=None)


def device_put(x: Any) -> Any:
    return bind(device_put_p, x, devices=(None,), srcs=(None,),
                copy_semantics=(ArrayCopySemantics.REUSE_INPUT,))


def array_copy(x: Any) -> Any:
    return bind(copy_p, x)


def stage(x: Any) -> Any:
    return bind(stage_p, x)


def reduce_precision(x: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    return bind(reduce_precision_p, x, exponent_bits=int(exponent_bits),
                mantissa_bits=int(mantissa_bits))


def reduce_sum(x: Any, axes: Sequence[int]) -> Any:
    return bind(reduce_sum_p, x, axes=tuple(axes), out_sharding=None)


def reduce_max(x: Any, axes: Sequence[int]) -> Any:
    return bind(reduce_max_p, x, axes=tuple(axes))


def reduce_min(x: Any, axes: Sequence[int]) -> Any:
    return bind(reduce_min_p, x, axes=tuple(axes))


def dot_general(x: Any, y: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None) -> Any:
    (xc, yc), (xb, yb) = dimension_numbers
    dn = ((tuple(xc), tuple(yc)), (tuple(xb), tuple(yb)))
    return bind(dot_general_p, x, y, dimension_numbers=dn, precision=precision,
                preferred_element_type=(None if preferred_element_type is None
                                        else canonicalize_dtype(preferred_element_type)),
                out_sharding=None)


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    if isinstance(x, ArrayOps) and not shape and not broadcast_dimensions and not x.ndim:
        return x  # JAX's shortcut: an array broadcast to its own rank-0 shape
    return bind(broadcast_in_dim_p, x, shape=tuple(shape),
                broadcast_dimensions=tuple(broadcast_dimensions), sharding=None)


def full(shape: Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    """`lax.full`: the fill value cast to `dtype` (by default its own type, weak type kept),
    broadcast to `shape`; a rank-0 result is the constant itself."""
    aval = get_aval(fill_value)
    dtype, weak = ((aval.dtype, aval.weak_type) if dtype is None
                   else (canonicalize_dtype(dtype), False))
    if is_literalable(fill_value):
        fill_value = scalar_constant(fill_value, dtype, weak)
    val = (convert_element_type(fill_value, dtype, weak)
           if not is_literalable(fill_value) or _cast_runs_now() else fill_value)
    return broadcast_in_dim(val, shape, ()) if len(shape) else val


def _cast_runs_now() -> bool:
    """Whether JAX's cast of a constant runs now, making an array: with nothing tracing, or
    under eager constant folding. A staging trace without folding keeps it a literal, as a
    partial evaluator keeps it a known constant (the engine's, too: no bind, no array)."""
    if core.dynamic_trace is None:
        return len(core.trace_stack) == 1
    return core.config.values["eager_constant_folding"]


def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
    """`lax.full_like`: a constant of x's shape (or `shape`), dtype and weak type."""
    aval = get_aval(x)
    weak = dtype is None and aval.weak_type
    dtype = aval.dtype if dtype is None else canonicalize_dtype(dtype)
    return full(aval.shape if shape is None else shape,
                scalar_constant(fill_value, dtype, weak))


def _const(x: Any, val: Any) -> Any:
    """JAX's `_const`: a Python scalar beside a weakly typed scalar, else a typed 0-d array
    (both print as a literal, e.g. `mul 2.0:f32[] a`)."""
    aval = get_aval(x)
    return scalar_constant(val, aval.dtype, aval.weak_type and not aval.shape)


def expand_dims(x: Any, dimensions: Sequence[int]) -> Any:
    """Insert size-1 axes at `dimensions` (positions in the result), by broadcast_in_dim."""
    if not dimensions:
        return x
    shape = list(get_aval(x).shape)
    ndim = len(shape) + len(dimensions)
    dims = sorted(d % ndim for d in dimensions)
    for d in dims:
        shape.insert(d, 1)
    return broadcast_in_dim(x, shape, [i for i in range(ndim) if i not in dims])


def reshape(x: Any, new_sizes: Sequence[int], dimensions: Any = None) -> Any:
    new_sizes = tuple(new_sizes)
    if dimensions is not None and tuple(dimensions) == tuple(range(get_aval(x).ndim)):
        dimensions = None  # JAX drops an identity permutation
    shape = get_aval(x).shape
    if _is_array(x) and dimensions is None and shape and shape == new_sizes:
        return x  # JAX binds a reshape of a rank-0 array to shape () all the same
    return bind(reshape_p, x, new_sizes=new_sizes,
                dimensions=None if dimensions is None else tuple(dimensions), sharding=None)


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    permutation = tuple(permutation)
    if _is_array(x) and permutation == tuple(range(get_aval(x).ndim)):
        return x
    return bind(transpose_p, x, permutation=permutation)


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    if isinstance(dimensions, (tuple, list)) and not dimensions and _is_array(x):
        return x  # as below, without canonicalizing no dimensions
    ndim = get_aval(x).ndim
    dimensions = tuple(sorted(d % ndim for d in dimensions)) if ndim else tuple(dimensions)
    if _is_array(x) and not dimensions:
        return x
    return bind(squeeze_p, x, dimensions=dimensions)


def slice(x: Any, start_indices: Sequence[int], limit_indices: Sequence[int],  # noqa: A001
          strides: Any = None) -> Any:
    return bind(slice_p, x, start_indices=tuple(start_indices),
                limit_indices=tuple(limit_indices),
                strides=None if strides is None else tuple(strides))
