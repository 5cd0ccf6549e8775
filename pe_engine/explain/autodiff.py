"""Records for reverse mode: grad (forward, linear and backward programs) and checkpoint.

grad is told as the seed tells it: linearize is JVP plus partial evaluation (primals
known, tangents unknown), so the known half is the forward pass, the unknown half
the linear program, and the residuals between them are the activations kept in
memory; the backward program is the linear one transposed. checkpoint runs the same
function under every policy, each a predicate handed to the same splitter.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import ad, ad_checkpoint, core, lax
from ..core import ClosedJaxpr, Jaxpr, Var
from ..pretty import jaxprs_in_params
from ..pytree import LEAF, PyTreeDef, tree_flatten, tree_leaves
from .memory import memory_line
from .panes import pane, split_panes
from .programs import program_record
from .record import (
    DEFAULT_POLICY,
    POLICY_NAMES,
    POLICY_ROWS,
    RECORD_VERSION,
    TANGENT_MARK,
    CheckpointRecord,
    GradRecord,
    LinearizeRecord,
    Pane,
    Policy,
    PolicyAnswer,
    SavedResidual,
)
from .requests import (
    InputValueError,
    args_record,
    decisions_record,
    differentiated,
    load_request,
    trace_user,
)
from .sandbox import USER_FILENAME, UserCodeError
from .split import Split, split_record
from .values import format_value

AUTODIFF_TITLES = [("forward", "Forward (known)"), ("linear", "Linear (unknown)")]
# `<user>:5:12` in a summary of where a value was made: line 5 (the column is left out)
_USER_LINE = re.compile(rf"{re.escape(USER_FILENAME)}:(\d+)(:\d+)?")


def _zero_tangent(v: Any) -> Any:
    return type(v)(0) if type(v) in (int, float) else np.zeros_like(np.asarray(v))


def _argnums(params: Sequence[str], args: Sequence[dict[str, Any]], values: Sequence[Any]
             ) -> list[int]:
    """The arguments differentiated, JAX's argnums: those marked unknown (their tangents
    are the unknown inputs of the split); the known ones are held fixed."""
    argnums = differentiated(args)
    if not argnums:
        raise InputValueError("choose at least one input to differentiate: mark it unknown "
                              "(the unknown inputs are differentiated, JAX's argnums)",
                              params[0] if params else "")
    for i in argnums:
        aval = core.get_aval(values[i])
        if aval.dtype.kind != "f":
            raise InputValueError(f"differentiation requires real floating-point inputs, but input "
                                  f"{params[i]} is {aval.str_short(True)}; write it with a "
                                  "decimal point, e.g. 2.0", params[i])
    return argnums


def _flagged(args: Sequence[dict[str, Any]], argnums: Sequence[int]) -> list[dict[str, Any]]:
    """The arguments with their flags as grad read them: differentiated ones unknown."""
    return [{**a, "known": i not in argnums} for i, a in enumerate(args)]


class _Reverse(NamedTuple):
    """A reverse-mode record, and what running its backward program at the inputs' values
    takes: the forward (known) program's outputs there, the residuals last, and how many
    output cotangents the backward program reads after the residuals; and the tree of the
    function's output, with its type when it is one array (None otherwise)."""
    record: dict[str, Any]
    backward: ClosedJaxpr
    known_outs: list[Any]
    num_res: int
    num_cts: int
    out_tree: PyTreeDef
    out_aval: Any


class _Linearized(NamedTuple):
    """The JVP program split with primals known and tangents unknown (split.py's Split),
    the JVP program itself, the decisions its trace made, the tree of the function's output,
    and the forward and linear panes."""
    split: Split
    jvp_closed: ClosedJaxpr
    decisions: list[Any]
    out_tree: PyTreeDef
    panes: list[Pane]


