"""The page's limits (limits.py) enforced on the engine through its trace observer: an array
or a program over the cap stops the trace with a LimitError, before it fills memory."""
from __future__ import annotations

from ..core import ShapedArray, TraceObserver
from .limits import MAX_ARRAY_ELEMENTS, MAX_STAGED_EQNS


class LimitError(Exception):
    """User code asked for more than the page allows: an array or a program too large."""


class PageCaps(TraceObserver):
    """One request's caps: elements per array, equations staged in all."""

    def __init__(self, elements: int = MAX_ARRAY_ELEMENTS, equations: int = MAX_STAGED_EQNS):
        self.elements = elements
        self.equations = equations
        self.staged = 0

    def aval_made(self, aval: ShapedArray) -> None:
        n = 1
        for d in aval.shape:
            n *= d
        if n > self.elements:
            raise LimitError(f"an array of shape {aval.shape} ({n} elements) is over the page's "
                             f"limit of {self.elements} elements")

    def equation_staged(self) -> None:
        self.staged += 1
        if self.staged > self.equations:
            raise LimitError(f"the program grew past the page's limit of {self.equations} "
                             "equations")
