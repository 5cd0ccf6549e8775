"""Exceptions as the page's error records: one place decides what a failure is called, which
line of the user's code it points at, and which input is at fault. `modes.run` turns a
request's failure into `{"error": ...}` with it; the mask explorer, one cell's."""
from __future__ import annotations

import traceback

from .budget import exception_text, printable_exception
from .caps import LimitError
from .limits import MAX_ERROR_CHARS
from .record import EngineError
from .requests import InputValueError
from .sandbox import USER_FILENAME, UserCodeError, error_kind, user_lineno


def engine_error(exc: Exception) -> EngineError:
    """The error record of an exception raised while answering a request."""
    if isinstance(exc, InputValueError):
        return make_error(exc.kind, exc.message, exc.lineno, input_name=exc.input)
    if isinstance(exc, UserCodeError):
        return make_error(exc.kind, exc.message, exc.lineno)
    if isinstance(exc, LimitError):
        return make_error("limit", str(printable_exception(exc)), user_lineno(exc))
    if isinstance(exc, MemoryError):
        return make_error("memory", "MemoryError: out of memory", None)
    if raised_by_user(exc):
        # user code the engine called after the trace (a checkpoint policy, a custom rule):
        # the user's error, at the user's line, as one raised while tracing
        return make_error(error_kind(exc, "trace"), f"{type(exc).__name__}: {exc}",
                          user_lineno(exc))
    # an engine bug: told with its traceback, located in the user's code if it passed there
    return make_error("internal", exception_text(exc), user_lineno(exc),
                      "".join(traceback.format_exception(exc, limit=8))[-MAX_ERROR_CHARS:])


def raised_by_user(exc: BaseException) -> bool:
    """Whether the exception was raised by the user's code itself (its innermost frame is
    the user's), or by a guard the sandbox put in it."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename == USER_FILENAME or (
        error_kind(exc) != "runtime" and user_lineno(exc) is not None)


def make_error(kind: str, message: str, lineno: int | None, trace: str | None = None,
               input_name: str | None = None) -> EngineError:
    """An error record; the message is cut to MAX_ERROR_CHARS (user code picks its text).
    `input_name`: the argument whose value is at fault."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS - 1] + "…"
    err: EngineError = {"type": kind, "message": message, "lineno": lineno}
    if trace is not None:
        err["traceback"] = trace
    if input_name is not None:
        err["input"] = input_name
    return err
