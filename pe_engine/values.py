"""Input values as the page writes them (numpy-literal syntax) and values as it shows them."""
from __future__ import annotations

import ast
from typing import Any

import numpy as np

MAX_ELEMENTS = 1 << 16

_CONSTRUCTORS = {"zeros": np.zeros, "ones": np.ones}


class ValueParseError(ValueError):
    pass


def _shape(node: ast.AST) -> tuple[int, ...]:
    shape = ast.literal_eval(node)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueParseError(f"a shape is a tuple of non-negative ints, got {shape!r}")
    return shape


def parse_value(text: str) -> Any:
    """`2.0`, `[0.5, 1.0]`, `[[1, 2], [3, 4]]`, `zeros((2, 3))`, `ones(4)`, `full((2,), 0.5)`.

    A plain scalar stays a Python scalar, weakly typed as when JAX code calls
    `f(2.0)`; arrays hold float32 or int32, as JAX stores them without x64.
    """
    text = text.strip()
    if not text:
        raise ValueParseError("empty value: write a number or a nested list, e.g. [0.5, 1.0]")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        raise ValueParseError(f"cannot parse {text!r}: {e.msg}") from None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        fname = node.func.id.removeprefix("np.").removeprefix("jnp.")
        if fname in _CONSTRUCTORS and len(node.args) == 1:
            arr = _CONSTRUCTORS[fname](_checked_size(_shape(node.args[0])), np.float32)
        elif fname == "full" and len(node.args) == 2:
            arr = np.full(_checked_size(_shape(node.args[0])), ast.literal_eval(node.args[1]))
        else:
            raise ValueParseError(f"unsupported value constructor {fname!r}: use a literal, "
                                  "zeros(shape), ones(shape) or full(shape, value)")
    else:
        try:
            lit = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError):
            raise ValueParseError(f"{text!r} is not a number or nested list of numbers") from None
        if type(lit) in (bool, int, float):
            return lit
        try:
            arr = np.asarray(lit)
        except ValueError:
            raise ValueParseError(f"{text!r} is ragged: every row needs the same length") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise ValueParseError(f"{text!r} must hold numbers or booleans")
    _checked_size(arr.shape)
    if arr.dtype.kind == "f":
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int32)
    return arr


def _checked_size(shape: tuple[int, ...]) -> tuple[int, ...]:
    n = int(np.prod(shape, dtype=np.int64))
    if n > MAX_ELEMENTS:
        raise ValueParseError(f"an array of {n} elements is over the page's limit of "
                              f"{MAX_ELEMENTS}")
    return shape


def _fmt_float(v: float) -> str:
    g = f"{v:.4g}"
    return g if any(c in g for c in ".eni") else g + ".0"


def format_value(x: Any, max_chars: int = 120) -> str:
    """A short numpy-style rendering of a known value."""
    arr = np.asarray(getattr(x, "val", x))
    fmt = {"float_kind": _fmt_float}
    with np.printoptions(threshold=12, edgeitems=2, formatter=fmt):
        s = np.array2string(arr, separator=", ")
    s = " ".join(s.split())
    return s if len(s) <= max_chars else s[:max_chars - 1] + "…"
