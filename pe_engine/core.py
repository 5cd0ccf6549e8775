"""The engine's core: abstract values, the jaxpr IR, primitives, traces and evaluation.

The trace machinery follows the design of JAX's autodidax: every interpreter is a
`Trace` at some level of a stack, a value is lifted into the highest-level trace
among the arguments of an operation, and a "dynamic" trace (installed by staging)
sits underneath so that operations on plain constants are staged too (omnistaging).
"""
from __future__ import annotations

import functools
import gc
import math
import operator
import os
import sys
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import Enum
from types import FrameType
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, final

import numpy as np

from . import errors
from .caches import memo_table
from .keys import check_hash_nesting

# --------------------------------------------------------------------------- dtypes

float32 = np.dtype("float32")
int32 = np.dtype("int32")
bool_ = np.dtype("bool")

_SHORT_DTYPE = {
    "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bool": "bool", "complex64": "c64", "complex128": "c128",
}

# JAX without x64 canonicalises 64-bit types to 32-bit ones.
_CANONICAL = {
    np.dtype("float64"): float32, np.dtype("int64"): int32,
    np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64"),
}


def canonicalize_dtype(dtype: Any) -> np.dtype:
    if isinstance(dtype, np.dtype) and dtype in _CANONICAL_DTYPES:
        return dtype  # the common case, checked first: a dtype that is already canonical
    dt = np.dtype(dtype)
    if dt.kind not in "biufc":  # objects, strings, records: never array values here
        raise TypeError(f"JAX only supports number, bool, and string dtypes, got dtype {dt}")
    return _CANONICAL.get(dt, dt)


_CANONICAL_DTYPES = frozenset(map(np.dtype, ["bool", "int8", "int16", "int32", "uint8", "uint16",
                                             "uint32", "float16", "float32", "complex64"]))


_name_cache: dict[Any, str] = memo_table("core._name_cache", {})
_short_cache: dict[np.dtype, str] = memo_table("core._short_cache", {})


def dtype_name(dtype: Any) -> str:
    """np.dtype(dtype).name, remembered: numpy works it out anew each time (with issubdtype
    calls that cost a quarter of a millisecond each under Pyodide)."""
    name = _name_cache.get(dtype)
    if name is None:
        name = _name_cache[dtype] = np.dtype(dtype).name
    return name


def short_dtype(dtype: np.dtype) -> str:
    s = _short_cache.get(dtype)
    if s is None:
        name = dtype_name(dtype)
        s = _short_cache[dtype] = _SHORT_DTYPE.get(name, name)
    return s


# --------------------------------------------------------------------------- avals


