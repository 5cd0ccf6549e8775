"""A request leaves no state for the next (issue 42, finding 1): whatever the engine
remembers while tracing is forgotten after each request, sent as the page sends it
(`entry.call`), and no cache key makes two different values equal."""
from __future__ import annotations

import gc
import json
import sys
import tracemalloc
import types
import weakref
from typing import Any

import numpy as np
import pytest

import pe_engine as pe
from pe_engine import caches
from pe_engine.explain import entry

jax = pytest.importorskip("jax")
import jax.numpy as jjnp  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"


def call(source: str, mode: str = "split", known: bool = True) -> dict:
    """One request, as the page's worker makes it: JSON in, JSON out."""
    req = {"mode": mode, "source": HEADER + source, "args": [{"known": known, "value": "1.0"}]}
    return json.loads(entry.call("pe_engine.explain.run", json.dumps(req)))


def error_message(answer: dict) -> str:
    return answer["result"]["error"]["message"]


# A static argument whose repr hides where two values differ (numpy elides the middle).
STATIC_ARRAY = """def f(x):
    A = np.zeros(2001)
    A[1000] = {v}
    with jax.ensure_compile_time_eval():
        Y = {transform}(jnp.multiply, static_argnums=1)(1.0, A)
        raise ValueError('Y[1000] = ' + str(float(Y[1000])))
    return x
"""


def test_checkpoint_never_gives_one_request_the_trace_of_another():
    """Request 1 traces jnp.multiply with A[1000] = 777, request 2 with 5: each sees its own
    value (keyed by identity, as JAX keys an unhashable static argument of checkpoint)."""
    for v in (777, 5):
        got = error_message(call(STATIC_ARRAY.format(v=v, transform="jax.checkpoint")))
        assert got == f"ValueError: Y[1000] = {float(v)}"


def test_jit_refuses_an_unhashable_static_argument_as_jax_does():
    """JAX refuses it (ValueError) rather than key it; so does the engine, in every request."""
    for v in (777, 5):
        got = error_message(call(STATIC_ARRAY.format(v=v, transform="jax.jit")))
        assert got.startswith("ValueError: Non-hashable static arguments are not supported. An "
                              "error occurred while trying to hash an object of type "), got
        assert "777" not in got and "TypeError: unhashable type" in got


@pytest.mark.parametrize("M", [pe, jax], ids=["engine", "jax"])
def test_static_arguments_equal_across_types_trace_apart(M):
    """JAX's key compares a static argument's type too: f(x, 1) and f(x, 1.0) are two
    traces (int32 and float32 results), where a plain key would hand the second the first's."""
    f = M.jit(lambda x, b: x * b, static_argnums=1)
    x = M.numpy.int32(3) if M is pe else jjnp.int32(3)
    assert [str(np.dtype(f(x, b).dtype)) for b in (1, 1.0, True)] == ["int32", "float32",
                                                                       "int32"]


MAP_HOLDING = """def f(x):
    big = np.ones(4 * 1024 * 1024)
    def g(t):
        return t + big[0]
    return jax.jit(lax.map, static_argnums=0)(g, jnp.ones(3) * x)
"""


def test_a_request_keeps_nothing_alive_through_the_trace_caches():
    """jit(lax.map, static_argnums=0)(g, x) keyed the trace on g, and g's namespace (a 32 MB
    array) stayed alive in lax.map's cache, request after request (419 MB after 12)."""
    call(MAP_HOLDING)  # warm: the engine's own first-use allocations
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(4):
            assert "error" not in call(MAP_HOLDING)["result"]
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 8 << 20, f"{grown / 2**20:.1f} MB kept after 4 requests of 32 MB each"


# Module-level tables kept from one request to the next on purpose, each keyed by exactly
# what determines its value, holding nothing a request's code made or can reach:
KEPT_ACROSS_REQUESTS = {
    # the request's own text -> what it compiles or parses to (code objects, strings, a
    # copy of an array handed out each time): the page asks again with the same source for
    # every toggle, and parsing and compiling are the slowest steps under Pyodide
    "pe_engine.explain.sandbox._compiled", "pe_engine.explain.values._parsed",
    "pe_engine.explain.jax_snippet._value", "pe_engine.explain.jax_snippet._imports_and_code",
    # a printed line's text -> its layout, broken over lines: each answer prints mostly the
    # programs of the one before
    "pe_engine.pretty._BROKEN",
    # the engine's own constants: its code objects' ids, the facades, the scalar combiner
    # of a scatter per (engine function, dtype), the dtype kinds per rule
    "pe_engine.core._engine_code", "pe_engine.explain.sandbox.facades",
    "pe_engine.slicing._reduction_jaxpr", "pe_engine.lax_base._accepted_kinds",
}
_SIZED = (dict, list, set, weakref.WeakKeyDictionary, weakref.WeakValueDictionary)


