"""The panes a record shows: each program with its role, and what each of its inputs and
outputs is (an argument, a residual handed over), so the page never works it out."""
from __future__ import annotations

from collections.abc import Sequence

from .record import Pane, PaneRole, Program


def pane(id: str, title: str, role: PaneRole, program: Program,  # noqa: A002 - the JSON key
         arg_names: Sequence[str | None] = (), residual_in: Sequence[int | None] = (),
         residual_out: Sequence[int | None] = ()) -> Pane:
    """A pane whose input j receives residual `residual_in[j]` and whose output j hands over
    residual `residual_out[j]` (None, or past the end: none); the inputs that receive no
    residual bind the arguments `arg_names`, in order."""
    ins, outs = program["invars"], program["outvars"]
    rin = [*residual_in, *[None] * (len(ins) - len(residual_in))]
    rout = [*residual_out, *[None] * (len(outs) - len(residual_out))]
    args = iter(arg_names)
    return {
        "id": id, "title": title, "role": role, "program": program,
        "inputs": [{**v, "residual": r, "arg": next(args, None) if r is None else None}
                   for v, r in zip(ins, rin)],
        "outputs": [{**v, "residual": r} for v, r in zip(outs, rout)],
    }


def split_panes(known: Program, unknown: Program, res_out_pos: Sequence[int | None],
                res_in_pos: Sequence[int], known_args: Sequence[str],
                unknown_args: Sequence[str], titles: Sequence[tuple[str, str]]) -> list[Pane]:
    """The known pane (the known arguments in; residual k handed over by its output
    `res_out_pos[k]`, None when it is not one: a known input forwarded) and the unknown pane
    (residual k received by its input `res_in_pos[k]`, the unknown arguments by the others);
    `titles` is [(id, title)] of each."""
    (kid, ktitle), (uid, utitle) = titles
    rout: list[int | None] = [None] * len(known["outvars"])
    for k, p in enumerate(res_out_pos):
        if p is not None:
            rout[p] = k
    rin: list[int | None] = [None] * len(unknown["invars"])
    for k, p in enumerate(res_in_pos):
        rin[p] = k
    return [pane(kid, ktitle, "known", known, known_args, residual_out=rout),
            pane(uid, utitle, "unknown", unknown, unknown_args, residual_in=rin)]