def _linearized(fun: Callable[..., Any], params: Sequence[str], values: Sequence[Any],
                argnums: Sequence[int], open_calls: bool = True) -> _Linearized:
    """Linearize as JVP + partial evaluation.

    The JVP program takes every primal, then the tangents of the arguments in `argnums`;
    primals are known and tangents unknown, so its known half is the forward pass, its
    unknown half the linear program, and the residuals between them are the activations
    the linear program reads. The other arguments are held fixed: jvp closes over them.
    """
    n = len(values)
    out_tree: list[PyTreeDef] = []

    def jvp_program(*xs: Any) -> list[Any]:
        primals = list(xs[:n])

        def of_argnums(*d: Any) -> Any:
            return fun(*_with(primals, argnums, d))
        p_out, t_out = ad.jvp(of_argnums, tuple(primals[i] for i in argnums),
                              tuple(xs[n:]))
        p_leaves, tree = tree_flatten(p_out)
        out_tree[:] = [tree]
        return [*p_leaves, *tree_leaves(t_out)]

    decisions: list[Any] = []
    k = len(argnums)
    jvp_closed = trace_user(jvp_program,
                            [*values, *(_zero_tangent(values[i]) for i in argnums)],
                            [True] * n + [False] * k, decisions)
    tangents = [params[i] + TANGENT_MARK for i in argnums]
    split = split_record(jvp_closed, [False] * n + [True] * k, [*params, *tangents],
                         [*values, *(values[i] for i in argnums)], open_calls=open_calls)
    rec = split.record
    panes = split_panes(rec["known"], rec["unknown"], split.res_out_pos, split.res_in_pos,
                        params, tangents, AUTODIFF_TITLES)
    return _Linearized(split, jvp_closed, decisions, out_tree[0], panes)


def _autodiff_record(fun: Callable[..., Any], params: Sequence[str], values: Sequence[Any],
                     argnums: Sequence[int], policy: str = "", label: str = "",
                     open_calls: bool = True, saved: bool = True) -> _Reverse:
    """Linearize (`_linearized`), then transpose the linear half: grad's backward pass."""
    n = len(values)
    lin = _linearized(fun, params, values, argnums, open_calls)
    split, jvp_closed, k = lin.split, lin.jvp_closed, len(argnums)
    rec = split.record
    num_res = len(rec["residuals"])
    # The unknown half, closed again, is what the transpose turns around.
    linear = split.unknown
    n_lin_out = len(linear.jaxpr.outvars)
    backward, _ = ad.transpose_jaxpr(linear, [False] * num_res + [True] * k,
                                     [True] * n_lin_out)
    back_rec, _ = program_record(backward.jaxpr)
    # saved_residuals differentiates every argument it is given: the held ones are closed
    # over, as jvp_program does, as arrays (the user's code met them as held arrays in the
    # other traces; a parsed value is a NumPy array, whose attributes the sandbox hides). A
    # third trace of the function: left out (None) when not asked for.
    fixed = [core.as_array(v) for v in values]
    listed = [_saved_residual(a, d) for a, d in ad_checkpoint.saved_residuals_at(
        fun if len(argnums) == n else _of_differentiated(fun, fixed, argnums, params),
        tuple(values[i] for i in argnums), held=True)] if saved else None
    recomputed = _count_recomputed(linear.jaxpr, num_res)
    return _Reverse({
        **rec, "decisions": decisions_record(lin.decisions, jvp_closed.jaxpr),
        "backward": back_rec, "saved_residuals": listed,
        "saved_bytes": None if listed is None else sum(r["bytes"] for r in listed),
        "recomputed": recomputed,
        "panes": [*lin.panes, pane("backward", "Backward (transposed)", "other", back_rec)],
        "memory": [memory_line(policy, label, rec["residuals"], split.known.jaxpr,
                               backward.jaxpr, recomputed)]},
        backward, split.known_outs, num_res, n_lin_out, lin.out_tree,
        jvp_closed.out_avals[0] if lin.out_tree == LEAF else None)


def _gradient(rev: _Reverse) -> list[Any]:
    """The gradient of a function of one scalar output, at the inputs' values: the
    backward program run on the residuals the forward program computed and a cotangent of
    one, typed as grad seeds it (the forward program's first output is the function's)."""
    outs = rev.known_outs
    seed = lax.full_like(outs[0], 1, shape=())
    return core.eval_jaxpr(rev.backward.jaxpr, rev.backward.consts,
                           *outs[len(outs) - rev.num_res:], *[seed] * rev.num_cts)


