"""Issue 11's promise, end to end: real JAX pasted into the page runs in every mode, and
the programs the page shows are JAX's.

Each snippet is user code as it would be pasted (imports and all). It runs through the
page's entry point (`explain.run`) in split, jit, grad and checkpoint modes without an
error; the same source is also run by real JAX, and the page's split-mode programs and
grad-mode forward/linear programs must print as JAX's `partial_eval_jaxpr_nounits`
prints them for the traced program and for its JVP program.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pe_engine import explain
from pe_engine.explain.values import parse_value

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from precompute import page_requests  # noqa: E402 - the page's request, built by the page's code

jax = pytest.importorskip("jax")
from jax._src.interpreters import partial_eval as jpe  # noqa: E402

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"

# name -> (source body, [(value, known)] per argument)
SNIPPETS = {
    "mlp_nn": ("""
def loss(W1, W2, x):
    h = jax.nn.relu(x @ W1)
    logits = h @ W2
    return -jnp.sum(jax.nn.log_softmax(logits))
""", [("[[0.5, -0.2], [0.1, 0.4], [-0.3, 0.2]]", False), ("[[0.3, -0.1], [0.2, 0.5]]", False),
      ("[1.0, 2.0, -1.0]", True)]),
    "cond_known_pred": ("""
def f(p, x):
    return lax.cond(p > 0, lambda v: jnp.sin(v) * 2.0, lambda v: jnp.cos(v), x)
""", [("1.0", True), ("[0.5, 1.5]", False)]),
    "cond_unknown_pred": ("""
def f(p, x):
    return lax.cond(p > 0, lambda v: jnp.sin(v) * p, lambda v: jnp.cos(v), x)
""", [("1.0", False), ("[0.5, 1.5]", True)]),
    "switch": ("""
def f(x, y):
    return lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], x) * y
""", [("[0.1, 0.2]", True), ("[1.0, 2.0]", False)]),
    "fori_loop": ("""
def f(x, w):
    return lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c * w) + i, x).sum()
""", [("[0.1, 0.2, 0.3]", False), ("0.5", True)]),
    "while_loop": ("""
def f(x, s):
    n, y = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * s), (0, x))
    return y.sum()
""", [("[1.0, 2.0]", False), ("1.5", True)]),
    "vmap_in_grad": ("""
def loss(w, xs):
    per_example = jax.vmap(lambda x: jnp.tanh(jnp.dot(w, x)))(xs)
    return jnp.mean(per_example ** 2)
""", [("[0.5, -1.0, 0.25]", False), ("[[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]]", True)]),
    "indexing": ("""
def f(x, y):
    z = x.at[0].set(y[1]) + x[::-1]
    return (z[1:] * y[:2]).sum() + x[-1]
""", [("[1.0, 2.0, 3.0]", False), ("[0.5, 0.25, 2.0]", True)]),
    "jnp_breadth": ("""
def f(x, y):
    a = jnp.clip(x, -1.0, 1.0) + jnp.log1p(jnp.square(y))
    b = jnp.concatenate([a, jnp.flip(a)]) * jnp.arange(6)
    return jnp.sum(jnp.cumsum(b)) + jnp.linalg.norm(x) + jnp.var(y)
""", [("[0.5, -2.0, 1.5]", True), ("[1.0, 2.0, 3.0]", False)]),
    "scan_map": ("""
def f(x, w):
    ys = lax.map(lambda v: jnp.sin(v) * w, x)
    return jnp.max(ys)
