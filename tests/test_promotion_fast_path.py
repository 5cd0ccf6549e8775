"""jnp's promotion fast paths (`_promoted`, and `_with_scalar` for an array beside a Python
scalar) stage exactly what the general path stages.

Every pair of operands from a grid of kinds (tracers and concrete arrays of several dtypes,
weak types and ranks, Python and NumPy scalars) goes through binary and unary jnp functions,
plainly, under eager constant folding and under JVP, with the fast path on and off: the
printed jaxprs must be the same text.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pe_engine
import pe_engine.numpy as jnp
from pe_engine import jnp_base as pnp  # the promotion helpers themselves, not the facade
from pe_engine import lax
from pe_engine.core import Array, ensure_compile_time_eval


def _operands():
    """(name, make) pairs; make(x) builds the operand from the traced f32[3] input x."""
    return [
        ("tracer f32[3]", lambda x: x),
        ("tracer f32[]", lambda x: x[0]),
        ("tracer f32[1,3]", lambda x: x.reshape((1, 3))),
        ("tracer i32[3]", lambda x: lax.convert_element_type(x, np.int32)),
        ("tracer weak f32[3]", lambda x: lax.convert_element_type(x, np.float32, True)),
        ("tracer f16[3]", lambda x: lax.convert_element_type(x, np.float16)),
        ("tracer bool[3]", lambda x: x > 0),
        ("Array f32[3]", lambda x: Array(np.arange(3, dtype=np.float32))),
        ("Array i32[3]", lambda x: Array(np.arange(3, dtype=np.int32))),
        ("numpy f32[3]", lambda x: np.arange(3, dtype=np.float32)),
        ("python float", lambda x: 2.0),
        ("python int", lambda x: 3),
        ("python bool", lambda x: True),
    ]


BINARY = [jnp.add, jnp.multiply, jnp.subtract, jnp.maximum, jnp.true_divide, jnp.less]
UNARY = [("sin", jnp.sin), ("tanh", jnp.tanh), ("exp", jnp.exp), ("sum", jnp.sum),
         ("square", lambda v: v ** 2), ("cube", lambda v: jnp.power(v, 3))]


def _text(fn, mode: str) -> str:
    def traced(x):
        if mode == "eager":
            with ensure_compile_time_eval():
                return fn(x)
        if mode == "jvp":
            return pe_engine.jvp(fn, (x,), (x,))[1]
        return fn(x)
    try:
        return str(pe_engine.make_jaxpr(traced)(np.ones(3, np.float32)))
    except Exception as e:  # noqa: BLE001 - the same error either way is the same outcome
        return f"{type(e).__name__}: {e}"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # eager division by the grid's zeros
@pytest.mark.parametrize("mode", ["plain", "eager", "jvp"])
def test_fast_path_stages_what_the_general_path_stages(mode, monkeypatch):
    ops = _operands()
    cases = []
    for (na, a), (nb, b) in itertools.product(ops, ops):
        for f in BINARY:
            cases.append((f"{f.__name__}({na}, {nb})",
                          lambda x, f=f, a=a, b=b: f(a(x), b(x))))
    for na, a in ops:
        for nf, f in UNARY:
            cases.append((f"{nf}({na})", lambda x, f=f, a=a: f(a(x))))
    fast = {name: _text(fn, mode) for name, fn in cases}
    monkeypatch.setattr(pnp, "_promoted", lambda args, to=None: False)
    monkeypatch.setattr(pnp, "_with_scalar", lambda args, to=None: None)
    general = {name: _text(fn, mode) for name, fn in cases}
    differ = [name for name in fast if fast[name] != general[name]]
    assert not differ, f"{len(differ)} differ, e.g. {differ[0]}:\n{fast[differ[0]]}\n" \
                       f"vs\n{general[differ[0]]}"
