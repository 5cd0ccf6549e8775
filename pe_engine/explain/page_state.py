"""The page's state as the command line describes it, and what the page makes of it: the
engine's request (request_contract.py, checked against it) and the permalink (the link the
page reads: `#v1.` then the state's JSON, raw-deflated, in base64url). The page builds both in
JavaScript (app/state.js); tests/test_cli.py checks that the two agree on every example and
that the page's own decoder opens every link made here. Nothing here reads the page's files."""
from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

from . import schema
from .record import DEFAULT_POLICY
from .request_contract import REQUESTS

DEFAULT_VALUE = "1.0"  # an input the state gives no value
LINK_PREFIX = "v1."
# The link's limits, the page's on write and on read (written into app/contract/values.js,
# which app/limits.js takes them from): chat services and address bars cut long links.
MAX_LINK_CHARS = 16 * 1024
MAX_LINK_CODE_CHARS = 20_000


class PageState(TypedDict):
    """What a permalink carries (app/state.js's state, the cursor left out)."""
    code: str
    known: dict[str, bool]  # an input it does not name is known
    values: dict[str, str]
    mode: str  # one of PAGE_MODES
    policy: str
    folding: bool
    instantiate: NotRequired[list[bool]]
    step: NotRequired[int | None]


# The page's mode tabs, in order, each with its request's kwargs beyond the source and the
# inputs (app/modes.js's MODE_TABLE kwargs: tests/test_cli.py checks that the two agree).
PAGE_KWARGS: dict[str, Callable[[PageState], dict[str, Any]]] = {
    "split": lambda st: ({"instantiate": st["instantiate"]}
                         if any(st.get("instantiate", [])) else {}),
    "jit": lambda st: {"eager_constant_folding": st["folding"]},
    "grad": lambda st: {},
    "linearize": lambda st: {},
    "checkpoint": lambda st: {"policy": st["policy"]},
}
PAGE_MODES = list(PAGE_KWARGS)


class LinkError(ValueError):
    """A state the page would refuse to open from a link (the message says why)."""


def page_request(state: PageState, params: list[str]) -> tuple[str, dict[str, Any]]:
    """The mode and the request the page asks the engine for `state`, whose function takes
    `params` (pe_engine.explain.signature's): one input per parameter, in order."""
    mode = state["mode"]
    kwargs: dict[str, Any] = {"source": state["code"],
                    "args": [{"known": state["known"].get(p, True),
                              "value": state["values"].get(p, DEFAULT_VALUE)} for p in params],
                    **PAGE_KWARGS[mode](state)}
    problems = schema.problems(schema.request_schema(), REQUESTS[mode].__name__, kwargs)
    assert not problems, problems  # a state the command line built: its bug, not the user's
    return mode, kwargs


def permalink(state: PageState, params: list[str]) -> str:
    """The link's hash (no `#`) that opens the page in `state`: only what the link needs, the
    inputs of the current parameters and the policy and folding whatever the mode."""
    if len(state["code"]) > MAX_LINK_CODE_CHARS:
        raise LinkError(f"the code in the link is over {MAX_LINK_CODE_CHARS} characters")
    link: dict[str, Any] = {"code": state["code"],
                  "known": {p: state["known"][p] for p in params if p in state["known"]},
                  "values": {p: state["values"][p] for p in params if p in state["values"]},
                  "mode": state["mode"]}
    if state["policy"] != DEFAULT_POLICY:
        link["policy"] = state["policy"]
    if state["folding"]:
        link["folding"] = True
    if any(state.get("instantiate", [])):
        link["instantiate"] = state["instantiate"]
    if state.get("step") is not None:
        link["step"] = state["step"]
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, as CompressionStream's
    text = json.dumps(link, ensure_ascii=False, separators=(",", ":")).encode()
    packed = deflate.compress(text) + deflate.flush()
    hash_ = LINK_PREFIX + base64.urlsafe_b64encode(packed).rstrip(b"=").decode()
    if len(hash_) + 1 > MAX_LINK_CHARS:
        raise LinkError(f"the link would be {len(hash_)} characters, over the page's limit of "
                        f"{MAX_LINK_CHARS}")
    return hash_