""", [("[0.1, 0.7, 0.3]", False), ("2.0", True)]),
}

MODES = ["split", "jit", "grad", "checkpoint", "interpreters"]


def _source(name: str) -> str:
    return HEADER + SNIPPETS[name][0].lstrip("\n")


def _args(name: str) -> list[dict]:
    return [{"value": v, "known": k} for v, k in SNIPPETS[name][1]]


def _jax_fn(name: str):
    namespace: dict = {}
    exec(_source(name), namespace)  # noqa: S102 - the test's own snippets, run by JAX
    return [v for v in namespace.values() if callable(v) and hasattr(v, "__code__")][-1]


def _values(name: str) -> list:
    """The inputs as the page parses them (a bare `1.0` stays a Python float)."""
    return [parse_value(v) for v, _ in SNIPPETS[name][1]]


WHILE_REVERSE = ("Reverse-mode differentiation does not work for lax.while_loop or "
                 "lax.fori_loop with dynamic start/stop values.")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_every_mode_runs(name, mode):
    rec = explain.run(mode, source=_source(name), args=_args(name))
    if name == "while_loop" and mode in ("grad", "checkpoint"):
        # JAX refuses too: a while loop has no transpose.
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            jax.grad(_jax_fn(name))(*_values(name))
        assert WHILE_REVERSE in rec["error"]["message"]
        return
    assert "error" not in rec, rec.get("error")


def _split_texts(closed, mask):
    k, u, _, _ = jpe.partial_eval_jaxpr_nounits(closed, mask, False)
    return str(k), str(u)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_split_mode_shows_jax_programs(name):
    rec = explain.run("split", source=_source(name), args=_args(name))
    fn, vals = _jax_fn(name), _values(name)
    mask = [not k for _, k in SNIPPETS[name][1]]
    known, unknown = _split_texts(jax.make_jaxpr(fn)(*vals), mask)
    assert (rec["known"]["text"], rec["unknown"]["text"]) == (known, unknown)


def _jax_linearization(fn, vals, argnums):
    """JAX's forward and linear programs of grad(fn, argnums): the JVP program (every
    primal, then the tangents of `argnums`; the other inputs held) split with the primals
    known and the tangents unknown."""
    n = len(vals)

    def jvp_program(*xs):
        def differentiated(*d):
            full = list(xs[:n])
            for i, x in zip(argnums, d):
                full[i] = x
            return fn(*full)
        return jax.jvp(differentiated, tuple(xs[i] for i in argnums), tuple(xs[n:]))

    closed = jax.make_jaxpr(jvp_program)(*vals, *(vals[i] for i in argnums))
    return _split_texts(closed, [False] * n + [True] * len(argnums))


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_grad_mode_shows_jax_programs(name):
    rec = explain.run("grad", source=_source(name), args=_args(name))
    if name == "while_loop":
        assert WHILE_REVERSE in rec["error"]["message"]
        return
    argnums = [i for i, (_, known) in enumerate(SNIPPETS[name][1]) if not known]
    known, unknown = _jax_linearization(_jax_fn(name), _values(name), argnums)
    assert (rec["known"]["text"], rec["unknown"]["text"]) == (known, unknown)


@pytest.mark.parametrize("name", ["mlp_nn", "jnp_breadth"])
def test_grad_argnums_follow_the_unknown_inputs(name):
    """Grad differentiates the inputs marked unknown, as jax.grad(f, argnums=...) does:
    flipping the flags changes the programs, each time to JAX's."""
    flags = [k for _, k in SNIPPETS[name][1]]
    texts = set()
    for mask in ([not k for k in flags], [False] * len(flags)):
        args = [{"value": v, "known": k} for (v, _), k in zip(SNIPPETS[name][1], mask)]
        rec = explain.run("grad", source=_source(name), args=args)
        argnums = [i for i, k in enumerate(mask) if not k]
        assert [a["known"] for a in rec["args"]] == mask
        known, unknown = _jax_linearization(_jax_fn(name), _values(name), argnums)
        assert (rec["known"]["text"], rec["unknown"]["text"]) == (known, unknown)
        texts.add(rec["unknown"]["text"])
    assert len(texts) == 2


def test_grad_with_nothing_differentiated_is_an_error_at_the_toggles():
    rec = explain.run("grad", source=_source("mlp_nn"),
                      args=[{"value": v, "known": True} for v, _ in SNIPPETS["mlp_nn"][1]])
    assert rec["error"]["message"].startswith("choose at least one input to differentiate")
    assert rec["error"]["input"] == "W1"


EXAMPLES = json.loads((Path(__file__).resolve().parents[1] / "app" / "examples.json").read_text())


@pytest.mark.parametrize("example", EXAMPLES["examples"], ids=lambda e: e["id"])
def test_menu_examples_run(example):
    req, = page_requests([example])
    rec = explain.run(req["mode"], **req["kwargs"])
    assert "error" not in rec, rec.get("error")


@pytest.mark.parametrize("p_known", [True, False])
def test_cond_example_both_ways_matches_jax(p_known):
    """The cond example: toggling p between known and unknown gives JAX's two splits."""
    ex = next(e for e in EXAMPLES["examples"] if e["id"] == "split-cond")
    ex = {**ex, "known": {**ex["known"], "p": p_known}}
    req, = page_requests([ex])
    rec = explain.run("split", **req["kwargs"])
    namespace: dict = {}
    exec(ex["code"], namespace)  # noqa: S102 - the menu's own example, run by JAX
    vals = [parse_value(ex["values"][p]) for p in ("p", "x")]
    known, unknown = _split_texts(jax.make_jaxpr(namespace["f"])(*vals), [not p_known, True])
    assert (rec["known"]["text"], rec["unknown"]["text"]) == (known, unknown)
    # known p: the known side runs a cond; unknown p: all of it is staged
    assert ("cond[" in rec["known"]["text"]) is p_known
