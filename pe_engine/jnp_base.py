"""`jax.numpy` as this engine offers it: NumPy-style functions lowered to `lax` primitives.

Each function lowers the way JAX 0.10.2 lowers it, so that a jaxpr prints the same
text. Dtype promotion follows JAX's lattice without x64 (bool < int < float; Python
scalars are weakly typed and defer to arrays), and shapes follow JAX's rank
promotion: operands of different non-zero ranks are broadcast to a common rank with
`broadcast_in_dim`; size-1 and rank-0 operands are left to the primitives.
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, errors, structural
from . import lax_base as lax
from .api import jit
from .batching import BatchTracer
from .core import Array, ArrayOps, Tracer, canonicalize_dtype, get_aval, scalar_constant
from .dtypes import (
    _KIND_RANK,
    _dtype,
    _is_python_scalar,
    _result_type,
    result_type,
    weak_result_type,
)
from .pytree import tree_leaves

ndarray = Array



# ----------------------------------------------------------------------------- scalar types

__all__ = ["abs", "add", "array", "asarray", "astype", "bool_", "broadcast_arrays",
           "broadcast_shapes", "broadcast_to", "cos", "divide", "dot", "einsum", "equal", "exp",
           "expand_dims", "float32", "greater", "greater_equal", "int32", "less", "less_equal",
           "log", "matmul", "max", "maximum", "mean", "min", "minimum", "multiply", "ndarray",
           "negative", "not_equal", "ones", "ones_like", "power", "reshape", "result_type",
           "sign", "sin", "sqrt", "squeeze", "subtract", "sum", "tan", "tanh", "transpose",
           "true_divide", "where", "zeros", "zeros_like"]



class _ScalarMeta(type):
    """`jnp.float32` is both a dtype (np.dtype reads its `dtype`) and a constructor."""

    dtype: np.dtype

    def __call__(cls, x: Any) -> Any:
        return asarray(x, dtype=cls.dtype)

    def __repr__(cls) -> str:
        return f"<class 'jax.numpy.{cls.__name__}'>"


def _scalar_type(name: str, dtype: str) -> _ScalarMeta:
    return _ScalarMeta(name, (), {"dtype": np.dtype(dtype)})


float32 = _scalar_type("float32", "float32")
int32 = _scalar_type("int32", "int32")
bool_ = _scalar_type("bool_", "bool")




# ----------------------------------------------------------------------------- promotion




def _convert(x: Any, dtype: np.dtype, weak: bool) -> Any:
    if _is_python_scalar(x):
        return scalar_constant(x, dtype, weak)
    return lax.convert_element_type(x, dtype, weak_type=weak)


def _promote_dtypes(*args: Any, to: Callable[[np.dtype], np.dtype] | None = None) -> list[Any]:
    """Cast every argument to the promoted dtype (mapped by `to`, e.g. to an inexact one).
    An array already of that type is kept as it is, as lax.convert_element_type would keep
    it (checked here first: most operands of most operations are)."""
    avals = [get_aval(a) for a in args]
    dtype, weak = _result_type(avals)
    if to is not None:
        dtype = to(dtype)
    return [x if aval.dtype == dtype and aval.weak_type == weak and isinstance(x, ArrayOps)
            else _convert(x, dtype, weak) for x, aval in zip(args, avals)]


def _to_inexact(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else np.dtype("float32")


def _to_numeric(dtype: np.dtype) -> np.dtype:
    return np.dtype("int32") if dtype.kind == "b" else dtype


def _shape(x: Any) -> tuple[int, ...]:
    return get_aval(x).shape


def _promote_shapes(*args: Any) -> list[Any]:
    if len(args) < 2:
        return list(args)
    shapes = [get_aval(a).shape for a in args]
    if len({len(s) for s in shapes if s}) < 2:
        return list(args)  # equal ranks or scalars: lax broadcasts those itself
    rank = len(broadcast_shapes(*shapes))
    return [a if len(s) == rank else lax.expand_dims(a, range(rank - len(s)))
            for a, s in zip(args, shapes)]


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy's rule (right-aligned; per axis, sizes equal or 1), in Python: a few tuples cost
    less this way than a call into np.broadcast_shapes."""
    tuples = [tuple(s) for s in shapes]
    rank = builtins.max(map(len, tuples), default=0)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + s for s in tuples]):
        sizes = set(dims)
        sizes.discard(1)
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={tuples}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _check_arraylike(*args: Any) -> None:
    for a in args:
        if not isinstance(a, (ArrayOps, np.ndarray, np.generic)) and not _is_python_scalar(a):
            raise TypeError(f"Value {errors.value_repr(a)} with type {type(a).__name__} is not "
                            "a valid JAX type")


