"""One byte budget and one nesting bound, for every value user code makes or prints in C.

C code allocates what it is asked for in one step, where no interrupt lands: a string join,
a repr, a numpy conversion. So the size of what a step would make is computed first, in
Python, and refused over MAX_ALLOC_BYTES. Printing recurses on the C stack, which overflows
Pyodide's wasm stack at 400-500 levels: so the same walk refuses a value nested deeper than
MAX_PRINT_NESTING before anything turns it into text, whoever asks (user code, an error
message, the entry point formatting an exception).

The walk follows what C's repr follows: containers, dict views, slices, exceptions' args,
partials, object arrays. It is iterative, remembers each container's size by identity (a
list repeated a million times is measured once, and counted a million times) and stops as
soon as the bound is passed, so it costs at most what the text would.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .limits import MAX_ALLOC_BYTES, MAX_PRINT_NESTING


class LimitError(ArithmeticError):
    """One step of user code would compute a value over the page's limits."""


class NestingError(RecursionError):
    """User code nested calls or containers deeper than the wasm stack allows."""


def check_bytes(n: int, what: str) -> None:
    if n > MAX_ALLOC_BYTES:
        raise LimitError(f"{what} would take {n} bytes, over the page's limit of "
                         f"{MAX_ALLOC_BYTES} bytes")


def char_bytes(s: str) -> int:
    """Bytes per character of a str (CPython stores 1, 2 or 4; 4 is the bound)."""
    return 1 if s.isascii() else 4


def sequence_bytes(x: Any) -> int:
    """What a str, bytes, list or tuple takes: its characters, or a pointer per item."""
    if isinstance(x, str):
        return len(x) * char_bytes(x)
    if isinstance(x, (bytes, bytearray)):
        return len(x)
    return 8 * len(x)


# --------------------------------------------------------------------------- the walk

_DICT_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))


def _dict_items(d: dict[str, Any]) -> Iterable[Any]:
    return itertools.chain.from_iterable(d.items())


# What C's repr of an object formats inside it, by type (looked up along the MRO); None: a leaf.
_CHILDREN: dict[type, Callable[[Any], Iterable[Any] | None]] = {
    list: iter, tuple: iter, set: iter, frozenset: iter,
    dict: _dict_items,
    _DICT_VIEWS[0]: lambda v: iter(v.mapping), _DICT_VIEWS[1]: lambda v: v.mapping.values(),
    _DICT_VIEWS[2]: lambda v: _dict_items(v.mapping),
    slice: lambda s: (s.start, s.stop, s.step),
    BaseException: lambda e: e.args,
    functools.partial: lambda p: (p.func, *p.args, *p.keywords.values()),
    np.ndarray: lambda a: a.flat if a.dtype.kind == "O" else None,
}


def _children(x: Any) -> Iterable[Any] | None:
    for k in type(x).__mro__:
        rule = _CHILDREN.get(k)
        if rule is not None:
            return rule(x)
    return None


def _leaf_text(x: Any) -> int:
    """An upper bound on the bytes of a value's repr, for a value with no children."""
    if isinstance(x, str):
        # escapes: a character can print as up to 10 ('\U0001f600')
        return (len(x) * (1 if x.isprintable() else 10) + 2) * char_bytes(x)
    if isinstance(x, (bytes, bytearray)):
        return 4 * len(x) + 14
    if isinstance(x, int):
        return x.bit_length() // 3 + 2
    if x is None or isinstance(x, (float, complex, np.generic)):
        return 48
    if isinstance(x, np.ndarray):  # numpy prints big arrays summarised, 3 items a side
        shown = x.size if x.size <= 1000 else int(np.prod([min(d, 6) for d in x.shape]))
        return 48 * shown + 64
    return 256


