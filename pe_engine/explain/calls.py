"""Calls opened in place: for each call primitive, the inner program its partial-eval rule
splits and the unknowns it splits it with.

One table entry per call primitive (adding a call primitive means adding an entry). An
entry maps the call's equation, its inputs' knownness as the rule saw them and the rounds
of a loop's carry fixpoint to an `Inner`: the inner program, its unknown inputs and the
outputs it must instantiate, as JAX's rule hands them to `partial_eval_jaxpr_nounits`.
split.py splits it and describes it as the top-level split is described.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..ad_checkpoint import remat_split
from ..core import ClosedJaxpr, JaxprEqn, SourceInfo, Var, merge_lists
from ..partial_eval import close_jaxpr, partial_eval_jaxpr_nounits
from ..pjit import jit_split
from .observe import Round


class Shown(NamedTuple):
    """The two halves a split shows, and the residuals between them: residual k is held by
    the known program's atom `res_known[k]` (an output, or a known input it forwards; None:
    a constant of the call) and received by the unknown program's binder `res_unknown[k]`.
    The masks say which of the split program's inputs each half reads."""
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    res_known: list[Any]
    res_unknown: list[Var]
    known_in: list[bool]
    unknown_in: list[bool]


def nounits_shown(known: ClosedJaxpr, unknown: ClosedJaxpr, unknowns: Sequence[bool],
                  num_res: int | None = None) -> Shown:
    """The layout of partial_eval_jaxpr_nounits: the known program returns the residuals
    last, the unknown one reads them first, then the unknown inputs."""
    if num_res is None:
        num_res = len(unknown.jaxpr.invars) - sum(unknowns)
    return Shown(known, unknown, known.jaxpr.outvars[len(known.jaxpr.outvars) - num_res:],
                 unknown.jaxpr.invars[:num_res], [not uk for uk in unknowns], list(unknowns))


class Inner(NamedTuple):
    """A call's inner program as its rule splits it (the unknowns, the outputs it
    instantiates), the page's title for it, and the halves it shows."""
    title: str
    jaxpr: ClosedJaxpr
    unknowns: list[bool]
    instantiate: bool | list[bool]
    shown: Shown | None = None  # None: the halves partial_eval_jaxpr_nounits makes
    carry_offset: int = 0  # a loop: where its carries start among the body's inputs
    operand_offset: int = 0  # where the operands the inner inputs bind start (cond: 1)
    others: tuple[Inner, ...] = ()  # a cond: its other branches, split the same way


def _distinct(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program with a SourceInfo object of its own for each equation. A program made by
    replaying another (a JVP, a loop body) lends one equation's SourceInfo to all it stages
    from it, and a split's halves are told apart by that object (eqn_index_by_source)."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(eqns=[e.replace(source_info=SourceInfo(*e.source_info))
                                       for e in j.eqns]), closed.consts)


InnerRule = Callable[[JaxprEqn, list[bool], list[Round]], Inner]


def _jit(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    # The rule's own halves: the known jit, and the unknown jit with the residuals last.
    inner = _distinct(eqn.params["jaxpr"])
    js = jit_split(inner, unknowns)
    n_in = sum(unknowns)
    shown = Shown(js.known, js.unknown, js.res_atoms, js.unknown.jaxpr.invars[n_in:],
                  [not uk for uk in unknowns], list(unknowns))
    return Inner(f"jit({eqn.params['name']})", inner, unknowns, False, shown)


def _fixpoint_unknowns(unknowns: list[bool], rounds: list[Round]) -> list[bool]:
    """The body's unknowns in the round that settled the fixpoint (the last one): a loop
    whose inputs were all known or all unknown had no rounds."""
    return list(rounds[-1].unknowns) if rounds else unknowns


def _scan(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    p = eqn.params
    body_uk = _fixpoint_unknowns(unknowns, rounds)
    carry_uk = body_uk[p["num_consts"]:p["num_consts"] + p["num_carry"]]
    num_ys = len(p["jaxpr"].out_avals) - p["num_carry"]
    return Inner(f"scan (length {p['length']})", _distinct(p["jaxpr"]), body_uk,
                 carry_uk + [False] * num_ys, carry_offset=p["num_consts"])


def _while(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    p = eqn.params
    # The rule splits the body (its consts, then the carries); the cond's consts come first.
    body_uk = _fixpoint_unknowns(unknowns[p["cond_nconsts"]:], rounds)
    return Inner("while (body)", _distinct(p["body_jaxpr"]), body_uk, body_uk[p["body_nconsts"]:],
                 carry_offset=p["body_nconsts"], operand_offset=p["cond_nconsts"])


def _cond(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    branches = eqn.params["branches"]
    # An unknown index stages the whole cond: every operand is then unknown to the branch.
    ops_uk = [uk or unknowns[0] for uk in unknowns[1:]]
    # An output is unknown if it is in any branch, and every branch instantiates it so.
    out_uks = [any(uks) for uks in zip(*(partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                         for b in branches))]
    # The rule splits every branch alike: each is shown, branch 0 first, the others beside it.
    first, *others = [Inner(f"cond (branch {i} of {len(branches)})", _distinct(b), ops_uk,
                            out_uks, operand_offset=1) for i, b in enumerate(branches)]
    return first._replace(others=tuple(others))


def _remat(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    # The policy's split: what it does not save, the unknown program recomputes.
    inner = _distinct(close_jaxpr(eqn.params["jaxpr"]))
    rs = remat_split(inner.jaxpr, unknowns, eqn.params["policy"])
    shown = nounits_shown(close_jaxpr(rs.known), close_jaxpr(rs.unknown), unknowns, rs.num_res)
    # each half reads only the inputs it uses
    known_in = merge_lists(unknowns, rs.used_known_in, [False] * sum(unknowns))
    shown = shown._replace(known_in=known_in, unknown_in=rs.used_ins)
    return Inner("checkpoint", inner, unknowns, False, shown)


INNER: dict[str, InnerRule] = {
    "jit": _jit,
    "scan": _scan,
    "while": _while,
    "cond": _cond,
    "remat2": _remat,
}


def inner_of(eqn: JaxprEqn, unknowns: Sequence[bool], rounds: list[Round]) -> Inner | None:
    """The inner split of a call equation, or None when the equation is no call."""
    rule = INNER.get(eqn.primitive.name)
    return rule(eqn, list(unknowns), rounds) if rule is not None else None
