"""The explanation records the page animates: one JSON-ready dict per request.

A record holds everything the page needs to draw and animate a split without
calling back into Python: the traced program, both halves as JAX prints them
(whole text and per equation), one event per traced equation (its inputs'
knownness and origin, the decision and its reason, the value computed now, the
residuals it instantiated, the source line), and the residuals with their
producers and consumers.
"""
from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core
from .api import make_jaxpr
from .core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from .partial_eval import ConstVar, partial_eval_jaxpr_nounits
from .pretty import (
    PpContext,
    jaxprs_in_params,
    layout,
    pp_atom,
    pp_toplevel_doc,
    toplevel_context,
)
from .sandbox import USER_FILENAME, UserCodeError, load_function, user_lineno
from .staging import const_fold_rules
from .values import ValueParseError, format_value, parse_value

RECORD_VERSION = 1
MAX_EQNS = 2000  # equations in the user's traced program
MAX_ELEMENTS = 1 << 22  # elements in any one array the user's code makes (16 MB of f32)
MAX_STAGED = 100_000  # equations staged while answering one request, re-traces included

# --------------------------------------------------------------------------- programs as text


def program_record(jaxpr: Jaxpr) -> tuple[dict, dict[Var, str]]:
    """The printed jaxpr, whole and in parts, and the printer's name for every variable."""
    ctx = toplevel_context(jaxpr)
    eqn_docs: list = []
    text = layout(pp_toplevel_doc(jaxpr, ctx, eqn_docs))
    names = ctx.names
    # Inner jaxprs JAX prints once up front (`let inner = { ... } in`) come first.
    top = text.rfind("\n{ lambda ")
    prelude = text[:top] if ctx.shared and top >= 0 else ""

    def typed(vs: Sequence[Var]) -> str:
        return " ".join(f"{names[v]}:{v.aval.str_short(True)}" for v in vs)

    # An equation laid out alone in 76 columns breaks as it does at indent 4 in 80.
    eqns = [layout(d, 76) for d in eqn_docs]
    outs = ", ".join(pp_atom(v, ctx) for v in jaxpr.outvars)
    rec = {
        "text": text,
        "prelude": prelude,
        "header": f"{{ lambda {typed(jaxpr.constvars)}; {typed(jaxpr.invars)}. let",
        "eqns": eqns,
        "footer": f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}",
        "constvars": [names[v] for v in jaxpr.constvars],
        "invars": [names[v] for v in jaxpr.invars],
        "outvars": [pp_atom(v, ctx) for v in jaxpr.outvars],
        "lines": [line_of(e) for e in jaxpr.eqns],
    }
    return rec, names


def line_of(eqn: JaxprEqn) -> int | None:
    si = eqn.source_info
    return si.lineno if si.filename == USER_FILENAME else None


def short_eqn(eqn: JaxprEqn, names: dict[Var, str]) -> str:
    """`e = mul d b`: the equation without types or params, for narration."""
    outs = " ".join(names.get(v, "_") for v in eqn.outvars)
    ins = " ".join(pp_atom(a, _NamesCtx(names)) for a in eqn.invars)
    return f"{outs} = {eqn.primitive.name} {ins}".rstrip()


class _NamesCtx(PpContext):
    def __init__(self, names: dict[Var, str]):
        super().__init__()
        self.names = names


def _eqn_index_by_source(half: Jaxpr, traced: Jaxpr) -> dict[int, list[int]]:
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
        i = owner.get(id(e.source_info))
        if i is not None:
            out.setdefault(i, []).append(k)
    return out


# --------------------------------------------------------------------------- observing the split


class SplitObserver:
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

    def split(self, primitive: Any, params: dict, tracers: list, *_: Any, **__: Any) -> None:
        i = self._current()
        if i is not None:
            self.inputs_known.setdefault(i, [t.is_known() for t in tracers])


# --------------------------------------------------------------------------- requests


def load_request(source: str, fn: str | None, args: Sequence[dict]) -> tuple[Any, list, list[str]]:
    lf = load_function(source, fn)
    if len(args) != len(lf.params):
        raise UserCodeError(
            f"{lf.name} takes {len(lf.params)} input(s) ({', '.join(lf.params)}) but "
            f"{len(args)} were given", lf.lineno, "arity")
    values = []
    for name, a in zip(lf.params, args):
        try:
            values.append(parse_value(str(a.get("value", ""))))
        except ValueParseError as e:
            raise UserCodeError(f"input {name}: {e}", None, "value") from None
    return lf, values, lf.params


def trace_user(fun: Callable[..., Any], values: list) -> ClosedJaxpr:
    try:
        closed = make_jaxpr(fun)(*values)
    except UserCodeError:
        raise
    except RecursionError as e:
        raise UserCodeError("RecursionError: maximum recursion depth exceeded (does the "
                            "function call itself without end?)", user_lineno(e),
                            "runtime") from None
    except MemoryError as e:
        raise UserCodeError("MemoryError: the trace ran out of memory", user_lineno(e),
                            "memory") from None
    except core.ResourceLimitError as e:
        raise UserCodeError(str(e), user_lineno(e), "limit") from None
    except Exception as e:  # noqa: BLE001 - reported at the user's line
        raise UserCodeError(f"{type(e).__name__}: {e}", user_lineno(e), "trace") from None
    if len(closed.jaxpr.eqns) > MAX_EQNS:
        raise UserCodeError(f"the traced program has {len(closed.jaxpr.eqns)} equations, over "
                            f"the page's limit of {MAX_EQNS}", None, "limit")
    return closed


