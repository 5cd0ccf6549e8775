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
from typing import NamedTuple

from ..ad_checkpoint import remat_split
from ..core import ClosedJaxpr, JaxprEqn, SourceInfo
from ..partial_eval import close_jaxpr, partial_eval_jaxpr_nounits
from .observe import Round


class Shown(NamedTuple):
    """The halves a rule stages when they are not partial_eval_jaxpr_nounits's: `known`
    returns its outputs then `num_res` residuals, `unknown` reads the residuals first; the
    masks say which of the call's inputs each reads after that."""
    known: ClosedJaxpr
    unknown: ClosedJaxpr
    num_res: int
    known_in: list[bool]
    unknown_in: list[bool]


class Inner(NamedTuple):
    title: str
    jaxpr: ClosedJaxpr
    unknowns: list[bool]
    instantiate: bool | list[bool]
    shown: Shown | None = None  # None: the halves partial_eval_jaxpr_nounits makes
    carry_offset: int = 0  # a loop: where its carries start among the body's inputs


def _distinct(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program with a SourceInfo object of its own for each equation. A program made by
    replaying another (a JVP, a loop body) lends one equation's SourceInfo to all it stages
    from it, and a split's halves are told apart by that object (eqn_index_by_source)."""
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(eqns=[e.replace(source_info=SourceInfo(*e.source_info))
                                       for e in j.eqns]), closed.consts)


InnerRule = Callable[[JaxprEqn, list[bool], list[Round]], Inner]


def _jit(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    return Inner(f"jit({eqn.params['name']})", _distinct(eqn.params["jaxpr"]), unknowns, False)


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
                 carry_offset=p["body_nconsts"])


def _cond(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    branches = eqn.params["branches"]
    # An unknown index stages the whole cond: every operand is then unknown to the branch.
    ops_uk = [uk or unknowns[0] for uk in unknowns[1:]]
    # An output is unknown if it is in any branch, and every branch instantiates it so.
    out_uks = [any(uks) for uks in zip(*(partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                         for b in branches))]
    return Inner(f"cond (branch 0 of {len(branches)})", _distinct(branches[0]), ops_uk, out_uks)


def _remat(eqn: JaxprEqn, unknowns: list[bool], rounds: list[Round]) -> Inner:
    # The policy's split: what it does not save, the unknown program recomputes.
    inner = _distinct(close_jaxpr(eqn.params["jaxpr"]))
    rs = remat_split(inner.jaxpr, unknowns, eqn.params["policy"])
    known_in = [not uk and used for uk, used in
                zip(unknowns, _spread(rs.used_known_in, [not uk for uk in unknowns]))]
    shown = Shown(close_jaxpr(rs.known), close_jaxpr(rs.unknown), rs.num_res, known_in,
                  rs.used_ins)
    return Inner("checkpoint", inner, unknowns, False, shown)


def _spread(flags: Sequence[bool], where: Sequence[bool]) -> list[bool]:
    """`flags`, one per True of `where`, laid out over `where` (False elsewhere)."""
    it = iter(flags)
    return [next(it) if w else False for w in where]


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
