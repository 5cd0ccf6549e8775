"""Records for the two interpreters and for where a jaxpr's variables come from.

`interpreters` runs the reader's function under both of JAX's interpreters:
JaxprTrace (the partial evaluator, on concrete known inputs: known work is
executed now, unknown work hangs recipes on tracers, assembled into a jaxpr at the
end) and DynamicJaxprTrace (staging: every operation appended to a frame), and a
frame with auto-DCE, which collects unused effect-free equations before the jaxpr
is built. Every variable of the resulting jaxprs is listed with its identity, its
printed name and the recipe it came from.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import core
from ..core import DropVar, Jaxpr, Literal
from ..partial_eval import PartialEvalObserver, PartialVal, trace_to_jaxpr_nounits
from ..pytree import tree_leaves
from ..staging import trace_to_jaxpr_dynamic
from .budget import exception_text
from .programs import program_record, short_eqn
from .record import RECORD_VERSION, InterpretersRecord
from .requests import args_record, load_request, trace_user
from .sandbox import UserCodeError, user_lineno
from .values import format_value


class _DecisionLog(PartialEvalObserver):
    """JaxprTrace's observer: each primitive it sees, executed now or given a recipe."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def known(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
              outs: list[Any]) -> None:
        self.entries.append({"primitive": primitive.name, "decision": "executed",
                             "value": [format_value(o) for o in outs]})

    def staged(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
               staged_in: list[Any], recipe: Any) -> None:
        kinds = [type(t.recipe).__name__ if t.recipe is not None else "known"
                 for t in staged_in]
        self.entries.append({"primitive": primitive.name, "decision": "recipe",
                             "eqn_id": recipe.eqn_id, "input_recipes": kinds})

    def split(self, primitive: Any, params: dict[str, Any], tracers: list[Any],
              known_outs: list[Any], eqn: Any, inner: dict[str, Any]) -> None:
        self.entries.append({"primitive": primitive.name, "decision": "split"})


def variables(jaxpr: Jaxpr, consts: Sequence[Any], env_count: int = 0,
              staged: bool = False) -> list[dict[str, Any]]:
    """Every variable with its identity, printed name and origin.

    Under JaxprTrace the origins are recipes: inputs are LambdaBindings (FreeVars
    first, when an enclosing trace's tracers were closed over), constvars are
    ConstVars (residuals), equation outputs come from equation recipes (a DropVar
    when nothing reads them), and Literals are no variable at all.
    """
    _, names = program_record(jaxpr)
    out = []

    def add(v: Any, origin: str, role: str, value: Any = None) -> None:
        out.append({"repr": repr(v), "name": "_" if type(v) is DropVar else names.get(v, "_"),
                    "aval": v.aval.str_short(True), "origin": origin, "role": role,
                    "value": None if value is None else format_value(value)})

    for v, c in zip(jaxpr.constvars, consts):
        add(v, "ConstVar" if not staged else "constvar", "residual" if not staged else
            "closed-over constant", c)
    for i, v in enumerate(jaxpr.invars):
        add(v, "FreeVar" if i < env_count else ("LambdaBinding" if not staged else "invar"),
            "input")
    literals: dict[tuple[str, str], Literal] = {}
    for e in jaxpr.eqns:
        for v in e.outvars:
            add(v, "DropVar" if type(v) is DropVar or names.get(v) == "_" else "equation",
                f"output of {e.primitive.name}")
        for a in e.invars:
            if type(a) is Literal:
                literals.setdefault((str(a.val), a.aval.str_short(True)), a)
    for a in literals.values():
        out.append({"repr": repr(a), "name": None, "aval": a.aval.str_short(True),
                    "origin": "Literal", "role": "inlined constant: the atom is the value",
                    "value": format_value(a.val)})
    return out


def interpreters(source: str, args: Sequence[dict[str, Any]], fn: str | None = None
                 ) -> InterpretersRecord:
    """The same function under JaxprTrace and under DynamicJaxprTrace, side by side."""
    lf, values, params = load_request(source, fn, args)
    unknowns = [not bool(a.get("known", True)) for a in args]
    staged = trace_user(lf.fn, values)

    def flat_fun(*xs: Any) -> list[Any]:
        return tree_leaves(lf.fn(*xs))

    log = _DecisionLog()
    pvals = [PartialVal.unknown(core.get_aval(v)) if uk else PartialVal.known(v)
             for v, uk in zip(values, unknowns)]
    try:
        pe_jaxpr, out_pvals, residuals = trace_to_jaxpr_nounits(flat_fun, pvals, False, log)
    except Exception as e:  # noqa: BLE001 - the same error the split would report
        raise UserCodeError(exception_text(e), user_lineno(e), "trace") from None
    avals = [core.get_aval(v) for v in values]
    dced = trace_to_jaxpr_dynamic(flat_fun, avals, auto_dce=True)
    staged_rec, staged_names = program_record(staged.jaxpr)
    frame = [{"i": i, "short": short_eqn(e, staged_names), "collected": False}
             for i, e in enumerate(staged.jaxpr.eqns)]
    # Tracing twice gives new SourceInfo objects, so match auto-DCE survivors by line and
    # primitive, in order.
    survivors = [(e.source_info.lineno, e.primitive.name) for e in dced.jaxpr.eqns]
    for entry, eqn in zip(frame, staged.jaxpr.eqns):
        key = (eqn.source_info.lineno, eqn.primitive.name)
        if key in survivors:
            survivors.remove(key)
        else:
            entry["collected"] = True
    pe_rec, _ = program_record(pe_jaxpr)
    return {  # type: ignore[typeddict-item]  # jax_snippet, memory: modes.run adds them
        "version": RECORD_VERSION,
        "mode": "interpreters",
        "fn": lf.name,
        "args": args_record(params, args, values),
        "jaxpr_trace": {
            "log": log.entries,
            "program": pe_rec,
            "out_known": [pv.is_known() for pv in out_pvals],
            "known_outputs": [format_value(pv.get_known()) for pv in out_pvals
                              if pv.is_known()],
            "residuals": [format_value(r) for r in residuals],
            "variables": variables(pe_jaxpr, residuals),
        },
        "dynamic_trace": {
            "frame": frame,
            "program": staged_rec,
            "auto_dce_program": program_record(dced.jaxpr)[0],
            "variables": variables(staged.jaxpr, staged.consts, staged=True),
        },
    }
