"""Tracing speed: the engine and real JAX side by side, in one process.

Prints, per workload, the median time of each and the ratio engine/JAX (lower is better),
plus the engine's time per equation (us/eqn, over the traced program's equations) so linear
growth with chain length shows, and a linearity line per task: time per equation at the
longest chain against the next longest (10000 vs 1000 in a full run; about 1.0 is linear,
above 2 would be quadratic creeping in). Then each target of issue 14 beside its measurement:
engine/JAX <= 0.25 for make_jaxpr and the split at 100 and 1000 operations and the MLP, and
their linear growth (the autodiff tasks' growth is printed too, without a target); then issue
45's: the same ratio for the split of a chain whose work is nearly all known (known1000) and
half known (mixed1000), with the staging (split) and without it (split_only: the split of a
program staged beforehand, what the known path costs). Lines that
are not table rows start with '#'. Timings are printed, never asserted.

How it measures, so that a figure means the same on a busy 2-core machine: each task is timed
in blocks (one warm-up call, then --repeat calls; the block's median), engine and JAX blocks
alternating, --rounds blocks each (the median of the blocks' medians; targets' tasks only, the
others one block). The linearity lines compare each size's fastest block instead: at 10 000
operations the working set outgrows the per-core cache, and what other processes do to the
shared one moves the median more than the engine does. A block starts with a full collection
and runs with the cyclic collector off, as `timeit` does: neither side then pays for the
other's garbage, and a full collection of a heap that holds all of JAX does not land in one
sample. The clock is the process's CPU time (time.process_time), so time spent waiting for a
core while other processes run is not counted; under Pyodide, whose CPU clock is the wall
clock, perf_counter. The engine measured is this checkout's (see the sys.path line below).

    python3 bench/bench_engine.py            # full run
    python3 bench/bench_engine.py --quick    # CI smoke run: small sizes, few repeats
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# This checkout's engine, not whichever one an editable install of the package points at.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(_ROOT, "pe_engine")):
    sys.path.insert(0, _ROOT)

import pe_engine  # noqa: E402
import pe_engine.numpy as pjnp  # noqa: E402
from pe_engine.partial_eval import partial_eval_jaxpr_nounits  # noqa: E402

try:
    import jax
    import jax.numpy as jjnp
    from jax._src.interpreters import partial_eval as jpe
except ImportError:  # the engine's figures still print
    jax = None

CLOCK = time.perf_counter if sys.platform == "emscripten" else time.process_time

TARGET_RATIO = 0.25  # engine/JAX, issue 14
TARGET_TASKS = ("make_jaxpr", "split")
TARGET_WORKLOADS = ("chain100", "chain1000", "mlp")
# issue 45: the split within the same target whatever share of the work is known
SHARE_TARGETS = ("known1000", "mixed1000")
LINEAR_MAX = 1.25  # us/eqn at the longest chain over the next longest: "linear growth"


def chain(np_: Any, n: int) -> Callable[..., Any]:
    """n operations alternating sin and mul, reading both inputs."""
    def f(x, y):
        for i in range(n // 2):
            x = np_.sin(x) * y if i % 2 else np_.cos(x) * y
        return x
    return f


def known_chain(np_: Any, n: int) -> Callable[..., Any]:
    """n operations on x alone (sin, then a multiply by a Python constant), the unknown y read
    once at the end: with x known, the split's work is nearly all known."""
    def f(x, y):
        for _ in range(n // 2):
            x = np_.sin(x) * 2.0
        return x * y
    return f


def mixed_chain(np_: Any, n: int) -> Callable[..., Any]:
    """n operations, half on x alone and half reading y, interleaved: with x known, half
    the split's work is known and every known value is a residual."""
    def f(x, y):
        for _ in range(n // 4):
            x = np_.sin(x) * 2.0
            y = np_.cos(y) * x
        return y
    return f


def mlp(np_: Any) -> Callable[..., Any]:
    def f(W1, b1, W2, b2, x):
        h = np_.tanh(x @ W1 + b1)
        return np_.sum((h @ W2 + b2) ** 2)
    return f


F32 = np.float32
MLP_ARGS = (np.ones((64, 128), F32), np.ones(128, F32), np.ones((128, 10), F32),
            np.ones(10, F32), np.ones((32, 64), F32))


def workloads(sizes: list[int], shares: list[int]
              ) -> list[tuple[str, Callable[[Any], Callable], tuple, list[bool]]]:
    """The chains (every step reads the unknown y), the MLP, then the known-heavy and mixed
    chains at the `shares` lengths (x known, y unknown in all of them)."""
    out = [(f"chain{n}", (lambda np_, n=n: chain(np_, n)), (F32(0.5), F32(1.5)), [False, True])
           for n in sizes]
    out.append(("mlp", mlp, MLP_ARGS, [True, True, True, True, False]))
    for name, build in (("known", known_chain), ("mixed", mixed_chain)):
        out += [(f"{name}{n}", (lambda np_, n=n, b=build: b(np_, n)), (F32(0.5), F32(1.5)),
                 [False, True]) for n in shares]
    return out


def block(fn: Callable[[], Any], repeat: int, collector: bool = False) -> float:
    """Median time of `repeat` calls after a warm-up one, collector off (see the docstring);
    `collector`: left on, as a host that runs the engine has it (its collections counted)."""
    gc.collect()
    if not collector:
        gc.disable()
    try:
        fn()  # warm caches both sides keep (e.g. jnp dispatch tables)
        times = []
        for _ in range(repeat):
            t = CLOCK()
            fn()
            times.append(CLOCK() - t)
    finally:
        gc.enable()
    return statistics.median(times)


def tasks(np_: Any, make_jaxpr: Callable, split: Callable, build: Callable, args: tuple,
          mask: list[bool]) -> dict[str, Callable[[], Any]]:
    # A fresh function per run: JAX caches traces by function identity.
    return {
        "make_jaxpr": lambda: make_jaxpr(build(np_))(*args),
        "split": lambda: split(make_jaxpr(build(np_))(*args), mask, False),
    }


def split_only_task(make_jaxpr: Callable, split: Callable, build: Callable, np_: Any,
                    args: tuple, mask: list[bool], calls: int) -> Callable[[], Any]:
    """The split of a program staged beforehand, alone: one staged program per call (both
    sides cache the split of a jaxpr object), `calls` of them staged now, untimed."""
    staged = iter([make_jaxpr(build(np_))(*args) for _ in range(calls)])
    return lambda: split(next(staged), mask, False)


def ad_tasks(np_: Any, api: Any, build: Callable, args: tuple) -> dict[str, Callable[[], Any]]:
    """Autodiff tracing time: each transformation staged under make_jaxpr (no execution)."""
    nums = tuple(range(len(args)))
    one = F32(1.0)
    return {
        "linearize": lambda: api.make_jaxpr(
            lambda *a: api.linearize(build(np_), *a)[1](*a))(*args),
        "vjp": lambda: api.make_jaxpr(lambda *a: api.vjp(build(np_), *a)[1](one))(*args),
        "grad": lambda: api.make_jaxpr(api.grad(build(np_), argnums=nums))(*args),
    }


AD_MAX_OPS = 1000  # vjp and grad stop at chains of 1000 operations; linearize goes on
BIG = 10000  # chains this long get at most 3 repeats (JAX's linearize takes seconds there)


def load_average() -> str:
    if sys.platform == "emscripten":  # Pyodide answers a made-up 0.1
        return "n/a"
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes and repeats (CI)")
    ap.add_argument("--repeat", type=int, default=7, help="calls per block")
    ap.add_argument("--rounds", type=int, default=3, help="blocks per side, targets' tasks")
    ap.add_argument("--sizes", type=lambda s: [int(n) for n in s.split(",")],
                    default=[10, 100, 1000, 10000], help="chain lengths (full run)")
    ap.add_argument("--shares", type=lambda s: [int(n) for n in s.split(",")],
                    default=[100, 1000], help="known and mixed chain lengths (full run)")
    opts = ap.parse_args(argv)
    sizes = [10, 100] if opts.quick else opts.sizes
    shares = [100] if opts.quick else opts.shares
    repeat = 3 if opts.quick else opts.repeat
    rounds = 1 if opts.quick else opts.rounds
    load_start = load_average()

    print(f"{'workload':<10} {'task':<11} {'engine ms':>10} {'jax ms':>10} {'ratio':>7} "
          f"{'us/eqn':>8}")
    per_eqn: dict[str, dict[int, float]] = {}
    ratios: dict[tuple[str, str], float] = {}
    for name, build, args, mask in workloads(sizes, shares):
        ours = tasks(pjnp, pe_engine.make_jaxpr, partial_eval_jaxpr_nounits, build, args, mask)
        theirs = (tasks(jjnp, jax.make_jaxpr, jpe.partial_eval_jaxpr_nounits, build, args, mask)
                  if jax is not None else {})
        n_eqns = len(pe_engine.make_jaxpr(build(pjnp))(*args).jaxpr.eqns)
        n_ops = int(name[5:]) if name.startswith("chain") else 0
        # the known and mixed chains time the split's known path: no autodiff rows
        keep = (set() if not n_ops and name != "mlp" else
                None if n_ops <= AD_MAX_OPS else {"linearize"})
        ours.update({k: v for k, v in ad_tasks(pjnp, pe_engine, build, args).items()
                     if keep is None or k in keep})
        if jax is not None:
            theirs.update({k: v for k, v in ad_tasks(jjnp, jax, build, args).items()
                           if keep is None or k in keep})
        reps = min(repeat, 3) if n_ops >= BIG else repeat
        share = name.startswith(("known", "mixed"))  # issue 45's split targets
        if share:
            ours["split_only"] = split_only_task(pe_engine.make_jaxpr, partial_eval_jaxpr_nounits,
                                                 build, pjnp, args, mask, rounds * (reps + 1))
            if jax is not None:
                theirs["split_only"] = split_only_task(
                    jax.make_jaxpr, jpe.partial_eval_jaxpr_nounits, build, jjnp, args, mask,
                    rounds * (reps + 1))
        for task, fn in ours.items():
            n_rounds = rounds if task in TARGET_TASKS or share else 1
            t_ours, t_jax = [], []
            for _ in range(n_rounds):
                t_ours.append(block(fn, reps))
                if task in theirs:
                    t_jax.append(block(theirs[task], reps))
            ours_ms = statistics.median(t_ours)
            jax_ms = statistics.median(t_jax) if t_jax else float("nan")
            ratios[name, task] = ours_ms / jax_ms
            print(f"{name:<10} {task:<11} {ours_ms * 1e3:>10.2f} {jax_ms * 1e3:>10.2f} "
                  f"{ours_ms / jax_ms:>7.2f} {ours_ms / n_eqns * 1e6:>8.1f}", flush=True)
            if n_ops:  # growth compares each size's fastest round (see the docstring)
                per_eqn.setdefault(task, {})[n_ops] = min(t_ours) / n_eqns
    growth: dict[str, float] = {}
    for task, by_n in per_eqn.items():
        if len(by_n) >= 2:
            hi, lo = sorted(by_n)[-1], sorted(by_n)[-2]
            growth[task] = by_n[hi] / by_n[lo]
            print(f"linearity {task}: {by_n[hi] * 1e6:.1f} us/eqn at {hi} ops vs "
                  f"{by_n[lo] * 1e6:.1f} at {lo}: x{growth[task]:.2f} (fastest blocks)")
    print_targets(ratios, growth, load_start, quick=opts.quick)
    return 0


def print_ratio_target(wl: str, task: str, r: float | None, quick: bool) -> None:
    if r is None:
        print(f"#   {wl:<10} {task:<11} not measured{' (--quick)' if quick else ''}")
    elif r != r:  # NaN: no JAX here
        print(f"#   {wl:<10} {task:<11} no JAX to compare with")
    else:
        verdict = "met" if r <= TARGET_RATIO else "MISSED"
        print(f"#   {wl:<10} {task:<11} ratio {r:.3f}  <= {TARGET_RATIO}: {verdict}")


def print_targets(ratios: dict[tuple[str, str], float], growth: dict[str, float],
                  load_start: str, quick: bool) -> None:
    """Issue 14's engine targets, each beside its measurement (lines start with '#')."""
    clock = "perf_counter" if CLOCK is time.perf_counter else "process_time"
    print(f"# load average (1, 5, 15 min): {load_start} at start, {load_average()} at end; "
          f"clock {clock}; Python {sys.version.split()[0]}")
    print(f"# target: engine/JAX <= {TARGET_RATIO} for make_jaxpr and split "
          f"at 100 and 1000 ops and the MLP")
    for wl in TARGET_WORKLOADS:
        for task in TARGET_TASKS:
            print_ratio_target(wl, task, ratios.get((wl, task)), quick)
    print(f"# target (issue 45): engine/JAX <= {TARGET_RATIO} for the split whatever share of "
          f"the work is known (x known: the known-heavy and mixed chains of 1000 ops), staging "
          f"included (split) and alone (split_only)")
    for wl in SHARE_TARGETS:
        for task in ("split", "split_only"):
            print_ratio_target(wl, task, ratios.get((wl, task)), quick)
    print(f"# target: linear growth of make_jaxpr and split (us/eqn at the longest chain over "
          f"the next, <= {LINEAR_MAX})")
    for task in TARGET_TASKS:
        if task in growth:
            verdict = "met" if growth[task] <= LINEAR_MAX else "MISSED"
            print(f"#   {task:<11} x{growth[task]:.2f}  <= {LINEAR_MAX}: {verdict}")
    others = [t for t in growth if t not in TARGET_TASKS]
    if others:
        print("# no target, no pathology: the autodiff tasks' growth (a quadratic path would show "
              "x10 from 1000 to 10000 ops, x10 from 10 to 100)")
        for task in others:
            print(f"#   {task:<11} x{growth[task]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