class ShapedArray:
    """An abstract value: what is known of an array without holding it."""

    __slots__ = ("shape", "dtype", "weak_type", "_hash", "_short")
    array_abstraction_level = 1

    def __init__(self, shape: Sequence[int], dtype: Any, weak_type: bool = False):
        self.shape = tuple(map(int, shape))
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)
        # Avals key the abstract-evaluation cache, so they are hashed at every operation.
        self._hash = hash((self.shape, self.dtype, self.weak_type))
        self._short: str | None = None  # str_short(True), kept: the printer asks per binder
        if observed:
            observer.aval_made(self)

    ndim = property(lambda self: len(self.shape))

    @property
    def size(self) -> int:
        # math.prod: np.prod is a ufunc reduction, slow under Pyodide for a few ints; a
        # product past int64 is left to np.prod, which wraps it.
        n = math.prod(self.shape)
        return n if n < 2 ** 63 else int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return self._hash

    def str_short(self, short_dtypes: bool = False) -> str:
        if short_dtypes and self._short is not None:
            return self._short
        dt = short_dtype(self.dtype) if short_dtypes else dtype_name(self.dtype)
        s = f"{dt}[{','.join(map(str, self.shape))}]"
        if short_dtypes:
            self._short = s
        return s

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def update(self, shape: Any = None, dtype: Any = None, weak_type: Any = None) -> ShapedArray:
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def to_tangent_aval(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize


# --------------------------------------------------------------------------- observing a trace


class TraceObserver:
    """What a host embedding the engine may watch while it traces (the explainer page caps
    sizes this way). Every method is a no-op here; an observer overrides what it needs, and
    may raise to stop the trace."""

    def aval_made(self, aval: ShapedArray) -> None:
        """An abstract value was made: for an array the trace creates, or an output's."""

    def equation_staged(self) -> None:
        """An equation was added to a program being built (jit's frame or a split's recipes)."""


observer = TraceObserver()
observed = False  # a host's observer is installed (the hot paths skip the no-op calls)


_Observer = TypeVar("_Observer", bound="TraceObserver")


@contextmanager
def observing(obs: _Observer) -> Iterator[_Observer]:
    """Trace under `obs` (one at a time: the previous one is back afterwards)."""
    global observer, observed
    prev, observer, observed = observer, obs, True
    try:
        yield obs
    finally:
        observer = prev
        observed = type(prev) is not TraceObserver


# --------------------------------------------------------------------------- concrete arrays


class ArrayOps:
    """Python operators on arrays and tracers, lowered through `pe_engine.numpy`.

    The numpy module installs itself in `_jnp` at import, so this core module does
    not import it (it imports the core).
    """

    __slots__ = ()

    if TYPE_CHECKING:  # each subclass has one: a slot or a property
        @property
        def aval(self) -> ShapedArray: ...
    __array_priority__ = 1000
    _jnp: Any = None

    def __pos__(self): return self
    def __getitem__(self, idx): return self._jnp._getitem(self, idx)
    at = property(lambda self: self._jnp._IndexUpdateHelper(self))
    __hash__ = None  # type: ignore[assignment]

    def sum(self, axis=None, keepdims=False): return self._jnp.sum(self, axis, keepdims=keepdims)
    def max(self, axis=None, keepdims=False): return self._jnp.max(self, axis, keepdims=keepdims)
    def min(self, axis=None, keepdims=False): return self._jnp.min(self, axis, keepdims=keepdims)
    def mean(self, axis=None, keepdims=False): return self._jnp.mean(self, axis, keepdims=keepdims)
    def dot(self, o): return self._jnp.dot(self, o)
    def reshape(self, *shape, order="C"):
        return self._jnp.reshape(self, shape[0] if len(shape) == 1 else shape)
    def transpose(self, *axes): return self._jnp.transpose(self, axes or None)
    def squeeze(self, axis=None): return self._jnp.squeeze(self, axis)
    def astype(self, dtype): return self._jnp.astype(self, dtype)
    def prod(self, axis=None, keepdims=False): return self._jnp.prod(self, axis, keepdims=keepdims)
    def var(self, axis=None, ddof=0, keepdims=False):
        return self._jnp.var(self, axis, ddof=ddof, keepdims=keepdims)
    def std(self, axis=None, ddof=0, keepdims=False):
        return self._jnp.std(self, axis, ddof=ddof, keepdims=keepdims)
    def argmax(self, axis=None, keepdims=False): return self._jnp.argmax(self, axis, keepdims)
    def argmin(self, axis=None, keepdims=False): return self._jnp.argmin(self, axis, keepdims)
    def cumsum(self, axis=None): return self._jnp.cumsum(self, axis)
    def cumprod(self, axis=None): return self._jnp.cumprod(self, axis)
    def all(self, axis=None, keepdims=False): return self._jnp.all(self, axis, keepdims)
    def any(self, axis=None, keepdims=False): return self._jnp.any(self, axis, keepdims)
    def ptp(self, axis=None, keepdims=False): return self._jnp.ptp(self, axis, keepdims)
    def conj(self): return self._jnp.conjugate(self)
    conjugate = conj
    real = property(lambda self: self._jnp.real(self))
    imag = property(lambda self: self._jnp.imag(self))
    def clip(self, min=None, max=None): return self._jnp.clip(self, min=min, max=max)  # noqa: A002
    def round(self, decimals=0): return self._jnp.round(self, decimals)
    def ravel(self): return self._jnp.ravel(self)
    flatten = ravel
    T = property(lambda self: self._jnp.transpose(self))
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: self.aval.size)

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def __iter__(self):
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.aval.shape[0]))


# Python's operators on arrays, each a jnp function (the table installs them on ArrayOps).
# A binary operator answers reflected too: `2 * x` is `x.__rmul__(2)`, multiply(2, x).
_UNARY_OPERATORS = {"neg": "negative", "abs": "abs", "invert": "invert"}
_BINARY_OPERATORS = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "truediv": "true_divide",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "power",
    "matmul": "matmul",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "left_shift",
    "rshift": "right_shift",
}
# Comparisons have no reflected form: Python reflects `2 < x` to `x > 2` itself.
_COMPARISONS = {
    "gt": "greater",
    "lt": "less",
    "ge": "greater_equal",
    "le": "less_equal",
    "eq": "equal",
    "ne": "not_equal",
}


