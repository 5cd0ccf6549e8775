"""DynamicJaxprTrace: the staging interpreter `jit` and `make_jaxpr` install.

It never performs anything: every operation becomes an equation appended to a
frame, because at a jit boundary every input is a formal parameter. The only
exceptions are JAX's: a primitive with an entry in `const_fold_rules` may fold
when an operand is constant, and the `eager_constant_folding` flag evaluates an
operation whose operands are all non-tracers.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core
from .pretty import pp_eqn_text
from .typecheck import check_jaxpr, checks_enabled

# primitive -> rule(consts_in, params, out_avals) -> list of output constants, or None to decline
ConstFoldRule = Callable[[list, dict, Sequence[Any]], "list | None"]
const_fold_rules: dict[core.Primitive, ConstFoldRule] = {}

# primitive -> rule(in_avals, params) -> per output, the index of the input it merely passes
# on (None where it computes something): such an equation is not staged at all.
ForwardingRule = Callable[[list, dict], "list[int | None]"]
forwarding_rules: dict[core.Primitive, ForwardingRule] = {}

# primitive -> rule(trace, tracers, params) -> output tracers, for primitives that
# stage themselves in a special way (none of the basic ones do)
custom_staging_rules: dict[core.Primitive, Callable[..., list]] = {}


class TracingEqn:
    """An equation while tracing: holds its inputs' tracers so upstream work stays alive.
    In a holding frame, `held_outs` is what it computes from held values, worked out when
    first asked (None until then; [] when an input is not held)."""

    __slots__ = ("in_tracers", "outvars", "primitive", "params", "source_info", "held_outs",
                 "__weakref__")

    def __init__(self, in_tracers: list, outvars: list[core.Var], primitive: core.Primitive,
                 params: dict, source_info: core.SourceInfo):
        self.in_tracers = in_tracers
        self.outvars = outvars
        self.primitive = primitive
        self.params = params
        self.source_info = source_info
        self.held_outs: list | None = None

    def to_jaxpr_eqn(self) -> core.JaxprEqn:
        return core.JaxprEqn([t.atom for t in self.in_tracers], self.outvars, self.primitive,
                             self.params, core.no_effects, self.source_info)


class TraceDebug:
    """What JAX's errors say of the function being traced: its name and place ("f at
    file.py:12"), what it is traced for ("jit") and its arguments' names. Name, place and
    arguments are worked out when an error first asks for them: inspect.signature costs more
    than staging a small function, and most traces raise nothing."""

    __slots__ = ("traced_for", "_describe", "_described")

    def __init__(self, describe: Callable[[], tuple[str, list[str]]], traced_for: str):
        self.traced_for = traced_for
        self._describe = describe  # -> (func_src_info, arg_names)
        self._described: tuple[str, list[str]] | None = None

    def _get(self) -> tuple[str, list[str]]:
        if self._described is None:
            self._described = self._describe()
        return self._described

    func_src_info = property(lambda self: self._get()[0])
    arg_names = property(lambda self: self._get()[1])


class JaxprStackFrame:
    """Where a staging trace appends equations, constants and inputs.

    A frame that `holds` also knows, for every tracer computed from held inputs and
    constants alone, its value (worked out when Python reads it): those tracers are known,
    as JaxprTrace's known values are, so Python control flow on them works, and each such
    decision is logged.
    """

    def __init__(self, auto_dce: bool = False, debug: TraceDebug | None = None,
                 holds: bool = False):
        self.debug = debug
        self.holds = holds
        self.decisions: list[dict] = []
        self.tracing_eqns: list[Any] = []
        self.constvar_to_val: dict[core.Var, Any] = {}
        self.constid_to_tracer: dict[int, DynamicJaxprTracer] = {}
        self.const_keepalive: list[Any] = []
        self.invars: list[core.Var] = []
        # With auto_dce the frame holds effect-free equations weakly: one that no
        # live tracer reaches is collected before the jaxpr is built (JAX's
        # tangent traces do this; jit and make_jaxpr do not).
        self.auto_dce = auto_dce

    def add_eqn(self, eqn: TracingEqn) -> None:
        if core.observed:
            core.observer.equation_staged()
        self.tracing_eqns.append(weakref.ref(eqn) if self.auto_dce else eqn)

    def eqns(self) -> list[core.JaxprEqn]:
        out = []
        for r in self.tracing_eqns:
            e = r() if self.auto_dce else r
            if e is not None:
                out.append(e.to_jaxpr_eqn())
        return out

    def invalidate(self) -> None:
        """Forget the tracing equations and constants' tracers once the jaxpr is built, as
        JAX's DynamicJaxprTrace.invalidate does: they make a cycle (frame -> equation ->
        tracer -> trace -> frame) that only the cyclic collector would otherwise free."""
        self.tracing_eqns = []
        self.constid_to_tracer = {}

    def find_progenitors(self, tracer: DynamicJaxprTracer) -> tuple[list[int], list[core.JaxprEqn]]:
        """The inputs a tracer depends on, or else the equations that made it from constants."""
        if type(tracer.atom) is core.Literal:
            return [], []
        eqns = self.eqns()
        active = {tracer.atom}
        for eqn in reversed(eqns):
            made = active.intersection(eqn.outvars)
            if made:
                active.difference_update(made)
                active.update(a for a in eqn.invars if type(a) is not core.Literal)
        consts = active.intersection(self.constvar_to_val)
        return ([i for i, v in enumerate(self.invars) if v in active],
                [e for e in eqns if any(a in consts if type(a) is not core.Literal else True
                                        for a in e.invars)])

    def to_jaxpr(self, out_tracers: Sequence[DynamicJaxprTracer]) -> core.ClosedJaxpr:
        eqns = self.eqns()
        outvars = [t.atom for t in out_tracers]
        constvars = []
        if self.constvar_to_val:
            used = {v for e in eqns for v in e.invars if type(v) is not core.Literal}
            used.update(v for v in outvars if type(v) is not core.Literal)
            constvars = [v for v in self.constvar_to_val if v in used]
        consts = [self.constvar_to_val[v] for v in constvars]
        return core.ClosedJaxpr(core.Jaxpr(constvars, self.invars, outvars, eqns), consts)


class DynamicJaxprTracer(core.Tracer):
    __slots__ = ("aval", "atom", "const", "held", "parent", "__weakref__")
    _trace: DynamicJaxprTrace
    aval: core.ShapedArray

    def __init__(self, trace: DynamicJaxprTrace, aval: core.ShapedArray, atom: Any,
                 const: Any = None, parent: TracingEqn | None = None, held: Any = None):
        self._trace = trace
        self.aval = aval
        self.atom = atom
        self.const = const  # the value, when this tracer stands for a constant
        self.held = held  # a held input's value (others are worked out from their parent)
        self.parent = parent

    def get_const(self) -> Any:
        return self.const

    def to_concrete_value(self) -> Any:
        if self.held is not None:
            return self.held
        if not self._trace.frame.holds:
            return None
        if self.const is not None:
            return self.const
        eqn = self.parent
        if eqn is None:
            return None
        outs = eqn.held_outs if eqn.held_outs is not None else _held_outs(eqn)
        return outs[eqn.outvars.index(self.atom)] if outs else None

    def note_decision(self, kind: str, value: Any) -> None:
        src = core.user_source_info()
        self._trace.frame.decisions.append({"kind": kind, "line": src.lineno, "value": value,
                                            "filename": src.filename, "atom": self.atom})

    # A held value is known: as in JAX's partial evaluator, it is a plain array. Reading it
    # as a float or an array is logged like a decision: a trace holding fewer inputs could
    # not have read it, so what was staged depends on which inputs are held.

    def __float__(self) -> float:
        c = self.to_concrete_value()
        if c is None:
            return super().__float__()
        self.note_decision("float", float(c))
        return float(c)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        c = self.to_concrete_value()
        if c is None:
            return super().__array__(dtype, copy)
        self.note_decision("array", None)
        return np.asarray(c) if dtype is None else np.asarray(c, dtype)

    def _origin_msg(self) -> str:
        debug = self._trace.frame.debug
        if debug is None:
            return ""
        origin = (f"The error occurred while tracing the function {debug.func_src_info} for "
                  f"{debug.traced_for}. ")
        positions, const_eqns = self._trace.frame.find_progenitors(self)
        if positions:
            names = [debug.arg_names[i] if i < len(debug.arg_names) else "unknown"
                     for i in positions]
            which = (f"the argument {names[0]}" if len(names) == 1 else
                     f"the arguments {names[0]} and {names[1]}" if len(names) == 2 else
                     f"the arguments {', '.join(names[:-1])}, and {names[-1]}")
            origin += ("This concrete value was not available in Python because it depends "
                       f"on the value{'s' if len(names) > 1 else ''} of {which}.")
        elif const_eqns:
            lines = [f"  operation {pp_eqn_text(e)}\n    from line "
                     f"{e.source_info.summarize()}" for e in const_eqns[:5]]
            origin += ("This value became a tracer due to JAX operations on these lines:\n\n"
                       + "\n\n".join(lines))
            if len(const_eqns) > 5:
                origin += "\n\n(Additional originating lines are not shown.)"
        return "\n" + origin


class DynamicJaxprTrace(core.Trace):
    __slots__ = ()

    @property
    def frame(self) -> JaxprStackFrame:
        return self.main.global_data

    def new_arg(self, aval: core.ShapedArray, held: Any = None) -> DynamicJaxprTracer:
        v = core.Var(aval)
        self.frame.invars.append(v)
        return DynamicJaxprTracer(self, aval, v, held=held)

    def new_const(self, val: Any) -> DynamicJaxprTracer:
        """A known value entering the jaxpr: inlined as a Literal or carried as a constvar."""
        frame = self.frame
        t = frame.constid_to_tracer.get(id(val))
        if t is not None:
            return t
        aval = core.get_aval(val)
        if core.is_literalable(val):
            t = DynamicJaxprTracer(self, aval, core.Literal(val, aval), const=val)
        else:
            v = core.Var(aval)
            frame.constvar_to_val[v] = val
            frame.const_keepalive.append(val)  # keeps id(val) unique while tracing
            # An outer tracer closed over is a constvar but not a constant to fold.
            const = None if isinstance(val, core.Tracer) else val
            t = DynamicJaxprTracer(self, aval, v, const=const)
        frame.constid_to_tracer[id(val)] = t
        return t

    pure = new_const

    lift = new_const

    def process_primitive(self, primitive: core.Primitive, tracers: list, params: dict) -> list:
        rule = custom_staging_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, params)
        return self.default_process_primitive(primitive, tracers, params)

    def default_process_primitive(self, primitive: core.Primitive, tracers: list,
                                  params: dict) -> list:
        avals = [t.aval for t in tracers]
        out_avals = primitive.out_avals(avals, params)
        if primitive in const_fold_rules:
            folded = try_constant_folding(primitive, tracers, params, out_avals)
            if folded is not None:
                return [self.new_const(c) for c in folded]
        fwd = forwarding_rules.get(primitive)
        if fwd is not None:
            forwarded = [tracers[i] for i in fwd(avals, params) if i is not None]
            if len(forwarded) == len(out_avals):
                return forwarded
        outvars = [core.Var(a) for a in out_avals]
        # Every operation comes here through process_primitive, called by bind (or by
        # another of the engine's rules): four frames of the engine's to pass over.
        eqn = TracingEqn(tracers, outvars, primitive, params, core.user_source_info(4))
        self.frame.add_eqn(eqn)
        return [DynamicJaxprTracer(self, a, v, None, eqn) for a, v in zip(out_avals, outvars)]


def _held_outs(eqn: TracingEqn) -> list:
    """What a holding frame's equation computes from held values, and first what the
    equations it reads compute (a value is worked out only when Python asks for one: most
    never are, and running every equation as it was staged cost a twentieth of a grad
    answer). An equation reading a value not held computes none ([])."""
    todo = [eqn]
    while todo:
        e = todo[-1]
        waits = [t.parent for t in e.in_tracers if t.held is None and t.const is None
                 and t.parent is not None and t.parent.held_outs is None]
        if waits:
            todo.extend(waits)
            continue
        todo.pop()
        if e.held_outs is not None:  # an equation read twice is worked out once
            continue
        vals = [t.to_concrete_value() for t in e.in_tracers]
        if any(v is None for v in vals):
            e.held_outs = []
            continue
        with core.current_dynamic_trace(None):
            outs = core.impl_rules[e.primitive](*vals, **e.params)
        e.held_outs = list(outs) if e.primitive.multiple_results else [outs]
    assert eqn.held_outs is not None  # worked out last, above
    return eqn.held_outs


def try_constant_folding(primitive: core.Primitive, tracers: list, params: dict,
                         out_avals: Sequence[Any]) -> list | None:
    """JAX's first line: a primitive with no entry in the table is staged at once."""
    if primitive in const_fold_rules:
        consts_in = [t.get_const() for t in tracers]
        if any(c is not None for c in consts_in):
            return const_fold_rules[primitive](consts_in, params, out_avals)
    return None


