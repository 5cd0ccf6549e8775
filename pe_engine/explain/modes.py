"""The worker's entry point: one record per request, for the mode asked for."""
from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import core
from . import autodiff, interpreters, jit, split
from .limits import MAX_ARRAY_ELEMENTS, MAX_STAGED_EQNS
from .sandbox import UserCodeError, user_lineno

MODES: dict[str, Callable[..., dict]] = {
    "split": split.split,
    "jit": jit.stage,
    "grad": autodiff.grad,
    "checkpoint": autodiff.checkpoint,
    "interpreters": interpreters.interpreters,
}


def run(mode: str, **kwargs: Any) -> dict:
    """The worker's entry point: a record, or {"error": ...} located in the user's code."""
    try:
        fn = MODES[mode]
    except KeyError:
        return {"error": {"type": "mode", "message": f"unknown mode {mode!r}", "lineno": None}}
    try:
        with core.resource_limits(MAX_ARRAY_ELEMENTS, MAX_STAGED_EQNS):
            return fn(**kwargs)
    except UserCodeError as e:
        return {"error": e.to_json()}
    except core.ResourceLimitError as e:
        return {"error": {"type": "limit", "message": str(e), "lineno": user_lineno(e)}}
    except MemoryError:
        return {"error": {"type": "memory", "message": "MemoryError: out of memory",
                          "lineno": None}}
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": {"type": "internal", "message": f"{type(e).__name__}: {e}",
                          "lineno": user_lineno(e),
                          "traceback": traceback.format_exc(limit=8)}}


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
