"""Tracing speed: the engine and real JAX side by side, in one process.

Prints, per workload, the median time of each and the ratio engine/JAX (lower is
better; the target is at most 0.5), plus the engine's time per equation (us/eqn, over the
traced program's equations) so linear growth with chain length shows, and a linearity line per
task: time per equation at the longest chain against the next longest (10000 vs 1000 in a
full run; about 1.0 is linear, above 2 would be quadratic creeping in). Timings are printed,
never asserted.

    python3 bench/bench_engine.py            # full run
    python3 bench/bench_engine.py --quick    # CI smoke run: tiny repeats, checks it still works
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import pe_engine
import pe_engine.numpy as pjnp
from pe_engine.partial_eval import partial_eval_jaxpr_nounits

try:
    import jax
    import jax.numpy as jjnp
    from jax._src.interpreters import partial_eval as jpe
except ImportError:  # the engine's figures still print
    jax = None


def chain(np_: Any, n: int) -> Callable[..., Any]:
    """n operations alternating sin and mul, reading both inputs."""
    def f(x, y):
        for i in range(n // 2):
            x = np_.sin(x) * y if i % 2 else np_.cos(x) * y
        return x
    return f


def mlp(np_: Any) -> Callable[..., Any]:
    def f(W1, b1, W2, b2, x):
        h = np_.tanh(x @ W1 + b1)
        return np_.sum((h @ W2 + b2) ** 2)
    return f


F32 = np.float32
MLP_ARGS = (np.ones((64, 128), F32), np.ones(128, F32), np.ones((128, 10), F32),
            np.ones(10, F32), np.ones((32, 64), F32))


def workloads(sizes: list[int]) -> list[tuple[str, Callable[[Any], Callable], tuple, list[bool]]]:
    out = [(f"chain{n}", (lambda np_, n=n: chain(np_, n)), (F32(0.5), F32(1.5)), [False, True])
           for n in sizes]
    out.append(("mlp", mlp, MLP_ARGS, [True, True, True, True, False]))
    return out


def timeit(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm caches both sides keep (e.g. jnp dispatch tables)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def tasks(np_: Any, make_jaxpr: Callable, split: Callable, build: Callable, args: tuple,
          mask: list[bool]) -> dict[str, Callable[[], Any]]:
    # A fresh function per run: JAX caches traces by function identity.
    return {
        "make_jaxpr": lambda: make_jaxpr(build(np_))(*args),
        "split": lambda: split(make_jaxpr(build(np_))(*args), mask, False),
    }


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="tiny sizes and repeats (CI)")
    ap.add_argument("--repeat", type=int, default=7)
    opts = ap.parse_args(argv)
    sizes = [10, 100] if opts.quick else [10, 100, 1000, 10000]
    repeat = 1 if opts.quick else opts.repeat

    print(f"{'workload':<10} {'task':<11} {'engine ms':>10} {'jax ms':>10} {'ratio':>7} "
          f"{'us/eqn':>8}")
    per_eqn: dict[str, dict[int, float]] = {}
    for name, build, args, mask in workloads(sizes):
        ours = tasks(pjnp, pe_engine.make_jaxpr, partial_eval_jaxpr_nounits, build, args, mask)
        theirs = (tasks(jjnp, jax.make_jaxpr, jpe.partial_eval_jaxpr_nounits, build, args, mask)
                  if jax is not None else {})
        n_eqns = len(pe_engine.make_jaxpr(build(pjnp))(*args).jaxpr.eqns)
        n_ops = int(name[5:]) if name.startswith("chain") else 0
        keep = None if n_ops <= AD_MAX_OPS else {"linearize"}
        ours.update({k: v for k, v in ad_tasks(pjnp, pe_engine, build, args).items()
                     if keep is None or k in keep})
        if jax is not None:
            theirs.update({k: v for k, v in ad_tasks(jjnp, jax, build, args).items()
                           if keep is None or k in keep})
        reps = min(repeat, 3) if n_ops >= BIG else repeat
        for task, fn in ours.items():
            t_ours = timeit(fn, reps)
            t_jax = timeit(theirs[task], reps) if task in theirs else float("nan")
            print(f"{name:<10} {task:<11} {t_ours * 1e3:>10.2f} {t_jax * 1e3:>10.2f} "
                  f"{t_ours / t_jax:>7.2f} {t_ours / n_eqns * 1e6:>8.1f}", flush=True)
            if n_ops:
                per_eqn.setdefault(task, {})[n_ops] = t_ours / n_eqns
    for task, by_n in per_eqn.items():
        if len(by_n) >= 2:
            hi, lo = sorted(by_n)[-1], sorted(by_n)[-2]
            print(f"linearity {task}: {by_n[hi] * 1e6:.1f} us/eqn at {hi} ops vs "
                  f"{by_n[lo] * 1e6:.1f} at {lo}: x{by_n[hi] / by_n[lo]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