def _of_differentiated(fun: Callable[..., Any], fixed: Sequence[Any], argnums: Sequence[int],
                       params: Sequence[str]) -> Callable[..., Any]:
    """`fun` of the differentiated arguments only, the others fixed, its parameters named
    as the user named them: print_saved_residuals says "from the argument W1", not d[0]."""
    def of_differentiated(*d: Any) -> Any:
        return fun(*_with(fixed, argnums, d))
    positional = inspect.Parameter.POSITIONAL_ONLY
    of_differentiated.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(params[i], positional) for i in argnums])
    return of_differentiated


def _with(primals: Sequence[Any], argnums: Sequence[int], d: Sequence[Any]) -> list[Any]:
    """`primals` with the arguments at `argnums` replaced by `d`."""
    full = list(primals)
    for i, x in zip(argnums, d):
        full[i] = x
    return full


def _saved_residual(aval: Any, description: str) -> SavedResidual:
    line = _USER_LINE.search(description)
    return {"aval": aval.str_short(True), "bytes": aval.nbytes,
            "description": _USER_LINE.sub(r"line \1", description),
            "line": int(line.group(1)) if line else None}


def _count_recomputed(jaxpr: Jaxpr, num_res: int) -> int:
    """Equations of the linear program that read no tangent: recomputations of the forward
    pass (only checkpoint puts them there), counted inside nested programs too."""
    def count(j: Jaxpr, tangent_in: Sequence[bool]) -> int:
        linear = {v for v, t in zip(j.invars, tangent_in) if t}
        n = 0
        for e in j.eqns:
            reads = [isinstance(a, Var) and a in linear for a in e.invars]
            subs = jaxprs_in_params(e.params)
            if subs and len(subs[0].invars) == len(e.invars):
                n += count(subs[0], reads)
            elif not any(reads):
                n += 1
            if any(reads):
                linear.update(e.outvars)
        return n
    return count(jaxpr, [k >= num_res for k in range(len(jaxpr.invars))])


def grad(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
         open_calls: bool = True, saved: bool = True) -> GradRecord:
    """Reverse mode as the seed tells it: forward program, linear program, transpose.
    `open_calls` as split's. saved false leaves out what print_saved_residuals prints
    (saved_residuals and saved_bytes None): a third trace of the function, which an edit
    need not wait for; the same request with saved true has them."""
    lf, values, params = load_request(source, fn, args)
    argnums = _argnums(params, args, values)
    rev = _autodiff_record(lf.fn, params, values, argnums, open_calls=open_calls, saved=saved)
    args = _flagged(args, argnums)
    grads = None
    # grad's own condition: one output, a float scalar (a scalar in a tuple is not one)
    out = rev.out_aval
    if out is not None and out.shape == () and out.dtype.kind == "f":
        try:
            grads = [format_value(g) for g in _gradient(rev)]
        except Exception:  # noqa: BLE001 - the programs are the point; values are a bonus
            grads = None
    return {"version": RECORD_VERSION, "mode": "grad", "fn": lf.name,
            "args": args_record(params, args, values),
            "grads": grads, **rev.record}  # type: ignore[typeddict-item]  # record: a plain dict


def linearize(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
              open_calls: bool = True) -> LinearizeRecord:
    """jax.linearize as the seed tells it: the JVP split alone, its known half the forward
    pass JAX runs now (f's outputs and the residuals), its unknown half the linear function
    `jax.linearize` returns, which reads the residuals at every call. Any output shape: there
    is no transpose, so nothing asks for a scalar. `open_calls` as split's."""
    lf, values, params = load_request(source, fn, args)
    argnums = _argnums(params, args, values)
    lin = _linearized(lf.fn, params, values, argnums, open_calls)
    own = {"decisions": decisions_record(lin.decisions, lin.jvp_closed.jaxpr), "panes": lin.panes}
    return {"version": RECORD_VERSION, "mode": "linearize", "fn": lf.name,
            "args": args_record(params, _flagged(args, argnums), values),
            **lin.split.record, **own}  # type: ignore[typeddict-item]  # a plain dict


