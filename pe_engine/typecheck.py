"""A type checker for jaxprs (JAX's `core.check_jaxpr`, autodidax's `typecheck_jaxpr`).

With `config.update("jax_enable_checks", True)` every program the engine builds is
checked: each variable is bound once before it is read, each equation's output types
are what its primitive's abstract evaluation gives for its input types, inner jaxprs
agree with the operands of the call that holds them, and a split's two halves compose
back to the program they came from on random inputs.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import core


class JaxprTypeError(TypeError):
    """A program the engine built is ill-typed: an engine bug, never the user's."""


# primitive -> rule(in_avals, **params) -> out avals. For call-like primitives, whose
# abstract evaluation reads only the inner jaxpr's outputs: the rule also checks the
# inner jaxpr against the operands.
typecheck_rules: dict[core.Primitive, Callable[..., list[core.ShapedArray]]] = {}


def checks_enabled() -> bool:
    return bool(core.config.values["jax_enable_checks"])


def _same_type(a: core.ShapedArray, b: core.ShapedArray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.weak_type == b.weak_type


def _describe(a: core.ShapedArray) -> str:
    return a.str_short(True) + ("{weak}" if a.weak_type else "")


def check_jaxpr(jaxpr: core.Jaxpr | core.ClosedJaxpr) -> None:
    """Raise JaxprTypeError unless `jaxpr` is well typed (inner jaxprs included)."""
    if isinstance(jaxpr, core.ClosedJaxpr):
        for v, c in zip(jaxpr.jaxpr.constvars, jaxpr.consts, strict=True):
            _expect(core.get_aval(c).strip_weak_type() == v.aval.strip_weak_type(),
                    f"constant of type {_describe(core.get_aval(c))} bound to {_describe(v.aval)}")
        jaxpr = jaxpr.jaxpr
    bound: set[core.Var] = set()

    def bind(v: core.Var, where: str) -> None:
        if type(v) is core.DropVar:
            return
        _expect(v not in bound, f"variable {v!r} bound twice ({where})")
        bound.add(v)

    def read(a: Any, where: str) -> core.ShapedArray:
        if type(a) is core.Literal:
            lit = core.get_aval(a.val)
            _expect(lit.shape == a.aval.shape and lit.dtype == a.aval.dtype,
                    f"literal {a.val!r} typed {_describe(a.aval)} ({where})")
            return a.aval
        _expect(isinstance(a, core.Var) and type(a) is not core.DropVar and a in bound,
                f"variable {a!r} read before it is bound ({where})")
        return a.aval

    for v in jaxpr.constvars:
        bind(v, "constvar")
    for v in jaxpr.invars:
        bind(v, "invar")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i}: {eqn.primitive}"
        in_avals = [read(a, where) for a in eqn.invars]
        for sub in _inner_jaxprs(eqn):
            check_jaxpr(sub)
        out_avals = _out_avals(eqn, in_avals)
        _expect(len(out_avals) == len(eqn.outvars),
                f"{where} has {len(eqn.outvars)} outputs, its rule gives {len(out_avals)}")
        for v, a in zip(eqn.outvars, out_avals):
            _expect(_same_type(v.aval, a),
                    f"{where} binds {_describe(v.aval)} where its rule gives {_describe(a)}")
            bind(v, where)
    for out in jaxpr.outvars:
        read(out, "outvars")


def _inner_jaxprs(eqn: core.JaxprEqn) -> list[core.Jaxpr | core.ClosedJaxpr]:
    return [v for v in eqn.params.values() if isinstance(v, (core.Jaxpr, core.ClosedJaxpr))]


def _out_avals(eqn: core.JaxprEqn, in_avals: list[core.ShapedArray]
               ) -> Sequence[core.ShapedArray]:
    rule = typecheck_rules.get(eqn.primitive)
    try:
        if rule is not None:
            return list(rule(in_avals, **eqn.params))
        return eqn.primitive.out_avals(in_avals, eqn.params)
    except JaxprTypeError:
        raise
    except Exception as e:  # noqa: BLE001 - the primitive's own complaint, reworded
        raise JaxprTypeError(f"{eqn.primitive} rejects its operands "
                             f"{', '.join(map(_describe, in_avals))}: {e}") from None


def check_call_operands(jaxpr: core.Jaxpr, in_avals: Sequence[core.ShapedArray], what: str) -> None:
    """The operands of a call agree with the inner jaxpr's binders (weak type aside)."""
    _expect(len(jaxpr.invars) == len(in_avals),
            f"{what} takes {len(jaxpr.invars)} operands, is given {len(in_avals)}")
    for v, a in zip(jaxpr.invars, in_avals):
        _expect(v.aval.strip_weak_type() == a.strip_weak_type(),
                f"{what} binds {_describe(v.aval)} to an operand of type {_describe(a)}")


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise JaxprTypeError(message)


