"""The split record: partial evaluation of the user's function under a known/unknown mask.

A record holds everything the page needs to draw and animate a split without
calling back into Python: the traced program, both halves as JAX prints them
(whole text and per equation), one event per traced equation (its inputs'
knownness and origin, the decision and its reason, the value computed now, the
residuals it instantiated, the source line), and the residuals with their
producers and consumers.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .. import core
from ..core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, short_dtype
from ..partial_eval import ConstVar, PartialEvalObserver, partial_eval_jaxpr_nounits
from ..pretty import pp_atom
from .panes import split_panes
from .programs import NamesCtx, eqn_index_by_source, line_of, program_record, short_eqn
from .record import RECORD_VERSION, SplitRecord
from .requests import args_record, decisions_record, load_request, trace_user
from .sandbox import UserCodeError
from .values import format_value

# --------------------------------------------------------------------------- observing the split


class SplitObserver(PartialEvalObserver):
    """Hears JaxprTrace's decisions, keyed by the traced equation being replayed."""

    def __init__(self, eqns: Sequence[JaxprEqn]):
        self.index = {id(e.source_info): i for i, e in enumerate(eqns)}
        self.inputs_known: dict[int, list[bool]] = {}
        self.residual_inputs: dict[int, list[tuple[int, Any]]] = {}

    def _current(self) -> int | None:
        stack = core._source_override
        return self.index.get(id(stack[-1])) if stack else None

    def known(self, primitive: Any, params: dict, tracers: list, outs: list) -> None:
        i = self._current()
        if i is not None:
            self.inputs_known.setdefault(i, [True] * len(tracers))

    def staged(self, primitive: Any, params: dict, tracers: list, staged_in: list,
               recipe: Any) -> None:
        i = self._current()
        if i is None:
            return
        self.inputs_known.setdefault(i, [t.is_known() for t in tracers])
        self.residual_inputs.setdefault(i, [
            (pos, t.recipe.val) for pos, t in enumerate(staged_in)
            if isinstance(t.recipe, ConstVar)])

    def split(self, primitive: Any, params: dict, tracers: list, known_outs: list,
              eqn: Any, inner: dict) -> None:
        i = self._current()
        if i is not None:
            self.inputs_known.setdefault(i, [t.is_known() for t in tracers])



SPLIT_TITLES = [("known", "Known program"), ("unknown", "Unknown program")]


def split(source: str, args: Sequence[dict], fn: str | None = None,
          instantiate: Sequence[bool] | None = None) -> SplitRecord:
    """Partially evaluate the user's function with the given known/unknown mask.
    `instantiate`: one bool per output of the traced program (JAX's `instantiate`): a known
    output marked true is forced into the unknown program, handed over as a residual."""
    lf, values, params = load_request(source, fn, args)
    unknowns = [not bool(a.get("known", True)) for a in args]
    decisions: list = []
    closed = trace_user(lf.fn, values, [not uk for uk in unknowns], decisions)
    forced = _instantiate(instantiate, len(closed.jaxpr.outvars), lf.name)
    rec = split_record(closed, unknowns, params, values, forced).record
    panes = split_panes(rec["known"], rec["unknown"], len(rec["residuals"]),
                        [p for p, uk in zip(params, unknowns) if not uk],
                        [p for p, uk in zip(params, unknowns) if uk], SPLIT_TITLES)
    return {"version": RECORD_VERSION, "mode": "split", "fn": lf.name,
            "args": args_record(params, args, values),
            "decisions": decisions_record(decisions, closed.jaxpr), **rec,
            "instantiate": forced, "panes": panes}


def _instantiate(instantiate: Any, num_outputs: int, fn_name: str) -> list[bool]:
    """The request's `instantiate` checked: absent (nothing forced) or one bool per output."""
    if instantiate is None:
        return [False] * num_outputs
    if not (isinstance(instantiate, list) and all(type(b) is bool for b in instantiate)):
        raise UserCodeError("instantiate must be a list of true/false, one per output of "
                            f"{fn_name}", None, "instantiate")
    if len(instantiate) != num_outputs:
        raise UserCodeError(f"instantiate has {_count(len(instantiate), 'entry', 'entries')}, "
                            f"but {fn_name} returns {_count(num_outputs, 'output', 'outputs')}",
                            None, "instantiate")
    return list(instantiate)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class Split(NamedTuple):
    """A split's record fields, and the two halves as programs for further work."""
    record: dict
    known: ClosedJaxpr
    unknown: ClosedJaxpr


