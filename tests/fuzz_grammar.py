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

from pe_engine.explain.record import POLICY_NAMES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = json.loads((ROOT / "app" / "examples.json").read_text())["examples"]
HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
MODES = ["split", "jit", "grad", "checkpoint", "interpreters", "masks"]
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


# Fragments: (tag, lines). `X` is the traced function's first input; a fragment may bind
# `y`, which the function then returns beside X. Tags starting "loop" may never end.
JAX_FRAGMENTS = [
    ("sin", "y = jnp.sin(X) * 2.0"), ("tanh-dot", "y = jnp.tanh(jnp.dot(X, X))"),
    ("sum", "y = jnp.sum(X * X)"), ("where", "y = jnp.where(X > 0, X, -X)"),
    ("reshape", "y = jnp.reshape(X, (-1,))"), ("reshape-bad", "y = jnp.reshape(X, (7, 3))"),
    ("zeros-0", "y = jnp.zeros((0, 3)) + 1.0"), ("ones-odd", "y = X + jnp.ones((1, 1, 1))"),
    ("broadcast-bad", "y = X + jnp.ones((4, 5))"), ("astype-int8", "y = X.astype('int8') * 300"),
    ("astype-bool", "y = X.astype(jnp.bool_) & True"),
    ("float16", "y = jnp.asarray(X, dtype=jnp.float16) / 0.0"),
    ("complex", "y = jnp.exp(1j * X)"), ("int-div0", "y = jnp.array(3) // jnp.array(0)"),
    ("index", "y = jnp.arange(6.0)[1:-1:2] * X"), ("index-oob", "y = jnp.arange(3.0)[7]"),
    ("at-set", "y = jnp.zeros(4).at[1].set(X.sum())"),
    ("jit", "y = jax.jit(lambda a: a * a + 1.0)(X)"),
    ("jit-static", "y = jax.jit(lambda a, n: a * n, static_argnums=1)(X, 3)"),
    ("grad", "y = jax.grad(lambda a: jnp.sum(jnp.sin(a)))(X)"),
    ("grad-int", "y = jax.grad(lambda a: a * 2)(3)"),
    ("grad-nonscalar", "y = jax.grad(lambda a: a * 2.0)(jnp.ones(3))"),
    ("value-and-grad", "v, y = jax.value_and_grad(lambda a: jnp.sum(a * a))(X)"),
    ("checkpoint", "y = jax.checkpoint(lambda a: jnp.sin(jnp.sin(a)))(X)"),
    ("checkpoint-policy", "y = jax.checkpoint(lambda a: jnp.dot(a, a),\n"
     "    policy=jax.checkpoint_policies.dots_saveable)(X)"),
    ("checkpoint-name", "from jax.ad_checkpoint import checkpoint_name\n"
     "y = checkpoint_name(jnp.sin(X), 'h')"),
    ("scan", "y, ys = lax.scan(lambda c, a: (c + a, c * a), 0.0, jnp.ravel(X))"),
    ("scan-0", "y, ys = lax.scan(lambda c, a: (c + a, c), 0.0, jnp.zeros((0,)))"),
    ("scan-length", "y, ys = lax.scan(lambda c, a: (c * 2.0, c), X, None, length=5)"),
    ("scan-bad-carry", "y, ys = lax.scan(lambda c, a: (jnp.ones(3), c), 0.0, jnp.ones(2))"),
    ("cond", "y = lax.cond(jnp.sum(X) > 0, jnp.sin, jnp.cos, X)"),
    ("cond-mismatch", "y = lax.cond(True, lambda a: a, lambda a: jnp.ones(9), X)"),
    ("while", "y = lax.while_loop(lambda c: c < 10.0, lambda c: c + 1.0, 0.0)"),
    ("fori", "y = lax.fori_loop(0, 5, lambda i, c: c * X, 1.0)"),
    ("vmap", "y = jax.vmap(lambda a: a * 2.0)(jnp.atleast_1d(X))"),
    ("vmap-axes", "y = jax.vmap(lambda a, b: a + b, in_axes=(0, None))(jnp.ones((2, 3)), X)"),
    ("python-if", "if X > 0:\n    y = X\nelse:\n    y = -X"),
    ("python-int", "y = X * int(jnp.sum(X))"), ("np-mix", "y = np.ones(3) + X"),
    ("np-random", "y = X + np.random.randn()"),
    ("config", "jax.config.update('eager_constant_folding', True)\ny = X + jnp.sin(1.0)"),
    ("compile-time-eval", "with jax.ensure_compile_time_eval():\n    y = jnp.sin(2.0)"),
    ("custom-jvp", "g = jax.custom_jvp(lambda a: jnp.sin(a))\n"
     "g.defjvp(lambda p, t: (jnp.sin(p[0]), t[0] * 2.0))\ny = g(X)"),
    ("tree", "y = jax.tree_util.tree_map(lambda a: a * 2.0, {'a': X, 'b': [X, (X,)]})['a']"),
    ("nn", "y = jax.nn.relu(X) + jax.nn.softmax(jnp.atleast_1d(X))[0]"),
]

