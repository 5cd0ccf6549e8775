"""Input values as the page writes them (numpy-literal syntax) and values as it shows them."""
from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .limits import MAX_VALUE_ELEMENTS, MAX_VALUE_TEXT
from .textguard import find_overflow

_INT32 = (-(2 ** 31), 2 ** 31 - 1)

_CONSTRUCTORS = {"zeros": np.zeros, "ones": np.ones}


class ValueParseError(ValueError):
    pass


def _quote(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _literal(node: ast.AST, what: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ValueParseError(f"{what} must be a literal number, list or tuple") from None


def _shape(node: ast.AST) -> tuple[int, ...]:
    shape = _literal(node, "a shape")
    shape = (shape,) if isinstance(shape, int) else shape
    if not isinstance(shape, tuple | list) or not all(
            type(d) is int and d >= 0 for d in shape):
        raise ValueParseError(f"a shape is a tuple of non-negative ints, got {shape!r}")
    return _checked_size(tuple(shape))


def parse_value(text: str) -> Any:
    """`2.0`, `[0.5, 1.0]`, `[[1, 2], [3, 4]]`, `zeros((2, 3))`, `ones(4)`, `full((2,), 0.5)`.

    A plain scalar stays a Python scalar, weakly typed as when JAX code calls
    `f(2.0)`; arrays hold float32 or int32, as JAX stores them without x64.
    Anything else raises ValueParseError saying what is wrong.
    """
    value = _parsed(text.strip())
    return value.copy() if isinstance(value, np.ndarray) else value


@functools.lru_cache(maxsize=32)
def _parsed(text: str) -> Any:
    """parse_value's work, kept: every request parses every input again, mostly the same
    text, and ast.parse is slow under Pyodide. Failures are not kept."""
    if not text:
        raise ValueParseError("empty value: write a number or a nested list, e.g. [0.5, 1.0]")
    if len(text) > MAX_VALUE_TEXT:
        raise ValueParseError(f"a value of {len(text)} characters is over the limit of "
                              f"{MAX_VALUE_TEXT}")
    overflow = find_overflow(text)
    if overflow is not None:
        raise ValueParseError(f"cannot parse {_quote(text)}: too deeply nested "
                              f"({overflow[1]})")
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        msg = getattr(e, "msg", None) or type(e).__name__
        raise ValueParseError(f"cannot parse {_quote(text)}: {msg}") from None
    if isinstance(node, ast.Call):
        fname = ast.unparse(node.func).removeprefix("np.").removeprefix("jnp.")
        if fname in _CONSTRUCTORS and len(node.args) == 1 and not node.keywords:
            arr = _CONSTRUCTORS[fname](_shape(node.args[0]), np.float32)
        elif fname == "full" and len(node.args) == 2 and not node.keywords:
            fill = _literal(node.args[1], "full's value")
            if type(fill) not in (bool, int, float):
                raise ValueParseError(f"full's value must be a number, got {fill!r}")
            arr = np.full(_shape(node.args[0]), fill)
        else:
            raise ValueParseError(f"unsupported value constructor {_quote(fname)}: use a "
                                  "literal, zeros(shape), ones(shape) or full(shape, value)")
    else:
        lit = _literal(node, _quote(text))
        if type(lit) in (bool, float):
            return lit
        if type(lit) is int:
            return _checked_int(lit)
        if not isinstance(lit, list | tuple):
            raise ValueParseError(f"{_quote(text)} must hold numbers or booleans")
        try:
            arr = np.asarray(lit)
        except (ValueError, TypeError, OverflowError):
            raise ValueParseError(
                f"{_quote(text)} is ragged: every row needs the same length") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueParseError(f"{_quote(text)} must hold numbers or booleans, in rows of "
                              "equal length")
    _checked_size(arr.shape)
    if arr.dtype.kind == "f":
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu":
        if arr.size:
            _checked_int(int(arr.min()))
            _checked_int(int(arr.max()))
        return arr.astype(np.int32)
    return arr


def _checked_int(n: int) -> int:
    if not _INT32[0] <= n <= _INT32[1]:
        raise ValueParseError(f"{n} does not fit in int32 (JAX without x64); write it as a "
                              "float, e.g. 1e20")
    return n


def _checked_size(shape: tuple[int, ...]) -> tuple[int, ...]:
    n = 1
    for d in shape:
        n *= d
    if n > MAX_VALUE_ELEMENTS:
        raise ValueParseError(f"an array of {n} elements is over the page's limit of "
                              f"{MAX_VALUE_ELEMENTS}")
    return shape


def _fmt_float(v: np.floating[Any] | float) -> str:
    g = f"{v:.4g}"
    # digits alone (no ".", exponent, nan or inf): an integral value, written with ".0"
    return g + ".0" if g.lstrip("-").isdigit() else g


_T = TypeVar("_T")

_SUMMARY_THRESHOLD = 12  # more elements than this print summarized, edge items and "..."
_EDGE_ITEMS = 2


def format_value(x: Any, max_chars: int = 120) -> str:
    """A short numpy-style rendering of a known value."""
    arr = np.asarray(getattr(x, "val", x))
    s = _small_floats(arr)
    if s is None:
        with np.printoptions(threshold=_SUMMARY_THRESHOLD, edgeitems=_EDGE_ITEMS,
                             formatter={"float_kind": _fmt_float}):
            s = np.array2string(arr, separator=", ")
        s = " ".join(s.split())
    return s if len(s) <= max_chars else s[:max_chars - 1] + "…"


def _small_floats(arr: np.ndarray) -> str | None:
    """What format_value's array2string prints for a float array of rank 2 at most, written
    directly (array2string costs more than the rest of a value's record: at a transformer
    block's 4x8 activations, a fifth of the whole answer); None for any other array. Once
    whitespace is collapsed, numpy's line wrapping leaves no trace, and the formatter is
    given every element shown, as here. Over _SUMMARY_THRESHOLD elements numpy summarizes:
    each axis longer than twice the edge items shows its first and last two, "..." between."""
    if arr.dtype.kind != "f" or arr.size == 0 or arr.ndim > 2:
        return None
    if arr.ndim == 0:
        return _fmt_float(arr.item())
    summarize = arr.size > _SUMMARY_THRESHOLD
    # tolist: Python floats, as a numpy float scalar formats itself (through float), without
    # making a numpy scalar per element (slow under Pyodide)
    if arr.ndim == 1:
        return _row(arr.tolist(), summarize)
    return "[" + ", ".join(_shown(arr.tolist(), summarize,
                                  lambda row: _row(row, summarize))) + "]"


def _row(vals: list[float], summarize: bool) -> str:
    return "[" + ", ".join(_shown(vals, summarize, _fmt_float)) + "]"


def _shown(items: list[_T], summarize: bool, fmt: Callable[[_T], str]) -> list[str]:
    """The items along an axis that numpy shows, formatted: all of them, or, summarized and
    longer than twice the edge items, the first and last few with "..." between."""
    if summarize and len(items) > 2 * _EDGE_ITEMS:
        return [*map(fmt, items[:_EDGE_ITEMS]), "...", *map(fmt, items[-_EDGE_ITEMS:])]
    return list(map(fmt, items))
