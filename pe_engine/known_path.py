"""How the partial evaluator runs a jaxpr it splits (partial_eval_jaxpr_nounits): its known
path, the equations whose inputs are all known, staged straight into the known program.

Run through `eval_jaxpr`, each such equation was bound, its inputs lifted into JaxprTrace,
bound again at the trace the known work goes to and its outputs lowered out again, as JAX
does it: that made a known equation cost more to split than an unknown one to stage.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import core
from .core import ClosedJaxpr, Literal, Tracer, Var, eval_jaxpr, full_lower, replaying
from .partial_eval import JaxprTrace, PartialEvalObserver, partial_eval_rules
from .staging import DynamicJaxprTrace, DynamicJaxprTracer


def partial_eval_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    """`jaxpr_as_fun` for the partial evaluator, called under its trace (the top of the
    stack). Each equation goes to the partial evaluator as `bind` would send it, without
    looking for the top trace; one with every input known (none its tracer) and no rule of
    its own is staged straight into the trace the known work goes to, where JaxprTrace's
    default rule binds it, without lifting its inputs into the partial evaluator and
    lowering its outputs out again. A literal input is the jaxpr's own Literal."""
    jaxpr = closed.jaxpr

    def fun(*args: Any) -> list[Any]:
        main = core.dynamic_trace
        assert main is not None  # fun runs under the partial evaluator's trace
        parent = main.global_data.parent
        if main is not core.trace_stack[-1] or parent is None \
                or parent.trace_type is not DynamicJaxprTrace:
            return eval_jaxpr(jaxpr, closed.consts, *args)
        trace, known_trace = JaxprTrace(main), DynamicJaxprTrace(parent)
        observer = main.global_data.observer
        observed = type(observer) is not PartialEvalObserver
        replayed = replaying()  # the equation being replayed lends its source line
        env: dict[Var, Any] = dict(zip(jaxpr.constvars, closed.consts))
        env.update(zip(jaxpr.invars, args))
        for eqn in jaxpr.eqns:
            prim, params = eqn.primitive, eqn.params
            ins = [a if type(a) is Literal else env[a] for a in eqn.invars]
            known = prim not in partial_eval_rules
            if known:
                for x in ins:
                    if isinstance(x, Tracer) and x._trace.main is not parent:
                        known = False
                        break
            replayed.append(eqn)
            try:
                if known:
                    outs = known_trace.process_primitive(prim, [
                        DynamicJaxprTracer(known_trace, x.aval, x, x.val) if type(x) is Literal
                        else known_trace.full_raise(x) for x in ins], params)
                    if observed:
                        observer.known(prim, params, [x.val if type(x) is Literal else x
                                                      for x in ins], outs)
                else:
                    outs = [full_lower(o) for o in trace.process_primitive(prim, [
                        trace.new_const(x.val) if type(x) is Literal else trace.full_raise(x)
                        for x in ins], params)]
            finally:
                replayed.pop()
            env.update(zip(eqn.outvars, outs))
        return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]
    return fun
