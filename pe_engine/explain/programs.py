"""Programs as the page shows them: JAX's printed text, whole and per equation, and the
printer's name for every variable, so events and residuals can point into the text."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import Jaxpr, JaxprEqn, Var
from ..pretty import (
    PpContext,
    jaxprs_in_params,
    layout_parts,
    pp_atom,
    pp_toplevel_doc,
    toplevel_context,
)
from .record import Program, TypedVar
from .sandbox import USER_FILENAME


def program_record(jaxpr: Jaxpr) -> tuple[Program, dict[Var, str]]:
    """The printed jaxpr, whole and in parts, and the printer's name for every variable."""
    ctx = toplevel_context(jaxpr)
    eqn_docs: list[Any] = []
    spans: list[tuple[int, int, str]] = []
    # An equation laid out alone in 76 columns breaks as it does at indent 4 in 80.
    text, eqns = layout_parts(pp_toplevel_doc(jaxpr, ctx, eqn_docs), eqn_docs, 76,
                              names=spans)
    names = ctx.names
    # Inner jaxprs JAX prints once up front (`let inner = { ... } in`) come first.
    top = text.rfind("\n{ lambda ")
    prelude = text[:top] if ctx.shared and top >= 0 else ""

    def typed(vs: Sequence[Var]) -> str:
        return " ".join(f"{names[v]}:{v.aval.str_short(True)}" for v in vs)

    outs = ", ".join(pp_atom(v, ctx) for v in jaxpr.outvars)
    rec: Program = {
        "text": text,
        "prelude": prelude,
        "header": f"{{ lambda {typed(jaxpr.constvars)}; {typed(jaxpr.invars)}. let",
        "eqns": eqns,
        "footer": f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}",
        "constvars": [typed_var(v, ctx) for v in jaxpr.constvars],
        "invars": [typed_var(v, ctx) for v in jaxpr.invars],
        "outvars": [typed_var(v, ctx) for v in jaxpr.outvars],
        "lines": [line_of(e) for e in jaxpr.eqns],
        "spans": [{"start": a, "end": b, "name": n} for a, b, n in spans],
    }
    return rec, names


def typed_var(a: Any, ctx: PpContext) -> TypedVar:
    """A binder or output as printed (a literal output prints as `1.0:f32[]`), with its type."""
    return {"name": pp_atom(a, ctx), "aval": a.aval.str_short(True)}


def line_of(eqn: JaxprEqn) -> int | None:
    si = eqn.source_info
    return si.lineno if si.filename == USER_FILENAME else None


def short_eqn(eqn: JaxprEqn, names: dict[Var, str]) -> str:
    """`e = mul d b`: the equation without types or params, for narration."""
    ctx = NamesCtx(names)
    outs = " ".join([names.get(v, "_") for v in eqn.outvars])
    ins = " ".join([pp_atom(a, ctx) for a in eqn.invars])
    return f"{outs} = {eqn.primitive.name} {ins}".rstrip()


class NamesCtx(PpContext):
    def __init__(self, names: dict[Var, str]):
        super().__init__()
        self.names = names


def eqn_index_by_source(half: Jaxpr, traced: Jaxpr) -> dict[int, list[int]]:
    """Equations of a split half, grouped by the traced equation they came from.

    Replaying an equation lends its SourceInfo object to everything staged from
    it, so identity maps each half's equations back to the traced one. A call
    (jit, checkpoint, scan) whose rule replays its inner program lends the inner
    equations' SourceInfos instead, so those map to the call that holds them.
    """
    owner: dict[int, int] = {}

    def claim(j: Jaxpr, i: int) -> None:
        for e in j.eqns:
            owner.setdefault(id(e.source_info), i)
            for sub in jaxprs_in_params(e.params):
                claim(sub, i)

    for i, e in enumerate(traced.eqns):
        owner[id(e.source_info)] = i
    for i, e in enumerate(traced.eqns):
        for sub in jaxprs_in_params(e.params):
            claim(sub, i)
    out: dict[int, list[int]] = {}
    for k, e in enumerate(half.eqns):
        at = owner.get(id(e.source_info))
        if at is not None:
            out.setdefault(at, []).append(k)
    return out