def _staged(a: Any) -> bool:
    """A tracer that stands for staged values. vmap over constants is not: JAX's jnp function
    then binds its jit on the constants' batch, which eager folding runs now."""
    while isinstance(a, BatchTracer):
        a = a.val
    return isinstance(a, Tracer)


def _traced_together(*args: Any) -> Sequence[Any]:
    """JAX's jnp functions are `jit(inline=True)`: once one argument is traced, all are. So
    under eager constant folding, what the function does to the other arguments alone (a
    promoting cast, say) is staged rather than run now."""
    dyn = core.dynamic_trace
    if (dyn is None or not core.config.values["eager_constant_folding"]
            or not builtins.any(_staged(a) for a in args)):
        return args
    trace = dyn.trace_type(dyn)
    return [_lift(a, trace) for a in args]


def _lift(a: Any, trace: Any) -> Any:
    """Into the staging trace, under any batching over constants."""
    if isinstance(a, BatchTracer) and not _staged(a):
        return BatchTracer(a._trace, _lift(a.val, trace), a.batch_dim)
    return a if isinstance(a, Tracer) else trace.pure(a)


def _promoted(args: Sequence[Any], to: Callable[[np.dtype], np.dtype] | None = None) -> bool:
    """Arrays (or tracers) all of one strongly typed dtype (one that `to` keeps, if given)
    and of one rank: JAX's promotion would cast none of them and broadcast none. The common case,
    checked in one pass before the general one (which costs more than the operation's
    staging). Under eager constant folding only tracers qualify (see _traced_together)."""
    kind = Tracer if core.config.values["eager_constant_folding"] else ArrayOps
    first = None
    for a in args:
        if not isinstance(a, kind):
            return False
        aval = a.aval
        if aval.weak_type:
            return False
        if first is None:
            first = aval
            if to is not None and to(aval.dtype) != aval.dtype:
                return False
        elif aval.dtype != first.dtype or len(aval.shape) != len(first.shape):
            return False
    return True


_PY_KIND_RANK = {bool: 0, int: 1, float: 2, complex: 3}


def _with_scalar(args: Sequence[Any], to: Callable[[np.dtype], np.dtype] | None = None
                 ) -> Sequence[Any] | None:
    """`x * 2.0`, the other common case: an array (or tracer) of one strongly typed dtype
    beside a Python scalar of a kind no higher. JAX's promotion keeps the array and makes the
    scalar a constant of its dtype; worked out here in one pass (None: not this case). Under
    eager constant folding the scalar is an input of the jnp function (see _traced_together)."""
    if len(args) != 2 or core.config.values["eager_constant_folding"]:
        return None
    a, b = args
    rank = _PY_KIND_RANK.get(type(b))
    x, i = (a, 1) if rank is not None else (b, 0)
    if rank is None:
        rank = _PY_KIND_RANK.get(type(a))
    if rank is None or not isinstance(x, ArrayOps):
        return None
    aval = x.aval
    dtype = aval.dtype
    if aval.weak_type or _KIND_RANK[dtype.kind] < rank or (to is not None and to(dtype) != dtype):
        return None
    c = scalar_constant(args[i], dtype, False)
    return (x, c) if i else (c, x)


def promote_args(*args: Any) -> Sequence[Any]:
    if _promoted(args):
        return args
    promoted = _with_scalar(args)
    if promoted is not None:
        return promoted
    _check_arraylike(*args)
    return _promote_shapes(*_promote_dtypes(*_traced_together(*args)))


def _promote_args_inexact(*args: Any) -> Sequence[Any]:
    if _promoted(args, _to_inexact):
        return args
    promoted = _with_scalar(args, _to_inexact)
    if promoted is not None:
        return promoted
    _check_arraylike(*args)
    return _promote_shapes(*_promote_dtypes(*_traced_together(*args), to=_to_inexact))


# ----------------------------------------------------------------------------- elementwise