def _operator(fn: str, arity: int, reflected: bool = False) -> Callable[..., Any]:
    if arity == 1:
        return lambda self: getattr(self._jnp, fn)(self)
    if reflected:
        return lambda self, o: getattr(self._jnp, fn)(o, self)
    return lambda self, o: getattr(self._jnp, fn)(self, o)


def _install_operators() -> None:
    for name, fn in _UNARY_OPERATORS.items():
        setattr(ArrayOps, f"__{name}__", _operator(fn, 1))
    for name, fn in _BINARY_OPERATORS.items():
        setattr(ArrayOps, f"__{name}__", _operator(fn, 2))
        setattr(ArrayOps, f"__r{name}__", _operator(fn, 2, reflected=True))
    for name, fn in _COMPARISONS.items():
        setattr(ArrayOps, f"__{name}__", _operator(fn, 2))


_install_operators()

class Array(ArrayOps):
    """A concrete array held now: a numpy value and JAX's weak-type bit."""

    __slots__ = ("val", "weak_type", "_aval")

    def __init__(self, val: Any, weak_type: bool = False):
        self.val = np.asarray(val)
        self.weak_type = weak_type
        self._aval: ShapedArray | None = None

    @property
    def aval(self) -> ShapedArray:
        # Made once: an Array's shape and dtype never change, and evaluation asks each
        # operand for its aval.
        aval = self._aval
        if aval is None:
            aval = self._aval = ShapedArray(self.val.shape, self.val.dtype, self.weak_type)
        elif observed:  # a remembered aval is made again, as far as an observer knows
            observer.aval_made(aval)
        return aval

    shape = property(lambda self: self.val.shape)
    dtype = property(lambda self: self.val.dtype)

    def __array__(self, dtype=None, copy=None):
        return self.val if dtype is None else self.val.astype(dtype)

    def __repr__(self) -> str:
        body = np.array2string(self.val, separator=", ")
        weak = ", weak_type=True" if self.weak_type else ""
        return f"Array({body}, dtype={self.val.dtype.name}{weak})"

    def __float__(self): return float(self.val)
    def __int__(self): return int(self.val)
    def __bool__(self): return bool(self.val)
    def __index__(self): return int(self.val)
    def item(self): return self.val.item()
    def tolist(self): return self.val.tolist()


