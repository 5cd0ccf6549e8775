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

from .core import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    ShapedArray,
    SourceInfo,
    Trace,
    Tracer,
    Var,
    get_aval,
    is_literalable,
    limits,
    new_dynamic_main,
    user_source_info,
)
from .typecheck import check_jaxpr, checks_enabled

# primitive -> rule(consts_in, params, out_avals) -> list of output constants, or None to decline
ConstFoldRule = Callable[[list, dict, list], "list | None"]
const_fold_rules: dict[Primitive, ConstFoldRule] = {}

# primitive -> rule(in_avals, params) -> per output, the index of the input it merely passes
# on (None where it computes something): such an equation is not staged at all.
ForwardingRule = Callable[[list, dict], "list[int | None]"]
forwarding_rules: dict[Primitive, ForwardingRule] = {}

# primitive -> rule(trace, tracers, params) -> output tracers, for primitives that
# stage themselves in a special way (none of the basic ones do)
custom_staging_rules: dict[Primitive, Callable[..., list]] = {}


class TracingEqn:
    """An equation while tracing: holds its inputs' tracers so upstream work stays alive."""

    __slots__ = ("in_tracers", "outvars", "primitive", "params", "source_info", "__weakref__")

    def __init__(self, in_tracers: list, outvars: list[Var], primitive: Primitive,
                 params: dict, source_info: SourceInfo):
        self.in_tracers = in_tracers
        self.outvars = outvars
        self.primitive = primitive
        self.params = params
        self.source_info = source_info

    def to_jaxpr_eqn(self) -> JaxprEqn:
        return JaxprEqn([t.atom for t in self.in_tracers], self.outvars, self.primitive,
                        self.params, frozenset(), self.source_info)


class JaxprStackFrame:
    """Where a staging trace appends equations, constants and inputs."""

    def __init__(self, auto_dce: bool = False):
        self.tracing_eqns: list[Any] = []
        self.constvar_to_val: dict[Var, Any] = {}
        self.constid_to_tracer: dict[int, DynamicJaxprTracer] = {}
        self.const_keepalive: list[Any] = []
        self.invars: list[Var] = []
        # With auto_dce the frame holds effect-free equations weakly: one that no
        # live tracer reaches is collected before the jaxpr is built (JAX's
        # tangent traces do this; jit and make_jaxpr do not).
        self.auto_dce = auto_dce

    def add_eqn(self, eqn: TracingEqn) -> None:
        limits.count_equation()
        self.tracing_eqns.append(weakref.ref(eqn) if self.auto_dce else eqn)

    def eqns(self) -> list[JaxprEqn]:
        out = []
        for r in self.tracing_eqns:
            e = r() if self.auto_dce else r
            if e is not None:
                out.append(e.to_jaxpr_eqn())
        return out

    def to_jaxpr(self, out_tracers: Sequence[DynamicJaxprTracer]) -> ClosedJaxpr:
        eqns = self.eqns()
        outvars = [t.atom for t in out_tracers]
        used = {v for e in eqns for v in e.invars if type(v) is not Literal}
        used.update(v for v in outvars if type(v) is not Literal)
        constvars = [v for v in self.constvar_to_val if v in used]
        consts = [self.constvar_to_val[v] for v in constvars]
        return ClosedJaxpr(Jaxpr(constvars, self.invars, outvars, eqns), consts)


class DynamicJaxprTracer(Tracer):
    __slots__ = ("aval", "atom", "const", "parent", "__weakref__")

    def __init__(self, trace: DynamicJaxprTrace, aval: ShapedArray, atom: Any,
                 const: Any = None, parent: TracingEqn | None = None):
        self._trace = trace
        self.aval = aval
        self.atom = atom
        self.const = const  # the value, when this tracer stands for a constant
        self.parent = parent

    def get_const(self) -> Any:
        return self.const


class DynamicJaxprTrace(Trace):
    __slots__ = ()

    @property
    def frame(self) -> JaxprStackFrame:
        return self.main.global_data

    def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
        v = Var(aval)
        self.frame.invars.append(v)
        return DynamicJaxprTracer(self, aval, v)

    def new_const(self, val: Any) -> DynamicJaxprTracer:
        """A known value entering the jaxpr: inlined as a Literal or carried as a constvar."""
        frame = self.frame
        t = frame.constid_to_tracer.get(id(val))
        if t is not None:
            return t
        aval = get_aval(val)
        if is_literalable(val):
            t = DynamicJaxprTracer(self, aval, Literal(val, aval), const=val)
        else:
            v = Var(aval)
            frame.constvar_to_val[v] = val
            frame.const_keepalive.append(val)  # keeps id(val) unique while tracing
            # An outer tracer closed over is a constvar but not a constant to fold.
            t = DynamicJaxprTracer(self, aval, v, const=None if isinstance(val, Tracer) else val)
        frame.constid_to_tracer[id(val)] = t
        return t

    pure = new_const

    lift = new_const

    def process_primitive(self, primitive: Primitive, tracers: list, params: dict) -> list:
        rule = custom_staging_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, params)
        return self.default_process_primitive(primitive, tracers, params)

    def default_process_primitive(self, primitive: Primitive, tracers: list,
                                  params: dict) -> list:
        avals = [t.aval for t in tracers]
        out_avals = primitive.out_avals(avals, params)
        folded = try_constant_folding(primitive, tracers, params, out_avals)
        if folded is not None:
            return [self.new_const(c) for c in folded]
        fwd = forwarding_rules.get(primitive)
        if fwd is not None:
            ins = fwd(avals, params)
            if all(i is not None for i in ins):
                return [tracers[i] for i in ins]
        outvars = [Var(a) for a in out_avals]
        eqn = TracingEqn(list(tracers), outvars, primitive, params, user_source_info())
        self.frame.add_eqn(eqn)
        return [DynamicJaxprTracer(self, a, v, parent=eqn) for a, v in zip(out_avals, outvars)]


def try_constant_folding(primitive: Primitive, tracers: list, params: dict,
                         out_avals: list) -> list | None:
    """JAX's first line: a primitive with no entry in the table is staged at once."""
    if primitive in const_fold_rules:
        consts_in = [t.get_const() for t in tracers]
        if any(c is not None for c in consts_in):
            return const_fold_rules[primitive](consts_in, params, out_avals)
    return None


def trace_to_jaxpr_dynamic(fun: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray],
                           auto_dce: bool = False) -> ClosedJaxpr:
    """Stage `fun` (taking and returning flat lists) into a closed jaxpr."""
    frame = JaxprStackFrame(auto_dce)
    with new_dynamic_main(DynamicJaxprTrace, frame) as main:
        trace = DynamicJaxprTrace(main)
        in_tracers = [trace.new_arg(a) for a in in_avals]
        outs = fun(*in_tracers)
        out_tracers = [trace.full_raise(o) for o in outs]
        del in_tracers, outs
        closed = frame.to_jaxpr(out_tracers)
    if checks_enabled():
        check_jaxpr(closed)
    return closed