def _elementwise_binary(lax_fn: Callable[[Any, Any], Any], name: str,
                        bool_fn: Callable[[Any, Any], Any] | None = None
                        ) -> Callable[[Any, Any], Any]:
    def f(x: Any, y: Any) -> Any:
        x, y = promote_args(x, y)
        if bool_fn is not None and get_aval(x).dtype.kind == "b":
            return bool_fn(x, y)  # JAX adds bools with `or` and multiplies with `and`
        return lax_fn(x, y)
    f.__name__ = name
    return f


def _float_unary(lax_fn: Callable[[Any], Any], name: str) -> Callable[[Any], Any]:
    """Unary functions of floats promote integer and bool inputs to float first."""
    def f(x: Any) -> Any:
        if not _promoted((x,), _to_inexact):
            _check_arraylike(x)
            x, = _promote_dtypes(x, to=_to_inexact)
        return lax_fn(x)
    f.__name__ = name
    return f


sin = _float_unary(lax.sin, "sin")
cos = _float_unary(lax.cos, "cos")
tan = _float_unary(lax.tan, "tan")
exp = _float_unary(lax.exp, "exp")
log = _float_unary(lax.log, "log")
tanh = _float_unary(lax.tanh, "tanh")
sqrt = _float_unary(lax.sqrt, "sqrt")

add = _elementwise_binary(lax.add, "add", lax.bitwise_or)
subtract = _elementwise_binary(lax.sub, "subtract")
multiply = _elementwise_binary(lax.mul, "multiply", lax.bitwise_and)
maximum = _elementwise_binary(lax.max, "maximum")
minimum = _elementwise_binary(lax.min, "minimum")
greater = _elementwise_binary(lax.gt, "greater")
less = _elementwise_binary(lax.lt, "less")
greater_equal = _elementwise_binary(lax.ge, "greater_equal")
less_equal = _elementwise_binary(lax.le, "less_equal")
equal = _elementwise_binary(lax.eq, "equal")
not_equal = _elementwise_binary(lax.ne, "not_equal")


def true_divide(x: Any, y: Any) -> Any:
    return lax.div(*_promote_args_inexact(x, y))


divide = true_divide


def negative(x: Any) -> Any:
    return lax.neg(x)


def abs(x: Any) -> Any:  # noqa: A001 - JAX's name
    return lax.abs(x)


def sign(x: Any) -> Any:
    return lax.sign(x)


def _concrete_int(y: Any) -> int | None:
    """The value of a known integer scalar exponent, else None."""
    if isinstance(y, Tracer) or (isinstance(y, (Array, np.ndarray)) and y.ndim):
        return None
    if get_aval(y).dtype.kind not in "biu":
        return None
    return operator.index(y if not isinstance(y, (Array, np.ndarray)) else y.item())


def power(x: Any, y: Any) -> Any:
    """JAX's cases: a known integer exponent unrolls as integer_pow; an integer array
    exponent of an inexact base goes to pow unpromoted (JAX still emits, unused, the
    promoting casts); otherwise promote, then pow."""
    _check_arraylike(x, y)
    n = _concrete_int(y)
    if n is not None:
        if not _promoted((x,), _to_numeric):
            x, = _promote_dtypes(x, to=_to_numeric)
        return lax.integer_pow(x, n)
    x, y = _promote_shapes(x, y)
    x_, y_ = _promote_dtypes(x, y, to=_to_numeric)
    if get_aval(x_).dtype.kind in "biu":
        raise NotImplementedError("jnp.power of an integer base by an array exponent "
                                  "(JAX unrolls it into a loop of `_where` calls)")
    if get_aval(x).dtype.kind in "fc" and get_aval(y).dtype.kind in "iu":
        return lax.pow(x, y)
    return lax.pow(x_, y_)


def where(condition: Any, x: Any = None, y: Any = None, /, *, size: int | None = None,
          fill_value: Any = None) -> Any:
    if x is None and y is None:
        _check_arraylike(condition)
        # jnp_selection builds on this module: imported when this one-argument form runs
        from .jnp_selection import nonzero
        return nonzero(condition, size=size, fill_value=fill_value)
    _check_arraylike(condition, x, y)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where "
                         "function.")
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         f"to jax.numpy.where, got {x} and {y}.")
    return _where_jit(condition, x, y)