def as_array(x: Any, aval: ShapedArray | None = None) -> Any:
    """A value as a jit's dispatch returns it: an Array, of type `aval` (by default its own: a
    Python scalar keeps its weak type, a NumPy value takes its canonical dtype); a tracer
    stays itself."""
    if isinstance(x, Tracer) or (isinstance(x, Array) and aval in (None, x.aval)):
        return x
    aval = aval or get_aval(x)
    return Array(np.asarray(x, aval.dtype), aval.weak_type)


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of a tracer, an Array or a Python/NumPy value."""
    if isinstance(x, (Tracer, Array)):
        return x.aval
    aval = _PYTHON_SCALAR_AVALS.get(type(x))
    if aval is not None:
        return aval
    if isinstance(x, (np.ndarray, np.generic)):
        # Arguments of one shape and dtype come again and again: their aval is made once.
        key = (x.shape, x.dtype)
        aval = _ndarray_avals.get(key)
        if aval is None:
            aval = ShapedArray(x.shape, canonicalize_dtype(x.dtype))
            if len(_ndarray_avals) > 4096:
                _ndarray_avals.clear()
            _ndarray_avals[key] = aval
        elif observed:  # a remembered aval is made again, as far as an observer knows
            observer.aval_made(aval)
        return aval
    raise TypeError(f"Value {errors.value_repr(x)} of type {type(x).__name__} is not a valid "
                    "JAX type")


# (shape, NumPy dtype) -> aval
_ndarray_avals: dict[tuple, ShapedArray] = memo_table("core._ndarray_avals", {})


# Python scalars are weakly typed (avals are never mutated, so one of each type serves).
_PYTHON_SCALAR_AVALS = {
    bool: ShapedArray((), bool_),  # bool comes in one width: JAX never makes it weak
    int: ShapedArray((), int32, weak_type=True),
    float: ShapedArray((), float32, weak_type=True),
    complex: ShapedArray((), np.dtype("complex64"), weak_type=True),
}


def to_numpy(x: Any) -> np.ndarray:
    """The numpy value of a concrete input, canonicalised as JAX would store it."""
    if isinstance(x, Array):
        return x.val
    aval = get_aval(x)
    return np.asarray(x, dtype=aval.dtype)


_PYTHON_SCALAR = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_WEAK_DEFAULTS = {bool_, int32, float32, np.dtype("complex64")}


def scalar_constant(value: Any, dtype: Any, weak_type: bool) -> Any:
    """A rank-0 constant as JAX folds one: a Python scalar when weakly typed (it keeps its
    weak type, and a Python float its double value, as JAX's literal does), otherwise a 0-d
    NumPy array of `dtype` (a float64 value rounded to float32, as JAX prints it)."""
    dtype = np.dtype(dtype)
    if weak_type and dtype in _WEAK_DEFAULTS:
        return _PYTHON_SCALAR[dtype.kind](value)
    return np.asarray(value).astype(dtype)


def is_literalable(x: Any) -> bool:
    """Python and NumPy scalars and 0-d NumPy arrays are inlined; Arrays are not."""
    if type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
        return True
    return isinstance(x, np.ndarray) and x.ndim == 0


# --------------------------------------------------------------------------- the jaxpr IR


class Var:
    """A variable is only an abstract value; its printed name is the printer's choice."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """An equation output nothing reads."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_"


@final  # so that `type(a) is Literal` tells a Literal from a Var, for mypy as at runtime
class Literal:
    """A constant inlined into an equation: the atom is the value itself."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray):
        # A NumPy value enters at its canonical type (np.float64(2.1) is a float32 literal,
        # printed 2.0999999046325684 as JAX prints it); a Python scalar keeps its value.
        if isinstance(val, (np.ndarray, np.generic)) and val.dtype != aval.dtype:
            val = np.asarray(val, aval.dtype)
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        return f"Literal({self.val})"


Atom = Var | Literal


class SourceInfo(NamedTuple):
    """Where, in the user's code, an operation was issued. One object per equation (the
    explainer tells equations apart by it); a NamedTuple, as JAX's is, being quick to make."""

    filename: str
    lineno: int
    function: str
    column: int = 0  # of the expression that issued it

    def summarize(self) -> str:
        """As JAX's source_info_util summarizes a frame (the column when there is one)."""
        col = f":{self.column}" if self.column else ""
        return f"{self.filename}:{self.lineno}{col} ({self.function})"


NO_SOURCE = SourceInfo("", 0, "")


no_effects: frozenset = frozenset()  # JAX's name: the effects of a pure equation


class JaxprEqn(NamedTuple):
    invars: list[Atom]
    outvars: list[Var]
    primitive: Primitive
    params: dict[str, Any]
    effects: frozenset = frozenset()
    source_info: SourceInfo = NO_SOURCE

    def replace(self, **kw: Any) -> JaxprEqn:
        return self._replace(**kw)

    def __repr__(self) -> str:
        from .pretty import pp_eqn_text
        return pp_eqn_text(self)


class Jaxpr:
    __slots__ = ("constvars", "invars", "outvars", "eqns", "effects", "__weakref__")

    def __init__(self, constvars: Sequence[Var], invars: Sequence[Var],
                 outvars: Sequence[Atom], eqns: Sequence[JaxprEqn],
                 effects: frozenset = frozenset()):
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.effects = effects

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.outvars]

    def replace(self, **kw: Any) -> Jaxpr:
        fields = {k: getattr(self, k) for k in self.__slots__ if k != "__weakref__"}
        fields.update(kw)
        return Jaxpr(**fields)

    def __str__(self) -> str:
        from .pretty import pp_jaxpr_text
        return pp_jaxpr_text(self)

    __repr__ = __str__

    def pretty_print(self, **_: Any) -> str:
        return str(self)


