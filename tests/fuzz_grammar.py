"""The fuzzer's grammar (tests/test_fuzz_entry.py): hypothesis strategies that draw whole
requests as the page sends them, a user's source, a mode, a mask, input values and options.

A source is the page's header of imports, an optional prelude of helper definitions, and a
traced function whose body is a few statements drawn from three families:
- JAX workloads: jnp/lax calls, jit, grad, checkpoint, scan, cond, vmap on the inputs and
  on arrays of odd shapes and dtypes (the page's examples join whole);
- hostile fragments: dunder walks, frames and generators, format strings, huge and deep
  structures, exceptions raised in odd places, recursion, loops without end, NFKC names;
- odd but legal Python: walrus, match, star unpacking, closures, comprehensions, try/else.
Every fragment carries a tag; a request's tags name what went into it, so a failure can be
traced to the fragment that made it (and a known finding's fragment recognised by its tag).
A request whose fragments can loop for ever gets the short time limit.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from pe_engine.explain.modes import MODES as ENGINE_MODES
from pe_engine.explain.record import POLICY_NAMES
from pe_engine.explain.request_contract import REQUESTS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
MODES = list(ENGINE_MODES)
LIMIT = 2.0  # seconds a request may run before the interrupt (the page gives 5)
LOOP_LIMIT = 0.25  # ... one that may never end


@dataclass(frozen=True)
class Request:
    entry: str
    kwargs: dict
    limit: float
    tags: frozenset[str]

    replay: bool = False  # asked again after the canary, and its record checked in full

    def wire(self) -> dict:
        return {"entry": self.entry, "kwargs": self.kwargs, "limit": self.limit,
                "replay": self.replay}


# Fragments, by family, in tests/fixtures/fuzz_fragments.json: (tag, lines). `X` is the traced
# function's first input; a fragment may bind `y`, which the function then returns beside X.
# Tags starting "loop" may never end. The family "c_loop" loops in C, where no interrupt lands:
# each hangs the worker until it is replaced (seconds), so they are drawn rarely.
_FAMILIES = json.loads((ROOT / "tests" / "fixtures" / "fuzz_fragments.json").read_text())
JAX_FRAGMENTS, HOSTILE_FRAGMENTS, C_LOOP_FRAGMENTS, ODD_FRAGMENTS = (
    list(_FAMILIES[family].items()) for family in ("jax", "hostile", "c_loop", "odd"))

FRAGMENTS = JAX_FRAGMENTS + HOSTILE_FRAGMENTS + C_LOOP_FRAGMENTS + ODD_FRAGMENTS
# one fragment: a JAX workload, a hostile one, odd Python, in about 8 : 7 : 5, a loop in C
# 1 in 140 (one flat pool: sampled_from draws it uniformly and fast; flatmap is slow)
fragments = st.sampled_from(JAX_FRAGMENTS * 5 + HOSTILE_FRAGMENTS * 3 + ODD_FRAGMENTS * 6
                            + C_LOOP_FRAGMENTS)

VALUES = ["1.0", "2.0", "-0.5", "0", "3", "[1.0, 2.0, 3.0]", "[[1.0, 2.0], [3.0, 4.0]]", "[]",
          "[1, 2]", "1e38", "zeros((2, 3))", "ones(0)",
          "full((2,), 0.5)", "((1.0, 2.0),)", "-1", "0.1", "[[[1.0]]]", "ones((2, 1, 3))"]
BAD_VALUES = ["", "nan", "inf", "true", "[1,", "x", "1e999", "2 ** 100", "[" * 200 + "]" * 200,
              "[[1.0], [2.0, 3.0]]", "[[]]", "zeros((10 ** 9,))", "__import__('os')"]
values = st.sampled_from(VALUES * 10 + BAD_VALUES)  # a bad one 1 in 16
# what the traced function returns, besides its input and `y`
ODD_RETURNS = ["None", "'s'", "{'a': X}", "[X, (X, {'k': X})]", "()", "jnp.zeros(0)", "3",
               "X > 0", "(X, None)", "X.astype('int32')", "jnp.zeros((2, 0, 3))", "X + 1j",
               "[]", "lax.stop_gradient(X)", "jnp.ones(3)"]
ABOVE = ["@jax.jit\ndef f(", "@jax.checkpoint\ndef f(", "def g(a):\n    return a\n\ndef f(",
         "@jax.grad\ndef f(", "@jax.vmap\ndef f(", "@jax.custom_jvp\ndef f(",
         "from functools import partial\n@partial(jax.jit, static_argnums=0)\ndef f("]
PARAM_LISTS = [("x", "y2", "W"), ("ｘ2", "_", "lam"), ("W", "x", "b"), ("_", "x", "ｘ2")]


def _body(lines: str) -> str:
    return "".join(f"    {line}\n" for line in lines.split("\n"))


def alone(tag: str, body: str, mode: str = "split", known: bool = False) -> Request:
    """A request of one fragment in `f(x)`, x = 1.0: each fragment's own test."""
    source = f"{HEADER}def f(x):\n{_body(body.replace('X', 'x'))}    return x\n"
    return Request("pe_engine.explain.run",
                   {"mode": mode, "source": source, "args": [{"known": known, "value": "1.0"}]},
                   LOOP_LIMIT if tag.startswith("loop") else LIMIT, frozenset({tag}))