def _where(condition: Any, x: Any, y: Any) -> Any:
    # JAX's jnp.where is this function under jit: promote, broadcast, select_n.
    if get_aval(condition).dtype.kind != "b":
        condition = lax.ne(condition, lax.full_like(condition, 0, shape=()))
    x, y = _promote_dtypes(x, y)
    if _shape(condition):
        condition, x, y = broadcast_arrays(condition, x, y)
    else:
        x, y = broadcast_arrays(x, y)
    return lax.select_n(condition, y, x)


_where_jit = jit(_where)


def broadcast_arrays(*args: Any) -> list[Any]:
    # JAX makes each argument an array (a Python scalar a constant, folded to an array under
    # eager constant folding), then broadcasts them under jit(inline=True).
    return _broadcast_arrays(*[_scalar_array(a) if _is_python_scalar(a) else a for a in args])


def _scalar_array(x: Any) -> Any:
    """lax.asarray of a Python scalar: a weakly typed constant, cast now when casts run now."""
    dtype, weak = weak_result_type(x)
    c = scalar_constant(x, dtype, weak)
    return lax.convert_element_type(c, dtype, weak) if lax._cast_runs_now() else c


@jit(inline=True)
def _broadcast_arrays(*args: Any) -> list[Any]:
    shape = broadcast_shapes(*map(_shape, args))
    return [a if _shape(a) == shape else broadcast_to(a, shape) for a in args]


# ----------------------------------------------------------------------------- creation


def array(obj: Any, dtype: Any = None) -> Any:
    """An array from a value: a copy of an array, or NumPy data made a JAX constant."""
    if isinstance(obj, ArrayOps):
        out = lax.array_copy(obj)
        return out if dtype is None else astype(out, dtype)
    if isinstance(obj, (list, tuple)) and builtins.any(isinstance(o, ArrayOps)
                                              for o in tree_leaves(list(obj))):
        if dtype is None:
            dtype = _result_type([get_aval(a) for a in tree_leaves(list(obj))])[0]
        return _array_of_parts(obj, _dtype(dtype))
    if dtype is None:
        if isinstance(obj, (int, float, complex, np.number, np.ndarray)):
            return lax.stage(obj)  # JAX's fast path: a Python scalar stays weakly typed
        val = np.asarray(obj)
        val = np.asarray(val, canonicalize_dtype(val.dtype))
    else:
        val = np.asarray(obj, _dtype(dtype))
    return lax.device_put(val)