def engine_state() -> dict[str, Any]:
    """Every module-level binding of the engine: containers by identity and size, memo
    functions by size, anything else by identity; and jax.config's flags."""
    state: dict[str, Any] = {}
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("pe_engine"):
            continue
        for k, v in vars(module).items():
            if isinstance(v, types.ModuleType):
                continue
            if isinstance(v, _SIZED):
                state[f"{name}.{k}"] = (id(v), len(v))
            elif hasattr(v, "cache_info"):
                state[f"{name}.{k}"] = (id(v), v.cache_info().currsize)
            else:
                state[f"{name}.{k}"] = id(v)
    state["config"] = dict(pe.config.values)
    return state


TWO_REQUESTS = [
    ("""def f(x):
    g = jax.jit(lambda a, n: jnp.sin(a) * n, static_argnums=1)
    with jax.ensure_compile_time_eval():
        c = jnp.multiply(jnp.ones(3), 2.0) + jnp.arange(3.0)
    y = jax.checkpoint(lambda a: jnp.cos(a) * c, policy=jax.checkpoint_policies.dots_saveable)(x)
    return jnp.sum(g(y, 3) + lax.map(lambda t: t * x, jnp.ones(2)).sum())
""", "checkpoint"),
    (MAP_HOLDING.replace("4 * 1024 * 1024", "16"), "grad"),
]


def test_two_requests_leave_the_engine_as_they_found_it(monkeypatch):
    """Run two requests (jit with a static argument, compile-time evaluation, checkpoint
    with a policy, lax.map, grad) and compare every module-level binding of the engine
    before and after: only the tables listed in KEPT_ACROSS_REQUESTS may differ, and every
    memo table the registry holds is empty after each request (it was not while it ran)."""
    seen: list[dict[str, int]] = []
    forget = caches.forget
    monkeypatch.setattr(caches, "forget", lambda: (seen.append(caches.sizes()), forget())[1])
    for source, mode in TWO_REQUESTS:  # warm: the engine's first-use tables
        call(source, mode, known=False)
    before = engine_state()
    for source, mode in TWO_REQUESTS:
        assert "error" not in call(source, mode, known=False)["result"]
        assert not any(caches.sizes().values()), caches.sizes()
    after = engine_state()
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed <= KEPT_ACROSS_REQUESTS, sorted(changed - KEPT_ACROSS_REQUESTS)
    used = {name for sizes in seen for name, n in sizes.items() if n}
    assert {"api._jit_traces", "ad_checkpoint._traces", "core._out_avals_cache",
            "core._code_info"} <= used, used


def test_every_memo_of_the_engine_is_forgotten_or_listed_as_kept():
    """The audit, enforced: a module-level memo (an lru_cache or functools.cache, a dict
    named as a cache, a weak table)
    is either in the registry the entry point empties, or kept on purpose above."""
    registered = {id(t) for t in caches.tables().values()}
    unlisted = []
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("pe_engine"):
            continue
        for k, v in vars(module).items():
            full = f"{name}.{k}"
            memo = hasattr(v, "cache_info") or isinstance(
                v, (weakref.WeakKeyDictionary, weakref.WeakValueDictionary)) or (
                isinstance(v, dict) and "cache" in k.lower())
            if memo and id(v) not in registered and full not in KEPT_ACROSS_REQUESTS:
                unlisted.append(full)
    assert not unlisted, unlisted
    audited = {"api._jit_traces", "api._strong_traces", "ad_checkpoint._traces",
               "ad._tangent_side_zeros", "core._name_cache", "core._short_cache",
               "core._ndarray_avals", "core._out_avals_cache", "core._code_info",
               "guards._by_type"}
    assert audited <= caches.tables().keys(), audited - caches.tables().keys()
