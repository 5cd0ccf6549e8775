"""Hashing user values only once sure it will not recurse too deeply in C.

CPython hashes a tuple by hashing its items, in C, with no recursion check: a tuple nested
a million deep (`for i in range(10**6): t = (t,)`, a few lines) crashes the process when
hashed, in CPython and in Pyodide alike. User code hashes a value in a few ways only, each
checked here first (keys.check_hash_nesting, an iterative walk):
- a set or dict display or comprehension, a subscript, `in`: the rewrite wraps the element,
  key, index or left operand in `__pe_key__`;
- the builtins `set`, `frozenset` and `dict`, which check what they are given;
- the methods of dicts and sets that hash their arguments (`add`, `get`, `update`, ...),
  wrapped as user code reads them (guards.guarded_getattr).
The engine checks the static arguments it keys traces by itself (keys.py).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..keys import check_hash_nesting

key = check_hash_nesting


def keys(items: Iterable[Any]) -> list[Any]:
    """The items, as a list, each checked: the starred part of a set display."""
    out = list(items)
    for x in out:
        check_hash_nesting(x)
    return out


def _pairs(arg: Any) -> Any:
    """dict's and dict.update's argument: a mapping, or (key, value) pairs, checked."""
    if isinstance(arg, dict):
        return arg
    pairs = list(arg)
    for pair in pairs:
        if isinstance(pair, (tuple, list)) and pair:
            check_hash_nesting(pair[0])
    return pairs


def _items(*args: Any) -> list[Any]:
    return [a if isinstance(a, (set, frozenset, dict)) else keys(a) for a in args]


# method name -> how its positional arguments are checked
_ONE_KEY = {"get", "pop", "setdefault", "add", "discard", "remove"}
_ITERABLES = {"union", "intersection", "difference", "symmetric_difference", "issubset",
              "issuperset", "isdisjoint", "intersection_update", "difference_update",
              "symmetric_difference_update"}
HASHING_TYPES = (dict, set, frozenset)


def method(obj: Any, name: str, bound: Callable[..., Any]) -> Callable[..., Any]:
    """A dict's or set's method `name`, bound to `obj`, checking what it will hash."""
    if name in _ONE_KEY:  # the key first (set.pop takes none)
        return lambda *a: bound(*(check_hash_nesting(x) if i == 0 else x
                                  for i, x in enumerate(a)))
    if name in _ITERABLES:
        return lambda *its: bound(*_items(*its))
    if name == "update":
        if isinstance(obj, dict):
            return lambda *a, **kw: bound(*map(_pairs, a), **kw)
        return lambda *its: bound(*_items(*its))
    return bound


class _Constructor(type):
    """The metaclass of a builtin's stand-in: `isinstance(x, set)` still asks set, and
    `set(...)` makes a real set from checked items."""

    real: Any  # a builtin class: set, dict, ... (indexable in an annotation: dict[str, float])
    check: Callable[..., list[Any]]

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.real)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real(*cls.check(*args), **kwargs)

    def __getitem__(cls, item: Any) -> Any:  # an annotation: dict[str, float]
        return cls.real[item]


def _stand_in(real: type, check: Callable[..., list[Any]]) -> type:
    return _Constructor(real.__name__, (), {"real": real, "check": staticmethod(check),
                                            "__slots__": ()})


BUILTINS: dict[str, type] = {
    "set": _stand_in(set, _items),
    "frozenset": _stand_in(frozenset, _items),
    "dict": _stand_in(dict, lambda *a: [_pairs(x) for x in a]),
}