def _array_of_parts(obj: Any, dtype: np.dtype) -> Any:
    """JAX's array of a list holding traced values: each item an array of `dtype` with a new
    leading axis, concatenated (by 16s, as JAX keeps each concatenation narrow)."""
    if isinstance(obj, (list, tuple)):
        if not obj:
            return np.array([], dtype)
        parts = [lax.expand_dims(_array_of_parts(o, dtype), [0]) for o in obj]
        while len(parts) > 16:
            parts = [structural.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
        return lax.convert_element_type(structural.concatenate(parts, 0), dtype)
    if isinstance(obj, ArrayOps):
        return lax.convert_element_type(obj, dtype)
    return np.asarray(obj, dtype)


def asarray(obj: Any, dtype: Any = None) -> Any:
    if isinstance(obj, ArrayOps):
        return obj if dtype is None else astype(obj, dtype)
    return array(obj, dtype)


def _full(shape: Any, fill: Any, dtype: Any, weak: bool = False) -> Any:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    val = lax.convert_element_type(fill, _dtype(dtype or float32), weak_type=weak)
    return lax.broadcast_in_dim(val, shape, ()) if shape else val


def zeros(shape: Any, dtype: Any = None) -> Any:
    return _full(shape, 0, dtype)


def ones(shape: Any, dtype: Any = None) -> Any:
    return _full(shape, 1, dtype)


def _full_like(x: Any, fill: Any, dtype: Any) -> Any:
    aval = get_aval(x)
    return _full(aval.shape, fill, dtype or aval.dtype, dtype is None and aval.weak_type)


def zeros_like(x: Any, dtype: Any = None) -> Any:
    return _full_like(x, 0, dtype)


def ones_like(x: Any, dtype: Any = None) -> Any:
    return _full_like(x, 1, dtype)


def astype(x: Any, dtype: Any) -> Any:
    return lax.convert_element_type(x, _dtype(dtype))


# ----------------------------------------------------------------------------- shapes


def _canonical_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
        out.append(a % ndim if ndim else a)
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return tuple(out)


def reshape(x: Any, shape: Any, order: str = "C") -> Any:
    if order != "C":
        raise NotImplementedError("jnp.reshape supports order='C' only")
    shape = [shape] if isinstance(shape, int) else list(shape)
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        shape[shape.index(-1)] = get_aval(x).size // known if known else 0
    if isinstance(x, (np.ndarray, np.generic)):
        return x.reshape(shape)  # JAX forwards a NumPy value to its own method
    return lax.reshape(x, shape)


def transpose(x: Any, axes: Any = None) -> Any:
    ndim = get_aval(x).ndim
    if axes is not None and len(axes) == 1 and not isinstance(axes[0], int):
        axes = axes[0]  # x.transpose((1, 0)) passes the tuple through the method's *axes
    perm = tuple(reversed(range(ndim))) if axes is None else _canonical_axes(axes, ndim)
    return lax.transpose(x, perm)


def broadcast_to(x: Any, shape: Any) -> Any:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    xs = _shape(x)
    pad = len(shape) - len(xs)
    if pad < 0 or builtins.any(d not in (1, s) for d, s in zip(xs, shape[pad:])):
        raise ValueError(f"Incompatible shapes for broadcasting: {xs} and requested "
                         f"shape {shape}")
    if xs == shape:
        return x
    return lax.broadcast_in_dim(x, shape, range(pad, len(shape)))


def expand_dims(x: Any, axis: Any) -> Any:
    ndim = get_aval(x).ndim + (1 if isinstance(axis, int) else len(axis))
    return lax.expand_dims(x, _canonical_axes(axis, ndim))


@jit(static_argnames=("axis",), inline=True)
def squeeze(x: Any, axis: Any = None) -> Any:
    shape = _shape(x)
    if axis is None:
        return lax.squeeze(x, [i for i, d in enumerate(shape) if d == 1])
    return lax.squeeze(x, _canonical_axes(axis, len(shape)))


# ----------------------------------------------------------------------------- reductions


def _keep(out: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    return lax.expand_dims(out, axes) if keepdims else out


def _reduction(x: Any, lax_fn: Callable[[Any, tuple[int, ...]], Any], axis: Any,
               keepdims: bool, dtype: Any = None) -> Any:
    """JAX's `_reduction`: the operand is cast to the computation type first, which makes a
    weakly typed operand strong (a `convert_element_type[weak_type=False]` equation)."""
    dtype = get_aval(x).dtype if dtype is None else _dtype(dtype)
    x = lax.convert_element_type(x, dtype)
    axes = _canonical_axes(axis, get_aval(x).ndim)
    return _keep(lax_fn(x, axes), axes, keepdims)


@jit(static_argnames=("axis", "keepdims", "dtype"), inline=True)
def sum(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:  # noqa: A001
    _check_arraylike(x)
    if not _promoted((x,), _to_numeric):
        x, = _promote_dtypes(x, to=_to_numeric)  # bools are summed as int32
    return _reduction(x, lax.reduce_sum, axis, keepdims, dtype)


@jit(static_argnames=("axis", "keepdims"), inline=True)
def max(x: Any, axis: Any = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None) -> Any:
    _check_arraylike(x)
    return _reduction(x, _with_initial(lax.reduce_max, lax.max, initial), axis, keepdims)


@jit(static_argnames=("axis", "keepdims"), inline=True)
def min(x: Any, axis: Any = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None) -> Any:
    _check_arraylike(x)
    return _reduction(x, _with_initial(lax.reduce_min, lax.min, initial), axis, keepdims)


def _with_initial(reduce_fn: Callable[[Any, tuple[int, ...]], Any],
                  op: Callable[[Any, Any], Any], initial: Any
                  ) -> Callable[[Any, tuple[int, ...]], Any]:
    """JAX folds `initial` in after the reduction, cast to the operand's dtype."""
    if initial is None:
        return reduce_fn

    def reduce(x: Any, axes: tuple[int, ...]) -> Any:
        out = reduce_fn(x, axes)  # first: a traced `initial` is cast after the reduction
        return op(lax.convert_element_type(initial, get_aval(x).dtype), out)
    return reduce


@jit(static_argnames=("axis", "keepdims"), inline=True)
def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    _check_arraylike(x)
    aval = get_aval(x)
    dtype = _to_inexact(aval.dtype)
    axes = _canonical_axes(axis, aval.ndim)
    # The count goes through convert_element_type as JAX's does: folded to a literal while
    # staging, an array (a constvar) under eager constant folding.
    count = lax.convert_element_type(int(np.prod([aval.shape[a] for a in axes], dtype=np.int64)),
                                     dtype)
    return lax.div(sum(x, axes, keepdims, dtype=dtype), count)


# ----------------------------------------------------------------------------- contractions


def _dot_dtype(a: Any, b: Any) -> tuple[np.dtype, bool]:
    _check_arraylike(a, b)
    return weak_result_type(a, b)


def dot(a: Any, b: Any) -> Any:
    dtype, weak = _dot_dtype(a, b)
    a, b = _traced_together(a, b)
    na, nb = get_aval(a).ndim, get_aval(b).ndim
    if na == 0 or nb == 0:
        contract: tuple = ((), ())
    else:
        contract = ((na - 1,), (0,) if nb == 1 else (nb - 2,))
    out = lax.dot_general(a, b, (contract, ((), ())), preferred_element_type=dtype)
    return lax.convert_element_type(out, dtype, weak)


def matmul(a: Any, b: Any) -> Any:
    """Batch dimensions broadcast; size-1 ones are squeezed rather than broadcast."""
    dtype, weak = _dot_dtype(a, b)
    a, b = _traced_together(a, b)
    sa, sb = _shape(a), _shape(b)
    for i, s in enumerate((sa, sb)):
        if not s:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, "
                             f"but it has ndim 0")
    a_mat, b_mat = len(sa) > 1, len(sb) > 1
    if len(sa) <= 2 and len(sb) <= 2:
        # No batch dimensions: nothing to squeeze, and the identity permutation (what the
        # general case below comes to, without its bookkeeping).
        dims = (((len(sa) - 1,), (len(sb) - 1 - b_mat,)), ((), ()))
        out = lax.dot_general(a, b, dims, preferred_element_type=dtype)
        return lax.convert_element_type(out, dtype, weak)
    nbatch = builtins.max(len(sa) - 2 if a_mat else 0, len(sb) - 2 if b_mat else 0)
    a_bd = (None,) * (nbatch - (len(sa) - 2 if a_mat else 0)) + (sa[:-2] if a_mat else ())
    b_bd = (None,) * (nbatch - (len(sb) - 2 if b_mat else 0)) + (sb[:-2] if b_mat else ())
    a_squeeze: list[int] = []
    b_squeeze: list[int] = []
    both_squeeze: list[int] = []
    a_batch: list[int] = []
    b_batch: list[int] = []
    idx_batch: list[int] = []
    idx_a: list[int] = []
    idx_b: list[int] = []
    for i, (da, db) in enumerate(zip(a_bd, b_bd)):
        if da is None:
            idx_b.append(i)
        elif db is None:
            idx_a.append(i)
        elif da == 1 and db == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b) + len(b_squeeze))
            both_squeeze.append(i)
        elif da == 1:
            idx_b.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a) + len(a_squeeze))
        elif db == 1:
            idx_a.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b) + len(b_squeeze))
        elif da == db:
            a_batch.append(len(idx_batch) + len(idx_a))
            b_batch.append(len(idx_batch) + len(idx_b))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: "
                             f"{get_aval(a).str_short()} and {get_aval(b).str_short()}")
    if a_mat:
        idx_a.append(nbatch)
    if b_mat:
        idx_b.append(nbatch + a_mat)
    order = idx_batch + idx_a + idx_b  # distinct positions: their argsort, without NumPy's
    perm = tuple(sorted(range(len(order)), key=order.__getitem__))  # per-call overhead
    a = lax.squeeze(a, a_squeeze)
    b = lax.squeeze(b, b_squeeze)
    batch_dims = (((len(_shape(a)) - 1,), (len(_shape(b)) - 1 - b_mat,)), (a_batch, b_batch))
    out = lax.transpose(lax.dot_general(a, b, batch_dims, preferred_element_type=dtype), perm)
    return lax.convert_element_type(lax.expand_dims(out, both_squeeze), dtype, weak)


