"""Cache keys made of values user code chose (static arguments of `jit` and `checkpoint`).

Two dangers decide their shape. A key must never make two different values equal: keyed by
`repr`, two arrays that numpy prints alike (it elides the middle of a long one) once shared
a trace. And hashing must not recurse in C deeper than the interpreter's stack: a tuple
nested a million deep crashes CPython and Pyodide alike when hashed.
"""
from __future__ import annotations

import reprlib
from typing import Any

# Tuples (and slices, hashable since Python 3.12) hash their items recursively in C, with no
# recursion check; no static argument of a JAX program is nested anywhere near this deep.
MAX_KEY_NESTING = 100
# Tuples met in one value: a tuple that holds one tuple twice, nested 60 deep, hashes 2**60
# tuples in C without a pause (and a walk without a budget would too).
MAX_KEY_TUPLES = 100_000
_NESTING = (tuple, slice)


class HashNestingError(RecursionError):
    """A value nested too deeply to be hashed without overflowing the C stack."""


def check_hash_nesting(value: Any, limit: int = MAX_KEY_NESTING) -> Any:
    """`value` itself, once sure that hashing it recurses at most `limit` levels in C and
    meets at most MAX_KEY_TUPLES tuples."""
    if type(value) not in _NESTING:
        return value
    stack = [(value, 1)]
    met = 0
    while stack:
        obj, depth = stack.pop()
        met += 1
        if depth > limit or met > MAX_KEY_TUPLES:
            raise HashNestingError(f"a value nested more than {limit} deep, or holding more than "
                                   f"{MAX_KEY_TUPLES} tuples, cannot be hashed here")
        for x in (obj.start, obj.stop, obj.step) if type(obj) is slice else obj:
            if type(x) in _NESTING:
                stack.append((x, depth + 1))
    return value


class ByIdentity:
    """An unhashable value in a key, equal only to itself, as JAX's checkpoint keys one
    (WrapHashably): the key holds the value, so its id cannot be reused while it is kept."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return type(other) is ByIdentity and other.value is self.value


def value_or_identity(x: Any) -> Any:
    """`x` as part of a key: by value when it hashes, else by identity."""
    try:
        hash(check_hash_nesting(x))
    except TypeError:
        return ByIdentity(x)
    return x


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxother, _SHORT.maxstring = 4, 200, 200


def static_arg_key(x: Any) -> tuple[type, Any]:
    """A static argument of `jit` as part of its trace cache's key, by JAX's rule: it must
    hash, and equals another of the same type only (1, 1.0 and True trace apart)."""
    try:
        hash(check_hash_nesting(x))
    except TypeError as e:
        raise ValueError(
            "Non-hashable static arguments are not supported. An error occurred while trying "
            f"to hash an object of type {type(x)}, {_SHORT.repr(x)}. The error was:\n"
            f"TypeError: {e}\n") from None
    return type(x), x