HOSTILE_FRAGMENTS = [
    ("dunder-class", "y = X.__class__"), ("dunder-walk", "y = ().__class__.__bases__[0]"),
    ("dunder-globals", "y = jnp.sin.__globals__"),
    ("dunder-via-lambda", "y = (lambda: 0).__code__"),
    ("dunder-string", "y = 'a'.__class__.__mro__"), ("frame-gen", "y = (i for i in range(3))"),
    ("frame-gi", "g = (i for i in range(3))\ny = g.gi_frame"), ("frame-tb",
     "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    y = e.__traceback__"),
    ("format-walk", "y = '{0.__class__}'.format(X)"), ("format-spec", "y = f'{X!r:>{30}}'"),
    ("format-width", "y = f'{1.0:{10 ** 6}}'"), ("percent", "y = '%s %r' % (X, jnp)"),
    ("repr-facade", "y = repr(jnp) + str(jax) + repr(np.random)"),
    ("print", "print(X, jnp, jax.grad, [X] * 3)"),
    ("big-list", "y = [0] * 10 ** 6"), ("big-str", "y = 'ab' * 10 ** 5"),
    ("big-int", "y = 7 ** 5000"), ("big-int-limit", "y = 2 ** 10 ** 7"),
    ("deep-list", "a = []\nfor i in range(100000):\n    a = [a]\ny = len(str(a))"),
    ("deep-list-print", "a = []\nfor i in range(5000):\n    a = [a]\nprint(a)"),
    ("deep-tuple-hash", "t = ()\nfor i in range(200000):\n    t = (t,)\ny = {t: 1}"),
    ("deep-dict", "d = {}\nfor i in range(5000):\n    d = {'k': d}\ny = repr(d)"),
    ("raise-in-lambda", "y = jax.jit(lambda a: 1 / 0)(X)"),
    ("raise-in-scan", "y = lax.scan(lambda c, a: (c[9], c), X, None, length=2)"),
    ("raise-in-cond", "y = lax.cond(True, lambda a: [][1], lambda a: a, X)"),
    ("raise-in-key", "y = sorted([3, 1, 2], key=lambda v: 1 / 0)"),
    ("raise-in-finally", "try:\n    y = X\nfinally:\n    raise ValueError('late')"),
    ("raise-in-except", "try:\n    1 / 0\nexcept ZeroDivisionError:\n    raise KeyError(X)"),
    ("raise-stopiteration", "y = next(iter([]))"), ("raise-assert", "assert False, X"),
    ("raise-long", "raise ValueError('x' * 100000)"),
    ("finally-return",
     "def g():\n    try:\n        return 1\n    finally:\n        return 2\ny = g()"),
    ("recursion", "def g(n):\n    return g(n + 1)\ny = g(0)"),
    ("recursion-map", "def g(n):\n    return max(map(g, [n + 1]))\ny = g(0)"),
    ("recursion-sorted", "def g(n):\n    return sorted([n], key=g)\ny = g(0)"),
    ("recursion-jit", "def g(a):\n    return jax.jit(g)(a)\ny = g(X)"),
    ("recursion-grad", "def g(a):\n    return jax.grad(g)(a)\ny = g(X)"),
    ("loop-while", "while True:\n    pass"), ("loop-while-trace", "while True:\n    X = X + 1.0"),
    ("loop-for-iter", "for i in iter(int, 1):\n    pass"),
    ("loop-try-finally", "while True:\n    try:\n        pass\n    finally:\n        continue"),
    ("loop-except", "while True:\n    try:\n        while True:\n            pass\n"
     "    except Exception:\n        pass"),
    ("loop-try-finally-trace", "while True:\n    try:\n        X = X + 1.0\n    finally:\n"
     "        continue"),
    ("loop-finally-return",
     "def g():\n    try:\n        while True:\n            pass\n    finally:\n"
     "        return 1\ny = g()"),
    ("policy-raises",
     "y = jax.checkpoint(lambda a: jnp.sin(a), policy=lambda p, *a, **k: 1 / 0)(X)"),
    ("loop-lax-while", "y = lax.while_loop(lambda c: True, lambda c: c, 0.0)"),
    ("np-huge", "y = np.ones(10 ** 9)"),
    ("np-bytes", "y = np.ones((2000, 2000), dtype='complex128')"),
    ("jnp-huge", "y = jnp.zeros((10 ** 5, 10 ** 5))"),
    ("str-bytes", "y = len('a' * 900000 + 'b' * 900000)"),
    ("nfkc-name", "ｙ = X * 2.0"), ("nfkc-builtin", "y = ｌｅｎ([1, 2])"),
    ("nfkc-dunder", "y = X.＿＿class＿＿"), ("nfkc-import", "import ｏｓ"),
    ("import-os", "import os"), ("import-sys", "from sys import modules"),
    ("eval", "y = eval('1')"), ("getattr", "y = getattr(X, 'shape')"),
    ("config-x64", "jax.config.update('jax_enable_x64', True)"),
    ("np-seed", "np.random.seed(7)\ny = np.random.randn()"),
    ("setattr-facade", "jnp.sin = jnp.cos"), ("del-name", "del X\ny = 1.0"),
    ("bare-except", "try:\n    pass\nexcept:\n    pass"),
    ("baseexception", "try:\n    1 / 0\nexcept BaseException:\n    pass"),
]

