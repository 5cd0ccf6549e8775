"""Engine throughput under Pyodide 0.27 (Node), beside CPython: the same bench, both runtimes.

Runs bench/bench_engine.py in this CPython (with real JAX beside it when installed) and
in Node on the built site's Pyodide and engine wheel, prints both tables (each with its us/eqn
column and linearity lines, chains up to 10 000 operations in a full run), then one table side
by side: CPython, Pyodide, JAX, and the ratios Pyodide/CPython and Pyodide/JAX.

    python3 bench/bench_pyodide.py [--quick]
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rows(text: str) -> dict[tuple[str, str], list[str]]:
    out = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) == 6 and cells[0] != "workload" and not line.startswith("#"):
            out[(cells[0], cells[1])] = cells
    return out


def run(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    print(proc.stdout, end="", flush=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(proc.returncode)
    return proc.stdout


def main(argv: list[str]) -> int:
    node = shutil.which("node")
    if node is None:
        print("node is not installed: no Pyodide figures")
        return 1
    subprocess.run([sys.executable, "build.py", "--if-stale"], cwd=ROOT, check=True)
    bench = str(ROOT / "bench" / "bench_engine.py")
    load = os.getloadavg()
    print(f"# load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("== CPython", sys.version.split()[0], "(ratio: engine / JAX)")
    cpy = rows(run([sys.executable, bench, *argv]))
    print("== Pyodide 0.27.7 in Node (no JAX there: engine figures only)")
    pyo = rows(run([node, str(ROOT / "tools" / "pyodide_run.mjs"), str(ROOT / "dist"), bench,
                    *argv]))
    print("== side by side (ms; Pyodide/JAX compares the engine in Pyodide with JAX in CPython)")
    print(f"{'workload':<10} {'task':<11} {'CPython':>9} {'Pyodide':>9} {'JAX':>9} "
          f"{'Pyo/CPy':>8} {'Pyo/JAX':>8} {'Pyo us/eqn':>11}")
    for key, c in cpy.items():
        if key not in pyo:
            continue
        p = pyo[key]
        t_c, t_p, t_j = float(c[2]), float(p[2]), float(c[3])
        print(f"{key[0]:<10} {key[1]:<11} {t_c:>9.2f} {t_p:>9.2f} {t_j:>9.2f} "
              f"{t_p / t_c:>8.2f} {t_p / t_j:>8.2f} {float(p[5]):>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