class ClosedJaxpr:
    """A jaxpr with its constvars' values."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
        assert len(consts) == len(jaxpr.constvars)
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)
    effects = property(lambda self: self.jaxpr.effects)

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__

    def pretty_print(self, **_: Any) -> str:
        return str(self.jaxpr)


def weakref_lru_cache(fn: Callable[..., Any]) -> Callable[..., Any]:
    """JAX's cache of a transformation of a jaxpr: keyed weakly on the jaxpr (its first
    argument) and on the other, hashable arguments. Transforming the same jaxpr twice gives
    the same result object, which is why a jit called twice prints once (`let ... in`)
    after JVP, partial evaluation and transposition too. A result often holds its own jaxpr
    alive (a closed jaxpr holds its jaxpr), so a table keeps what it has seen until it is
    full, or until a host empties the engine's memo tables (caches.forget)."""
    table: weakref.WeakKeyDictionary = memo_table(f"{fn.__module__}.{fn.__qualname__}",
                                                  weakref.WeakKeyDictionary())

    @functools.wraps(fn)
    def cached(jaxpr: Any, *args: Any) -> Any:
        key = (*args, config.values["eager_constant_folding"])
        if jaxpr not in table and len(table) > 4096:
            table.clear()  # bounded, as JAX's LRU is: a result may hold its own jaxpr alive
        per_jaxpr = table.setdefault(jaxpr, {})
        if key not in per_jaxpr:
            per_jaxpr[key] = fn(jaxpr, *args)
        return per_jaxpr[key]

    return cached


# --------------------------------------------------------------------------- primitives

# Rule tables keyed by primitive.  Adding a primitive means adding entries here
# (and in the transformation modules' tables), never editing a trace.
impl_rules: dict[Primitive, Callable[..., Any]] = {}
abstract_eval_rules: dict[Primitive, Callable[..., Any]] = {}


class Primitive:
    __slots__ = ("name", "multiple_results")

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: Any, **params: Any) -> Any:
        return bind(self, *args, **params)

    def impl(self, *args: Any, **params: Any) -> Any:
        return impl_rules[self](*args, **params)

    def abstract_eval(self, *avals: ShapedArray, **params: Any) -> tuple[Any, frozenset]:
        """JAX's convention: (out aval or list of out avals, effects)."""
        return abstract_eval_rules[self](*avals, **params), frozenset()

    def out_avals(self, avals: Sequence[ShapedArray], params: dict) -> tuple[ShapedArray, ...]:
        # Traces meet the same (primitive, avals, params) over and over; abstract
        # evaluation is pure, so its answers are remembered (a bounded table), as tuples
        # that callers share. Only for params of plain data: a key holding a jaxpr or a
        # function (a call's params) would keep it, and all it reaches, alive in the table,
        # though no later request can meet that object again (a page session's worker grew
        # by some 560 objects per checkpoint answer, and Python's full collections over
        # them paused answers for up to 180 ms).
        # A hit needs no walk over the params: only plain keys are ever stored. A tuple is
        # checked before it is hashed (a user's shape nested a million deep would crash it).
        for v in params.values():
            if type(v) is tuple:
                for x in v:  # a flat tuple (a shape, axes) at the cost of one loop
                    if type(x) is tuple or type(x) is slice:
                        check_hash_nesting(v)
                        break
        full = (self, *avals, *params.items())
        key: tuple | None = full
        try:
            out = _out_avals_cache.get(full)
        except TypeError:  # an unhashable param (a list, an array): never remembered
            key = out = None
        if out is None:
            out = abstract_eval_rules[self](*avals, **params)
            out = tuple(out) if self.multiple_results else (out,)
            if key is not None and all(map(_plain, params.values())):
                if len(_out_avals_cache) > 20_000:
                    _out_avals_cache.clear()
                _out_avals_cache[key] = out
        elif observed:
            for a in out:  # remembered avals are made again, as far as an observer knows
                observer.aval_made(a)
        return out


_out_avals_cache: dict[tuple, tuple[ShapedArray, ...]] = memo_table("core._out_avals_cache", {})
_PLAIN = (bool, int, float, complex, str, type(None), type, np.dtype, np.generic, Enum)


def _plain(value: Any) -> bool:
    """Whether a param is plain data (kept in a key, it keeps nothing else alive)."""
    if isinstance(value, tuple):
        return all(map(_plain, value))
    return isinstance(value, _PLAIN)


# --------------------------------------------------------------------------- configuration