def _policy(name: str, names: Sequence[str]) -> Callable[..., bool]:
    pols = ad_checkpoint.checkpoint_policies
    if name in ("save_only_these_names", "save_any_names_but_these"):
        made: Callable[..., bool] = getattr(pols, name)(*names)
        return made
    if name not in POLICY_NAMES:
        raise UserCodeError(f"unknown checkpoint policy {name!r}; one of: "
                            + ", ".join(POLICY_NAMES), None, "policy")
    policy: Callable[..., bool] = getattr(pols, name)
    return policy


class _Loaded(NamedTuple):
    """What every checkpoint answer starts from."""
    lf: Any  # the user's function, loaded
    values: list[Any]
    params: list[str]
    argnums: list[int]
    args: list[dict[str, Any]]  # flagged as grad reads them
    names: list[str]  # the checkpoint_name names in the function traced, every input known


def _load_checkpoint(source: str, args: Sequence[dict[str, Any]], fn: str | None) -> _Loaded:
    lf, values, params = load_request(source, fn, args)
    argnums = _argnums(params, args, values)
    closed = trace_user(lf.fn, values, [True] * len(values))
    names = sorted({e.params["name"] for e in closed.jaxpr.eqns
                    if e.primitive is ad_checkpoint.name_p})
    return _Loaded(lf, values, params, argnums, _flagged(args, argnums), names)


def _policy_label(name: str, names: Sequence[str]) -> str:
    return (f"{name}({', '.join(repr(n) for n in names)})" if name.startswith("save_")
            else name)


def _policy_record(ld: _Loaded, name: str, open_calls: bool) -> tuple[Policy, dict[str, Any]]:
    """One policy's card and its whole record (split, panes, backward, memory line), its calls
    opened if asked (only the selected policy's split is drawn, and only when asked whole)."""
    fun = ld.lf.fn if name == "no checkpoint" else ad_checkpoint.checkpoint(
        ld.lf.fn, policy=_policy(name, ld.names))
    label = _policy_label(name, ld.names)
    rec = _autodiff_record(fun, ld.params, ld.values, ld.argnums, name, label,
                           open_calls=open_calls).record
    card: Policy = {"name": name, "label": label,
                    "residual_count": len(rec["residuals"]),
                    "residual_bytes": rec["memory_account"]["total_bytes"],
                    "account": rec["memory_account"], "recomputed": rec["recomputed"],
                    "saved_residuals": rec["saved_residuals"], "panes": rec["panes"]}
    return card, rec


def checkpoint(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
               policy: str = DEFAULT_POLICY, only_selected: bool = False,
               open_calls: bool = True) -> CheckpointRecord:
    """The same function under each policy: what may be a residual, what is recomputed.

    only_selected: the selected policy's card and split alone, fast for an edit; the other
    policies are named in `pending_policies`, each answered later by `checkpoint_policy`.
    `open_calls` as split's (the selected policy's split: the only one drawn)."""
    ld = _load_checkpoint(source, args, fn)
    _policy(policy, ld.names)  # an unknown name is the user's error, reported before the work
    wanted = [policy] if only_selected else POLICY_ROWS
    cards, memory, selected = [], [], {}
    for name in wanted:
        card, rec = _policy_record(ld, name, open_calls and name == policy)
        cards.append(card)
        memory += rec["memory"]
        if name == policy:
            selected = rec
    return {"version": RECORD_VERSION, "mode": "checkpoint", "fn": ld.lf.name,
            "args": args_record(ld.params, ld.args, ld.values),
            "names": ld.names,
            "policies": cards, "selected": policy,
            "pending_policies": [n for n in POLICY_ROWS if n not in wanted],
            **selected, "memory": memory}  # type: ignore[typeddict-item]  # selected: a plain dict


def checkpoint_policy(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
                      policy: str = DEFAULT_POLICY) -> PolicyAnswer:
    """One policy's card and memory line, for a checkpoint record asked with only_selected
    (`policy` is one of its pending_policies)."""
    card, rec = _policy_record(_load_checkpoint(source, args, fn), policy, False)
    return {"policy": card, "memory": rec["memory"][0]}