# Loops in C, where no interrupt lands: each hangs the worker until it is replaced (seconds),
# so they are drawn rarely.
C_LOOP_FRAGMENTS = [
    ("loop-c-any", "y = any(iter(int, 1))"), ("loop-c-sum", "y = sum(range(10 ** 12))"),
    ("loop-c-max", "y = max(range(10 ** 12))"), ("loop-c-in", "y = -1 in iter(int, 1)"),
]

ODD_FRAGMENTS = [
    ("walrus", "if (n := 3) > 2:\n    y = X * n"),
    ("match", "match 3:\n    case 1:\n        y = X\n    case _:\n        y = -X"),
    ("star", "a, *b = [1, 2, 3]\ny = X * len(b)"), ("chain-cmp", "y = X * (1 < 2 < 3)"),
    ("closure", "def g(a):\n    def h():\n        return a * 2.0\n    return h\ny = g(X)()"),
    ("lambda-default", "g = lambda a, b=2.0: a * b\ny = g(X)"),
    ("comprehension", "y = sum([X * i for i in range(4) if i % 2])"),
    ("dict-comp", "y = {k: X for k in 'abc'}['b']"), ("set", "y = X * len({1, 2, 2})"),
    ("try-else", "try:\n    z = 1\nexcept ValueError:\n    z = 2\nelse:\n    z = 3\ny = X * z"),
    ("ternary", "y = X if True else 0"), ("aug", "y = X\ny *= 2.0\ny -= 1"),
    ("slice-none", "y = jnp.atleast_1d(X)[None, ..., ::-1]"),
    ("unpack-swap", "a, b = X, 2.0\nb, a = a, b\ny = a"),
    ("fstring", "s = f'{X}:{1.5:.2f}'\ny = X"), ("bytes-like", "y = X * len('é✓𝔁')"),
    ("big-float", "y = X * 1e308 * 10"), ("neg-zero", "y = X * -0.0"),
    ("divmod", "q, r = divmod(7, 2)\ny = X * q"),
    ("nested-fn-call", "y = (lambda f: f(f))(lambda g: 1) * X"),
    ("assert-ok", "assert True\ny = X"), ("pass", "pass"),
]

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
    if mode in ("split", "grad", "checkpoint") and draw(st.booleans()):
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