class _Config:
    """`jax.config`: the flags this engine models."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {"eager_constant_folding": False,
                                       "jax_enable_checks": False,
                                       "jax_enable_x64": False}

    def update(self, name: str, value: Any) -> None:
        if name not in self.values:
            raise ValueError(f"Unrecognized config option: {name}")
        if name == "jax_enable_x64" and value:
            raise ValueError("This engine models JAX without x64: jax_enable_x64 must stay False")
        self.values[name] = value

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None


config = _Config()


@contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Evaluate operations on constants eagerly even while staging, as JAX does."""
    prev = config.values["eager_constant_folding"]
    config.values["eager_constant_folding"] = True
    try:
        yield
    finally:
        config.values["eager_constant_folding"] = prev


# --------------------------------------------------------------------------- source lines

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


# While a jaxpr is re-interpreted, the equation being replayed lends its source line
# to whatever the interpretation stages, as JAX's source_info user_context does. The
# equations being replayed, outermost first: an observer reads them to know where it is.
_replaying: list[JaxprEqn] = []


def replaying() -> list[JaxprEqn]:
    """The equations being replayed right now, outermost first (a call's rule replays its
    inner program inside its own equation's replay)."""
    return _replaying


def user_source_info(skip: int = 2) -> SourceInfo:
    """The innermost frame outside the engine: the line of user code that issued the op.
    `skip`: how many frames, from this one out, are known to be the engine's (this function
    and its caller, by default); they are passed over without a look."""
    if _replaying:
        return _replaying[-1].source_info
    f: FrameType | None = sys._getframe(skip)
    while f is not None:
        code = f.f_code
        if id(code) in _engine_code:  # the engine's own frames, skipped at one lookup each
            f = f.f_back
            continue
        known = _code_info.get(id(code))
        if known is None or known.code is not code:
            # user code objects come and go with each run, and each entry keeps its code
            # alive: a few hundred cover a request's lookups
            if len(_code_info) > 500:
                _code_info.clear()
            known = _code_info[id(code)] = _CodeInfo(code)
            if known.internal and code.co_filename.startswith(_PKG_DIR):
                _engine_code.add(id(code))  # the engine's code lives as long as the process
        if not known.internal:
            info = known.lines.get(f.f_lasti)
            if info is None:
                info = known.lines[f.f_lasti] = known.source_info(f)
            return SourceInfo._make(info)
        f = f.f_back
    return NO_SOURCE


class _CodeInfo:
    """What user_source_info knows of a code object: is it the engine's (or contextlib's),
    and the SourceInfo of each instruction that issued an operation (a loop issuing one a
    thousand times looks it up once). The table is keyed by the code's id, the entry holding
    the code alive: hashing a code object hashes its whole contents, at every lookup."""

    __slots__ = ("code", "internal", "lines", "positions")

    def __init__(self, code: Any):
        self.code = code
        fn = code.co_filename
        self.internal = fn.startswith(_PKG_DIR) or "contextlib" in fn
        self.lines: dict[int, SourceInfo] = {}
        self.positions: list | None = None  # per instruction (line, end, col, end col)

    def source_info(self, frame: Any) -> SourceInfo:
        code = self.code
        if self.positions is None:
            self.positions = list(code.co_positions())
        line, _, col, _ = self.positions[frame.f_lasti // 2]
        return SourceInfo(code.co_filename, line or frame.f_lineno, code.co_name, col or 0)


_code_info: dict[int, _CodeInfo] = memo_table("core._code_info", {})
_engine_code: set[int] = set()  # ids of the engine's code objects, never reused


# --------------------------------------------------------------------------- traces


class MainTrace(NamedTuple):
    level: int
    trace_type: type
    global_data: Any


trace_stack: list[MainTrace] = []
dynamic_trace: MainTrace | None = None


# The context managers below are classes, not @contextmanager generators: every trace, and
# every transformation inside one, enters them, and a generator costs several times more.


class gc_paused:  # noqa: N801 - a context manager
    """Tracing and printing allocate many small objects without reference cycles
    (unused tracers die by refcount, which auto-DCE relies on), so the cyclic
    collector only costs time there, growing with the heap: pause it meanwhile."""

    __slots__ = ("was",)

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: Any) -> None:
        if self.was:
            gc.enable()


