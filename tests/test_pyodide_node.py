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

PROGRAM = f"""
import json, sys, numpy
from pe_engine import explain
src = {SOURCE!r}
args = {ARGS!r}
out = {{
  "python": sys.version_info[:2], "numpy": numpy.__version__,
  "split": explain.run("split", source=src, args=args),
  "jit": explain.run("jit", source={JIT_SOURCE!r}, args=[{{"value": "1.0"}}]),
}}
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