# --------------------------------------------------------------------------- splits compose


def random_value(aval: core.ShapedArray, rng: np.random.Generator) -> np.ndarray:
    """An input to run a program on: small nonzero integers (no division by zero)."""
    if aval.dtype.kind == "b":
        return rng.integers(0, 2, aval.shape).astype(bool)
    if aval.dtype.kind in "iu":
        return rng.integers(1, 4, aval.shape).astype(aval.dtype)
    return rng.uniform(0.5, 1.5, aval.shape).astype(aval.dtype)


@contextmanager
def _concretely() -> Iterator[None]:
    """Run programs on numpy now, even while a staging trace is active."""
    with core.current_dynamic_trace(None), np.errstate(all="ignore"):
        yield


# Primitives no program can run: custom_lin (the tangents of a custom_vjp function, which
# only transposition gives a meaning; evaluating it is an error in JAX too). A split holding
# one is checked for its types alone.
not_evaluable: set[core.Primitive] = set()


def _evaluable(jaxpr: core.Jaxpr | core.ClosedJaxpr) -> bool:
    j = jaxpr.jaxpr if isinstance(jaxpr, core.ClosedJaxpr) else jaxpr
    return all(e.primitive not in not_evaluable and all(map(_evaluable, _inner_jaxprs(e)))
               for e in j.eqns)


def _concrete(*jaxprs: core.ClosedJaxpr) -> bool:
    # A program closed over another trace's tracers cannot run on its own.
    return (not any(isinstance(c, core.Tracer) for j in jaxprs for c in j.consts)
            and all(map(_evaluable, jaxprs)))


def check_split_composes(closed: core.ClosedJaxpr, known: core.ClosedJaxpr,
                         unknown: core.ClosedJaxpr, unknowns: Sequence[bool],
                         out_unknowns: Sequence[bool], num_res: int) -> None:
    """known(ks) -> (known outs, res) and unknown(res, uks) -> unknown outs: together they
    compute what the program computes."""
    if not _concrete(closed, known, unknown):
        return
    rng = np.random.default_rng(0)
    args = [random_value(a, rng) for a in closed.in_avals]
    with _concretely():
        want = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        known_args, unknown_args = core.partition_list(list(unknowns), args)
        k_out = core.eval_jaxpr(known.jaxpr, known.consts, *known_args)
        k_vals, res = core.split_list(k_out, [len(k_out) - num_res])
        u_vals = core.eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *unknown_args)
    _expect_values(core.merge_lists(list(out_unknowns), k_vals, u_vals), want,
                   f"known:\n{known}\nunknown:\n{unknown}")


def check_custom_split_composes(jaxpr: core.Jaxpr, known: core.Jaxpr, staged: core.Jaxpr,
                                unknowns: Sequence[bool], inst: Sequence[bool],
                                out_unknowns: Sequence[bool], out_inst: Sequence[bool],
                                num_res: int) -> None:
    """partial_eval_jaxpr_custom's halves: known(ks) -> (known outs, res) and
    staged(res, instantiated ins) -> instantiated outs, each agreeing with the program."""
    if not _evaluable(jaxpr):
        return
    rng = np.random.default_rng(0)
    args = [random_value(v.aval, rng) for v in jaxpr.invars]
    consts = [random_value(v.aval, rng) for v in jaxpr.constvars]
    with _concretely():
        want = core.eval_jaxpr(jaxpr, consts, *args)
        k_out = core.eval_jaxpr(known, consts, *core.partition_list(list(unknowns), args)[0])
        k_vals, res = core.split_list(k_out, [len(k_out) - num_res])
        s_vals = core.eval_jaxpr(staged, consts, *res, *core.partition_list(list(inst), args)[1])
    where = f"known:\n{known}\nstaged:\n{staged}"
    _expect_values(k_vals, core.partition_list(list(out_unknowns), want)[0], where)
    _expect_values(s_vals, core.partition_list(list(out_inst), want)[1], where)


def _expect_values(got: Sequence[Any], want: Sequence[Any], where: str) -> None:
    _expect(len(got) == len(want), f"the split gives {len(got)} outputs, the program "
                                   f"{len(want)}\n{where}")
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        same = (np.array_equal(g, w) if g.dtype.kind == "b" or w.dtype.kind == "b" else
                g.shape == w.shape and np.allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True))
        _expect(same, f"the split's output {i} is {g!r}, the program's is {w!r}\n{where}")
