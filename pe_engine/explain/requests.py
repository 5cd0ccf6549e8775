"""A request from the page: the user's source loaded in the sandbox, the input values
parsed, the function traced under the page's limits."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import core
from ..api import trace_to_jaxpr
from ..core import ClosedJaxpr, Jaxpr
from ..keys import HashNestingError
from .budget import NestingError, exception_text
from .caps import LimitError
from .limits import MAX_TRACED_EQNS
from .record import Arg, Decision
from .sandbox import USER_FILENAME, UserCodeError, error_kind, load_function, user_lineno
from .values import ValueParseError, format_value, parse_value


class InputValueError(UserCodeError):
    """An input's value is at fault: the page marks that input."""

    def __init__(self, message: str, input_name: str):
        super().__init__(message, None, "value")
        self.input = input_name


def load_request(source: str, fn: str | None, args: Sequence[dict[str, Any]]
                 ) -> tuple[Any, list[Any], list[str]]:
    lf = load_function(source, fn)
    if len(args) != len(lf.params):
        raise UserCodeError(
            f"{lf.name} takes {len(lf.params)} input(s) ({', '.join(lf.params)}) but "
            f"{len(args)} were given", lf.lineno, "arity")
    values = []
    for name, a in zip(lf.params, args):
        try:
            values.append(parse_value(str(a.get("value", ""))))
        except ValueParseError as e:
            raise InputValueError(f"input {name}: {e}", name) from None
    return lf, values, lf.params


def differentiated(args: Sequence[dict[str, Any]]) -> list[int]:
    """grad's and checkpoint's argnums: the arguments marked unknown (their tangents are the
    unknown inputs of the split). An argument without a flag is differentiated, as every
    argument was before the flags chose."""
    return [i for i, a in enumerate(args) if not a.get("known", False)]


def trace_user(fun: Callable[..., Any], values: list[Any], known: Sequence[bool] | None = None,
               decisions: list[Any] | None = None) -> ClosedJaxpr:
    """Trace the user's function. With `known`, the known inputs' values are held, as the
    partial evaluator holds them: Python control flow on them is decided now, and each
    decision is appended to `decisions` (see `decisions_record`)."""
    try:
        closed, _ = trace_to_jaxpr(fun, tuple(values), held=known, decisions=decisions)
    except UserCodeError:
        raise
    except RecursionError as e:
        why = str(e) if isinstance(e, (NestingError, HashNestingError)) else (
            "maximum recursion depth exceeded (does the function call itself without end?)")
        raise UserCodeError(f"RecursionError: {why}", user_lineno(e), "runtime") from None
    except MemoryError as e:
        raise UserCodeError("MemoryError: the trace ran out of memory", user_lineno(e),
                            "memory") from None
    except LimitError as e:
        raise UserCodeError(str(e), user_lineno(e), "limit") from None
    except Exception as e:  # noqa: BLE001 - reported at the user's line
        raise UserCodeError(exception_text(e), user_lineno(e), error_kind(e, "trace")) from None
    if len(closed.jaxpr.eqns) > MAX_TRACED_EQNS:
        raise UserCodeError(f"the traced program has {len(closed.jaxpr.eqns)} equations, over "
                            f"the page's limit of {MAX_TRACED_EQNS}", None, "limit")
    return closed


CONTROL_FLOW = ("bool", "int", "index")  # the decisions a record lists


def decisions_record(decisions: Sequence[dict[str, Any]], program: Jaxpr) -> list[Decision]:
    """Python control flow decided by known values: for each `if` (kind `bool`), `int()` or
    index, the line of the user's code, the value that decided it, and the event (the
    traced equation) that computed that value, or None when it is an input itself. (The
    trace also logs held values read as a float or an array: no control flow, left out.)"""
    made_by = {v: i for i, e in enumerate(program.eqns) for v in e.outvars}
    return [{"line": d["line"] if d["filename"] == USER_FILENAME else None,
             "kind": d["kind"], "value": d["value"], "event": made_by.get(d["atom"])}
            for d in decisions if d["kind"] in CONTROL_FLOW]


def args_record(params: list[str], args: Sequence[dict[str, Any]], values: list[Any]) -> list[Arg]:
    avals = [core.get_aval(v) for v in values]
    return [{"name": n, "known": bool(a.get("known", True)), "aval": av.str_short(True),
             "shape": list(av.shape), "dtype": core.short_dtype(av.dtype),
             "value": format_value(v)}
            for n, a, v, av in zip(params, args, values, avals)]
