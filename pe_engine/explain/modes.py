"""The worker's entry point: one record per request, for the mode asked for."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import caches, core
from . import autodiff, interpreters, jax_snippet, jit, masks, sandbox, schema, split
from .anchors import anchor_events
from .caps import PageCaps
from .failures import engine_error, make_error
from .request_contract import REQUESTS

# mode -> its record builder (each returns its mode's record, less what run adds)
MODES: dict[str, Callable[..., Mapping[str, Any]]] = {
    "split": split.split,
    "jit": jit.stage,
    "grad": autodiff.grad,
    "linearize": autodiff.linearize,
    "checkpoint": autodiff.checkpoint,
    "interpreters": interpreters.interpreters,
    "masks": masks.masks,
}


@contextmanager
def _fresh_request() -> Iterator[None]:
    """Every request starts from the same state and leaves none behind: the sandbox's
    per-request state is reset, `jax.config` is restored and the engine's memo tables are
    emptied (no request reads what an earlier one traced, or keeps its values alive),
    whatever the code did. numpy's floating-point warnings are off, as JAX's arithmetic has
    none: each one would also leave a `__warningregistry__` in the engine module that
    computed it (Python's warnings print once per place), a trace the next request meets.
    The cyclic collector is paused for the whole request, as each trace already pauses it:
    describing a split allocates thousands of small acyclic objects, whose collections cost
    the stack of 30 layers 7% of its answer (the garbage a request leaves is collected once
    it has answered, the memo tables emptied first)."""
    flags = dict(core.config.values)
    with core.gc_paused():
        sandbox.reset()
        caches.forget()
        try:
            with np.errstate(all="ignore"):
                yield
        finally:
            core.config.values.clear()
            core.config.values.update(flags)
            sandbox.reset()
            caches.forget()


_REQUEST_SCHEMA = schema.request_schema()


def _bad_request(definition: str, kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """{"error": ...} naming the fields of a request that break the request contract
    (request_contract.py), or None when it keeps it."""
    problems = schema.problems(_REQUEST_SCHEMA, definition, kwargs)
    if not problems:
        return None
    return {"error": make_error("request", "the request breaks the contract: "
                                + "; ".join(problems), None)}


def run(mode: str, **kwargs: Any) -> dict[str, Any]:
    """The worker's entry point: a record, or {"error": ...} located in the user's code."""
    try:
        fn = MODES[mode]
    except KeyError:
        return {"error": make_error("mode", f"unknown mode {mode!r}"[:100], None)}
    bad = _bad_request(REQUESTS[mode].__name__, kwargs)
    if bad:
        return bad
    try:
        with _fresh_request():
            with core.observing(PageCaps()):
                record = fn(**kwargs)
            anchor_events(record, kwargs["source"])
            return {"memory": [], **record, "jax_snippet": jax_snippet.snippet(
                mode, record, kwargs["source"], kwargs["args"], kwargs.get("fn"))}
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": engine_error(e)}


def checkpoint_policy(**kwargs: Any) -> Mapping[str, Any]:
    """The worker's second entry point: one pending policy of a checkpoint record asked with
    only_selected (a PolicyAnswer), or {"error": ...}."""
    bad = _bad_request("PolicyRequest", kwargs)
    if bad:
        return bad
    try:
        with _fresh_request(), core.observing(PageCaps()):
            return autodiff.checkpoint_policy(**kwargs)
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": engine_error(e)}


def signature(**kwargs: Any) -> dict[str, Any]:
    """The worker's third entry point: the function a source's requests trace, as the engine
    reads it (a SignatureAnswer: the page parses no Python), or {"error": ...} located in the
    source (a syntax error, no def, code the sandbox refuses)."""
    bad = _bad_request("SignatureRequest", kwargs)
    if bad:
        return bad
    try:
        sig = sandbox.signature(kwargs["source"], kwargs.get("fn"))
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": engine_error(e)}
    return {"name": sig.name, "params": list(sig.params), "lineno": sig.lineno}


def json_scalar(x: Any) -> Any:
    """json.dumps' `default`: records are plain data already; numpy scalars sneak in only
    through bugs (a walk over the whole record to find them cost more than the dump)."""
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"{type(x).__name__} is not JSON data")


def as_json(record: dict[str, Any]) -> dict[str, Any]:
    """The record as JSON data (tuples as lists, numpy scalars as Python's)."""
    data: dict[str, Any] = json.loads(json.dumps(record, default=json_scalar))
    return data
