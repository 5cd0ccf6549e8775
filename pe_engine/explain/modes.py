"""The worker's entry point: one record per request, for the mode asked for."""
from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import core
from . import autodiff, interpreters, jax_snippet, jit, sandbox, split
from .caps import LimitError, PageCaps
from .limits import MAX_ERROR_CHARS
from .record import EngineError, ErrorRecord
from .requests import InputValueError
from .sandbox import UserCodeError, user_lineno

MODES: dict[str, Callable[..., dict]] = {
    "split": split.split,
    "jit": jit.stage,
    "grad": autodiff.grad,
    "checkpoint": autodiff.checkpoint,
    "interpreters": interpreters.interpreters,
}


def run(mode: str, **kwargs: Any) -> dict:
    """The worker's entry point: a record, or {"error": ...} located in the user's code.

    Every request starts from the same state and leaves none behind: the sandbox's
    per-request state is reset and `jax.config` is restored, whatever the code did."""
    try:
        fn = MODES[mode]
    except KeyError:
        return {"error": {"type": "mode", "message": f"unknown mode {mode!r}"[:100],
                          "lineno": None}}
    flags = dict(core.config.values)
    sandbox.reset()
    try:
        with core.observing(PageCaps()):
            record = fn(**kwargs)
        return {"memory": [], **record, "jax_snippet": jax_snippet.snippet(
            mode, record, kwargs["source"], kwargs["args"])}
    except InputValueError as e:
        return _error(e.kind, e.message, e.lineno, input_name=e.input)
    except UserCodeError as e:
        return _error(e.kind, e.message, e.lineno)
    except LimitError as e:
        return _error("limit", str(e), user_lineno(e))
    except MemoryError:
        return _error("memory", "MemoryError: out of memory", None)
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return _error("internal", f"{type(e).__name__}: {e}", user_lineno(e),
                      traceback.format_exc(limit=8)[-MAX_ERROR_CHARS:])
    finally:
        core.config.values.clear()
        core.config.values.update(flags)
        sandbox.reset()


def _error(kind: str, message: str, lineno: int | None, trace: str | None = None,
           input_name: str | None = None) -> ErrorRecord:
    """An error record; the message is cut to MAX_ERROR_CHARS (user code picks its text).
    `input_name`: the argument whose value is at fault."""
    if len(message) > MAX_ERROR_CHARS:
        message = message[:MAX_ERROR_CHARS - 1] + "…"
    err: EngineError = {"type": kind, "message": message, "lineno": lineno}
    if trace is not None:
        err["traceback"] = trace
    if input_name is not None:
        err["input"] = input_name
    return {"error": err}


def as_json(record: dict) -> dict:
    """Records are plain data already; numpy scalars sneak in only through bugs."""
    def fix(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: fix(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [fix(v) for v in x]
        if isinstance(x, np.generic):
            return x.item()
        return x
    return fix(record)
