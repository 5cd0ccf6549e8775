"""Builtins whose loops would run in C for as long as their input lasts: bounded or stepped.

The page stops a runaway with an interrupt that Python only sees between bytecodes, so a
loop inside one C call (`any(iter(int, 1))`, `max(range(10**15))`) never sees it. A C loop
runs once per item of an iterable and does, per item, what C code does for it. So:
- every iterable user code can make in C holds its items in memory (a list, a str, a dict:
  bounded by the byte budget), except a range, which costs nothing whatever its length:
  a range holds at most MAX_RANGE_ITEMS items;
- the lazy iterators that call a function per item or may skip without end (`map`,
  `filter`, `iter(f, sentinel)`, `functools.reduce`) and the `key=` of sorting and min/max
  step in Python: each item goes through a Python frame, where the interrupt lands, however
  long C drives them and whatever the function is (a bound `str.count` on a long string);
- `sum` with a start that is not a number adds with the page's `+` (its size checked), one
  item at a time.
"""
from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .budget import LimitError
from .limits import MAX_RANGE_ITEMS

_NUMBERS = (int, float, complex)


class _RangeType(type):
    """`range` in user code: Python's ranges, bounded when made; still a class for
    isinstance."""

    def __call__(cls, *args: Any) -> range:
        r = range(*args)
        try:
            n = len(r)
        except OverflowError:
            n = MAX_RANGE_ITEMS + 1
        if n > MAX_RANGE_ITEMS:
            raise LimitError(f"a range of more than {MAX_RANGE_ITEMS} items is over the "
                             "page's limit (a loop that long cannot finish in the page's time)")
        return r

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, range)

    def __repr__(cls) -> str:
        return "<class 'range'>"


guarded_range = _RangeType("range", (), {"__slots__": ()})


def step(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` called through a Python frame (the interrupt is checked as each call starts)."""
    def stepped(*args: Any) -> Any:
        return fn(*args)
    return stepped


def _call_until(fn: Callable[[], Any], sentinel: Any) -> Iterator[Any]:
    while (v := fn()) != sentinel:
        yield v


def guarded_iter(obj: Any, *sentinel: Any) -> Iterator[Any]:
    if not sentinel:
        return iter(obj)
    if not callable(obj):
        raise TypeError("iter(v, w): v must be callable")
    return _call_until(obj, *sentinel)


def guarded_map(fn: Callable[..., Any], *iterables: Iterable[Any]) -> Iterator[Any]:
    if not iterables:
        raise TypeError("map() must have at least two arguments.")
    return (fn(*args) for args in zip(*iterables))


def guarded_filter(fn: Callable[[Any], Any] | None, iterable: Iterable[Any]) -> Iterator[Any]:
    if fn is None:
        return (v for v in iterable if v)
    return (v for v in iterable if fn(v))


_MISSING = object()


def guarded_reduce(fn: Callable[[Any, Any], Any], iterable: Iterable[Any],
                   initial: Any = _MISSING) -> Any:
    it = iter(iterable)
    acc = initial
    if acc is _MISSING:
        try:
            acc = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    for v in it:
        acc = fn(acc, v)
    return acc


def _keyed(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def keyed(*args: Any, key: Any = None, **kwargs: Any) -> Any:
        return fn(*args, key=None if key is None else step(key), **kwargs)
    return keyed


guarded_sorted = _keyed(builtins.sorted)
guarded_min = _keyed(builtins.min)
guarded_max = _keyed(builtins.max)


def stepped_sum(add: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """sum: C's for numbers, the page's checked `add` item by item for any other start
    (`sum(lists, [])` concatenates in C, each step a copy of all before it)."""
    def guarded_sum(iterable: Iterable[Any], /, start: Any = 0) -> Any:
        if isinstance(start, _NUMBERS):
            return builtins.sum(iterable, start)
        acc = start
        for v in iterable:
            acc = add(acc, v)
        return acc
    guarded_sum.__name__ = guarded_sum.__qualname__ = "sum"
    return guarded_sum


BUILTINS: dict[str, Any] = {
    "range": guarded_range, "iter": guarded_iter, "map": guarded_map,
    "filter": guarded_filter, "sorted": guarded_sorted, "min": guarded_min,
    "max": guarded_max,
}
for _name, _fn in [*BUILTINS.items(), ("reduce", guarded_reduce)]:
    _fn.__name__ = _fn.__qualname__ = _name  # errors about their arguments name the builtin
