"""The run-time guards the rewrite puts into user code (rewrite.py), and their state.

Attribute reads go through an allowlist keyed by type: an object of a type not in the
table has no attribute user code can read. That is what keeps every walk from an engine
value, a facade or a builtin away from modules, frames, globals and raw memory, whatever
the names involved (no denylist of dunders to keep up to date). The methods that allocate
in proportion to their arguments are handed out in checked versions (operators.METHODS).

Operators are guarded in operators.py, printing here (budget.py's walk first), and the
builtins that would loop in C are replaced by stepping.py's.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..caches import memo_table
from ..core import Array, ArrayOps, ShapedArray
from ..custom_derivatives import custom_jvp
from ..custom_vjp import custom_vjp
from ..eval_shape import ShapeDtypeStruct
from ..indexing import IndexUpdateRef
from ..pytree import PyTreeDef
from ..tree_paths import DictKey, SequenceKey
from . import hashguard, interrupts, operators, stepping
from .budget import LimitError, NestingError, check_printable
from .facades import ConfigView, Facade
from .limits import MAX_USER_CALL_DEPTH
from .numpy_facade import LimitedArray, Rng
from .operators import check_widths

__all__ = ["LimitError", "NestingError"]


class SandboxAttributeError(AttributeError):
    """User code read an attribute the page's Python does not expose."""


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
_by_type: dict[type, frozenset[str]] = memo_table("guards._by_type", {})


def allowed_attributes(tp: type) -> frozenset[str]:
    """What user code may read on an object of this type (nothing, for unlisted types)."""
    found = _by_type.get(tp)
    if found is None:
        found = frozenset().union(*(ATTRIBUTES[k] for k in tp.__mro__ if k in ATTRIBUTES))
        _by_type[tp] = found
    return found


_checked_by_type: dict[type, dict[str, Callable[..., Any]]] = {}


def _checked_methods(tp: type) -> dict[str, Callable[..., Any]]:
    """The methods of a type handed out in their checked versions (operators.METHODS)."""
    found = _checked_by_type.get(tp)
    if found is None:
        found = {}
        for k in reversed(tp.__mro__):
            found.update(operators.METHODS.get(k, {}))
        _checked_by_type[tp] = found
    return found


def guarded_getattr(obj: Any, name: str) -> Any:
    if type(obj) is Facade:
        return obj.lookup(name)
    tp = type(obj)
    if name in allowed_attributes(tp):
        if isinstance(obj, hashguard.HASHING_TYPES):  # what it hashes is checked first
            return hashguard.method(obj, name, getattr(obj, name))
        checked = _checked_methods(tp).get(name)
        return getattr(obj, name) if checked is None else functools.partial(checked, obj)
    what = type(obj).__name__
    if isinstance(obj, type):
        raise SandboxAttributeError(f"attributes of the class '{obj.__name__}' are not "
                                    "available in this page's Python")
    raise SandboxAttributeError(f"'{what}' object has no attribute '{name}' in this page's "
                                "Python")


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


def guarded_format_field(value: Any, conversion: int, spec: str) -> str:
    """One f-string field: `{value!conversion:spec}`."""
    check_printable(value)
    check_widths(spec, "an f-string")
    if conversion == ord("r"):
        value = repr(value)
    elif conversion == ord("s"):
        value = str(value)
    elif conversion == ord("a"):
        value = ascii(value)
    return format(value, spec)


def guarded_repr(value: Any) -> str:
    return repr(check_printable(value))


def guarded_str(value: Any = "", *args: Any) -> str:
    return str(check_printable(value), *args)


def guarded_print(*values: Any, **_: Any) -> None:
    """print: the text goes nowhere (the worker has no console for the reader), but what
    would be printed is formatted as Python would, so its errors still surface."""
    for v in values:
        str(check_printable(v))


def reset() -> None:
    """A request starts with no user call in progress."""
    _Depth.calls = 0


GUARDS: dict[str, Any] = {
    "__pe_getattr__": guarded_getattr,
    "__pe_fn__": guard_function,
    "__pe_fmt__": guarded_format_field,
    "__pe_tick__": interrupts.check,
    "__pe_key__": hashguard.key,
    "__pe_keys__": hashguard.keys,
    **operators.GUARDS,
}

# The builtins user code sees in place of Python's: bounded loops, checked printing.
BUILTINS: dict[str, Any] = {
    **stepping.BUILTINS, "sum": stepping.stepped_sum(operators.guarded_add),
    "pow": operators.guarded_pow, "divmod": operators.guarded_divmod,
    "repr": guarded_repr, "str": guarded_str, "print": guarded_print,
}
