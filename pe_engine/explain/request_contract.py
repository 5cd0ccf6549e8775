"""The request contract: what each entry point of the engine is asked, declared once, beside
the records it answers with (record.py).

tools/write_contract.py turns these TypedDicts into the JSON Schema the page checks every
request it builds against (app/contract/request-schema.json) and the JSDoc typedefs its code is
checked against; the engine checks every request against the same schema before it runs one
(modes.run), so a bad field is named instead of failing somewhere inside a trace.
"""
from typing import Literal, NotRequired, TypedDict

from .record import PolicyName, PolicyRow


class ArgRequest(TypedDict):
    """One input of the traced function, in the order of its parameters. `value` is a numpy
    literal as the page's input box holds it (`2.0`, `[0.5, 1.0]`, `zeros((3, 4))`). Without
    `known`, an input is known (split, jit, masks) or differentiated (grad, checkpoint)."""
    known: NotRequired[bool]
    value: NotRequired[str]


class RequestBase(TypedDict):
    """The user's source and the traced function's inputs. `fn` names the function to trace
    (default: the last top-level def)."""
    source: str
    args: list[ArgRequest]
    fn: NotRequired[str | None]


class SplitRequest(RequestBase):
    """`instantiate`: one bool per output of the traced program (JAX's `instantiate`).
    `open_calls` false leaves out each call's inner split (the record's unopened_calls)."""
    instantiate: NotRequired[list[bool] | None]
    open_calls: NotRequired[bool]


class JitRequest(RequestBase):
    eager_constant_folding: NotRequired[bool]


class GradRequest(RequestBase):
    """`saved` false leaves out print_saved_residuals' own trace (saved_residuals None)."""
    open_calls: NotRequired[bool]
    saved: NotRequired[bool]


class LinearizeRequest(RequestBase):
    open_calls: NotRequired[bool]


class CheckpointRequest(RequestBase):
    """`only_selected`: the selected policy's card alone, the others listed as pending (each
    then asked of pe_engine.explain.checkpoint_policy, a PolicyRequest)."""
    policy: NotRequired[PolicyName]
    only_selected: NotRequired[bool]
    open_calls: NotRequired[bool]


class InterpretersRequest(RequestBase):
    pass


class MasksRequest(RequestBase):
    """`as_mode`: which mode's split each cell counts (grad and checkpoint read a mask as
    argnums); `policy`: checkpoint's."""
    as_mode: NotRequired[Literal["split", "grad", "checkpoint"]]
    policy: NotRequired[PolicyName]


class PolicyRequest(RequestBase):
    """One pending policy of a checkpoint record asked with only_selected (a row of its cards:
    "no checkpoint" too)."""
    policy: NotRequired[PolicyRow]


class SignatureRequest(TypedDict):
    """A source whose traced function pe_engine.explain.signature names (`fn` as above)."""
    source: str
    fn: NotRequired[str | None]


REQUESTS = {"split": SplitRequest, "jit": JitRequest, "grad": GradRequest,
            "linearize": LinearizeRequest,
            "checkpoint": CheckpointRequest, "interpreters": InterpretersRequest,
            "masks": MasksRequest}
