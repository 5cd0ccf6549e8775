"""The engine under Pyodide 0.27 (Python 3.12, numpy 2.0), run in Node from the built site:
the records it computes there equal the ones CPython computes."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pe_engine import explain

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"

SOURCE = ("import jax\nimport jax.numpy as jnp\n\ndef f(W, x):\n"
          "    h = jnp.tanh(x @ W)\n    return jnp.sin(h).sum() * 2.0\n")
ARGS = [{"known": True, "value": "[[0.5, 1.0], [2.0, -1.0]]"},
        {"known": False, "value": "[1.0, 2.0]"}]

JIT_SOURCE = "import jax.numpy as jnp\ndef f(x):\n    return x + jnp.sin(1.0)\n"

# Issue 11's breadth: jax.nn, cond, vmap, fori_loop and indexing updates, in grad mode.
BREADTH_SOURCE = ("import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n"
                  "def f(w, xs):\n    h = jax.vmap(lambda x: jax.nn.relu(x * w))(xs)\n"
                  "    g = lax.cond(h.sum() > 0, jnp.tanh, jnp.sin, h.at[0].set(1.0)[::-1])\n"
                  "    return lax.fori_loop(0, 2, lambda i, c: c + jnp.square(g).sum(), 0.0)\n")
# Programs whose params JAX computes with numpy integers (printed np.int64(...)): numpy's
# default integer is 32-bit in Pyodide, so they must come out the same there.
NUMPY_INT_PROGRAMS = """
import numpy as np
import pe_engine as pe
jnp = pe.numpy
v = np.arange(5, dtype=np.float32)
m = np.ones((2, 3), np.float32)
TEXTS = [str(p) for p in [
    pe.make_jaxpr(pe.grad(lambda a: a[::2].sum()))(v),
    pe.make_jaxpr(pe.vmap(lambda a: jnp.sum(a ** 2) + jnp.max(a)))(m),
    pe.make_jaxpr(pe.vmap(lambda a: a.at[1].add(5.0)))(m),
    pe.make_jaxpr(pe.vmap(lambda a, i: a[i]))(m, np.array([0, 2], np.int32)),
    pe.make_jaxpr(lambda a: jnp.split(a, 5))(v),
    pe.make_jaxpr(pe.vmap(lambda a: a * 2.0 + 1.0, out_axes=1))(m),
    pe.make_jaxpr(pe.vmap(lambda a, b: a * b, in_axes=(0, None)))(m, v[:3]),
]]
"""
BREADTH_ARGS = [{"known": False, "value": "[0.5, -1.0]"},  # grad differentiates both
                {"known": False, "value": "[[1.0, 2.0], [3.0, -1.0]]"}]

PROGRAM = f"""
import json, sys, numpy
from pe_engine import explain
src = {SOURCE!r}
args = {ARGS!r}
out = {{
  "python": sys.version_info[:2], "numpy": numpy.__version__,
  "split": explain.run("split", source=src, args=args),
  "jit": explain.run("jit", source={JIT_SOURCE!r}, args=[{{"value": "1.0"}}]),
  "breadth": explain.run("grad", source={BREADTH_SOURCE!r}, args={BREADTH_ARGS!r}),
}}
namespace = {{}}
exec({NUMPY_INT_PROGRAMS!r}, namespace)
out["numpy_int_programs"] = namespace["TEXTS"]
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def pyodide_result(tmp_path_factory):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # The wheel in dist/ must be the engine under test.
    subprocess.run(["python3", "build.py", "--if-stale"], cwd=ROOT, check=True)
    script = tmp_path_factory.mktemp("py") / "check.py"
    script.write_text(PROGRAM)
    proc = subprocess.run([node, str(ROOT / "tools" / "pyodide_run.mjs"), str(DIST), str(script)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def test_runs_on_python_312_and_numpy_20(pyodide_result):
    assert pyodide_result["python"] == [3, 12]
    assert pyodide_result["numpy"].startswith("2.0")


def test_split_record_is_the_same_as_in_cpython(pyodide_result):
    ours = explain.run("split", source=SOURCE, args=ARGS)
    theirs = pyodide_result["split"]
    assert "error" not in theirs, theirs
    for key in ("program", "known", "unknown", "residuals", "out_unknowns"):
        assert theirs[key] == json.loads(json.dumps(ours[key])), key
    assert [e["narration"] for e in theirs["events"]] == [e["narration"] for e in ours["events"]]


def test_jit_record_keeps_sin_of_a_literal_in_pyodide(pyodide_result):
    assert "sin 1.0:f32[]" in pyodide_result["jit"]["program"]["text"]


def test_breadth_grad_record_is_the_same_as_in_cpython(pyodide_result):
    ours = explain.run("grad", source=BREADTH_SOURCE, args=BREADTH_ARGS)
    theirs = pyodide_result["breadth"]
    assert "error" not in theirs, theirs
    for key in ("known", "unknown", "backward", "grads"):
        assert theirs[key] == json.loads(json.dumps(ours[key])), key


def test_numpy_integer_params_print_as_in_cpython(pyodide_result):
    namespace: dict = {}
    exec(NUMPY_INT_PROGRAMS, namespace)  # noqa: S102 - the test's own programs
    assert pyodide_result["numpy_int_programs"] == namespace["TEXTS"]
    assert any("np.int64(" in t for t in namespace["TEXTS"])