class new_main:  # noqa: N801 - a context manager, as JAX's is
    """A new MainTrace on top of the trace stack for a while (the collector paused)."""

    __slots__ = ("main", "gc")

    def __init__(self, trace_type: type, global_data: Any = None):
        self.main = MainTrace(len(trace_stack), trace_type, global_data)
        self.gc = gc_paused()

    def __enter__(self) -> MainTrace:
        self.gc.__enter__()
        trace_stack.append(self.main)
        return self.main

    def __exit__(self, *exc: Any) -> None:
        trace_stack.pop()
        self.gc.__exit__()


class new_dynamic_main(new_main):  # noqa: N801
    """A staging trace that also captures operations on constants (omnistaging)."""

    __slots__ = ("prev",)

    def __enter__(self) -> MainTrace:
        global dynamic_trace
        main = super().__enter__()
        self.prev, dynamic_trace = dynamic_trace, main
        return main

    def __exit__(self, *exc: Any) -> None:
        global dynamic_trace
        dynamic_trace = self.prev
        super().__exit__()


class current_dynamic_trace:  # noqa: N801 - used as the context manager it is
    """Make `main` the trace that operations on non-tracers go to, for a while (a partial
    evaluator's rule binds its known work at its parent trace, as JAX's does). A class, not
    a @contextmanager generator: the partial evaluator enters one per operation."""

    __slots__ = ("main", "prev")

    def __init__(self, main: MainTrace | None):
        self.main = main

    def __enter__(self) -> None:
        global dynamic_trace
        self.prev, dynamic_trace = dynamic_trace, self.main

    def __exit__(self, *exc: Any) -> None:
        global dynamic_trace
        dynamic_trace = self.prev


class Trace:
    __slots__ = ("main",)

    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, val: Any) -> Any:
        raise NotImplementedError

    lift = pure

    def full_raise(self, val: Any) -> Any:
        if not isinstance(val, Tracer):
            return self.pure(val)
        if val._trace.main is self.main:
            return val
        level = self.main.level
        if val._trace.main.level < level:
            return self.lift(val)
        if val._trace.main.level > level:
            raise Exception(f"Can't lift level {val._trace.main.level} to {level}: "
                            "a tracer escaped from an inner transformation")
        raise Exception(f"Different traces at the same level: {val._trace}, {self}")

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        raise NotImplementedError


class Tracer(ArrayOps):
    __slots__ = ("_trace",)
    _trace: Trace

    def full_lower(self) -> Any:
        return self

    def to_concrete_value(self) -> Any:
        """The value this tracer stands for, where it is held now (known), else None."""
        return None

    # Python control flow needs a concrete value: a held one decides it (JAX's
    # `is_concrete`), otherwise JAX's error, worded as JAX words it.

    def note_decision(self, kind: str, value: Any) -> None:
        """Python read this tracer's held value: control flow decided by it (`bool`, `int`,
        `index`) or a conversion (`float`, `array`). A trace that logs such decisions (for
        the explainer) hears of it here."""

    def __bool__(self) -> bool:
        c = self.to_concrete_value()
        if c is not None:
            self.note_decision("bool", bool(c))
            return bool(c)
        if self.aval.size != 1:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > "
                             "0` to check that an array is not empty." if not self.aval.size else
                             "The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        raise errors.TracerBoolConversionError(self)

    def __int__(self) -> int:
        c = self.to_concrete_value()
        if c is not None:
            self.note_decision("int", int(c))
            return int(c)
        self._check_scalar()
        raise errors.ConcretizationTypeError(self, errors.conversion_context(int))

    def __float__(self) -> float:
        self._check_scalar()
        raise errors.ConcretizationTypeError(self, errors.conversion_context(float))

    def __index__(self) -> int:
        c = self.to_concrete_value()
        if c is not None:
            self.note_decision("index", operator.index(c))
            return operator.index(c)
        if self.aval.shape or self.aval.dtype.kind not in "iu":
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        raise errors.TracerIntegerConversionError(self)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise errors.TracerArrayConversionError(self)

    def _check_scalar(self) -> None:
        if self.aval.ndim:
            raise TypeError("Only scalar arrays can be converted to Python scalars; got "
                            f"arr.ndim={self.aval.ndim}")

    def _error_repr(self) -> str:
        return f"traced array with shape {self.aval.str_short()}"

    def _origin_msg(self) -> str:
        return ""

    def __repr__(self) -> str:
        return f"Traced<{self.aval}>with<{type(self._trace).__name__}>"