def split_record(closed: ClosedJaxpr, unknowns: Sequence[bool], params: Sequence[str],
                 values: Sequence[Any], instantiate: bool | Sequence[bool] = False) -> Split:
    """The split of a traced program: both halves, one event per equation, the residuals."""
    obs = SplitObserver(closed.jaxpr.eqns)
    known, unknown, out_unknowns, res_avals = partial_eval_jaxpr_nounits(
        closed, unknowns, instantiate, obs)

    known_vals = [v for v, uk in zip(values, unknowns) if not uk]
    env: dict[Var, Any] = {}
    core.eval_jaxpr(known.jaxpr, known.consts, *known_vals, env=env)

    prog, names = program_record(closed.jaxpr)
    krec, knames = program_record(known.jaxpr)
    urec, unames = program_record(unknown.jaxpr)
    kj, uj = known.jaxpr, unknown.jaxpr
    num_res = len(res_avals)
    num_known_out = len(kj.outvars) - num_res

    known_by_src = eqn_index_by_source(kj, closed.jaxpr)
    unknown_by_src = eqn_index_by_source(uj, closed.jaxpr)
    producer_of = {v: i for i, e in enumerate(kj.eqns) for v in e.outvars}
    known_var_event: dict[Var, int] = {}

    # residual k: known jaxpr output num_known_out + k  <->  unknown jaxpr input k
    res_atoms = kj.outvars[num_known_out:]
    res_index = {id(a): k for k, a in enumerate(res_atoms)}
    residual_readers: dict[int, list[int]] = {k: [] for k in range(num_res)}
    res_invars = {v: k for k, v in enumerate(uj.invars[:num_res])}

    events = []
    origin = _origins(closed.jaxpr, params, names)
    for i, e in enumerate(closed.jaxpr.eqns):
        kidx = known_by_src.get(i, [])
        uidx = unknown_by_src.get(i, [])
        for k in kidx:
            for v in kj.eqns[k].outvars:
                known_var_event[v] = i
        side = ("both" if kidx and uidx else "known" if kidx else
                "unknown" if uidx else "unknown-dropped" if i in obs.residual_inputs or
                (i in obs.inputs_known and not all(obs.inputs_known[i])) else "known-dropped")
        in_known = obs.inputs_known.get(i, [True] * len(e.invars))
        for u in uidx:
            for a in uj.eqns[u].invars:
                if isinstance(a, Var) and a in res_invars:
                    residual_readers[res_invars[a]].append(i)
        value = None
        if kidx:
            outs = [env.get(v) for v in kj.eqns[kidx[-1]].outvars]
            value = [format_value(o) if o is not None else None for o in outs]
        res_here = sorted({res_index[id(getattr(val, "atom", None))]
                           for _, val in obs.residual_inputs.get(i, [])
                           if id(getattr(val, "atom", None)) in res_index})
        events.append({
            "i": i,
            "eqn": prog["eqns"][i],
            "short": short_eqn(e, names),
            "primitive": e.primitive.name,
            "line": line_of(e),
            "outs": [names.get(v, "_") for v in e.outvars],
            "inputs": [{"name": pp_atom(a, NamesCtx(names)), "known": bool(kn),
                        "origin": origin(a)} for a, kn in zip(e.invars, in_known)],
            "side": side,
            "known_eqns": kidx,
            "unknown_eqns": uidx,
            "value": value,
            "residuals": res_here,
        })
    residuals = []
    for k, (atom, aval) in enumerate(zip(res_atoms, res_avals)):
        producer = known_var_event.get(atom) if isinstance(atom, Var) else None
        from_input = None
        if isinstance(atom, Var) and atom in kj.invars:
            known_params = [p for p, uk in zip(params, unknowns) if not uk]
            from_input = known_params[kj.invars.index(atom)]
        residuals.append({
            "k": k,
            "known_name": krec["outvars"][num_known_out + k]["name"],
            "unknown_name": urec["invars"][k]["name"],
            "aval": aval.str_short(True),
            "shape": list(aval.shape),
            "dtype": short_dtype(aval.dtype),
            "bytes": aval.nbytes,
            "producer": producer,
            "known_eqn": producer_of.get(atom) if isinstance(atom, Var) else None,
            "from_input": from_input,
            "value": format_value(env[atom]) if isinstance(atom, Var) and atom in env else None,
            "consumers": sorted(set(residual_readers[k])),
        })
    for ev in events:
        ev["narration"] = _narrate(ev, residuals)
    return Split({
        "program": prog,
        "known": krec,
        "unknown": urec,
        "out_unknowns": out_unknowns,
        "residuals": residuals,
        "residual_bytes": sum(r["bytes"] for r in residuals),
        "events": events,
    }, known, unknown)


def _origins(jaxpr: Jaxpr, params: list[str], names: dict[Var, str]) -> Callable[[Any], str]:
    producer = {v: i for i, e in enumerate(jaxpr.eqns) for v in e.outvars}
    arg_of = dict(zip(jaxpr.invars, params))

    def origin(a: Any) -> str:
        if type(a) is Literal:
            return "literal"
        if a in arg_of:
            return f"argument {arg_of[a]}"
        if a in jaxpr.constvars:
            return "constvar"
        return f"equation {producer[a]}" if a in producer else "unknown"
    return origin


def _narrate(ev: dict, residuals: list[dict]) -> str:
    eqn = f"`{ev['short']}`"
    side = ev["side"]
    if side == "known":
        val = ev["value"][0] if ev["value"] else None
        tail = f"; {ev['outs'][0]} = {val}" if val is not None and len(ev["outs"]) == 1 else ""
        return f"{eqn} runs now: every input is known{tail}."
    if side == "known-dropped":
        return f"{eqn} is known, and nothing reads it."
    if side == "both":
        return f"{eqn} is a call: it splits into a known part and an unknown part."
    unknown_ins = [x["name"] for x in ev["inputs"] if not x["known"]]
    why = ", ".join(f"`{n}`" for n in dict.fromkeys(unknown_ins))
    s = f"{eqn} is staged because {why} {'is' if len(set(unknown_ins)) == 1 else 'are'} unknown"
    res = [residuals[k] for k in ev["residuals"]]
    if res:
        names = ", ".join(f"`{x['name']}`" for x in ev["inputs"] if x["known"]
                          and x["origin"] != "literal")
        s += f"; {names} {'becomes a residual' if len(res) == 1 else 'become residuals'}"
    if side == "unknown-dropped":
        s += "; nothing reads its output, so the unknown program drops it"
    return s + "."
