"""The jit record: the function staged as jit stages it, every operation an equation."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import core
from ..core import Literal
from ..staging import const_fold_rules
from .panes import pane
from .programs import line_of, program_record, short_eqn
from .record import RECORD_VERSION, JitRecord
from .requests import args_record, load_request, trace_user
from .values import format_value


def stage(source: str, args: Sequence[dict[str, Any]], fn: str | None = None,
          eager_constant_folding: bool = False) -> JitRecord:
    """Stage the user's function as jit does (DynamicJaxprTrace): every operation an equation."""
    lf, values, params = load_request(source, fn, args)
    prev = core.config.values["eager_constant_folding"]
    core.config.values["eager_constant_folding"] = eager_constant_folding
    try:
        closed = trace_user(lf.fn, values)
    finally:
        core.config.values["eager_constant_folding"] = prev
    prog, names = program_record(closed.jaxpr)
    events = []
    for i, e in enumerate(closed.jaxpr.eqns):
        consts = [a for a in e.invars if type(a) is Literal or a in closed.jaxpr.constvars]
        all_const = len(consts) == len(e.invars)
        events.append({
            "i": i, "eqn": prog["eqns"][i], "short": short_eqn(e, names),
            "primitive": e.primitive.name, "line": line_of(e), "side": "staged",
            "all_constant": all_const,
            "narration": (f"`{short_eqn(e, names)}` is staged"
                          + (": every input is a constant, yet it becomes an equation, "
                             f"because `{e.primitive.name}` has no constant-folding rule"
                             if all_const else "")) + ".",
        })
    return {  # type: ignore[typeddict-item]  # jax_snippet, memory: modes.run adds them
        "version": RECORD_VERSION,
        "mode": "jit",
        "fn": lf.name,
        "args": [dict(a, known=False) for a in args_record(params, args, values)],
        "program": prog,
        "consts": [format_value(c) for c in closed.consts],
        "eager_constant_folding": eager_constant_folding,
        "const_fold_rules": sorted(p.name for p in const_fold_rules),
        "events": events,
        "panes": [pane("staged", "Staged program", "staged", prog, params)],
    }