@st.composite
def sources(draw: st.DrawFn) -> tuple[str, int, frozenset[str]]:
    """A source, its function's number of inputs, and the fragments' tags."""
    n = draw(st.integers(1, 3))
    params = draw(st.sampled_from(PARAM_LISTS))[:n]
    chosen = draw(st.lists(fragments, min_size=1, max_size=3))
    body = "".join(_body(lines.replace("X", params[0])) for _, lines in chosen)
    ret = draw(st.sampled_from([params[0], f"({params[0]}, y)", "y", f"{params[-1]} * 2.0"]
                               * 4 + [r.replace("X", params[0]) for r in ODD_RETURNS]))
    text = f"{HEADER}def f({', '.join(params)}):\n{body}    return {ret}\n"
    if draw(st.booleans()):  # a decorator or a second definition above the traced function
        text = text.replace("def f(", draw(st.sampled_from(ABOVE)), 1)
    return text, n, frozenset(tag for tag, _ in chosen)


def _example_source(ex: dict) -> tuple[str, int, frozenset[str]]:
    fn = [n for n in ast.parse(ex["code"]).body if isinstance(n, ast.FunctionDef)][-1]
    return ex["code"], len(fn.args.args), frozenset({f"example-{ex['id']}"})


@st.composite
def requests(draw: st.DrawFn) -> Request:
    """A request as the page sends it, through one of the engine's two entry points."""
    source, n, tags = draw(st.sampled_from(EXAMPLES).map(_example_source) | sources())
    arity = draw(st.sampled_from([n] * 18 + [n + 1, max(n - 1, 0)]))
    args = [{"known": draw(st.booleans()), "value": draw(values)}
            for _ in range(arity)]
    kwargs: dict = {"source": source, "args": args}
    policy = draw(st.sampled_from(POLICY_NAMES))
    if draw(st.sampled_from(range(10))) == 0:
        entry, kwargs["policy"] = "pe_engine.explain.checkpoint_policy", policy
    else:
        entry, kwargs["mode"] = "pe_engine.explain.run", draw(st.sampled_from(MODES))
        kwargs.update(_options(draw, kwargs["mode"], policy, arity))
    limit = LOOP_LIMIT if any(t.startswith("loop") for t in tags) else LIMIT
    return Request(entry, kwargs, limit, tags, draw(st.sampled_from([True, False, False])))


def _options(draw: st.DrawFn, mode: str, policy: str, arity: int) -> dict:
    """The options the page sends with a mode, some of them odd."""
    opts: dict = {}
    if "open_calls" in REQUESTS[mode].__annotations__ and draw(st.booleans()):
        opts["open_calls"] = draw(st.booleans())
    if mode == "grad" and draw(st.booleans()):
        opts["saved"] = draw(st.booleans())
    if mode == "checkpoint":
        opts["policy"] = policy
        opts["only_selected"] = draw(st.booleans())
    if mode == "jit" and draw(st.booleans()):
        opts["eager_constant_folding"] = draw(st.booleans())
    if mode == "split" and draw(st.booleans()):
        opts["instantiate"] = draw(st.lists(st.booleans(), min_size=max(arity - 1, 0),
                                            max_size=arity + 1))
    if draw(st.sampled_from(range(8))) == 0:
        opts["fn"] = draw(st.sampled_from(["f", "f", "g", "nope"]))
    return opts