def args_record(params: list[str], args: Sequence[dict], values: list) -> list[dict]:
    return [{"name": n, "known": bool(a.get("known", True)),
             "aval": core.get_aval(v).str_short(True), "value": format_value(v)}
            for n, a, v in zip(params, args, values)]


def split(source: str, args: Sequence[dict], fn: str | None = None,
          instantiate: bool = False) -> dict:
    """Partially evaluate the user's function with the given known/unknown mask."""
    lf, values, params = load_request(source, fn, args)
    closed = trace_user(lf.fn, values)
    unknowns = [not bool(a.get("known", True)) for a in args]
    rec = split_record(closed, unknowns, params, values, instantiate)
    del rec["_known_closed"], rec["_unknown_closed"]
    return {"version": RECORD_VERSION, "mode": "split", "fn": lf.name,
            "args": args_record(params, args, values), **rec}


def split_record(closed: ClosedJaxpr, unknowns: Sequence[bool], params: Sequence[str],
                 values: Sequence[Any], instantiate: bool | Sequence[bool] = False) -> dict:
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

    known_by_src = _eqn_index_by_source(kj, closed.jaxpr)
    unknown_by_src = _eqn_index_by_source(uj, closed.jaxpr)
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
            "inputs": [{"name": pp_atom(a, _NamesCtx(names)), "known": bool(kn),
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
            "known_name": krec["outvars"][num_known_out + k],
            "unknown_name": urec["invars"][k],
            "aval": aval.str_short(True),
            "bytes": aval.nbytes,
            "producer": producer,
            "known_eqn": producer_of.get(atom) if isinstance(atom, Var) else None,
            "from_input": from_input,
            "value": format_value(env[atom]) if isinstance(atom, Var) and atom in env else None,
            "consumers": sorted(set(residual_readers[k])),
        })
    for ev in events:
        ev["narration"] = _narrate(ev, residuals)
    return {
        "_known_closed": known,
        "_unknown_closed": unknown,
        "program": prog,
        "known": krec,
        "unknown": urec,
        "out_unknowns": out_unknowns,
        "residuals": residuals,
        "residual_bytes": sum(r["bytes"] for r in residuals),
        "events": events,
    }


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


def stage(source: str, args: Sequence[dict], fn: str | None = None,
          eager_constant_folding: bool = False) -> dict:
    """Stage the user's function as jit does (DynamicJaxprTrace): every operation an equation."""
    lf, values, params = load_request(source, fn, args)
    prev = core.config.values["eager_constant_folding"]
    core.config.values["eager_constant_folding"] = eager_constant_folding
    try:
        closed = trace_user(lf.fn, values)
    finally:
        core.config.values["eager_constant_folding"] = prev
    prog, names = program_record(closed.jaxpr)
    events = []
    for i, e in enumerate(closed.jaxpr.eqns):
        consts = [a for a in e.invars if type(a) is Literal or a in closed.jaxpr.constvars]
        all_const = len(consts) == len(e.invars)
        events.append({
            "i": i, "eqn": prog["eqns"][i], "short": short_eqn(e, names),
            "primitive": e.primitive.name, "line": line_of(e), "side": "staged",
            "narration": (f"`{short_eqn(e, names)}` is staged"
                          + (": every input is a constant, yet it becomes an equation, "
                             f"because `{e.primitive.name}` has no constant-folding rule"
                             if all_const else "")) + ".",
        })
    return {
        "version": RECORD_VERSION,
        "mode": "jit",
        "fn": lf.name,
        "args": [dict(a, known=False) for a in args_record(params, args, values)],
        "program": prog,
        "consts": [format_value(c) for c in closed.consts],
        "eager_constant_folding": eager_constant_folding,
        "const_fold_rules": sorted(p.name for p in const_fold_rules),
        "events": events,
    }


MODES: dict[str, Callable[..., dict]] = {"split": split, "jit": stage}


def run(mode: str, **kwargs: Any) -> dict:
    """The worker's entry point: a record, or {"error": ...} located in the user's code."""
    try:
        fn = MODES[mode]
    except KeyError:
        return {"error": {"type": "mode", "message": f"unknown mode {mode!r}", "lineno": None}}
    try:
        with core.resource_limits(MAX_ELEMENTS, MAX_STAGED):
            return fn(**kwargs)
    except UserCodeError as e:
        return {"error": e.to_json()}
    except core.ResourceLimitError as e:
        return {"error": {"type": "limit", "message": str(e), "lineno": user_lineno(e)}}
    except MemoryError:
        return {"error": {"type": "memory", "message": "MemoryError: out of memory",
                          "lineno": None}}
    except Exception as e:  # noqa: BLE001 - an engine bug must not break the page
        return {"error": {"type": "internal", "message": f"{type(e).__name__}: {e}",
                          "lineno": user_lineno(e),
                          "traceback": traceback.format_exc(limit=8)}}


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


# Modes defined in their own modules register themselves in MODES.
from . import explain_autodiff, explain_interpreters  # noqa: E402, F401
