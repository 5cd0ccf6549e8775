"""The run-time guards the rewrite puts into user code (rewrite.py), and their state.

Attribute reads go through an allowlist keyed by type: an object of a type not in the
table has no attribute user code can read. That is what keeps every walk from an engine
value, a facade or a builtin away from modules, frames, globals and raw memory, whatever
the names involved (no denylist of dunders to keep up to date).
"""
from __future__ import annotations

import builtins
import functools
import operator
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import Array, ArrayOps, ShapedArray
from ..custom_derivatives import custom_jvp
from ..custom_vjp import custom_vjp
from ..eval_shape import ShapeDtypeStruct
from ..indexing import IndexUpdateRef
from ..tree_util import DictKey, PyTreeDef, SequenceKey
from .facades import ConfigView, Facade
from .limits import (
    MAX_FORMAT_WIDTH,
    MAX_INT_BITS,
    MAX_PRINT_NESTING,
    MAX_SEQUENCE_ITEMS,
    MAX_USER_CALL_DEPTH,
)
from .numpy_facade import LimitedArray, Rng


class SandboxAttributeError(AttributeError):
    """User code read an attribute the page's Python does not expose."""


class LimitError(ArithmeticError):
    """One step of user code would compute a value over the page's limits."""


class NestingError(RecursionError):
    """User code nested calls or containers deeper than the wasm stack allows."""


def _public(cls: type) -> frozenset[str]:
    return frozenset(n for n in vars(cls) if not n.startswith("_"))


# The padding methods allocate what their argument says, in C: left out.
_STR_METHODS = _public(str) - {"format", "format_map", "maketrans", "ljust", "rjust",
                               "center", "zfill", "expandtabs"}
# Engine arrays and tracers: the JAX array API ArrayOps defines, plus what JAX arrays carry.
_ARRAY_ATTRS = _public(ArrayOps) | {"aval", "item", "tolist", "weak_type"}

ATTRIBUTES: dict[type, frozenset[str]] = {
    ArrayOps: _ARRAY_ATTRS,
    Array: _ARRAY_ATTRS,
    ShapedArray: frozenset({"shape", "dtype", "ndim", "size", "weak_type"}),
    IndexUpdateRef: _public(IndexUpdateRef),  # x.at[i].set(...) and the other updates
    custom_jvp: frozenset({"defjvp", "defjvps"}),
    custom_vjp: frozenset({"defvjp"}),
    ShapeDtypeStruct: frozenset({"shape", "dtype", "ndim", "size", "weak_type"}),
    PyTreeDef: frozenset({"num_leaves", "unflatten", "flatten_up_to"}),
    DictKey: frozenset({"key"}),
    SequenceKey: frozenset({"idx"}),
    LimitedArray: frozenset({
        "shape", "dtype", "ndim", "size", "T", "reshape", "astype", "sum", "mean", "max",
        "min", "prod", "std", "var", "argmax", "argmin", "cumsum", "clip", "round", "any",
        "all", "item", "tolist", "transpose", "squeeze", "flatten", "ravel", "copy", "dot",
        "real", "imag", "conj", "nbytes", "itemsize"}),
    np.generic: frozenset({"dtype", "shape", "ndim", "size", "item", "tolist", "astype",
                           "real", "imag", "conj", "T"}),
    np.dtype: frozenset({"name", "itemsize", "kind"}),
    np.finfo: frozenset({"eps", "max", "min", "tiny", "bits", "resolution",
                         "smallest_normal", "dtype"}),
    np.iinfo: frozenset({"max", "min", "bits", "dtype"}),
    Rng: _public(Rng),
    ConfigView: ConfigView.attributes(),
    int: frozenset({"real", "imag", "conjugate", "bit_length", "numerator", "denominator"}),
    float: frozenset({"real", "imag", "conjugate", "is_integer"}),
    complex: frozenset({"real", "imag", "conjugate"}),
    str: _STR_METHODS,
    list: _public(list),
    tuple: _public(tuple),
    dict: _public(dict) - {"fromkeys"},
    set: _public(set),
    frozenset: _public(frozenset),
    range: frozenset({"start", "stop", "step", "index", "count"}),
    slice: frozenset({"start", "stop", "step", "indices"}),
    BaseException: frozenset({"args"}),
}
_by_type: dict[type, frozenset[str]] = {}


def allowed_attributes(tp: type) -> frozenset[str]:
    """What user code may read on an object of this type (nothing, for unlisted types)."""
    found = _by_type.get(tp)
    if found is None:
        found = frozenset().union(*(ATTRIBUTES[k] for k in tp.__mro__ if k in ATTRIBUTES))
        _by_type[tp] = found
    return found


def guarded_getattr(obj: Any, name: str) -> Any:
    if type(obj) is Facade:
        return obj.lookup(name)
    if name in allowed_attributes(type(obj)):
        return getattr(obj, name)
    what = type(obj).__name__
    if isinstance(obj, type):
        raise SandboxAttributeError(f"attributes of the class '{obj.__name__}' are not "
                                    "available in this page's Python")
    raise SandboxAttributeError(f"'{what}' object has no attribute '{name}' in this page's "
                                "Python")


