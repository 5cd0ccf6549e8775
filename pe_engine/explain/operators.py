"""The guards of Python's operators in user code, and of the methods that act like them.

The rewrite (rewrite.py) sends every binary operator and every single comparison through
these functions. Each computes what its C step would allocate or how long it would run,
and refuses it over the page's limits (limits.py) before it runs:
- big integers: the bits of `**`, `<<`, `*`, and the cost of a modular `pow`, which runs
  once per bit of the exponent over numbers the size of the modulus;
- sequences: the bytes of a str, list or tuple made by `*`, `+`, `%`, an f-string, `join`,
  `replace`, `translate` or `split` (MAX_ALLOC_BYTES);
- numpy: an operator between a numpy value and a list, or on a bare ndarray (a numpy
  scalar's arithmetic makes one), goes through the numpy facade's checked arrays.
"""
from __future__ import annotations

import builtins
import operator
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from . import numpy_facade
from .budget import (
    LimitError,
    char_bytes,
    check_bytes,
    repeated_bytes,
    sequence_bytes,
    text_bytes,
)
from .limits import MAX_FORMAT_WIDTH, MAX_INT_BITS, MAX_POW_MOD_COST
from .stepping import step

_NUMPY = (np.ndarray, np.generic)
_SEQUENCES = (str, bytes, list, tuple)


def _numpy_operands(a: Any, b: Any) -> tuple[Any, Any]:
    if isinstance(a, _NUMPY) or isinstance(b, _NUMPY):
        return (numpy_facade.operand(a, isinstance(b, (list, tuple))),
                numpy_facade.operand(b, isinstance(a, (list, tuple))))
    return a, b


def _too_big(what: str) -> LimitError:
    return LimitError(f"{what} is over the page's limit of {MAX_INT_BITS} bits")


def _is_int(x: Any) -> bool:
    return type(x) in (int, bool)


def guarded_pow(a: Any, b: Any, mod: Any = None) -> Any:
    if mod is not None:
        if _is_int(b) and _is_int(mod) and \
                b.bit_length() * mod.bit_length() ** 2 > MAX_POW_MOD_COST:
            raise LimitError(f"pow with a {b.bit_length()}-bit exponent and a "
                             f"{mod.bit_length()}-bit modulus is over the page's limit "
                             f"(one squaring of the modulus's size per bit of the exponent)")
        return builtins.pow(a, b, mod)
    if _is_int(a) and _is_int(b) and b > 0 and abs(a) > 1 and b * a.bit_length() > MAX_INT_BITS:
        raise _too_big(f"{a} ** {b}")
    a, b = _numpy_operands(a, b)
    return a ** b


def guarded_lshift(a: Any, b: Any) -> Any:
    if _is_int(a) and _is_int(b) and a and b > 0 and a.bit_length() + b > MAX_INT_BITS:
        raise _too_big(f"{a} << {b}")
    a, b = _numpy_operands(a, b)
    return a << b


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
        if n is not None and n > 0:
            repeated_bytes(seq, n, f"repeating a {type(seq).__name__} of {len(seq)} items "
                                   f"{n} times")
        return a * b  # repetition, or numpy's TypeError for a float scalar: as in Python
    a, b = _numpy_operands(a, b)
    return a * b


def guarded_add(a: Any, b: Any) -> Any:
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
        size = ((len(a) + len(b)) * max(char_bytes(a), char_bytes(b))
                if isinstance(a, str) and isinstance(b, str)
                else sequence_bytes(a) + sequence_bytes(b))
        check_bytes(size, f"joining a {type(a).__name__} of {len(a)} items and one of "
                          f"{len(b)}")
    a, b = _numpy_operands(a, b)
    return a + b