def einsum(subscripts: str, *operands: Any) -> Any:
    """One- and two-operand einsum without repeated indices, lowered as JAX lowers the one
    contraction opt_einsum plans for it (of two operands, the second taken as the left)."""
    if len(operands) == 1:
        return _einsum_one(subscripts, operands[0])
    if len(operands) != 2:
        raise NotImplementedError("einsum of three or more operands (JAX contracts them in the "
                                  "order opt_einsum plans); contract them two at a time")
    a, b = operands
    dtype, weak = _dot_dtype(a, b)
    a, b = _traced_together(a, b)
    spec = subscripts.replace(" ", "")
    ins, _, result = spec.partition("->")
    a_names, b_names = ins.split(",")
    if "->" not in spec:
        result = "".join(sorted(n for n in set(ins) - {","} if ins.count(n) == 1))
    for names, x in ((a_names, a), (b_names, b)):
        if len(set(names)) != len(names) or len(names) != len(_shape(x)):
            raise ValueError(f"einsum operand subscripts {names!r} do not match its shape "
                             f"{_shape(x)} (repeated indices are not supported)")
    contracted = sorted(set(a_names + b_names) - set(result))
    lhs, lhs_names = _einsum_squeeze(b, b_names, a, a_names)
    rhs, rhs_names = _einsum_squeeze(a, a_names, lhs, lhs_names)
    lhs, lhs_names = _einsum_sum_uniques(lhs, lhs_names, rhs_names, contracted, dtype)
    rhs, rhs_names = _einsum_sum_uniques(rhs, rhs_names, lhs_names, contracted, dtype)
    contracted = [n for n in contracted if n in lhs_names + rhs_names]
    batch = "".join(n for n in result if n in lhs_names and n in rhs_names)
    lhs_b, rhs_b = [lhs_names.index(n) for n in batch], [rhs_names.index(n) for n in batch]
    lhs_c = [lhs_names.index(n) for n in contracted]
    rhs_c = [rhs_names.index(n) for n in contracted]
    rest_l = "".join(n for n in lhs_names if n not in batch and n not in contracted)
    rest_r = "".join(n for n in rhs_names if n not in batch and n not in contracted)
    # JAX tries (rhs, lhs) first, in the hope of not needing a transpose.
    names = batch + rest_r + rest_l
    if names == result:
        out = lax.dot_general(rhs, lhs, ((rhs_c, lhs_c), (rhs_b, lhs_b)),
                              preferred_element_type=dtype)
    else:
        names = batch + rest_l + rest_r
        out = lax.dot_general(lhs, rhs, ((lhs_c, rhs_c), (lhs_b, rhs_b)),
                              preferred_element_type=dtype)
    out = lax.transpose(out, [names.index(n) for n in result])
    return lax.convert_element_type(out, dtype, weak)


