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
from typing import Any, NamedTuple, cast

from .. import core
from ..core import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, short_dtype
from ..partial_eval import partial_eval_jaxpr_nounits
from ..pretty import pp_atom
from .calls import INNER, Inner, Shown, inner_of, nounits_shown
from .memory import account
from .narrate import PaneNames, narrate, shorts, staged_operands
from .observe import Round, SplitObserver
from .panes import split_panes
from .programs import NamesCtx, eqn_index_by_source, line_of, program_record, short_eqn
from .record import RECORD_VERSION, CallRound, CallSplit, Residual, SplitRecord
from .requests import args_record, decisions_record, load_request, trace_user
from .sandbox import UserCodeError
from .values import format_value

SPLIT_TITLES = [("known", "Known program"), ("unknown", "Unknown program")]


def split(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
          instantiate: Sequence[bool] | None = None, open_calls: bool = True) -> SplitRecord:
    """Partially evaluate the user's function with the given known/unknown mask.
    `instantiate`: one bool per output of the traced program (JAX's `instantiate`): a known
    output marked true is forced into the unknown program, handed over as a residual.
    `open_calls` false: the calls' inner splits are left out (`unopened_calls` lists them),
    for a page that draws the split first and opens its calls after."""
    lf, values, params = load_request(source, fn, args)
    unknowns = [not bool(a.get("known", True)) for a in args]
    decisions: list[Any] = []
    closed = trace_user(lf.fn, values, [not uk for uk in unknowns], decisions)
    forced = _instantiate(instantiate, len(closed.jaxpr.outvars), lf.name)
    sp = split_record(closed, unknowns, params, values, forced, open_calls)
    rec = sp.record
    panes = split_panes(rec["known"], rec["unknown"], sp.res_out_pos, sp.res_in_pos,
                        [p for p, uk in zip(params, unknowns) if not uk],
                        [p for p, uk in zip(params, unknowns) if uk], SPLIT_TITLES)
    return {"version": RECORD_VERSION, "mode": "split", "fn": lf.name,
            "args": args_record(params, args, values),
            "decisions": decisions_record(decisions, closed.jaxpr), **rec,  # type: ignore[typeddict-item]  # rec: a plain dict
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
    """A split's record fields, the two halves as programs for further work, and where
    each residual is: the known program's output that hands it over (None: a known input
    passed on as it is), the unknown program's input that receives it; the printer's
    name for each variable of the program split; and the known program's outputs at the
    inputs' values (none without values)."""
    record: dict[str, Any]
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    res_out_pos: list[int | None]
    res_in_pos: list[int]
    names: dict[Var, str]
    known_outs: list[Any]


def split_record(closed: ClosedJaxpr, unknowns: Sequence[bool], params: Sequence[str] | None,
                 values: Sequence[Any] | None, instantiate: bool | Sequence[bool] = False,
                 open_calls: bool = True) -> Split:
    """The split of a traced program: both halves, one event per equation, the residuals.

    `params` names the program's inputs (None: as the printer names its binders); `values`
    are the inputs' values, for the values computed now (None: an inner program, whose
    values are not one value each). `open_calls`: each call equation's event carries its
    inner split (`call`); without, the split is the same, its calls unopened (a quarter of a
    checkpoint policy's answer, for a card that never shows them)."""
    obs = SplitObserver()
    known, unknown, out_unknowns, res_avals = partial_eval_jaxpr_nounits(
        closed, unknowns, instantiate, obs)
    return _describe(closed, params, values, obs, nounits_shown(known, unknown, unknowns),
                     out_unknowns, unknowns, open_calls)


def _describe(closed: ClosedJaxpr, params: Sequence[str] | None, values: Sequence[Any] | None,
              obs: SplitObserver, shown: Shown, out_unknowns: list[bool], unknowns: Sequence[bool],
              open_calls: bool = True) -> Split:
    known, unknown = shown.known, shown.unknown
    prog, names = program_record(closed.jaxpr)
    if params is None:
        params = [names[v] for v in closed.jaxpr.invars]
    known_params = [p for p, k in zip(params, shown.known_in) if k]
    unknown_params = [p for p, u in zip(params, shown.unknown_in) if u]
    env: dict[Var, Any] = {}
    known_outs = [] if values is None else core.eval_jaxpr(
        known.jaxpr, known.consts, *[v for v, k in zip(values, shown.known_in) if k], env=env)

    # a residual's value is the value of the event that made it: formatted once
    formatted: dict[Var, str | None] = {}

    def value_text(v: Var) -> str | None:
        if v not in formatted:
            x = env.get(v)
            formatted[v] = None if x is None else format_value(x)
        return formatted[v]

    krec, knames = program_record(known.jaxpr)
    urec, unames = program_record(unknown.jaxpr)
    kj, uj = known.jaxpr, unknown.jaxpr

    known_by_src = eqn_index_by_source(kj, closed.jaxpr)
    unknown_by_src = eqn_index_by_source(uj, closed.jaxpr)
    producer_of = {v: i for i, e in enumerate(kj.eqns) for v in e.outvars}
    known_var_event: dict[Var, int] = {}

    # residual k: the known program's atom shown.res_known[k] <-> unknown binder res_unknown[k]
    res_atoms = shown.res_known
    res_index = {id(a): k for k, a in enumerate(res_atoms) if a is not None}
    residual_readers: dict[int, list[int]] = {k: [] for k in range(len(res_atoms))}
    res_invars = {v: k for k, v in enumerate(shown.res_unknown)}
    kpane = PaneNames(kj, knames, dict(zip(kj.invars, known_params)))
    unknown_binders = [v for v in uj.invars if v not in res_invars]
    unknown_flags = [uk for uk, u in zip(unknowns, shown.unknown_in) if u]
    upane = PaneNames(uj, unames, dict(zip(unknown_binders, unknown_params)), res_invars,
                      {v for v, uk in zip(unknown_binders, unknown_flags) if uk})

    events = []
    origin = _origins(closed.jaxpr, params, names)
    ctx = NamesCtx(names)
    for i, e in enumerate(closed.jaxpr.eqns):
        kidx = known_by_src.get(i, [])
        uidx = unknown_by_src.get(i, [])
        for k in kidx:
            for v in kj.eqns[k].outvars:
                known_var_event[v] = i
        note = obs.note((id(e),))
        side = ("both" if kidx and uidx else "known" if kidx else
                "unknown" if uidx else "unknown-dropped" if note is not None and (
                    note.residual_inputs or not all(note.inputs_known)) else "known-dropped")
        in_known = note.inputs_known if note is not None else [True] * len(e.invars)
        for u in uidx:
            for a in uj.eqns[u].invars:
                if isinstance(a, Var) and a in res_invars:
                    residual_readers[res_invars[a]].append(i)
        value = None
        if kidx and env:
            value = [value_text(v) for v in kj.eqns[kidx[-1]].outvars]
        res_here = sorted({res_index[id(getattr(val, "atom", None))]
                           for _, val in (note.residual_inputs if note is not None else [])
                           if id(getattr(val, "atom", None)) in res_index})
        event = {
            "i": i,
            "eqn": prog["eqns"][i],
            "short": short_eqn(e, names),
            "primitive": e.primitive.name,
            "line": line_of(e),
            "outs": [names.get(v, "_") for v in e.outvars],
            "inputs": [{"name": pp_atom(a, ctx), "known": bool(kn),
                        "origin": origin(a)} for a, kn in zip(e.invars, in_known)],
            "side": side,
            "known_eqns": kidx,
            "unknown_eqns": uidx,
            "known_short": shorts(kpane, kidx),
            "unknown_short": shorts(upane, uidx),
            "value": value,
            "residuals": res_here,
        }
        rounds = obs.rounds.get((id(e),), [])
        inner = inner_of(e, [not k for k in in_known], rounds) if open_calls else None
        if inner is not None:
            labels = [operand_label(a, origin(a), closed.jaxpr) for a in e.invars]
            event["call"] = call_split(e.primitive.name, in_known, inner, rounds, labels)
        events.append(event)
    # where each residual is handed over: the last position, as a residual that is also a
    # known output is handed over last (None: a known input passed on as it is)
    res_out_pos = [max((p for p, v in enumerate(kj.outvars) if v is a), default=None)
                   for a in res_atoms]
    residuals = []
    for k, (atom, binder, pos) in enumerate(zip(res_atoms, shown.res_unknown, res_out_pos)):
        aval = binder.aval
        producer = known_var_event.get(atom) if isinstance(atom, Var) else None
        from_input = None
        if isinstance(atom, Var) and atom in kj.invars:
            from_input = known_params[kj.invars.index(atom)]
        residuals.append({
            "k": k,
            "known_name": (krec["outvars"][pos]["name"] if pos is not None else
                           knames.get(atom, "")),
            "unknown_name": unames[binder],
            "aval": aval.str_short(True),
            "shape": list(aval.shape),
            "dtype": short_dtype(aval.dtype),
            "bytes": aval.nbytes,
            "producer": producer,
            "known_eqn": producer_of.get(atom) if isinstance(atom, Var) else None,
            "from_input": from_input,
            "value": value_text(atom) if isinstance(atom, Var) else None,
            "consumers": sorted(set(residual_readers[k])),
        })
    for ev in events:
        ev["narration"] = narrate(ev, kpane, upane, residuals)
        ev["staged_operands"] = staged_operands(ev, upane, urec["lines"], residuals, events)
    unopened = [] if open_calls else [ev["i"] for ev in events if ev["primitive"] in INNER]
    # the dicts built above, as record.py types them
    acct = account(cast("list[Residual]", residuals))
    return Split({
        "program": prog,
        "known": krec,
        "unknown": urec,
        "out_unknowns": out_unknowns,
        "residuals": residuals,
        "residual_bytes": acct["total_bytes"],
        "memory_account": acct,
        "events": events,
        **({"unopened_calls": unopened} if unopened else {}),
    }, known, unknown, res_out_pos, [uj.invars.index(b) for b in shown.res_unknown], names,
        known_outs)


CALL_TITLES = [("known", "Known (inner)"), ("unknown", "Unknown (inner)")]


def operand_label(a: Any, origin: str, jaxpr: Jaxpr) -> str:
    """What a call's operand is, in the reader's terms: the user's argument it is (`W1`), a
    literal, a constant, or the source line that computed it."""
    if origin.startswith("argument "):
        return origin.removeprefix("argument ")
    if origin == "literal":
        return pp_atom(a, NamesCtx({}))
    if origin.startswith("equation "):
        line = line_of(jaxpr.eqns[int(origin.removeprefix("equation "))])
        return f"from line {line}" if line is not None else "a value computed before"
    return "a constant"


def call_split(primitive: str, inputs_known: Sequence[bool], inner: Inner,
               rounds: Sequence[Round], labels: Sequence[str]) -> CallSplit:
    """A call equation opened: its inner program split as its rule splits it, described as
    a split is (its own calls opened in turn), with the loop's fixpoint rounds and the
    equations whose outputs are saved or recomputed. `labels`: what each of the call's
    operands is to the reader (operand_label); the inner inputs they bind are named so."""
    obs = SplitObserver()
    known, unknown, out_unknowns, _ = partial_eval_jaxpr_nounits(
        inner.jaxpr, inner.unknowns, inner.instantiate, obs)
    shown = inner.shown or nounits_shown(known, unknown, inner.unknowns)
    body = inner.jaxpr.jaxpr
    names = list(labels[inner.operand_offset:inner.operand_offset + len(body.invars)])
    sp = _describe(inner.jaxpr, names, None, obs, shown, out_unknowns, inner.unknowns)
    rec = sp.record
    carries = slice(inner.carry_offset, inner.carry_offset + len(rounds[0].carry_out_unknowns)) \
        if rounds else slice(0, 0)
    panes = split_panes(rec["known"], rec["unknown"], sp.res_out_pos, sp.res_in_pos,
                        [n for n, k in zip(names, shown.known_in) if k],
                        [n for n, u in zip(names, shown.unknown_in) if u], CALL_TITLES)
    events = rec["events"]
    opened: CallSplit = {
        "primitive": primitive,
        "title": inner.title,
        "inputs_known": [bool(k) for k in inputs_known],
        "inputs": list(labels),
        "program": rec["program"],
        "carries": [sp.names[v] for v in body.invars[carries]],
        "events": events,
        "panes": panes,
        "residuals": rec["residuals"],
        "rounds": [_round(inner, r, sp.names) for r in rounds],
        "saved": sorted({r["producer"] for r in rec["residuals"] if r["producer"] is not None}),
        # In both halves and no call: run now and again in the unknown program (only a
        # policy's split, remat2's, copies a known equation there).
        "recomputed": [ev["i"] for ev in events if ev["side"] == "both" and "call" not in ev],
    }
    if inner.others:
        opened["branches"] = [call_split(primitive, inputs_known, other, rounds, labels)
                              for other in inner.others]
    return opened


def _round(inner: Inner, r: Round, names: dict[Var, str]) -> CallRound:
    """One round of a loop's carry fixpoint, with why each carry that turned unknown did:
    the body equation that computes it read an unknown value this round (`names`: the
    printer's names for the body's variables)."""
    body = inner.jaxpr.jaxpr
    ctx = NamesCtx(names)
    carries = slice(inner.carry_offset, inner.carry_offset + len(r.carry_out_unknowns))
    unknown_in = list(r.unknowns[carries])
    unknown_vars = {v for v, uk in zip(body.invars, r.unknowns) if uk}
    producer: dict[Atom, JaxprEqn] = {}
    for e in body.eqns:
        if any(isinstance(a, Var) and a in unknown_vars for a in e.invars):
            unknown_vars.update(e.outvars)
        producer.update({v: e for v in e.outvars})
    turned = [j for j, (a, b) in enumerate(zip(unknown_in, r.carry_out_unknowns)) if b and not a]
    why = []
    for j in turned:
        out = body.outvars[j]
        carry = names.get(body.invars[carries][j], f"carry {j}")
        made = producer.get(out)
        if made is None:  # the body hands back one of its inputs as it is
            why.append(f"{carry} turns unknown: the body returns {pp_atom(out, ctx)} for it, "
                       "an unknown input.")
            continue
        ins = list(dict.fromkeys(pp_atom(a, ctx) for a in made.invars
                                 if isinstance(a, Var) and a in unknown_vars))
        why.append(f"{carry} turns unknown: the body computes it with `{short_eqn(made, names)}`"
                   f", and {', '.join(ins)} {'is' if len(ins) == 1 else 'are'} unknown.")
    return {"unknown_in": [bool(u) for u in unknown_in],
            "unknown_out": [bool(u) for u in r.carry_out_unknowns],
            "turned": turned, "why": why}


def _origins(jaxpr: Jaxpr, params: Sequence[str], names: dict[Var, str]
             ) -> Callable[[Any], str]:
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
