"""JaxprTrace: the partial evaluator.

Every value carries a PartialVal: known (the array is held now) or unknown (only
its aval). JAX states the rule in a comment above `default_process_primitive`:
"By default, if all the input tracers are known, then bind the primitive and
consider all outputs known. Otherwise, stage the application into the jaxpr and
consider all outputs unknown."  Unknown tracers carry recipes; the second jaxpr is
assembled from them at the end by `tracers_to_jaxpr`.
"""
from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from . import core
from .core import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    MainTrace,
    Primitive,
    ShapedArray,
    SourceInfo,
    Trace,
    Tracer,
    Var,
    bind,
    current_dynamic_trace,
    get_aval,
    is_literalable,
    new_dynamic_main,
    no_effects,
    partition_list,
    user_source_info,
    weakref_lru_cache,
)
from .staging import (
    forwarding_rules,
    trace_to_jaxpr_dynamic,
)
from .typecheck import (
    check_custom_split_composes,
    check_jaxpr,
    check_split_composes,
    checks_enabled,
)

# --------------------------------------------------------------------------- partial values


class PartialVal(tuple):
    """Either `(None, const)`, a known value, or `(aval, None)`, an unknown one."""

    __slots__ = ()

    @classmethod
    def known(cls, const: Any) -> PartialVal:
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval: ShapedArray) -> PartialVal:
        return PartialVal((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self) -> Any:
        return self[1] if self[0] is None else None

    def get_aval(self) -> ShapedArray:
        return get_aval(self[1]) if self[0] is None else self[0]


# --------------------------------------------------------------------------- recipes


class LambdaBinding(NamedTuple):
    """An unknown input of the traced function: becomes an input variable."""


class ConstVar(NamedTuple):
    """A known non-literal value read by unknown work: a constvar, i.e. a residual."""
    val: Any


class FreeVar(NamedTuple):
    """A tracer of an enclosing trace with the same tag: an env variable, prepended to inputs."""
    val: Any


class JaxprEqnRecipe(NamedTuple):
    eqn_id: int
    in_tracers: list
    out_tracer_refs: list  # weak: an output nothing holds becomes a DropVar
    out_avals: list
    primitive: Primitive
    params: dict
    effects: frozenset
    source_info: SourceInfo


class PartialEvalObserver:
    """Hears JaxprTrace's decisions, one call per primitive it processes; every method is a
    no-op here, and an observer (the explainer's narration) overrides what it needs."""

    def known(self, primitive: Primitive, params: dict, tracers: list, outs: list) -> None:
        """Every input was known: the primitive ran now, giving `outs`."""

    def staged(self, primitive: Primitive, params: dict, tracers: list, staged_in: list,
               recipe: JaxprEqnRecipe) -> None:
        """An input was unknown: the application was staged as `recipe`, reading `staged_in`
        (the known inputs instantiated as constants)."""

    def split(self, primitive: Primitive, params: dict, tracers: list, known_outs: list,
              eqn: JaxprEqnRecipe | None, inner: dict) -> None:
        """A call-like primitive (jit, scan, remat, cond) split its inner program: `inner`
        holds the known (and, when staged, the unknown) inner jaxprs; `eqn` is the staged
        call's recipe, or None when it ran whole now."""

    def fixpoint_round(self, primitive: Primitive, params: dict, round: int,
                       unknowns: list[bool], carry_out_unknowns: list[bool]) -> None:
        """A loop's rule (scan, while) split its body once more while it looks for the
        carries that are unknown: in round `round` (from 0) the body's inputs were
        `unknowns` (the body's own order: consts, carries, then xs) and its carries came out
        unknown where `carry_out_unknowns` says. The last round is the one whose carries
        came out as they went in."""


class PeState:
    """Per-trace data: the tag shared by nested traces, the equation counter, the observer,
    and the parent trace (the one current before this one), where known work is bound."""

    def __init__(self, observer: PartialEvalObserver | None = None, tag: object | None = None,
                 parent: MainTrace | None = None):
        self.tag = tag if tag is not None else object()
        self.counter = itertools.count()
        self.observer = observer if observer is not None else PartialEvalObserver()
        self.parent = parent


# primitive -> rule(trace, tracers, params) -> out tracers; for primitives (jit, scan,
# remat) whose partial evaluation splits their inner program instead of the default.
partial_eval_rules: dict[Primitive, Callable[..., list]] = {}


class JaxprTracer(Tracer):
    __slots__ = ("pval", "recipe", "__weakref__")
    _trace: JaxprTrace

    def __init__(self, trace: JaxprTrace, pval: PartialVal, recipe: Any):
        self._trace = trace
        self.pval = pval
        self.recipe = recipe

    @property
    def aval(self) -> ShapedArray:
        aval, const = self.pval  # PartialVal.get_aval, inlined: read at every operation
        return aval if aval is not None else get_aval(const)

    def is_known(self) -> bool:
        return self.pval.is_known()

    def to_concrete_value(self) -> Any:
        # A known value is held, as a plain array is in JAX's partial evaluator.
        known = self.pval.get_known()
        return known.to_concrete_value() if isinstance(known, Tracer) else known

    def note_decision(self, kind: str, value: Any) -> None:
        known = self.pval.get_known()
        if isinstance(known, Tracer):
            known.note_decision(kind, value)

    def full_lower(self) -> Any:
        known = self.pval[1]  # PartialVal.get_known, inlined: bind lowers every output
        return self if known is None else known


class JaxprTrace(Trace):
    __slots__ = ()

    @property
    def state(self) -> PeState:
        return self.main.global_data

    def new_const(self, val: Any) -> JaxprTracer:
        return JaxprTracer(self, PartialVal.known(val), None)

    pure = new_const

    def lift(self, val: Tracer) -> JaxprTracer:
        if isinstance(val, JaxprTracer) and val._trace.state.tag is self.state.tag:
            return JaxprTracer(self, val.pval, FreeVar(val))
        return self.new_const(val)

    def new_arg(self, pval: PartialVal) -> JaxprTracer:
        # A known argument never becomes an input of the unknown jaxpr: if unknown
        # work needs it, it is passed as a residual.
        const = pval.get_known()
        if const is None:
            return JaxprTracer(self, PartialVal.unknown(pval.get_aval()), LambdaBinding())
        return self.new_const(const)

    def new_instantiated_const(self, val: Any) -> JaxprTracer:
        """A known value given a place in the staged jaxpr as a residual, even a scalar."""
        return JaxprTracer(self, PartialVal.unknown(get_aval(val)), ConstVar(val))

    def instantiate_const(self, tracer: JaxprTracer) -> JaxprTracer:
        """Give a known value a place in the staged jaxpr: a Literal or a ConstVar."""
        const = tracer.pval[1]  # PartialVal.get_known, inlined: every staged known input
        if const is None:
            return tracer
        aval = get_aval(const)
        recipe = Literal(const, aval) if is_literalable(const) else ConstVar(const)
        return JaxprTracer(self, PartialVal((aval, None)), recipe)

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        # Every operation of the traced function comes here, known inputs or not (the trace
        # is current, as in JAX), and what the rules bind on known values goes to the parent.
        rule = partial_eval_rules.get(primitive)
        if rule is None:
            return self.default_process_primitive(primitive, tracers, params)
        with current_dynamic_trace(self.state.parent):
            return rule(self, tracers, params)

    def default_process_primitive(self, primitive: Primitive, tracers: list,
                                  params: dict) -> list:
        # By default, if all the input tracers are known, then bind the primitive
        # and consider all outputs known. Otherwise, stage the application into the
        # jaxpr and consider all outputs unknown.
        state = self.state
        consts = [t.pval[1] for t in tracers]  # PartialVal.get_known, inlined (every op)
        for c in consts:
            if c is None:
                break
        else:  # every input known: bound at the parent trace
            with current_dynamic_trace(state.parent):
                outs = bind(primitive, *consts, **params)
            outs = outs if primitive.multiple_results else [outs]
            state.observer.known(primitive, params, tracers, outs)
            return [self.new_const(o) for o in outs]
        staged_in, out_tracers = self.stage_application(primitive, tracers, params)
        state.observer.staged(primitive, params, tracers, staged_in, out_tracers[0].recipe)
        return out_tracers

    def stage_application(self, primitive: Primitive, tracers: list,
                          params: dict) -> tuple[list, list]:
        """Stage one application with every output unknown; known inputs are instantiated."""
        # (an unknown PartialVal is (aval, None): read directly, on every staged operation)
        staged_in = [t if t.pval[0] is not None else self.instantiate_const(t) for t in tracers]
        out_avals = primitive.out_avals([t.pval[0] for t in staged_in], params)
        out_tracers = [JaxprTracer(self, PartialVal((a, None)), None) for a in out_avals]
        eqn = new_eqn_recipe(self, staged_in, out_tracers, primitive, params)
        for t in out_tracers:
            t.recipe = eqn
        return staged_in, out_tracers


def new_eqn_recipe(trace: JaxprTrace, in_tracers: list, out_tracers: list,
                   primitive: Primitive, params: dict) -> JaxprEqnRecipe:
    if core.observed:
        core.observer.equation_staged()
    return JaxprEqnRecipe(next(trace.state.counter), in_tracers,
                          [weakref.ref(t) for t in out_tracers], [t.pval[0] for t in out_tracers],
                          primitive, params, no_effects, user_source_info())


# --------------------------------------------------------------------------- assembling the jaxpr


def toposort(end_nodes: Sequence[JaxprTracer]) -> list[JaxprTracer]:
    """Parents before children, in the order JAX's topological sort produces.

    Count each node's children, then repeatedly emit a node whose children have
    all been emitted, starting from the end nodes, and reverse the result.
    """
    if not end_nodes:
        return []
    seen_ids: set[int] = set()
    ends = []
    for n in end_nodes:
        if id(n) not in seen_ids:
            seen_ids.add(id(n))
            ends.append(n)
    # A node's parents are its equation's inputs (read in place: each node is visited twice)
    child_counts: dict[int, int] = {}
    stack = list(ends)
    while stack:
        node = stack.pop()
        if id(node) in child_counts:
            child_counts[id(node)] += 1
        else:
            child_counts[id(node)] = 1
            if type(node.recipe) is JaxprEqnRecipe:
                stack.extend(node.recipe.in_tracers)
    for node in ends:
        child_counts[id(node)] -= 1
    order = []
    ready = [n for n in ends if child_counts[id(n)] == 0]
    while ready:
        node = ready.pop()
        order.append(node)
        if type(node.recipe) is not JaxprEqnRecipe:
            continue
        for parent in node.recipe.in_tracers:
            if child_counts[id(parent)] == 1:
                ready.append(parent)
            else:
                child_counts[id(parent)] -= 1
    order.reverse()
    return order


class EscapedTracerError(Exception):
    pass


def tracers_to_jaxpr(in_tracers: Sequence[JaxprTracer], out_tracers: Sequence[JaxprTracer]
                     ) -> tuple[Jaxpr, list, list]:
    """Build a jaxpr from the recipes reachable from the inputs and outputs.

    Returns (jaxpr, const values, env values); constvars are the residuals,
    deduplicated by the identity of their values.
    """
    t_to_var: dict[int, Var] = {}
    consts: dict[Var, Any] = {}
    env: dict[Var, Any] = {}
    constid_to_var: dict[int, Var] = {}
    eqns: list[JaxprEqn] = []

    def getvar(t: JaxprTracer) -> Var:
        v = t_to_var.get(id(t))
        if v is None:
            v = t_to_var[id(t)] = Var(t.aval)
        return v

    def get_atom(t: JaxprTracer) -> Any:
        return t.recipe if type(t.recipe) is Literal else getvar(t)

    # Inputs, residuals and literals first, in topological order; then the equations in the
    # order they were recorded (each once, however many of its outputs are reached). The
    # recipes are ordered by their ids alone: sorting the tracers themselves touched every
    # one again, which grew costlier per equation as the graph outgrew the CPU's caches.
    tracers = toposort([*in_tracers, *out_tracers])
    in_ids = {id(t) for t in in_tracers}
    recipes: dict[int, JaxprEqnRecipe] = {}
    for t in tracers:
        r = t.recipe
        if isinstance(r, JaxprEqnRecipe):
            recipes[r.eqn_id] = r
        elif isinstance(r, LambdaBinding):
            if id(t) not in in_ids:
                raise EscapedTracerError(
                    "Tracer not among the inputs: an unknown value escaped from the "
                    "function it was created in")
            getvar(t)
        elif isinstance(r, ConstVar):
            v = constid_to_var.get(id(r.val))
            if v is None:
                v = constid_to_var[id(r.val)] = getvar(t)
                consts[v] = r.val
            t_to_var[id(t)] = v
        elif isinstance(r, FreeVar):
            env[getvar(t)] = r.val
        elif type(r) is Literal:
            pass
        else:
            raise TypeError(f"unexpected recipe {r!r}: a known tracer reached the jaxpr")
    for eqn_id in sorted(recipes):
        r = recipes[eqn_id]
        invars = [get_atom(x) for x in r.in_tracers]
        outvars = []
        for ref, aval in zip(r.out_tracer_refs, r.out_avals):
            o = ref()
            outvars.append(DropVar(aval) if o is None else getvar(o))
        eqns.append(JaxprEqn(invars, outvars, r.primitive, r.params, r.effects, r.source_info))
    invars = [*env, *map(getvar, in_tracers)]
    outvars = [get_atom(t) for t in out_tracers]
    jaxpr = Jaxpr(list(consts), invars, outvars, eqns)
    if checks_enabled():
        check_jaxpr(ClosedJaxpr(jaxpr, list(consts.values())))
    return jaxpr, list(consts.values()), list(env.values())


# --------------------------------------------------------------------------- entry points


def trace_to_subjaxpr_nounits(trace: JaxprTrace, fun: Callable[..., Sequence[Any]],
                              pvals: Sequence[PartialVal], instantiate: bool | Sequence[bool]
                              ) -> tuple[list, Jaxpr, list, list]:
    # Known inputs are passed in as plain values, not tracers.
    in_tracers = [trace.new_arg(pv) for pv in pvals if not pv.is_known()]
    it = iter(in_tracers)
    args = [pv.get_known() if pv.is_known() else next(it) for pv in pvals]
    ans = fun(*args)
    out = [trace.full_raise(a) for a in ans]
    inst = [instantiate] * len(out) if isinstance(instantiate, bool) else list(instantiate)
    out = [trace.instantiate_const(t) if i else t for i, t in zip(inst, out, strict=True)]
    unknown_outs = [t for t in out if not t.is_known()]
    jaxpr, consts, env = tracers_to_jaxpr(in_tracers, unknown_outs)
    return out, jaxpr, consts, env


def trace_to_jaxpr_nounits(fun: Callable[..., Sequence[Any]], pvals: Sequence[PartialVal],
                           instantiate: bool | Sequence[bool] = False,
                           observer: PartialEvalObserver | None = None
                           ) -> tuple[Jaxpr, list[PartialVal], list]:
    """Partially evaluate `fun` (flat lists in and out) on known and unknown inputs.

    Returns the jaxpr of the unknown part (its constvars are the residuals), the
    output PartialVals, and the residual values.
    """
    with new_dynamic_main(JaxprTrace, PeState(observer, parent=core.dynamic_trace)) as main:
        trace = JaxprTrace(main)
        out, jaxpr, consts, env = trace_to_subjaxpr_nounits(trace, fun, pvals, instantiate)
        assert not env
        out_pvals = [t.pval for t in out]
        del out, trace
    return jaxpr, out_pvals, consts


@weakref_lru_cache
def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Expose the constant inputs as leading invars."""
    return Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns, jaxpr.effects)


@weakref_lru_cache
def close_jaxpr(jaxpr: Jaxpr) -> ClosedJaxpr:
    """A jaxpr without constants as a closed one: the same object each time."""
    return ClosedJaxpr(jaxpr, [])


def partial_eval_jaxpr_nounits(jaxpr: ClosedJaxpr, unknowns: Sequence[bool],
                               instantiate: bool | Sequence[bool],
                               observer: PartialEvalObserver | None = None
                               ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[ShapedArray]]:
    """Split a closed jaxpr into (known, unknown, out_unknowns, residual avals).

    The known jaxpr returns its known outputs followed by the residuals; the
    unknown jaxpr takes the residuals first, then the unknown inputs.
    """
    split = (_partial_eval_jaxpr_nounits_uncached if observer is not None
             else _partial_eval_jaxpr_nounits)
    return split(jaxpr, tuple(unknowns), _hashable_bools(instantiate), False, observer)[:-1]


def partial_eval_jaxpr_nounits_fwd(jaxpr: ClosedJaxpr, unknowns: Sequence[bool],
                                   instantiate: bool | Sequence[bool],
                                   fwd: bool | Sequence[bool] = True
                                   ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool],
                                              list[ShapedArray], list[int | None]]:
    """The split, with residuals that are just known inputs (where `fwd` allows) or the
    jaxpr's own constants left out of the known jaxpr's outputs: the last result gives,
    per residual, its index in [*jaxpr.consts, *known inputs], or None if it is computed."""
    return _partial_eval_jaxpr_nounits(jaxpr, tuple(unknowns), _hashable_bools(instantiate),
                                       _hashable_bools(fwd), None)


def _hashable_bools(x: bool | Sequence[bool]) -> bool | tuple[bool, ...]:
    return x if isinstance(x, bool) else tuple(x)


def _partial_eval_jaxpr_nounits_uncached(
        jaxpr: ClosedJaxpr, unknowns: tuple[bool, ...], instantiate: bool | tuple[bool, ...],
        fwd: bool | tuple[bool, ...], observer: PartialEvalObserver | None
        ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[ShapedArray], list[int | None]]:
    # known_path runs the known program over this module's trace: imported when first used
    from .known_path import partial_eval_fun
    fun = partial_eval_fun(jaxpr)
    in_avals = jaxpr.in_avals
    cell: dict[str, Any] = {}

    def known_fun(*known_vals_in: Any) -> list:
        known_it = iter(known_vals_in)
        pvals = [PartialVal.unknown(a) if uk else PartialVal.known(next(known_it))
                 for a, uk in zip(in_avals, unknowns, strict=True)]
        jaxpr_unknown_, out_pvals, residuals = trace_to_jaxpr_nounits(
            fun, pvals, instantiate, observer)
        ids = {id(c): i for i, c in enumerate(known_vals_in)}
        fwds: list[int | None] = [ids.get(id(r)) for r in residuals]
        if fwd is False:
            fwds = [None] * len(residuals)
        else:
            if isinstance(fwd, tuple):  # forward only the inputs it allows
                allowed = [f for f, uk in zip(fwd, unknowns) if not uk]
                fwds = [f if f is not None and allowed[f] else None for f in fwds]
            fwds = _include_consts_in_fwds(jaxpr.consts, fwds, residuals)
        kept = [r for r, f in zip(residuals, fwds) if f is None]
        cell["jaxpr_unknown"] = convert_constvars_jaxpr(jaxpr_unknown_)
        cell["out_unknowns"] = [not pv.is_known() for pv in out_pvals]
        cell["res_avals"] = [get_aval(r) for r in kept]
        cell["fwds"] = fwds
        known_outs = [pv.get_known() for pv in out_pvals if pv.is_known()]
        return [*known_outs, *kept]

    known_avals = [a for a, uk in zip(in_avals, unknowns) if not uk]
    jaxpr_known = trace_to_jaxpr_dynamic(known_fun, known_avals)
    jaxpr_unknown = ClosedJaxpr(cell["jaxpr_unknown"], [])
    if checks_enabled() and fwd is False:
        check_jaxpr(jaxpr_unknown)
        check_split_composes(jaxpr, jaxpr_known, jaxpr_unknown, unknowns, cell["out_unknowns"],
                             len(cell["res_avals"]))
    return (jaxpr_known, jaxpr_unknown, cell["out_unknowns"], cell["res_avals"],
            cell["fwds"])


_partial_eval_jaxpr_nounits = weakref_lru_cache(_partial_eval_jaxpr_nounits_uncached)


def _include_consts_in_fwds(consts: Sequence[Any], fwds: list[int | None],
                            residuals: list[Any]) -> list[int | None]:
    """Residuals that are the jaxpr's own constants are forwarded too, and input forwards
    shift past the constants. As in JAX, only once some residual is forwarded at all."""
    if all(f is None for f in fwds):
        return fwds
    index = {id(c): i for i, c in enumerate(consts)}
    return [len(consts) + f if f is not None else index.get(id(r))
            for r, f in zip(residuals, fwds)]


def jaxpr_forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """Per output, the index of the input it merely passes on (seen through forwarding
    rules, such as a no-op convert_element_type), or None."""
    fwds: dict[Var, Any] = dict(zip(jaxpr.invars, jaxpr.invars))
    for eqn in jaxpr.eqns:
        rule = forwarding_rules.get(eqn.primitive)
        if rule is not None:
            for v, i in zip(eqn.outvars, rule([a.aval for a in eqn.invars], eqn.params)):
                src = eqn.invars[i] if i is not None else None
                if src is not None and type(src) is not Literal:
                    fwds[v] = fwds.get(src, src)
    index: dict[Var | None, int] = {v: i for i, v in enumerate(jaxpr.invars)}
    return [None if type(v) is Literal else index.get(fwds.get(v)) for v in jaxpr.outvars]


# The rearrangements below are cached like JAX's, so that rearranging the same jaxpr twice
# gives the same object (and a jit called twice is printed once).


def prune_closed_jaxpr_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    return _prune_closed_jaxpr_outputs(closed, tuple(keep))


@weakref_lru_cache
def _prune_closed_jaxpr_outputs(closed: ClosedJaxpr, keep: tuple[bool, ...]) -> ClosedJaxpr:
    j = closed.jaxpr
    return ClosedJaxpr(j.replace(outvars=[v for v, k in zip(j.outvars, keep, strict=True) if k]),
                       closed.consts)


def move_binders_to_front(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    return _move_binders_to_front(closed, tuple(to_move))


def move_binders_to_back(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    return _move_binders_to_front(closed, tuple(not m for m in to_move))


@weakref_lru_cache
def _move_binders_to_front(closed: ClosedJaxpr, to_move: tuple[bool, ...]) -> ClosedJaxpr:
    j = closed.jaxpr
    stay, move = partition_list(list(to_move), j.invars)
    return ClosedJaxpr(j.replace(invars=[*move, *stay]), closed.consts)


# --------------------------------------------------------------------------- policy-driven split
#
# `partial_eval_jaxpr_custom` splits a jaxpr without tracing it: an environment maps
# each variable to (unknown, instantiated). It is the splitter `checkpoint` hands its
# policy to: a known equation whose policy says "saveable" keeps its outputs as
# potential residuals; one that says "recompute" is also copied into the staged
# jaxpr, so the backward pass recomputes it from residuals further upstream.

# primitive -> rule(saveable, unks_in, inst_in, eqn)
#   -> (known eqn or None, staged eqn or None, unks_out, inst_out, residual vars)
partial_eval_jaxpr_custom_rules: dict[Primitive, Callable[..., tuple]] = {}


def _bools(x: bool | Sequence[bool], n: int) -> list[bool]:
    return [x] * n if isinstance(x, bool) else list(x)


def partial_eval_jaxpr_custom(jaxpr: Jaxpr, in_unknowns: Sequence[bool],
                              in_inst: bool | Sequence[bool],
                              ensure_out_unknowns: bool | Sequence[bool],
                              ensure_out_inst: bool | Sequence[bool],
                              saveable: Callable[..., bool]
                              ) -> tuple[Jaxpr, Jaxpr, list[bool], list[bool], int]:
    """Split `jaxpr` into (known, staged, out_unknowns, out_inst, num_res), as JAX does.

    The known jaxpr takes the known inputs and returns the known outputs followed
    by the residuals; the staged jaxpr takes the residuals followed by the
    instantiated inputs and returns the instantiated outputs. Cached per jaxpr.
    """
    return _partial_eval_jaxpr_custom(
        jaxpr, tuple(in_unknowns), _hashable_bools(in_inst),
        _hashable_bools(ensure_out_unknowns), _hashable_bools(ensure_out_inst), saveable)


@weakref_lru_cache
def _partial_eval_jaxpr_custom(jaxpr: Jaxpr, in_unknowns: tuple[bool, ...],
                               in_inst: bool | Sequence[bool],
                               ensure_out_unknowns: bool | Sequence[bool],
                               ensure_out_inst: bool | Sequence[bool],
                               saveable: Callable[..., bool]
                               ) -> tuple[Jaxpr, Jaxpr, list[bool], list[bool], int]:
    in_inst = _bools(in_inst, len(jaxpr.invars))
    ensure_out_unknowns = _bools(ensure_out_unknowns, len(jaxpr.outvars))
    ensure_out_inst = _bools(ensure_out_inst, len(jaxpr.outvars))
    env: dict[Var, tuple[bool, bool]] = {}
    residuals: dict[Var, None] = {}  # insertion-ordered set

    def read(a: Any) -> tuple[bool, bool]:
        return env[a] if type(a) is not Literal else (False, True)

    def ensure_instantiated(inst: bool, a: Any) -> Any:
        if type(a) is not Literal and not inst:
            residuals[a] = None
        return a

    known_eqns: list[JaxprEqn] = []
    staged_eqns: list[JaxprEqn] = []
    for v, uk, inst in zip(jaxpr.invars, in_unknowns, in_inst, strict=True):
        env[v] = (uk, inst)
    for v in jaxpr.constvars:
        env[v] = (False, True)
    for eqn in jaxpr.eqns:
        unks_in, inst_in = zip(*map(read, eqn.invars)) if eqn.invars else ((), ())
        rule = partial_eval_jaxpr_custom_rules.get(eqn.primitive)
        if rule is not None:
            eqn1, eqn2, unks_out, inst_out, res = rule(saveable, unks_in, inst_in, eqn)
            if eqn1 is not None:
                known_eqns.append(eqn1)
            if eqn2 is not None:
                staged_eqns.append(eqn2)
            residuals.update(dict.fromkeys(res))
            env.update({v: (u, i) for v, u, i in zip(eqn.outvars, unks_out, inst_out)})
        elif any(unks_in):
            staged_eqns.append(eqn.replace(invars=list(map(ensure_instantiated, inst_in,
                                                               eqn.invars))))
            env.update({v: (True, True) for v in eqn.outvars})
        else:
            known_eqns.append(eqn)
            if saveable(eqn.primitive, *[a.aval for a in eqn.invars], **eqn.params):
                env.update({v: (False, False) for v in eqn.outvars})
            else:  # recompute: the staged side repeats the equation
                staged_eqns.append(eqn.replace(invars=list(map(ensure_instantiated, inst_in,
                                                                   eqn.invars))))
                env.update({v: (False, True) for v in eqn.outvars})
    out_unknowns, out_inst = [], []
    for out, ens_uk, ens_inst in zip(jaxpr.outvars, ensure_out_unknowns, ensure_out_inst):
        uk, inst = read(out)
        if ens_inst:
            ensure_instantiated(inst, out)
        out_unknowns.append(uk or ens_uk)
        out_inst.append(inst or ens_inst)
    ins_known, _ = partition_list(in_unknowns, jaxpr.invars)
    outs_known, _ = partition_list(out_unknowns, jaxpr.outvars)
    jaxpr_known = Jaxpr(jaxpr.constvars, ins_known, [*outs_known, *residuals], known_eqns)
    _, ins_staged = partition_list(in_inst, jaxpr.invars)
    _, outs_staged = partition_list(out_inst, jaxpr.outvars)
    jaxpr_staged = Jaxpr(jaxpr.constvars, [*residuals, *ins_staged], outs_staged, staged_eqns)
    if checks_enabled():
        check_jaxpr(jaxpr_known)
        check_jaxpr(jaxpr_staged)
        check_custom_split_composes(jaxpr, jaxpr_known, jaxpr_staged, in_unknowns, in_inst,
                                    out_unknowns, out_inst, len(residuals))
    return jaxpr_known, jaxpr_staged, out_unknowns, out_inst, len(residuals)


# primitive -> rule(used_outputs, eqn) -> (used_inputs, new eqn or None)
dce_rules: dict[Primitive, Callable[..., tuple]] = {}


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool],
              instantiate: bool | Sequence[bool] = False) -> tuple[Jaxpr, list[bool]]:
    """Drop equations whose outputs nothing needs; returns (jaxpr, used inputs).

    Inputs are kept (so the signature stays) unless unused and not instantiated.
    Cached per jaxpr.
    """
    return _dce_jaxpr(jaxpr, tuple(used_outputs), _hashable_bools(instantiate))


@weakref_lru_cache
def _dce_jaxpr(jaxpr: Jaxpr, used_outputs: tuple[bool, ...],
               instantiate: bool | tuple[bool, ...]) -> tuple[Jaxpr, list[bool]]:
    inst = _bools(instantiate, len(jaxpr.invars))
    live: set[Var] = {v for v, u in zip(jaxpr.outvars, used_outputs, strict=True)
                      if u and type(v) is not Literal}
    new_eqns: list[JaxprEqn] = []
    for eqn in reversed(jaxpr.eqns):
        used_outs = [v in live for v in eqn.outvars]
        if not any(used_outs):
            continue
        rule = dce_rules.get(eqn.primitive)
        if rule is not None:
            # used_ins refers to the equation's inputs before the rule pruned them.
            invars = eqn.invars
            used_ins, eqn = rule(used_outs, eqn)
            if eqn is None:
                continue
            live.update(v for v, u in zip(invars, used_ins) if u and type(v) is not Literal)
        else:
            live.update(v for v in eqn.invars if type(v) is not Literal)
        new_eqns.append(eqn)
    used_inputs = [v in live or i for v, i in zip(jaxpr.invars, inst)]
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u]
    dced = Jaxpr(jaxpr.constvars, invars, outvars, new_eqns[::-1])
    if checks_enabled():
        check_jaxpr(dced)
    return dced, used_inputs

