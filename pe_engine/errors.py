"""JAX's errors for Python control flow on traced values, worded as JAX words them.

Each message names the traced value (`traced array with shape bool[]`), then, where the
trace knows it, which of the traced function's arguments it depends on, then the page
of JAX's documentation about the error.
"""
from __future__ import annotations

import reprlib
from typing import Any

_ERROR_PAGE = "https://docs.jax.dev/en/latest/errors.html"

# A value named in an error message is printed by reprlib, which recurses in Python and stops
# at a depth and a length: C's repr of a list nested thousands deep overflows Pyodide's wasm
# stack. The bounds are far above what a message of JAX's ever shows whole.
_VALUE_REPR = reprlib.Repr()
_VALUE_REPR.maxlevel = 20
for _name in ("maxtuple", "maxlist", "maxarray", "maxdict", "maxset", "maxfrozenset",
              "maxdeque"):
    setattr(_VALUE_REPR, _name, 1000)
_VALUE_REPR.maxstring = _VALUE_REPR.maxlong = _VALUE_REPR.maxother = 10_000


def value_repr(x: Any) -> str:
    """repr(x) for an error message, bounded in depth and length."""
    return _VALUE_REPR.repr(x)


class JAXTypeError(TypeError):
    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_ERROR_PAGE}#jax.errors.{type(self).__name__}")


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where Python needs a concrete one."""

    def __init__(self, tracer: Any, context: str = ""):
        super().__init__("Abstract tracer value encountered where concrete value is expected: "
                         f"{tracer._error_repr()}\n{context}{tracer._origin_msg()}\n")


class TracerBoolConversionError(ConcretizationTypeError):
    """`if x:` (or `and`, `or`, `not`) on a traced value."""

    def __init__(self, tracer: Any):
        JAXTypeError.__init__(self, f"Attempted boolean conversion of {tracer._error_repr()}."
                                    f"{tracer._origin_msg()}")


class TracerIntegerConversionError(JAXTypeError):
    """A traced value used as a Python index."""

    def __init__(self, tracer: Any):
        super().__init__(f"The __index__() method was called on {tracer._error_repr()}"
                         f"{tracer._origin_msg()}")


class TracerArrayConversionError(JAXTypeError):
    """A traced value handed to NumPy."""

    def __init__(self, tracer: Any):
        super().__init__("The numpy.ndarray conversion method __array__() was called on "
                         f"{tracer._error_repr()}{tracer._origin_msg()}")


def conversion_context(fun: type) -> str:
    name = fun.__name__
    return (f"The problem arose with the `{name}` function. If trying to convert the data type "
            f"of a value, try using `x.astype({name})` or `jnp.array(x, {name})` instead.")
