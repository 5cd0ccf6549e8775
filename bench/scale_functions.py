"""Programs at the scale people paste (issue 46), as plain JAX source, with their inputs.

Each is a grad-mode workload: the weights unknown (differentiated), the activations known.
`inputs(name)` gives each parameter's value text (as the page's value boxes take it) and
whether it is known (`request_args(name)`: as an engine request's `args`); the values are fixed
(a seeded generator), so every run asks the same.
"""
from __future__ import annotations

import numpy as np

HEADER = "import jax\nimport jax.numpy as jnp\n\n"

# layer norm, one attention head, a GELU MLP; x is 4 tokens of width 8
TRANSFORMER = HEADER + """def block(g, b, Wq, Wk, Wv, Wo, W1, W2, x):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    h = (x - mu) / jnp.sqrt(var + 1e-5) * g + b
    q = h @ Wq
    k = h @ Wk
    v = h @ Wv
    s = q @ k.T / jnp.sqrt(8.0)
    a = jnp.exp(s - jnp.max(s, axis=-1, keepdims=True))
    a = a / jnp.sum(a, axis=-1, keepdims=True)
    x = x + (a @ v) @ Wo
    m = x @ W1
    m = 0.5 * m * (1.0 + jnp.tanh(0.7978845608 * (m + 0.044715 * m ** 3)))
    x = x + m @ W2
    return jnp.sum(x * x)
"""

STACK_LAYERS = 30
STACK = HEADER + f"""def stack(W, x):
    for _ in range({STACK_LAYERS}):
        x = jnp.tanh(x @ W) + x
    return jnp.sum(x)
"""

DEFAULT = HEADER + """def f(x, y):
    return jnp.sin(x) * y
"""

# name -> (source, {param: (shape or None for a scalar, known)})
FUNCTIONS: dict[str, tuple[str, dict[str, tuple[tuple[int, ...] | None, bool]]]] = {
    "default (sin(x) * y)": (DEFAULT, {"x": (None, False), "y": (None, True)}),
    "transformer block (4x8)": (TRANSFORMER, {
        "g": ((8,), False), "b": ((8,), False), "Wq": ((8, 8), False), "Wk": ((8, 8), False),
        "Wv": ((8, 8), False), "Wo": ((8, 8), False), "W1": ((8, 32), False),
        "W2": ((32, 8), False), "x": ((4, 8), True)}),
    f"{STACK_LAYERS} x tanh(x @ W) + x": (STACK, {"W": ((8, 8), False), "x": ((4, 8), True)}),
}


def value_text(shape: tuple[int, ...] | None, rng: np.random.Generator) -> str:
    """A value box's text: nested lists of two-decimal numbers, small enough that 30 layers
    stay finite."""
    if shape is None:
        return f"{rng.uniform(0.5, 1.5):.2f}"
    return str(np.round(rng.normal(0.0, 0.3, shape), 2).tolist())


def inputs(name: str) -> dict[str, tuple[str, bool]]:
    """Each parameter of FUNCTIONS[name]: (value text, known)."""
    rng = np.random.default_rng(46)
    return {p: (value_text(shape, rng), known)
            for p, (shape, known) in FUNCTIONS[name][1].items()}


def request_args(name: str) -> list[dict[str, object]]:
    """The engine request's `args` for FUNCTIONS[name], in parameter order."""
    return [{"value": text, "known": known} for text, known in inputs(name).values()]


def fresh_edit(source: str, i: int) -> str:
    """`source` with its last line `return E` made `return (E) * c`, c new for each i: a
    program the engine was not asked before."""
    head, _, last = source.rstrip("\n").rpartition("\n")
    indent, ret, expr = last.partition("return ")
    if ret != "return " or indent.strip():
        raise ValueError(f"the last line is not a return: {last!r}")
    return f"{head}\n{indent}return ({expr}) * {1.0 + (i + 1) / 1024!r}\n"
