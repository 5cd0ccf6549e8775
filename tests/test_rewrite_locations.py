"""The guard rewrite places every node it makes: the tree it hands the compiler is the
tree ast.fix_missing_locations would have made of it (the rewrite no longer walks it)."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from pe_engine.explain.rewrite import insert_guards
from pe_engine.explain.sandbox import check_source

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [e["code"] for e in json.loads((ROOT / "app/examples.json").read_text())["examples"]]
SOURCES += [
    "def f(x, a):\n    a[0] *= x\n    y = x ** 2\n    y **= 3\n"
    "    s = f'{x!r:>{3}} {x:.2f} {x}'\n    g = lambda q: q.real * 2 % 3\n"
    "    return (lambda z: z << 1)(int(x)) + a.shape[0] + y\n",
    "import jax\n@jax.jit\ndef f(x):\n    def h(y):\n        return y.T @ y\n"
    "    return h(x).sum() * (x\n      ** 2).mean()\n",
]


@pytest.mark.parametrize("source", SOURCES)
def test_every_node_made_is_placed(source: str) -> None:
    tree = insert_guards(check_source(source))
    placed = ast.dump(tree, include_attributes=True)
    assert ast.dump(ast.fix_missing_locations(tree), include_attributes=True) == placed
