"""The panes a record shows: each program with its role, and what each of its inputs and
outputs is (an argument, a residual handed over), so the page never works it out."""
from __future__ import annotations

from collections.abc import Sequence

from .record import Pane, PaneRole, Program


def pane(id: str, title: str, role: PaneRole, program: Program,  # noqa: A002 - the JSON key
         arg_names: Sequence[str | None] = (), residuals_in: int = 0,
         residuals_out: int = 0) -> Pane:
    """A pane whose program reads `residuals_in` residuals first, then the arguments
    `arg_names`, and hands over `residuals_out` residuals as its trailing outputs."""
    ins, outs = program["invars"], program["outvars"]
    first_res_out = len(outs) - residuals_out
    return {
        "id": id, "title": title, "role": role, "program": program,
        "inputs": [{**v, "residual": j if j < residuals_in else None,
                    "arg": (list(arg_names)[j - residuals_in]
                            if residuals_in <= j < residuals_in + len(arg_names) else None)}
                   for j, v in enumerate(ins)],
        "outputs": [{**v, "residual": j - first_res_out if j >= first_res_out else None}
                    for j, v in enumerate(outs)],
    }


def split_panes(known: Program, unknown: Program, num_res: int, known_args: Sequence[str],
                unknown_args: Sequence[str], titles: Sequence[tuple[str, str]]) -> list[Pane]:
    """The known pane (the known arguments in, the residuals out last) and the unknown pane
    (the residuals in first, then the unknown arguments); `titles` is [(id, title)] of each."""
    (kid, ktitle), (uid, utitle) = titles
    return [pane(kid, ktitle, "known", known, known_args, residuals_out=num_res),
            pane(uid, utitle, "unknown", unknown, unknown_args, residuals_in=num_res)]
