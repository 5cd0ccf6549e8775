"""The worker's entry point: one record per request, for the mode asked for."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import core
from . import autodiff, interpreters, jax_snippet, jit, masks, sandbox, split
from .caps import PageCaps
from .failures import engine_error, make_error

MODES: dict[str, Callable[..., dict]] = {
    "split": split.split,
    "jit": jit.stage,
    "grad": autodiff.grad,
    "checkpoint": autodiff.checkpoint,
    "interpreters": interpreters.interpreters,
    "masks": masks.masks,
}


def run(mode: str, **kwargs: Any) -> dict:
    """The worker's entry point: a record, or {"error": ...} located in the user's code.

    Every request starts from the same state and leaves none behind: the sandbox's
    per-request state is reset and `jax.config` is restored, whatever the code did."""
    try:
        fn = MODES[mode]
    except KeyError:
        return {"error": make_error("mode", f"unknown mode {mode!r}"[:100], None)}
    flags = dict(core.config.values)
    sandbox.reset()
    try:
        with core.observing(PageCaps()):
            record = fn(**kwargs)
        return {"memory": [], **record, "jax_snippet": jax_snippet.snippet(
            mode, record, kwargs["source"], kwargs["args"])}
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": engine_error(e)}
    finally:
        core.config.values.clear()
        core.config.values.update(flags)
        sandbox.reset()


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