class EvalTrace(Trace):
    """The bottom of the stack: run the primitive on numpy now."""

    __slots__ = ()

    def pure(self, val: Any) -> Any:
        return val

    lift = pure

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        return _impl_outs(primitive, tracers, params)


def _impl_outs(primitive: Primitive, args: Sequence[Any], params: dict) -> list:
    """The primitive run now on numpy, its outputs as a list."""
    out = impl_rules[primitive](*args, **params)
    return out if primitive.multiple_results else [out]


trace_stack.append(MainTrace(0, EvalTrace, None))


def find_top_trace(xs: Sequence[Any]) -> Trace:
    top, top_trace = trace_stack[0], None
    for x in xs:
        if isinstance(x, Tracer):
            t = x._trace
            if t.main.level > top.level:
                top, top_trace = t.main, t
    if dynamic_trace is not None and dynamic_trace.level > top.level:
        # Under eager constant folding an operation on values alone (no tracer among its
        # inputs) runs now and returns an array, as JAX's does.
        if top.level or not config.values["eager_constant_folding"]:
            top, top_trace = dynamic_trace, None
    # A trace holds nothing but its main: the top tracer's own trace serves, and a new one
    # is made only when no tracer is at the top level.
    return top_trace if top_trace is not None else top.trace_type(top)


def full_lower(val: Any) -> Any:
    return val.full_lower() if isinstance(val, Tracer) else val


def bind(primitive: Primitive, *args: Any, **params: Any) -> Any:
    trace = find_top_trace(args)
    tracers = [trace.full_raise(a) for a in args]
    return _lowered(primitive, trace.process_primitive(primitive, tracers, params))


def _lowered(primitive: Primitive, outs: list) -> Any:
    """A primitive's outputs as bind returns them: each lowered out of a trace with nothing to
    add, one value unless the primitive has several results."""
    if primitive.multiple_results:
        return [full_lower(o) for o in outs]
    out = outs[0]
    return out.full_lower() if isinstance(out, Tracer) else out


# --------------------------------------------------------------------------- evaluation


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any,
               env: dict[Var, Any] | None = None) -> list[Any]:
    """Interpret a jaxpr by binding each equation's primitive under the current traces.

    Pass `env` to keep every variable's value (the explainer shows them).
    """
    if env is None:
        env = {}

    def read(a: Atom) -> Any:
        return a.val if type(a) is Literal else env[a]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        _replaying.append(eqn)
        try:
            ins = [read(a) for a in eqn.invars]
            if len(trace_stack) == 1 and dynamic_trace is None and not any(
                    isinstance(x, Tracer) for x in ins):
                # nothing traces: bind's answer, without finding the eval trace and raising
                # each argument to it (most of an equation's cost under Pyodide beside numpy's)
                outs = _lowered(eqn.primitive, _impl_outs(eqn.primitive, ins, eqn.params))
            else:
                outs = bind(eqn.primitive, *ins, **eqn.params)
        finally:
            _replaying.pop()
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, x in zip(eqn.outvars, outs, strict=True):
            if type(v) is not DropVar:
                env[v] = x
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)
    return fun


# --------------------------------------------------------------------------- small list helpers


def split_list(xs: Sequence[Any], sizes: Sequence[int]) -> list[list[Any]]:
    out, i = [], 0
    for n in sizes:
        out.append(list(xs[i:i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


def partition_list(flags: Sequence[bool], xs: Sequence[Any]) -> tuple[list, list]:
    """(those with a False flag, those with a True flag), order kept."""
    a: list[Any] = []
    b: list[Any] = []
    for f, x in zip(flags, xs, strict=True):
        (b if f else a).append(x)
    return a, b


def subs_list(subs: Sequence[int | None], src: Sequence[Any], base: Sequence[Any]) -> list[Any]:
    """Per position, src[i] where subs gives an index i, else the next of `base`."""
    it = iter(base)
    out = [src[i] if i is not None else next(it) for i in subs]
    assert next(it, None) is None
    return out


def merge_lists(flags: Sequence[bool], falses: Sequence[Any], trues: Sequence[Any]) -> list[Any]:
    it_f, it_t = iter(falses), iter(trues)
    out = [next(it_t) if f else next(it_f) for f in flags]
    assert next(it_f, None) is None and next(it_t, None) is None
    return out

