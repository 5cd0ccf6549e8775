"""The one function the page's worker calls: a request in JSON, an answer in JSON.

Only the entry points listed here can be called (the page names one by its dotted name),
and the answer is capped before it crosses to the page: a record over MAX_RECORD_CHARS
becomes an error. Every exception, KeyboardInterrupt (the interrupt that stops a runaway)
and MemoryError included, comes back as an answer instead of escaping into JavaScript; a
call whose time limit expired answers with the interrupt, whatever its code did with it
(interrupts.py).
"""
from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from . import interrupts
from .budget import printable_exception
from .limits import MAX_ERROR_CHARS, MAX_RECORD_CHARS
from .modes import checkpoint_policy, json_scalar, run, signature
from .sandbox import user_lineno

ENTRY_POINTS: dict[str, Callable[..., Mapping[str, Any]]] = {
                "pe_engine.explain.run": run,
                "pe_engine.explain.checkpoint_policy": checkpoint_policy,
                "pe_engine.explain.signature": signature}


def _failure(exc: BaseException) -> dict[str, Any]:
    message = str(printable_exception(exc))
    err: dict[str, Any] = {"type": type(exc).__name__, "message": message[:MAX_ERROR_CHARS]}
    # an expired request is located where the interrupt stopped it (where its code looped)
    lineno = (interrupts.expired() and interrupts.expired_line()) or user_lineno(exc)
    if lineno is not None:
        err["lineno"] = lineno
    if not isinstance(exc, MemoryError):
        err["traceback"] = "".join(traceback.format_exception(exc))[-MAX_ERROR_CHARS:]
    return {"ok": False, "error": err}


def call(name: str, kwargs_json: str) -> str:
    """`{"ok": true, "result": ...}` or `{"ok": false, "error": {...}}`, as JSON text."""
    interrupts.start()
    try:
        return _answer(name, kwargs_json)
    finally:
        interrupts.finish()


def _answer(name: str, kwargs_json: str) -> str:
    try:
        fn = ENTRY_POINTS.get(name)
        if fn is None:
            raise LookupError(f"{name[:100]!r} is not an entry point of the engine")
        kwargs = json.loads(kwargs_json)
        if not isinstance(kwargs, dict):
            raise TypeError("the request must be a JSON object")
        # compact: 8% fewer characters to copy across and parse in the page; records are
        # trees the engine built, so the cycle check has nothing to find (0.3 ms of 18 for
        # a checkpoint answer)
        text = json.dumps({"ok": True, "result": fn(**kwargs)}, allow_nan=False,
                          default=json_scalar, separators=(",", ":"), check_circular=False)
        # expired: the answer is the interrupt, whatever the user's code did with it
        interrupts.check()
        if len(text) > MAX_RECORD_CHARS:
            raise MemoryError(f"the answer has {len(text)} characters, over the page's limit "
                              f"of {MAX_RECORD_CHARS}")
        return text
    except BaseException as exc:  # noqa: BLE001 - every failure is an answer
        if interrupts.expired() and not isinstance(exc, KeyboardInterrupt):
            exc = KeyboardInterrupt(interrupts.MESSAGE)
        answer = json.dumps(_failure(exc))
        exc.__traceback__ = None
        return answer
