"""The narration of a split's events, in the names of the pane the reader looks at.

The traced program, the known program and the unknown program each name their variables
afresh (`b` is `sin a` in one and `y` in another), so a sentence says each equation as the
pane that holds it prints it, and what each of its inputs is there: one of the user's
arguments, a residual handed over by the known program, or a value that pane computes.
An event in neither pane (dropped) is said in the traced program's names.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import Jaxpr, Literal, Var
from .calls import INNER
from .programs import short_eqn
from .record import StagedOperand


@dataclass
class PaneNames:
    """One half as the narration speaks of it: its program, the printer's names, the
    arguments its inputs bind and the residuals its atoms hand over or receive."""
    jaxpr: Jaxpr
    names: dict[Var, str]
    args: dict[Var, str] = field(default_factory=dict)
    residuals: dict[Var, int] = field(default_factory=dict)
    unknown_args: set[Var] = field(default_factory=set)  # inputs binding unknown arguments
    # equation index -> its short text: each is asked by its event and again by its sentence
    _shorts: dict[int, str] = field(default_factory=dict, repr=False)

    def short(self, k: int) -> str:
        text = self._shorts.get(k)
        if text is None:
            text = self._shorts[k] = short_eqn(self.jaxpr.eqns[k], self.names)
        return text


def shorts(pane: PaneNames, idx: Sequence[int]) -> list[str]:
    """The equations `idx` of a pane as the narration writes them (`b = sin a`)."""
    return [pane.short(k) for k in idx]


def narrate(ev: dict[str, Any], known: PaneNames, unknown: PaneNames,
            residuals: list[dict[str, Any]]) -> str:
    """One sentence for an event: what happens to its equation and why."""
    side, kidx, uidx = ev["side"], ev["known_eqns"], ev["unknown_eqns"]
    ktext = _eqns(known, kidx)
    utext = _eqns(unknown, uidx)
    if ev["primitive"] in INNER and (kidx or uidx):  # a call, opened or not
        halves = " and ".join(t for t in (ktext and f"{ktext} in the known program",
                                          utext and f"{utext} in the unknown program") if t)
        return f"A call, {halves}: it splits into a known part and an unknown part."
    if side == "known":
        val = ev["value"][0] if ev["value"] else None
        out = known.names.get(known.jaxpr.eqns[kidx[-1]].outvars[0], "")
        tail = f"; {out} = {val}" if val is not None and len(ev["outs"]) == 1 else ""
        return f"{ktext} runs now: every input is known{_args(known, kidx, residuals)}{tail}."
    if side == "both":
        return (f"{ktext} runs now, and again as {utext} in the unknown program: its output "
                f"is not saved, so it is recomputed there{_args(unknown, uidx, residuals)}.")
    if side == "unknown":
        return _staged(ev, unknown, uidx, residuals)
    traced = f"`{ev['short']}` (traced program)"
    if side == "known-dropped":
        return f"{traced} is known, and nothing reads it: neither program keeps it."
    unknown_ins = [x["name"] for x in ev["inputs"] if not x["known"]]
    return (f"{traced} is unknown (it reads {_list(unknown_ins)}), and nothing reads its output, "
            "so the unknown program drops it.")


def staged_operands(ev: dict[str, Any], unknown: PaneNames, unknown_lines: Sequence[int | None],
                    residuals: list[dict[str, Any]], events: list[dict[str, Any]]
                    ) -> list[StagedOperand]:
    """What an event's equations in the unknown pane read, in that pane's names, each with
    the residual it receives and where it comes from in the user's code (`unknown_lines`:
    the user's line of each unknown equation; `events`: the split's, for a residual's)."""
    made_at = {v: k for k, e in enumerate(unknown.jaxpr.eqns) for v in e.outvars}
    said: list[StagedOperand] = []
    for a in _atoms(unknown, ev["unknown_eqns"]):
        k = unknown.residuals.get(a)
        r = residuals[k] if k is not None else None
        if r is not None:
            arg, at = r["from_input"], r["producer"]
            line = events[at]["line"] if arg is None and at is not None else None
        else:
            arg = unknown.args.get(a)
            line = unknown_lines[made_at[a]] if arg is None and a in made_at else None
        said.append({"name": unknown.names[a], "residual": k, "arg": arg, "line": line,
                     "known_name": r["known_name"] if r is not None else None})
    return said


def _eqns(pane: PaneNames, idx: Sequence[int]) -> str:
    return "; ".join(f"`{s}`" for s in shorts(pane, idx))


def _atoms(pane: PaneNames, idx: Sequence[int]) -> list[Var]:
    """The variables the equations `idx` read that they do not compute themselves."""
    made = {v for k in idx for v in pane.jaxpr.eqns[k].outvars}
    seen = []
    for k in idx:
        for a in pane.jaxpr.eqns[k].invars:
            if type(a) is not Literal and a not in made and a not in seen:
                seen.append(a)
    return seen


def _args(pane: PaneNames, idx: Sequence[int], residuals: list[dict[str, Any]]) -> str:
    """`(a is x)`: the inputs that bind the user's arguments, named as the user wrote them,
    and the residuals read, named as the known program has them."""
    said = [f"`{pane.names[a]}` is {pane.args[a]}" if a in pane.args else
            f"`{pane.names[a]}` is residual r{pane.residuals[a]}, "
            f"{_residual(residuals[pane.residuals[a]])}"
            for a in _atoms(pane, idx) if a in pane.args or a in pane.residuals]
    return f" ({'; '.join(said)})" if said else ""


def _staged(ev: dict[str, Any], unknown: PaneNames, uidx: Sequence[int],
            residuals: list[dict[str, Any]]) -> str:
    atoms = _atoms(unknown, uidx)
    name = unknown.names
    res = [a for a in atoms if a in unknown.residuals]
    ins = [a for a in atoms if a in unknown.args]
    made = [a for a in atoms if a not in unknown.residuals and a not in unknown.args]
    parts = [f"`{name[a]}` is the {'unknown' if a in unknown.unknown_args else 'known'} input "
             f"{unknown.args[a]}" for a in ins]
    if made:
        parts.append(f"{_list([name[a] for a in made])} {'is' if len(made) == 1 else 'are'} "
                     "computed in the unknown program")
    for a in res:
        k = unknown.residuals[a]
        parts.append(f"{_residual(residuals[k])} {_becomes(ev, residuals[k])} residual r{k}, "
                     f"`{name[a]}` here")
    why = "; ".join(parts)
    if not (made or unknown.unknown_args.intersection(ins)):
        # every input known, yet staged: a checkpoint policy saved none of them
        return (f"{_eqns(unknown, uidx)} is computed in the unknown program only: its inputs "
                f"are known but not saved ({why}).")
    return f"{_eqns(unknown, uidx)} is staged in the unknown program: {why}."


def _residual(r: dict[str, Any]) -> str:
    """A residual as the known side has it: a known argument forwarded, or a value it made."""
    if r["from_input"] is not None:
        return f"the known input {r['from_input']}"
    return f"the known program's `{r['known_name']}`"


def _becomes(ev: dict[str, Any], r: dict[str, Any]) -> str:
    """A residual becomes one at the first equation that reads it; later readers read it."""
    return "becomes" if r["consumers"] and ev["i"] == min(r["consumers"]) else "is"


def _list(names: Sequence[Any]) -> str:
    return ", ".join(f"`{n}`" for n in dict.fromkeys(names))
