"""The mask explorer's record: every known/unknown mask of a function, counted, in one request.

For each of the 2**n masks of a function of up to MAX_MASK_INPUTS inputs: the equations of
the known and the unknown program and the residuals with their bytes, as split mode gives them
for that mask, or the error split mode gives. What does not depend on the mask is done once:
the source is loaded and the values parsed once, and the function is traced once, with every
input held (known). Split mode holds only the known inputs, and which inputs are held matters
only where Python reads a held value (an `if`, `int()`, an index, `float()`, a conversion to
an array), which the trace logs. A mask that knows every input those values were computed from
traces the very same program, so its split is the shared program's; a mask that leaves one of
them unknown is traced on its own, as split mode traces it (and fails where split mode fails).
Each mask gets split mode's budget of staged equations (caps.PageCaps), the shared trace's
share included.

Asked as grad or checkpoint (`as_mode`), a mask is what those modes read it as, JAX's argnums
(the unknown inputs are differentiated), and each cell counts that mode's linearized split: its
forward (known) and linear (unknown) programs and the residuals between them. Nothing is shared
there: each mask is linearized on its own, as the mode does it.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from .. import core
from ..core import ClosedJaxpr, Jaxpr, Var
from ..partial_eval import partial_eval_jaxpr_nounits
from ..pytree import tree_leaves
from . import autodiff
from .caps import PageCaps
from .failures import engine_error
from .limits import MAX_MASK_INPUTS
from .record import (
    DEFAULT_POLICY,
    RECORD_VERSION,
    CheckpointRecord,
    GradRecord,
    MaskCell,
    MasksRecord,
)
from .requests import args_record, load_request, trace_user
from .sandbox import UserCodeError


def masks(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
          as_mode: str = "split", policy: str = DEFAULT_POLICY) -> MasksRecord:
    """Every mask of the user's function: "1" known, "0" unknown, one character an argument;
    each cell as mode `as_mode` (split, grad, checkpoint under `policy`) gives it for that mask."""
    lf, values, params = load_request(source, fn, args)
    if len(params) > MAX_MASK_INPUTS:
        raise UserCodeError(
            f"the mask explorer splits functions of up to {MAX_MASK_INPUTS} inputs every way; "
            f"{lf.name} takes {len(params)} ({', '.join(params)})", lf.lineno, "limit")
    n = len(params)
    if as_mode != "split":
        cells = [_autodiff_cell(source, args, fn, as_mode, policy, known)
                 for known in itertools.product([False, True], repeat=n)]
        return {"version": RECORD_VERSION, "mode": "masks", "fn": lf.name,  # type: ignore[typeddict-item]  # modes.run adds jax_snippet, memory
                "args": args_record(params, args, values), "traced_eqns": None,
                "traces": len(cells), "masks": cells, "as_mode": as_mode,
                "policy": policy if as_mode == "checkpoint" else None}
    shared = _Trace(lf.fn, values, [True] * n)
    read = (_inputs_read(shared.closed.jaxpr, shared.decisions, values)
            if shared.closed is not None else set(range(n)))
    traces, cells = 1, []
    for known in itertools.product([False, True], repeat=n):
        if all(known[i] for i in read) or all(known):
            trace = shared  # the same held values read, the same program
        else:
            trace = _Trace(lf.fn, values, list(known))
            traces += 1
        cells.append(trace.cell(known))
    return {"version": RECORD_VERSION, "mode": "masks", "fn": lf.name,  # type: ignore[typeddict-item]  # modes.run adds jax_snippet, memory
            "args": args_record(params, args, values),
            "traced_eqns": len(shared.closed.jaxpr.eqns) if shared.closed is not None else None,
            "traces": traces, "masks": cells, "as_mode": "split", "policy": None}


class _Trace:
    """The function traced with `held` inputs held, as split mode traces it for such a mask:
    the program (or the error), the held values Python read, the equations staged."""

    def __init__(self, fun: Any, values: list[Any], held: list[bool]):
        self.decisions: list[Any] = []
        self.closed: ClosedJaxpr | None = None
        self.error: UserCodeError | None = None
        with core.observing(PageCaps()) as caps:
            try:
                self.closed = trace_user(fun, values, held, self.decisions)
            except UserCodeError as e:
                self.error = e
        self.staged = caps.staged

    def cell(self, known: Sequence[bool]) -> MaskCell:
        mask = "".join("1" if k else "0" for k in known)
        if self.error is not None:
            return _failed(mask, self.error)
        assert self.closed is not None  # traced without an error
        caps = PageCaps()
        caps.staged = self.staged  # split mode's budget covers its trace too
        try:
            with core.observing(caps):
                k, u, _, res = partial_eval_jaxpr_nounits(self.closed, [not x for x in known],
                                                          False)
        except Exception as e:  # noqa: BLE001 - the cell fails as split mode would
            return _failed(mask, e)
        return {"mask": mask, "known_eqns": len(k.jaxpr.eqns), "unknown_eqns": len(u.jaxpr.eqns),
                "residuals": len(res), "residual_bytes": sum(a.nbytes for a in res),
                "error": None}


# what a mask is asked of each autodiff mode: its first request's (no calls opened, nothing
# traced beyond the split; checkpoint: the selected policy alone)
_AUTODIFF: dict[str, Callable[[dict[str, Any], str], GradRecord | CheckpointRecord]] = {
    "grad": lambda kw, policy: autodiff.grad(**kw, open_calls=False, saved=False),
    "checkpoint": lambda kw, policy: autodiff.checkpoint(**kw, policy=policy, only_selected=True,
                                                         open_calls=False),
}


def _autodiff_cell(source: str, args: Sequence[dict[str, Any]], fn: str | None, mode: str,
                   policy: str, known: Sequence[bool]) -> MaskCell:
    """One mask as grad or checkpoint mode splits it: its inputs marked unknown differentiated."""
    mask = "".join("1" if k else "0" for k in known)
    flagged = [{**a, "known": k} for a, k in zip(args, known)]
    try:
        with core.observing(PageCaps()):  # each mask gets a request's budget, as the mode's own
            rec = _AUTODIFF[mode]({"source": source, "args": flagged, "fn": fn}, policy)
    except Exception as e:  # noqa: BLE001 - the cell fails as the mode would
        return _failed(mask, e)
    return {"mask": mask, "known_eqns": len(rec["known"]["eqns"]),
            "unknown_eqns": len(rec["unknown"]["eqns"]), "residuals": len(rec["residuals"]),
            "residual_bytes": rec["residual_bytes"], "error": None}


def _failed(mask: str, exc: Exception) -> MaskCell:
    return {"mask": mask, "known_eqns": 0, "unknown_eqns": 0, "residuals": 0,
            "residual_bytes": 0, "error": engine_error(exc)}


def _inputs_read(jaxpr: Jaxpr, decisions: Sequence[dict[str, Any]],
                 values: Sequence[Any]) -> set[int]:
    """The arguments the held values Python read were computed from. Conservative: an
    equation's outputs depend on all of its inputs (a call's inner program included)."""
    owner = [i for i, v in enumerate(values) for _ in tree_leaves(v)]
    deps: dict[Var, frozenset[int]] = {v: frozenset([owner[j]])
                                       for j, v in enumerate(jaxpr.invars)}
    for e in jaxpr.eqns:
        d = frozenset().union(*(deps.get(a, ()) for a in e.invars if isinstance(a, Var)))
        for v in e.outvars:
            deps[v] = d
    return set().union(*(deps.get(d["atom"], ()) for d in decisions
                         if isinstance(d["atom"], Var)))