# --------------------------------------------------------------------------- arithmetic


def _too_big(what: str) -> LimitError:
    return LimitError(f"{what} is over the page's limit of {MAX_INT_BITS} bits")


def guarded_pow(a: Any, b: Any, mod: Any = None) -> Any:
    if mod is not None:
        return builtins.pow(a, b, mod)  # modular: fast whatever the sizes
    if type(a) in (int, bool) and type(b) in (int, bool) and b > 0 and abs(a) > 1 \
            and b * a.bit_length() > MAX_INT_BITS:
        raise _too_big(f"{a} ** {b}")
    return a ** b


def guarded_lshift(a: Any, b: Any) -> Any:
    if type(a) in (int, bool) and type(b) in (int, bool) and a and b > 0 \
            and a.bit_length() + b > MAX_INT_BITS:
        raise _too_big(f"{a} << {b}")
    return a << b


_SEQUENCES = (str, bytes, list, tuple)


def _count(n: Any) -> int | None:
    try:
        return operator.index(n)
    except TypeError:
        return None


def guarded_mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if a.bit_length() + b.bit_length() > MAX_INT_BITS:
            raise _too_big("the product")
    elif isinstance(a, _SEQUENCES) or isinstance(b, _SEQUENCES):
        seq, n = (a, _count(b)) if isinstance(a, _SEQUENCES) else (b, _count(a))
        if n is not None and len(seq) * n > MAX_SEQUENCE_ITEMS:
            raise LimitError(f"repeating a {type(seq).__name__} of {len(seq)} items {n} times "
                             f"is over the page's limit of {MAX_SEQUENCE_ITEMS} items")
    return a * b


# --------------------------------------------------------------------------- calls, printing


class _Depth:
    calls = 0


def guard_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a user function so that nested user calls stop at MAX_USER_CALL_DEPTH."""
    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if _Depth.calls >= MAX_USER_CALL_DEPTH:
            raise NestingError(f"maximum recursion depth exceeded ({MAX_USER_CALL_DEPTH} "
                               "nested calls of your functions: does one call itself without "
                               "end?)")
        _Depth.calls += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _Depth.calls -= 1
    return guarded


_CONTAINERS = (list, tuple, dict, set, frozenset)


def check_nesting(value: Any) -> Any:
    """`value` itself, once sure that formatting it will not recurse too deeply in C."""
    if not isinstance(value, _CONTAINERS):
        return value
    seen: set[int] = set()
    stack = [(value, 1)]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if depth > MAX_PRINT_NESTING:
            raise NestingError(f"a value nested more than {MAX_PRINT_NESTING} deep cannot be "
                               "printed here")
        items = obj.items() if isinstance(obj, dict) else obj
        for item in items:
            for x in (item if isinstance(obj, dict) else (item,)):
                if isinstance(x, _CONTAINERS):
                    stack.append((x, depth + 1))
    return value


_WIDTHS = re.compile(r"\d+")
_PRINTF_FIELDS = re.compile(r"%[-#0 +(\w)]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_widths(spec: str, where: str) -> None:
    for w in _WIDTHS.findall(spec):
        if len(w) > 5 or int(w) > MAX_FORMAT_WIDTH:
            raise LimitError(f"{where}: a width of {w} is over the page's limit of "
                             f"{MAX_FORMAT_WIDTH}")


def guarded_format_field(value: Any, conversion: int, spec: str) -> str:
    """One f-string field: `{value!conversion:spec}`."""
    check_nesting(value)
    _check_widths(spec, "an f-string")
    if conversion == ord("r"):
        value = repr(value)
    elif conversion == ord("s"):
        value = str(value)
    elif conversion == ord("a"):
        value = ascii(value)
    return format(value, spec)


def guarded_mod(a: Any, b: Any) -> Any:
    if isinstance(a, str):
        check_nesting(b)
        if "*" in a:
            raise LimitError("'%*d'-style widths are not supported here")
        for m in _PRINTF_FIELDS.finditer(a):
            _check_widths(m.group(0), "a % format")
    return a % b


def guarded_repr(value: Any) -> str:
    return repr(check_nesting(value))


def guarded_str(value: Any = "", *args: Any) -> str:
    return str(check_nesting(value), *args)


def guarded_print(*values: Any, **_: Any) -> None:
    """print: the text goes nowhere (the worker has no console for the reader), but what
    would be printed is formatted as Python would, so its errors still surface."""
    for v in values:
        str(check_nesting(v))


def reset() -> None:
    """A request starts with no user call in progress."""
    _Depth.calls = 0


GUARDS: dict[str, Any] = {
    "__pe_getattr__": guarded_getattr,
    "__pe_pow__": guarded_pow,
    "__pe_lshift__": guarded_lshift,
    "__pe_mul__": guarded_mul,
    "__pe_fn__": guard_function,
    "__pe_fmt__": guarded_format_field,
    "__pe_mod__": guarded_mod,
}