def _einsum_one(subscripts: str, x: Any) -> Any:
    """Sum out the indices the result lacks, then transpose to the result's order."""
    _check_arraylike(x)
    dtype, weak = weak_result_type(x)
    spec = subscripts.replace(" ", "")
    names, _, result = spec.partition("->")
    if "->" not in spec:
        result = "".join(sorted(n for n in set(names) if names.count(n) == 1))
    if len(set(names)) != len(names) or len(names) != len(_shape(x)):
        raise ValueError(f"einsum operand subscripts {names!r} do not match its shape "
                         f"{_shape(x)} (repeated indices are not supported)")
    x, names = _einsum_sum_uniques(x, names, "", sorted(set(names) - set(result)), dtype)
    if names != result:
        x = lax.transpose(x, [names.index(n) for n in result])
    return lax.convert_element_type(x, dtype, weak)


def _einsum_squeeze(x: Any, names: str, other: Any, other_names: str) -> tuple[Any, str]:
    """Drop size-1 axes whose counterpart in the other operand is not size 1."""
    shape, other_shape = _shape(x), _shape(other)
    keep = [d != 1 or n not in other_names or other_shape[other_names.index(n)] == 1
            for n, d in zip(names, shape)]
    x = lax.squeeze(x, [i for i, k in enumerate(keep) if not k])
    return x, "".join(n for n, k in zip(names, keep) if k)


def _einsum_sum_uniques(x: Any, names: str, other_names: str, contracted: Sequence[str],
                        dtype: np.dtype) -> tuple[Any, str]:
    """Sum out contracted indices only this operand has."""
    uniques = [n for n in contracted if n in names and n not in other_names]
    if not uniques:
        return x, names
    if weak_result_type(x, np.zeros((), dtype))[0] != get_aval(x).dtype:
        x = astype(x, dtype)
    x = lax.reduce_sum(x, [names.index(n) for n in uniques])
    return x, "".join(n for n in names if n not in uniques)


pi, e, inf, nan = np.pi, np.e, np.inf, np.nan
newaxis = None
