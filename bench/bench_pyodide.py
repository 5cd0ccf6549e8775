"""Engine throughput under Pyodide 0.27 (Node), beside CPython: the same bench, both runtimes.

Runs bench/bench_engine.py in this CPython (with real JAX beside it when installed) and
in Node on the built site's Pyodide and engine wheel, and prints both tables.

    python3 bench/bench_pyodide.py [--quick]
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    node = shutil.which("node")
    if node is None:
        print("node is not installed: no Pyodide figures")
        return 1
    subprocess.run([sys.executable, "build.py", "--if-stale"], cwd=ROOT, check=True)
    bench = str(ROOT / "bench" / "bench_engine.py")
    print("== CPython", sys.version.split()[0], "(ratio: engine / JAX)")
    subprocess.run([sys.executable, bench, *argv], cwd=ROOT, check=True)
    print("== Pyodide 0.27.7 in Node (no JAX there: engine figures only)")
    subprocess.run([node, str(ROOT / "tools" / "pyodide_run.mjs"), str(ROOT / "dist"), bench,
                    *argv], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