def inline_jaxpr_into_trace(trace: DynamicJaxprTrace, closed: core.ClosedJaxpr,
                            args: Sequence[DynamicJaxprTracer]) -> list[DynamicJaxprTracer]:
    """Replay a jaxpr's equations into `trace` (JAX's inline_jaxpr_into_trace): each is staged
    as the trace stages an operation, constant folding included; the jaxpr's constants enter
    as the trace's own, one constvar per object."""
    jaxpr = closed.jaxpr
    env: dict[core.Var, Any] = dict(zip(jaxpr.constvars, map(trace.new_const, closed.consts)))
    env.update(zip(jaxpr.invars, args))

    def read(a: Any) -> Any:
        return trace.new_const(a.val) if type(a) is core.Literal else env[a]

    for eqn in jaxpr.eqns:
        outs = trace.process_primitive(eqn.primitive, [read(a) for a in eqn.invars], eqn.params)
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]


def trace_to_jaxpr_dynamic(fun: Callable[..., Sequence[Any]], in_avals: Sequence[core.ShapedArray],
                           auto_dce: bool = False, debug: TraceDebug | None = None,
                           held: Sequence[Any] | None = None,
                           decisions: list | None = None) -> core.ClosedJaxpr:
    """Stage `fun` (taking and returning flat lists) into a closed jaxpr.

    `held` gives, per input, the value it holds (None: unknown), see JaxprStackFrame;
    the decisions Python control flow took on held values are appended to `decisions`.
    `debug` names the function and its arguments in the errors of control flow on
    values that are not held."""
    frame = JaxprStackFrame(auto_dce, debug, held is not None)
    if decisions is not None:
        frame.decisions = decisions
    with core.new_dynamic_main(DynamicJaxprTrace, frame) as main:
        trace = DynamicJaxprTrace(main)
        in_tracers = [trace.new_arg(a, None if held is None else h)
                      for a, h in zip(in_avals, held or in_avals)]
        outs = fun(*in_tracers)
        out_tracers = [trace.full_raise(o) for o in outs]
        del in_tracers, outs
        closed = frame.to_jaxpr(out_tracers)
        frame.invalidate()
    if checks_enabled():
        check_jaxpr(closed)
    return closed