def measure(value: Any, children: Callable[[Any], Iterable[Any] | None],
            leaf: Callable[[Any], int], *, per_item: int, per_container: int, depth: int,
            limit: int, too_deep: Callable[[], Exception],
            too_big: Callable[[int], Exception]) -> int:
    """The size of `value`: `leaf` of each value without `children`, `per_item` for each
    item and `per_container` for each container, every occurrence of a shared container
    counted and each measured once. `too_deep()` is raised past `depth` levels, `too_big(n)`
    as soon as the size passes `limit`."""
    kids = children(value)
    if kids is None:
        size = leaf(value)
        if size > limit:
            raise too_big(size)
        return size
    sizes: dict[int, int] = {}
    keep = [value]  # ids stay unique while the walk runs
    on_path = {id(value)}
    frames: list[tuple[Any, Iterable[Any], list[int]]] = [(value, iter(kids), [per_container])]
    while frames:
        obj, it, acc = frames[-1]
        for child in it:
            cid = id(child)
            if cid in sizes:
                acc[0] += sizes[cid] + per_item
            elif (grand := children(child)) is None:  # a long str repeated is read once
                sizes[cid] = leaf(child)
                acc[0] += sizes[cid] + per_item
            elif cid in on_path:  # a cycle: repr prints [...]
                acc[0] += per_container
            else:
                if len(frames) >= depth:
                    raise too_deep()
                keep.append(child)
                on_path.add(cid)
                frames.append((child, iter(grand), [per_container]))
                break
            if acc[0] > limit:
                raise too_big(acc[0])
        else:
            frames.pop()
            on_path.discard(id(obj))
            sizes[id(obj)] = acc[0]
            if frames:
                frames[-1][2][0] += acc[0] + per_item
                if frames[-1][2][0] > limit:
                    raise too_big(frames[-1][2][0])
    return sizes[id(value)]


def _too_deep() -> NestingError:
    return NestingError(f"a value nested more than {MAX_PRINT_NESTING} deep cannot be "
                        "printed here")


def _text_too_big(n: int) -> LimitError:
    return LimitError(f"printing this value would make a text of more than {n} bytes, over "
                      f"the page's limit of {MAX_ALLOC_BYTES}")


def text_bytes(value: Any) -> int:
    """An upper bound on the bytes of `repr(value)` (or str). NestingError if the value
    nests deeper than MAX_PRINT_NESTING, LimitError if the text would pass the budget."""
    return measure(value, _children, _leaf_text, per_item=4, per_container=32,
                   depth=MAX_PRINT_NESTING, limit=MAX_ALLOC_BYTES, too_deep=_too_deep,
                   too_big=_text_too_big)


def _nested(x: Any) -> Iterable[Any] | None:
    return iter(x) if isinstance(x, (list, tuple)) else None


def _own_bytes(x: Any) -> int:
    # arrays compare through the page's ufuncs, in Python, and numpy's facade counts them
    return sequence_bytes(x) if isinstance(x, (str, bytes, bytearray)) else 0


def repeated_bytes(seq: Any, n: int, what: str) -> None:
    """Refuse `seq * n` over the byte budget, counting what C loops over as well as what it
    allocates: `[t] * 10**6` is 8 MB of pointers, but `x in` it compares a million times
    the whole of the str `t`, and numpy converts `[row] * 15000` row by row."""
    size = sequence_bytes(seq) if isinstance(seq, (str, bytes, bytearray)) else measure(
        seq, _nested, _own_bytes, per_item=8, per_container=0, depth=MAX_PRINT_NESTING,
        limit=MAX_ALLOC_BYTES // max(n, 1), too_deep=_too_deep,
        too_big=lambda _: LimitError(f"{what} would take more than {MAX_ALLOC_BYTES} bytes, "
                                     "over the page's limit"))
    check_bytes(size * n, what)


def check_printable(value: Any) -> Any:
    """`value` itself, once sure that C can turn it into text within the page's limits."""
    text_bytes(value)
    return value


def printable_exception(exc: BaseException) -> BaseException:
    """`exc`, its args replaced by the reason if they cannot be printed safely, and so for
    each exception it was raised from or during: every later str() or traceback of it is
    then safe, whoever formats it."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        try:
            text_bytes(e.args)
        except (LimitError, NestingError) as why:
            e.args = (f"(not printed: {why})",)
        e = e.__cause__ or e.__context__
    return exc


def exception_text(exc: BaseException) -> str:
    """`Type: message` for an exception raised while user code ran."""
    printable_exception(exc)
    return f"{type(exc).__name__}: {exc}"