def _numpy_checked(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def guarded(a: Any, b: Any) -> Any:
        a, b = _numpy_operands(a, b)
        return op(a, b)
    return guarded


guarded_divmod = _numpy_checked(divmod)


# --------------------------------------------------------------------------- formatting

_PRINTF_FIELDS = re.compile(r"%[-#0 +(\w)]*(\*|\d+)?(?:\.(\*|\d+))?")
_WIDTHS = re.compile(r"\d+")


def check_widths(spec: str, where: str) -> int:
    """The widest width or precision in a format spec (refused over MAX_FORMAT_WIDTH)."""
    widest = 0
    for w in _WIDTHS.findall(spec):
        if len(w) > 5 or int(w) > MAX_FORMAT_WIDTH:
            raise LimitError(f"{where}: a width of {w} is over the page's limit of "
                             f"{MAX_FORMAT_WIDTH}")
        widest = max(widest, int(w))
    return widest


def guarded_mod(a: Any, b: Any) -> Any:
    if isinstance(a, str):
        if "*" in a:
            raise LimitError("'%*d'-style widths are not supported here")
        fields = [m.group(0) for m in _PRINTF_FIELDS.finditer(a)]
        widest = max((check_widths(f, "a % format") for f in fields), default=0)
        # each field prints at most the widest of the values (any of them, for a mapping)
        values = b.values() if isinstance(b, dict) else b if isinstance(b, tuple) else (b,)
        each = max((text_bytes(v) for v in values), default=0)
        check_bytes(len(a) * char_bytes(a) + len(fields) * (each + 4 * widest),
                    "the formatted text")
    a, b = _numpy_operands(a, b)
    return a % b


def guarded_fstring(parts: tuple[str, ...]) -> str:
    """An f-string's pieces (each field formatted by guards.guarded_format_field) joined."""
    check_bytes(sum(sequence_bytes(p) for p in parts), "the f-string")
    return "".join(parts)


# --------------------------------------------------------------------------- methods


def _join(sep: str, iterable: Iterable[Any]) -> str:
    items = list(iterable)
    size = sum(sequence_bytes(s) for s in items if isinstance(s, str))
    check_bytes(size + sequence_bytes(sep) * max(len(items) - 1, 0), "the joined text")
    return sep.join(items)


def _replace(s: str, old: str, new: str, count: int = -1) -> str:
    if isinstance(old, str) and isinstance(new, str) and len(new) > len(old):
        n = s.count(old) if old else len(s) + 1
        n = n if count < 0 else min(n, count)
        check_bytes((len(s) + n * (len(new) - len(old))) * max(char_bytes(s), char_bytes(new)),
                    "the replaced text")
    return s.replace(old, new, count)


def _translate(s: str, table: Any) -> str:
    values = table.values() if isinstance(table, dict) else table
    longest = max((len(v) for v in values if isinstance(v, str)), default=1)
    check_bytes(len(s) * max(longest, 1) * 4, "the translated text")
    return s.translate(table)


def _pieces(s: str, sep: Any = None) -> int:
    return s.count(sep) + 1 if isinstance(sep, str) and sep else len(s) // 2 + 1


def _split(method: str) -> Callable[..., list[str]]:
    def split(s: str, sep: Any = None, maxsplit: int = -1) -> list[str]:
        # a list entry and a small str object per piece
        check_bytes(64 * _pieces(s, sep) + sequence_bytes(s), "the split text")
        pieces: list[str] = getattr(s, method)(sep, maxsplit)
        return pieces
    return split


def _splitlines(s: str, keepends: bool = False) -> list[str]:
    check_bytes(64 * (len(s) + 1) + sequence_bytes(s), "the split text")
    return s.splitlines(keepends)


def _extend(lst: list[Any], iterable: Iterable[Any]) -> None:
    items = iterable if isinstance(iterable, (list, tuple, str, dict, set)) else list(iterable)
    check_bytes(8 * (len(lst) + len(items)), "the extended list")
    lst.extend(items)


def _sort(lst: list[Any], *, key: Any = None, reverse: bool = False) -> None:
    lst.sort(key=None if key is None else step(key), reverse=reverse)


# Methods whose C code allocates in proportion to their arguments or loops over a callable:
# guards.guarded_getattr hands out these checked versions, bound to the object.
METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    str: {"join": _join, "replace": _replace, "translate": _translate,
          "split": _split("split"), "rsplit": _split("rsplit"), "splitlines": _splitlines},
    list: {"extend": _extend, "sort": _sort},
}

def _inplace(guard: Callable[[Any, Any], Any], iop: Callable[[Any, Any], Any]
             ) -> Callable[[Any, Any], Any]:
    """`a op= b`: in place for the mutable builtins (`xs += range(3)` extends `xs`, as in
    Python), once the result's size is checked by the binary guard's rule; anything else
    gets the binary guard's new value (numpy arrays too: an in-place ufunc writes to `out=`,
    which the page's arrays refuse)."""
    def guarded(a: Any, b: Any) -> Any:
        if type(a) is list:
            if guard is guarded_mul and (n := _count(b)) and n > 0:
                repeated_bytes(a, n, f"repeating a list of {len(a)} items {n} times")
            elif guard is guarded_add and hasattr(b, "__len__"):
                check_bytes(8 * (len(a) + len(b)), "the extended list")
            return iop(a, b)
        if type(a) in (dict, set):
            return iop(a, b)
        return guard(a, b)
    return guarded


_OPERATORS = {"sub": operator.sub, "truediv": operator.truediv,
              "floordiv": operator.floordiv, "matmul": operator.matmul, "and": operator.and_,
              "or": operator.or_, "xor": operator.xor, "rshift": operator.rshift,
              "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
              "gt": operator.gt, "ge": operator.ge}
# identity and membership as they are: a LimitedArray's `in` checks its own comparison
_AS_IS = {"is": operator.is_, "isnot": operator.is_not, "in": lambda a, b: a in b,
          "notin": lambda a, b: a not in b}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "pow": guarded_pow, "lshift": guarded_lshift, "mul": guarded_mul, "add": guarded_add,
    "mod": guarded_mod, **{n: _numpy_checked(op) for n, op in _OPERATORS.items()}, **_AS_IS}
_AUGMENTED = ("pow lshift mul add mod sub truediv floordiv matmul and or xor rshift").split()

def compare_chain(ops: tuple[str, ...], left: Any, *rights: Callable[[], Any]) -> Any:
    """`a < b <= c`: each comparison by its guard, each operand after the first evaluated
    once (a thunk the rewrite made) and only while the comparisons hold, as in Python."""
    result: Any = True
    for op, right in zip(ops, rights):
        value = right()
        result = GUARDS[op](left, value)
        if not result:
            return result
        left = value
    return result


GUARDS: dict[str, Callable[..., Any]] = {
    "__pe_fstr__": guarded_fstring, "__pe_chain__": compare_chain,
    **{f"__pe_{n}__": g for n, g in _BINARY.items()},
    **{f"__pe_i{n}__": _inplace(_BINARY[n], getattr(operator, f"i{n}")) for n in _AUGMENTED},
}
